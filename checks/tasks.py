"""Checks on the tasks asset: the right number of tasks, no repeats, every task self-contained."""

import dagster as dg

from awm.contracts import TaskSet
from awm.quality.tasks import task_findings
from awm_assets.constants import TASKS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


@dg.asset_check(asset=TASKS, name="tasks_valid", blocking=True, partitions_def=domain_partitions,
                description="Every task set the stage kept has the configured number of tasks, no two alike, and "
                            "each instruction states the values its reference solution supplies.")
def tasks_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                generator: GeneratorResource):
    def inspect(st, env_ids):
        return [f for env_id in env_ids
                for f in task_findings(st.read_model(env_id, "tasks.json", TaskSet), env_id, generator.tasks_per_env)]

    yield from validity_results(context, store, generator, TASKS, "tasks.json", inspect)


tasks_yield = yield_check(TASKS, "tasks.json",
                          "How many task sets of the partition the stage rejected, and why.")


task_checks = [tasks_valid, tasks_yield]
