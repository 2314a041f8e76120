"""Stage 6: verification reports. Prove each task solvable and its verifier honest.

For every task: replay the reference solution through the sandboxed tools on a
fresh copy of the initial database and run the verifier (it must say complete);
run the verifier on the untouched database with no answer, the null trajectory
(it must say incomplete). Only tasks that pass both are published.
"""

from __future__ import annotations

from awm.contracts import Scenario, Task, TaskReport, TaskSet, ToolSet, VerificationReport, VerifierSet
from awm.errors import AWMError
from awm.runtime.environment import Environment
from awm.runtime.tools import is_error
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "verification_reports"


def replay_reference_solution(env: Environment, task: Task) -> tuple[dict | None, str | None]:
    """Run the task's reference calls on a fresh episode; return (verdict, error)."""
    with env.reset(task.task_id) as episode:
        for n, call in enumerate(task.reference_solution, 1):
            result = episode.call(call.tool, call.arguments)
            if is_error(result):
                return None, f"step {n} {call.tool}: {result['error']['code']}: {result['error']['message']}"
        return episode.judge(task.reference_answer), None


def run_null_trajectory(env: Environment, task: Task) -> dict:
    with env.reset(task.task_id) as episode:
        return episode.judge(None)


def verify_task(env: Environment, task: Task) -> TaskReport:
    try:
        verdict, error = replay_reference_solution(env, task)
        null = run_null_trajectory(env, task)
    except AWMError as exc:  # the verifier code itself was rejected by the sandbox
        return TaskReport(task_id=task.task_id, reference_passed=False, null_passed=False, steps=task.steps,
                          distinct_tools=task.distinct_tools, error=str(exc))
    evidence = []
    if verdict is not None and not verdict["complete"]:
        evidence += [f"reference: {e}" for e in verdict["evidence"]]
    if null["complete"]:
        evidence.append("null trajectory was judged complete")
    return TaskReport(
        task_id=task.task_id,
        reference_passed=bool(verdict and verdict["complete"]),
        null_passed=bool(null["complete"]),
        steps=task.steps,
        distinct_tools=task.distinct_tools,
        error=error,
        evidence=evidence,
    )


def build_verification(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        toolset = store.read_model(env_id, "tools.json", ToolSet)
        verifiers = VerifierSet.model_validate(backend.verifiers(scenario, tasks, toolset).model_dump())
        missing = {t.task_id for t in tasks.tasks} - {v.task_id for v in verifiers.verifiers}
        if missing:
            raise ValueError(f"no verifier for tasks {sorted(missing)}")
        env = Environment(env_id, store.read_text(env_id, "tools.py"), toolset, tasks, verifiers,
                          store.database_path(env_id))
        try:
            reports = [verify_task(env, task) for task in tasks.tasks]
        finally:
            env.close()
        report = VerificationReport(env_id=env_id, tasks=reports)
        return {"verifiers.json": dump_json(verifiers), "report.json": dump_json(report)}, {
            "tasks": len(reports),
            "reference_passed": sum(r.reference_passed for r in reports),
            "null_passed": sum(r.null_passed for r in reports),
            "publishable": len(report.passed),
        }

    return run_env_stage(store, STAGE, env_id, ["scenario.json", "tasks.json", "env.db", "tools.py", "tools.json"],
                         ["verifiers.json", "report.json"], produce, backend, force)
