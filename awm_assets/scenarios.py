"""The scenarios asset."""

import dagster as dg

from awm.contracts import Scenario
from awm.stages.scenarios import build_scenario
from awm_assets.constants import SCENARIOS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    lines = ["| environment | scenario | modules |", "|---|---|---|"]
    for o in outcomes:
        sc = store.read_model(o.env_id, "scenario.json", Scenario)
        lines.append(f"| {sc.env_id} | **{sc.name}**: {sc.description[:220]} | {', '.join(sc.modules)} |")
    return "\n".join(lines)


@dg.asset(
    name=SCENARIOS,
    kinds={"python", "json"},
    code_version="scenarios-1",
    tags={"stage": "1"},
    **STAGE_ASSET_OPTIONS,
)
def scenarios(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
              generator: GeneratorResource) -> dg.MaterializeResult:
    """Expand each seed domain into K distinct scenarios (sub-businesses with their own entity sets).
    Writes corpus/DOMAIN/ENV_ID/scenario.json under AWM_HOME."""
    return run_stage(context, store, generator, SCENARIOS,
                     lambda st, domain, slot, backend: build_scenario(st, domain, slot, backend), preview)


