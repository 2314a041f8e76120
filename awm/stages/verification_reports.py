"""Stage 6: verification reports. Prove each task solvable and its verifier honest.

For every task, through the runtime (reset, call, judge), on fresh copies of the initial database:
  reference     replay the reference solution; the verifier must say complete;
  null          the untouched database and no answer; the verifier must say incomplete;
  deterministic the verifier judges the reference's final state twice, with the same verdict;
  read-only     no verdict reports a refused write (the runtime hands verifiers read-only copies,
                so a verifier that tries to write crashes, and says so);
  mutations     wrong final states and shortcuts (awm/quality/mutations.py) that must be rejected: the
                wrong row, half a change, wrong, hedged, dumped and echoed answers, a collateral write
                through every write tool, each stated detail changed, a quoted text negated, a row the
                task created broken or moved on afterwards, an optional field the request never
                mentions set on a create;
  acceptance    valid alternatives that must pass: extra reads, skipped lookups, a wrong write undone,
                independent parts reordered, equivalent answer forms.
A verdict is the verifier's on the goals joined with the outcome: every row the trajectory changed must
be in the task's footprint, what its reference solution changes (kept in verifiers.json; an inserted row
whole, less the free-text columns the request leaves open).
Everything is recorded per task in report.json; only tasks that pass every proof are published.
"""

from __future__ import annotations

import time

from awm import artifacts
from awm.contracts import (
    Footprint,
    VerificationReport,
    VerifierSet,
)
from awm.quality.mutations import Mutator
from awm.quality.proofs import prove_task
from awm.quality.verification_reports import VerificationTotals
from awm.registry import stage
from awm.runtime.environment import Environment
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = stage("verification_reports")


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        tasks = artifacts.TASKS.read(store, env_id)
        toolset = artifacts.TOOLS_JSON.read(store, env_id)
        spec = artifacts.SCHEMA_JSON.read(store, env_id)
        scenario = artifacts.SCENARIO.read(store, env_id)
        verifiers = VerifierSet.model_validate(backend.verifiers(scenario, tasks, toolset).model_dump())
        missing = {t.task_id for t in tasks.tasks} - {v.task_id for v in verifiers.verifiers}
        if missing:
            raise ValueError(f"no verifier for tasks {sorted(missing)}")
        db_path = artifacts.DATABASE.read(store, env_id)
        started = time.perf_counter()
        env = Environment(env_id, artifacts.TOOLS_PY.read(store, env_id), toolset, tasks, verifiers, db_path)
        try:
            mutator = Mutator(toolset, spec, db_path, tasks.tasks)
            proven = [prove_task(env, task, mutator) for task in tasks.tasks]
        finally:
            env.close()
        proof_ms = (time.perf_counter() - started) * 1000
        reports = [report for report, _ in proven]
        footprints = {report.task_id: footprint for report, footprint in proven}
        verifiers = verifiers.model_copy(update={"verifiers": [
            v.model_copy(update={"footprint": Footprint.model_validate(footprints[v.task_id])
                                 if footprints.get(v.task_id) is not None else None})
            for v in verifiers.verifiers]})
        report = VerificationReport(env_id=env_id, tasks=reports)
        totals = VerificationTotals.of(reports)
        return {artifacts.VERIFIERS.name: dump_json(verifiers), artifacts.REPORT.name: dump_json(report)}, {
            "tasks": totals.tasks,
            "reference_passed": totals.reference_passed,
            "null_passed": totals.null_passed,
            "deterministic": totals.deterministic,
            "read_only": totals.read_only,
            "mutations_tried": totals.mutations_tried,
            "mutations_killed": totals.mutations_killed,
            "proofs": totals.proofs,
            "collateral_write_tools": f"{len({t for r in reports for t in r.collateral_tools})} of "
                                      f"{len(mutator.writes)}",
            "publishable": totals.publishable,
            "proof_ms": round(proof_ms, 1),
        }

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
