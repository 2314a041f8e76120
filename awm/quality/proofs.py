"""The proofs of one task: its reference solution, the null trajectory, mutants and valid alternatives.

Run through the runtime (reset, call, judge) on fresh copies of the initial database; the verification
stage (awm/stages/verification_reports.py) records them in report.json, and the LLM backend runs them on each
verifier it is given before it hands the verifiers on (a verifier that fails a proof is fed back).
"""

from __future__ import annotations

import re

from awm.contracts import ProofClass, Task, TaskReport
from awm.errors import AWMError
from awm.quality.mutations import Mutation, Mutator
from awm.runtime.environment import Environment
from awm.runtime.tools import is_error

# Mutants that are no mutants when they end in the reference's own final state (a tool that ignores the
# optional argument set, a write that leaves the created row as it was).
SAME_STATE_SKIPPED = ("created_then_broken", "extra_transition", "unrequested_field")
# What a verdict says when a verifier tried to write through its read-only handle.
_WRITE_REFUSED = re.compile(r"readonly database|read-only|not authorized", re.IGNORECASE)


def _same_verdict(a: dict, b: dict) -> bool:
    return a.get("complete") == b.get("complete") and a.get("evidence") == b.get("evidence")


def _refused_write(verdicts: list[dict]) -> bool:
    return any(_WRITE_REFUSED.search(e) for v in verdicts for e in v.get("evidence", []))


def _record(report: TaskReport, mutation: Mutation, verdict: dict) -> None:
    """Count one judged trajectory in its class: right when a mutant is rejected or a valid variant accepted."""
    proof = report.proofs.setdefault(mutation.kind, ProofClass())
    proof.tried += 1
    if bool(verdict["complete"]) == mutation.must_pass:
        proof.right += 1
    elif mutation.kind == "refused_attempt":  # why: the tools took the call, or refused it otherwise
        proof.wrong.append(f"{mutation.description}: {'; '.join(verdict.get('evidence', []))[:300]}")
    else:
        proof.wrong.append(mutation.description if mutation.must_pass
                           else f"{mutation.description} (judged complete)")


def _calls(calls) -> list[tuple[str, dict]]:
    return [(call.tool, call.arguments) for call in calls]


def _shared_prefix(reference, calls) -> int:
    """How many calls a trajectory shares with the reference solution before they part ways."""
    n = 0
    while n < min(len(reference), len(calls)) and reference[n] == calls[n]:
        n += 1
    return n


def _undoable(env: Environment, task: Task, mutations: list[Mutation]) -> list[Mutation]:
    """The trajectories, less the corrected writes whose undo does not restore everything (a tool that also
    sets a status or a timestamp): replayed alone, a wrong write and its undo must leave no change."""
    corrections = [m for m in mutations if m.kind == "corrected_write"]
    if not corrections:
        return mutations
    pending = {id(m): env.send_trajectory(_calls(m.calls[:2]), task.task_id, footprint="reference")
               for m in corrections}
    kept = []
    for mutation in mutations:
        trajectory = pending.get(id(mutation))
        if trajectory is not None:
            trajectory.result()
            if any(trajectory.footprint.values()):
                continue
        kept.append(mutation)
    return kept


def _refused_as_declared(task: Task, mutation: Mutation, outcome: list, verdict: dict | None) -> dict:
    """The verdict on an infeasible request tried anyway, failed unless its last call (the refused one) came
    back as an error with the code the task's rule names: a tool that takes the call, or refuses it for
    another rule, makes the task's refusal untrue."""
    refusal = next(r for r in task.refusals if r.call == mutation.calls[-1])
    result = outcome[-1] if outcome else None
    code = str(result["error"].get("code", "")).lower() if is_error(result) else None
    if verdict is None:
        return {"complete": False, "evidence": [f"the attempt of {refusal.call.tool} could not be judged"]}
    if code == refusal.code:
        return verdict
    said = f"returned the error {code!r}" if code is not None else "was not refused"
    return {**verdict, "complete": False,
            "evidence": [f"{refusal.call.tool} {said}; the task's rule is {refusal.code!r}"]}


