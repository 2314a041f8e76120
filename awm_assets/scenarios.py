"""The scenarios asset."""

from awm import artifacts
from awm_assets.constants import SCENARIOS
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    lines = ["| environment | scenario | modules |", "|---|---|---|"]
    for o in outcomes:
        sc = artifacts.SCENARIO.read(store, o.env_id)
        lines.append(f"| {sc.env_id} | **{sc.name}**: {sc.description[:220]} | {', '.join(sc.modules)} |")
    return "\n".join(lines)


scenarios = stage_asset(
    SCENARIOS, kinds={"python", "json"}, preview=preview,
    description="Expand each seed domain into K distinct scenarios (sub-businesses with their own entity sets). "
                "Writes corpus/DOMAIN/ENV_ID/scenario.json under AWM_HOME.")
