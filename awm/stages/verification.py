"""Stage 6: verification reports. Prove each task solvable and its verifier honest.

For every task, through the runtime (reset, call, judge), on fresh copies of the initial database:
  reference     replay the reference solution; the verifier must say complete;
  null          the untouched database and no answer; the verifier must say incomplete;
  deterministic the verifier judges the reference's final state twice, with the same verdict;
  read-only     no verdict reports a refused write (the runtime hands verifiers read-only copies,
                so a verifier that tries to write crashes, and says so);
  mutations     wrong final states (awm/quality/mutations.py) that the verifier must reject.
Everything is recorded per task in report.json; only tasks that pass every proof are published.
"""

from __future__ import annotations

import re
import time

from awm.contracts import Scenario, SchemaSpec, Task, TaskReport, TaskSet, ToolSet, VerificationReport, VerifierSet
from awm.errors import AWMError
from awm.quality.mutations import Mutation, Mutator
from awm.runtime.environment import Environment
from awm.runtime.tools import is_error
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "verification_reports"
# What a verdict says when a verifier tried to write through its read-only handle.
_WRITE_REFUSED = re.compile(r"readonly database|read-only|not authorized", re.IGNORECASE)


def _same_verdict(a: dict, b: dict) -> bool:
    return a.get("complete") == b.get("complete") and a.get("evidence") == b.get("evidence")


def _refused_write(verdicts: list[dict]) -> bool:
    return any(_WRITE_REFUSED.search(e) for v in verdicts for e in v.get("evidence", []))


def prove_task(env: Environment, task: Task, mutations: list[Mutation]) -> TaskReport:
    """Every proof for one task (mutations only once the reference passes and the null fails)."""
    report = TaskReport(task_id=task.task_id, reference_passed=False, null_passed=False, steps=task.steps,
                        distinct_tools=task.distinct_tools)
    at_end = [m for m in mutations if not m.replay and m.after is None]
    midway = [m for m in mutations if not m.replay and m.after is not None]
    try:
        # Two requests, sent together: the reference solution, its final state judged twice (determinism)
        # and with each wrong answer, and the states it passes through judged for the mutants that stop
        # there; the null trajectory (no call, no answer).
        reference = env.send_trajectory([(call.tool, call.arguments) for call in task.reference_solution],
                                        task.task_id, [task.reference_answer] * 2 + [m.answer for m in at_end],
                                        [(m.after, m.answer) for m in midway])
        empty = env.send_trajectory([], task.task_id, [None])
        results, (first, again, *wrong) = reference.result()
        null = empty.result()[1][0]
    except AWMError as exc:  # the verifier code itself was rejected by the sandbox
        report.error = str(exc)
        return report
    for n, (call, result) in enumerate(zip(task.reference_solution, results), 1):
        if is_error(result):  # a failing step makes the reference fail whatever the calls after it did
            err = result["error"]
            report.error = f"step {n} {call.tool}: {err['code']}: {err['message']}"
            break
    verdicts = [first, again, null]
    answers = list(zip(at_end + midway, wrong)) if report.error is None else []
    report.reference_passed = report.error is None and first["complete"]
    report.null_passed = bool(null["complete"])
    report.deterministic = _same_verdict(first, again)
    if report.error is None and not first["complete"]:
        report.evidence += [f"reference: {e}" for e in first["evidence"]]
    if null["complete"]:
        report.evidence.append("null trajectory was judged complete")
    if not report.deterministic:
        report.evidence.append(f"the verifier judged the same final state twice: {first['complete']}, "
                               f"then {again['complete']}")
    if report.reference_passed and not report.null_passed:
        replayed = [m for m in mutations if m.replay]
        judged = answers + list(zip(replayed, env.judge_trajectories(
            task.task_id, [([(call.tool, call.arguments) for call in m.calls], m.answer) for m in replayed])))
        verdicts += [v for _, v in judged]
        report.mutations_tried = len(judged)
        report.mutations_killed = sum(not v["complete"] for _, v in judged)
        report.survivors = [f"{m.kind}: {m.description}" for m, v in judged if v["complete"]]
    report.read_only = not _refused_write(verdicts)
    if not report.read_only:
        report.evidence.append("the verifier tried to write to a database it may only read")
    return report


def build_verification(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        toolset = store.read_model(env_id, "tools.json", ToolSet)
        spec = store.read_model(env_id, "schema.json", SchemaSpec)
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        verifiers = VerifierSet.model_validate(backend.verifiers(scenario, tasks, toolset).model_dump())
        missing = {t.task_id for t in tasks.tasks} - {v.task_id for v in verifiers.verifiers}
        if missing:
            raise ValueError(f"no verifier for tasks {sorted(missing)}")
        db_path = store.database_path(env_id)
        started = time.perf_counter()
        env = Environment(env_id, store.read_text(env_id, "tools.py"), toolset, tasks, verifiers, db_path)
        try:
            mutator = Mutator(toolset, spec, db_path)
            reports = [prove_task(env, task, mutator.mutations(task)) for task in tasks.tasks]
        finally:
            env.close()
        proof_ms = (time.perf_counter() - started) * 1000
        report = VerificationReport(env_id=env_id, tasks=reports)
        tried = sum(r.mutations_tried for r in reports)
        killed = sum(r.mutations_killed for r in reports)
        return {"verifiers.json": dump_json(verifiers), "report.json": dump_json(report)}, {
            "tasks": len(reports),
            "reference_passed": sum(r.reference_passed for r in reports),
            "null_passed": sum(r.null_passed for r in reports),
            "deterministic": sum(r.deterministic for r in reports),
            "read_only": sum(r.read_only for r in reports),
            "mutations_tried": tried,
            "mutations_killed": killed,
            "publishable": len(report.passed),
            "proof_ms": round(proof_ms, 1),
        }

    return run_env_stage(store, STAGE, env_id,
                         ["scenario.json", "tasks.json", "schema.json", "env.db", "tools.py", "tools.json"],
                         ["verifiers.json", "report.json"], produce, backend, force)
