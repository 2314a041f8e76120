"""The databases asset."""


import dagster as dg

from awm.domains import env_id_for
from awm.stages.databases import build_database
from awm_assets.constants import DATABASES, SCHEMAS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    first = outcomes[0]
    counts = first.metrics.get("rows_per_table") or {}
    lines = [f"Initial state of **{first.env_id}** ({sum(counts.values())} rows)", "", "| table | rows |", "|---|---|"]
    lines += [f"| {table} | {n} |" for table, n in counts.items()]
    return "\n".join(lines)


@dg.asset(
    name=DATABASES,
    deps=[SCHEMAS],
    kinds={"sqlite"},
    code_version="databases-1",
    tags={"stage": "4"},
    **STAGE_ASSET_OPTIONS,
)
def databases(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
              generator: GeneratorResource) -> dg.MaterializeResult:
    """The initial state env.db: realistic, foreign-key-consistent rows on a fixed reference date,
    byte-identical for the same seed."""
    return run_stage(context, store, generator, DATABASES,
                     lambda st, domain, slot, backend: build_database(st, env_id_for(domain, slot), backend), preview)
