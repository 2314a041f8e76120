"""The tasks asset."""

from awm import artifacts
from awm_assets.constants import TASKS
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    taskset = artifacts.TASKS.read(store, first)
    lines = [f"Tasks of **{first}** (acting user: {taskset.acting_user})", "",
             "| task | kind | steps | tools | instruction |", "|---|---|---|---|---|"]
    for t in taskset.tasks:
        lines.append(f"| {t.task_id} | {t.kind} | {t.steps} | {t.distinct_tools} | {t.instruction} |")
    return "\n".join(lines)


tasks = stage_asset(
    TASKS, kinds={"python", "json"}, preview=preview,
    description="N single-sentence user tasks per scenario, each carrying every value it needs, with a reference "
                "solution (tool calls) and goals. Writes tasks.json.")
