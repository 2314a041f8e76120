"""Checks on the tasks asset: the right number of tasks, no repeats, every task self-contained."""

import dagster as dg

from awm import artifacts
from awm.quality.tasks import task_findings
from awm.registry import stage
from awm_assets.constants import TASKS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


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


task_checks = [tasks_valid, tasks_yield]
