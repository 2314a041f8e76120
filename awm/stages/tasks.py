"""Stage 2: tasks. N self-contained user tasks per scenario, each with a reference solution."""

from __future__ import annotations

from awm import artifacts
from awm.contracts import TaskSet
from awm.quality.gates import gate_tasks
from awm.registry import stage
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = stage("tasks")
MIN_TASKS = 1


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = artifacts.SCENARIO.read(store, env_id)
        taskset = TaskSet.model_validate(backend.tasks(scenario).model_dump())
        if taskset.env_id != env_id:
            raise ValueError(f"tasks are for {taskset.env_id!r}, not {env_id!r}")
        gate_tasks(env_id, taskset, backend)
        steps = [t.steps for t in taskset.tasks]
        notes = getattr(backend, "stage_notes", None)
        return {artifacts.TASKS.name: dump_json(taskset)}, {
            **(notes(STAGE.name, env_id) if callable(notes) else {}),
            "tasks": len(taskset.tasks),
            "questions": sum(t.kind == "question" for t in taskset.tasks),
            "mean_steps": round(sum(steps) / len(steps), 2),
            "mean_distinct_tools": round(sum(t.distinct_tools for t in taskset.tasks) / len(steps), 2),
        }

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
