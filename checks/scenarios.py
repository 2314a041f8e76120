"""Checks on the scenarios asset: each scenario is where it says it is, and no two of a domain are
near-duplicates (awm/quality/scenarios.py explains the similarity measure)."""

import dagster as dg

from awm import artifacts
from awm.quality.scenarios import NEAR_DUPLICATE_SIMILARITY, domain_duplicate_findings, scenario_identity_findings
from awm.registry import stage
from awm_assets.constants import SCENARIOS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


def inspect_scenarios(store, env_ids: list[str]) -> list:
    scenarios = [artifacts.SCENARIO.read(store, env_id) for env_id in env_ids]
    findings = [f for env_id, s in zip(env_ids, scenarios) for f in scenario_identity_findings(s, env_id)]
    return findings + domain_duplicate_findings(scenarios)


@dg.asset_check(asset=SCENARIOS, name=stage(SCENARIOS).valid_check, blocking=True, partitions_def=domain_partitions,
                description=f"Every scenario the stage kept is stored under its own id and domain, and no two of a "
                            f"domain are near-duplicates (similarity >= {NEAR_DUPLICATE_SIMILARITY}).")
def scenarios_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                    generator: GeneratorResource):
    yield from validity_results(context, store, generator, SCENARIOS, inspect_scenarios)


scenarios_yield = yield_check(SCENARIOS,
                              "How many scenarios of the partition the stage rejected (near-duplicates), and why.")


scenario_checks = [scenarios_valid, scenarios_yield]
