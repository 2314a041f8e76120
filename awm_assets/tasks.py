"""The tasks asset."""

import dagster as dg

from awm.contracts import TaskSet
from awm.domains import env_id_for
from awm.stages.tasks import build_tasks
from awm_assets.constants import SCENARIOS, TASKS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    taskset = store.read_model(first, "tasks.json", TaskSet)
    lines = [f"Tasks of **{first}** (acting user: {taskset.acting_user})", "",
             "| task | kind | steps | tools | instruction |", "|---|---|---|---|---|"]
    for t in taskset.tasks:
        lines.append(f"| {t.task_id} | {t.kind} | {t.steps} | {t.distinct_tools} | {t.instruction} |")
    return "\n".join(lines)


@dg.asset(
    name=TASKS,
    deps=[SCENARIOS],
    kinds={"python", "json"},
    code_version="tasks-1",
    tags={"stage": "2"},
    **STAGE_ASSET_OPTIONS,
)
def tasks(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
          generator: GeneratorResource) -> dg.MaterializeResult:
    """N single-sentence user tasks per scenario, each carrying every value it needs, with a reference
    solution (tool calls) and goals. Writes tasks.json."""
    return run_stage(context, store, generator, TASKS,
                     lambda st, domain, slot, backend: build_tasks(st, env_id_for(domain, slot), backend), preview)
