"""Checks on the tasks asset: the right number of tasks, no repeats, every task self-contained; and a WARN when
a partition's tasks are mostly near-duplicates of one another (awm/quality/diversity.py)."""

import time

import dagster as dg

from awm import artifacts
from awm.quality.diversity import NEAR_DUPLICATE, PARTITION_DUPLICATE_WARN, Masker, partition_duplicate_shares
from awm.quality.tasks import task_findings
from awm.registry import stage
from awm.store import ArtifactStore
from awm_assets.constants import TASKS
from awm_assets.partitions import domain_partitions
from checks.environments import (
    PartitionEnvironments,
    checked_domains,
    partition_environments,
    per_domain,
    validity_results,
    yield_check,
)
from resources import ArtifactStoreResource, GeneratorResource

MAX_EXAMPLES = 20


@dg.asset_check(asset=TASKS, name=stage(TASKS).valid_check, blocking=True, partitions_def=domain_partitions,
                description="Every task set the stage kept has the configured number of tasks, no two alike, and "
                            "each instruction states the values its reference solution supplies.")
def tasks_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                generator: GeneratorResource):
    def inspect(st, env_ids):
        return [f for env_id in env_ids
                for f in task_findings(artifacts.TASKS.read(st, env_id), env_id, generator.tasks_per_env)]

    yield from validity_results(context, store, generator, TASKS, inspect)


tasks_yield = yield_check(TASKS,
                          "How many task sets of the partition the stage rejected, and why.")


@dg.asset_check(asset=TASKS, name="tasks_near_duplicates", partitions_def=domain_partitions,
                description=f"WARN when most of a domain partition's tasks are near-duplicates of one another: "
                            f"instructions whose masked word 3-grams (values and the domain's nouns masked) have a "
                            f"Jaccard similarity of at least {NEAR_DUPLICATE}; warns above "
                            f"{PARTITION_DUPLICATE_WARN:.0%} of the partition's tasks.")
def tasks_near_duplicates(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                          generator: GeneratorResource):
    st = store.store()
    yield from per_domain(context, {
        domain: near_duplicate_result(st, partition_environments(st, TASKS, generator.slots, domain))
        for domain in checked_domains(context)})


def near_duplicate_result(st: ArtifactStore, envs: PartitionEnvironments) -> dg.AssetCheckResult:
    """One domain's WARN result: the share of its published tasks that nearly repeat another of its tasks."""
    started = time.perf_counter()
    tasks_by_env: dict[str, tuple[list[str], Masker]] = {}
    for env_id in envs.valid:
        scenario = artifacts.SCENARIO.read(st, env_id)
        texts = [t.instruction for t in artifacts.TASKS.read(st, env_id).tasks]
        tasks_by_env[env_id] = (texts, Masker.for_environment(
            scenario.labels, extra=scenario.items + scenario.item_categories))
    share, flagged = partition_duplicate_shares(tasks_by_env)
    total = sum(len(texts) for texts, _ in tasks_by_env.values())
    metadata = {
        "domain": envs.domain,
        "environments_checked": len(envs.valid),
        "tasks": total,
        "near_duplicates": len(flagged),
        "near_duplicate_share": dg.MetadataValue.float(round(share, 4)),
        "threshold": PARTITION_DUPLICATE_WARN,
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    if flagged:
        metadata["examples"] = dg.MetadataValue.md("\n".join(
            f"- {env_id}: {text}" for env_id, text in flagged[:MAX_EXAMPLES]))
    passed = share <= PARTITION_DUPLICATE_WARN
    description = (f"{len(flagged)} of {total} task(s) are near-duplicates of another task of the domain "
                   f"({share:.1%})" + ("" if passed else f", above {PARTITION_DUPLICATE_WARN:.0%}"))
    return dg.AssetCheckResult(passed=passed, severity=dg.AssetCheckSeverity.WARN, metadata=metadata,
                               description=description)


task_checks = [tasks_valid, tasks_yield, tasks_near_duplicates]
