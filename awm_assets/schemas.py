"""The schemas asset."""

import dagster as dg

from awm.contracts import SchemaSpec
from awm.domains import env_id_for
from awm.stages.schemas import build_schema
from awm_assets.constants import SCHEMAS, TASKS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    spec = store.read_model(first, "schema.json", SchemaSpec)
    lines = [f"Schema of **{first}** ({len(spec.tables)} tables)", "", "| table | columns | references |",
             "|---|---|---|"]
    for t in spec.tables:
        refs = ", ".join(sorted({c.references.split('.')[0] for c in t.columns if c.references}))
        lines.append(f"| {t.name} | {', '.join(c.name for c in t.columns)} | {refs} |")
    return "\n".join(lines)


@dg.asset(
    name=SCHEMAS,
    deps=[TASKS],
    kinds={"sqlite", "sqlalchemy"},
    code_version="schemas-1",
    tags={"stage": "3"},
    **STAGE_ASSET_OPTIONS,
)
def schemas(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
            generator: GeneratorResource) -> dg.MaterializeResult:
    """A SQLite schema per scenario, designed to support its tasks: schema.json (tables, columns,
    keys, enums, ranges) and schema.sql (DDL emitted through SQLAlchemy, proven to execute)."""
    return run_stage(context, store, generator, SCHEMAS,
                     lambda st, domain, slot, backend: build_schema(st, env_id_for(domain, slot), backend), preview)
