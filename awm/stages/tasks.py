"""Stage 2: tasks. N self-contained user tasks per scenario, each with a reference solution."""

from __future__ import annotations

from awm.contracts import Scenario, TaskSet
from awm.quality.gates import gate_tasks
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "tasks"
MIN_TASKS = 1


def build_tasks(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        taskset = TaskSet.model_validate(backend.tasks(scenario).model_dump())
        if taskset.env_id != env_id:
            raise ValueError(f"tasks are for {taskset.env_id!r}, not {env_id!r}")
        gate_tasks(env_id, taskset, backend)
        steps = [t.steps for t in taskset.tasks]
        return {"tasks.json": dump_json(taskset)}, {
            "tasks": len(taskset.tasks),
            "questions": sum(t.kind == "question" for t in taskset.tasks),
            "mean_steps": round(sum(steps) / len(steps), 2),
            "mean_distinct_tools": round(sum(t.distinct_tools for t in taskset.tasks) / len(steps), 2),
        }

    return run_env_stage(store, STAGE, env_id, ["scenario.json"], ["tasks.json"], produce, backend, force)
