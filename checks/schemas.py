"""Checks on the schemas asset: the DDL executes; every table has a primary key; every foreign key
names an existing table and column; schema.sql agrees with schema.json; no authentication tables."""

import dagster as dg

from awm import artifacts
from awm.quality.schemas import schema_findings
from awm.registry import stage
from awm_assets.constants import SCHEMAS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


def inspect_schemas(store, env_ids: list[str]) -> list:
    return [f for env_id in env_ids for f in schema_findings(artifacts.SCHEMA_JSON.read(store, env_id),
                                                             artifacts.SCHEMA_SQL.read(store, env_id))]


@dg.asset_check(asset=SCHEMAS, name=stage(SCHEMAS).valid_check, blocking=True, partitions_def=domain_partitions,
                description="Every schema the stage kept executes in SQLite, has a primary key on every table and "
                            "foreign keys that resolve (as SQLite reads the DDL), matches schema.json, and models "
                            "no authentication data.")
def schemas_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                  generator: GeneratorResource):
    yield from validity_results(context, store, generator, SCHEMAS, inspect_schemas)


schemas_yield = yield_check(SCHEMAS,
                            "How many schemas of the partition the stage rejected, and why.")


schema_checks = [schemas_valid, schemas_yield]