def prove_task(env: Environment, task: Task, mutator: Mutator) -> tuple[TaskReport, dict | None]:
    """Every proof for one task, and its footprint (what the reference changes; None if it could not be
    replayed). Mutants and acceptance variants are tried only once the reference passes and the null fails."""
    report = TaskReport(task_id=task.task_id, reference_passed=False, null_passed=False, steps=task.steps,
                        distinct_tools=task.distinct_tools)
    mutations = mutator.mutations(task)
    at_end = [m for m in mutations if not m.replay and m.after is None]
    midway = [m for m in mutations if not m.replay and m.after is not None]
    try:
        # Two requests, sent together: the reference solution (its changes become the footprint), its final
        # state judged twice (determinism) and with each other answer, and the states it passes through
        # judged for the mutants that stop there; the null trajectory (no call, no answer, no change).
        reference = env.send_trajectory(_calls(task.reference_solution), task.task_id,
                                        [task.reference_answer] * 2 + [m.answer for m in at_end],
                                        [(m.after, m.answer) for m in midway], footprint="reference")
        empty = env.send_trajectory([], task.task_id, [None], footprint={})
        results, (first, again, *answered) = reference.result()
        null = empty.result()[1][0]
    except AWMError as exc:  # the verifier code itself was rejected by the sandbox
        report.error = str(exc)
        return report, None
    footprint = reference.footprint
    for n, (call, result) in enumerate(zip(task.reference_solution, results), 1):
        if is_error(result):  # a failing step makes the reference fail whatever the calls after it did
            err = result["error"]
            report.error = f"step {n} {call.tool}: {err['code']}: {err['message']}"
            break
    verdicts = [first, again, null]
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
        replayed = [m for m in mutations if m.replay] + _undoable(env, task, mutator.after_reference(task, footprint))
        # One more replay of the reference, each trajectory a branch off it where the two part ways (a
        # collateral write is the reference plus one call: judged from its final state, then undone).
        shared = [_shared_prefix(task.reference_solution, m.calls) for m in replayed]
        branches: list = []
        states: list = []
        if replayed:
            branched = env.send_trajectory(_calls(task.reference_solution), task.task_id, footprint=footprint,
                                           branches=[(n, _calls(m.calls[n:]), m.answer,
                                                      [i - n for i in m.must_succeed if i >= n],
                                                      f"{m.kind}:{m.group}" if m.group else None)
                                                     for n, m in zip(shared, replayed)])
            branched.result()
            branches, states = branched.branches, branched.states
        judged = list(zip(at_end + midway, answered))
        changed = first["diff"]["changed"]
        done: set[tuple[str, str]] = set()  # (kind, group) of the probes that already counted
        for mutation, n, (outcome, verdict), state in zip(replayed, shared, branches, states):
            if mutation.group is not None and (mutation.kind, mutation.group) in done:
                continue
            if mutation.kind == "refused_attempt":
                verdict = _refused_as_declared(task, mutation, outcome, verdict)
            if verdict is None or any(is_error(outcome[i - n]) for i in mutation.must_succeed if i >= n):
                continue  # the write it is about was refused: not the trajectory it claims to be
            if mutation.kind in SAME_STATE_SKIPPED and state == reference.state:
                continue  # the tool took the call and ended where the reference ends: not a wrong final state
            if mutation.kind == "collateral_write":
                if verdict["diff"]["changed"] <= changed:
                    continue  # the extra write changed nothing (the row already held those values)
                report.collateral_tools = sorted(set(report.collateral_tools) | {mutation.calls[-1].tool})
            if mutation.group is not None:
                done.add((mutation.kind, mutation.group))
            judged.append((mutation, verdict))
        for mutation, verdict in judged:
            _record(report, mutation, verdict)
        verdicts += [v for _, v in judged]
    report.read_only = not _refused_write(verdicts)
    if not report.read_only:
        report.evidence.append("the verifier tried to write to a database it may only read")
    return report, footprint
