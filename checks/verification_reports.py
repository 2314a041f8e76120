"""Checks on the verification_reports asset: solvability.

The stage proves every task (awm/stages/verification.py): the reference solution replayed through the
runtime is judged complete, the null trajectory incomplete, the verifier is deterministic and read-only,
and wrong final states (mutations) are rejected. These checks make that proof visible per partition:
  verification_reports_valid         (blocking) every report covers exactly its tasks and verifiers and
                                     is internally consistent, so the catalog publishes only what passed;
  verification_reports_solvability   (WARN) the proof's yield: tasks that failed a proof, by proof, and
                                     the mutation kill rate against its target;
  verification_reports_yield         (WARN) environments the stage could not verify at all.
"""

import dagster as dg

from awm.contracts import ACCEPTANCE_CLASSES, MUTANT_CLASSES, TaskSet, VerificationReport, VerifierSet, proof_totals
from awm.quality.findings import Finding
from awm.stages.catalog import proof_table
from awm_assets.catalog import partition_url
from awm_assets.constants import VERIFICATION_REPORTS
from awm_assets.partitions import domain_partitions
from checks.environments import checked_domains, partition_environments, per_domain, validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource

MUTATION_KILL_TARGET = 0.9
CHECK_REPORT = "verification_report_consistent"


def report_findings(env_id: str, report: VerificationReport, tasks: TaskSet, verifiers: VerifierSet) -> list[Finding]:
    findings = []
    task_ids = {t.task_id for t in tasks.tasks}
    reported = [t.task_id for t in report.tasks]
    for missing in sorted(task_ids - set(reported)):
        findings.append(Finding(env_id, CHECK_REPORT, "task has no proof in report.json", task=missing))
    for extra in sorted(set(reported) - task_ids):
        findings.append(Finding(env_id, CHECK_REPORT, "report.json proves a task that tasks.json lacks", task=extra))
    for dup in sorted({t for t in reported if reported.count(t) > 1}):
        findings.append(Finding(env_id, CHECK_REPORT, "task proven twice in report.json", task=dup))
    for missing in sorted(task_ids - {v.task_id for v in verifiers.verifiers}):
        findings.append(Finding(env_id, CHECK_REPORT, "task has no verifier in verifiers.json", task=missing))
    for t in report.tasks:
        for name, proof in t.proofs.items():
            if name not in MUTANT_CLASSES + ACCEPTANCE_CLASSES:
                findings.append(Finding(env_id, CHECK_REPORT, f"unknown proof class {name!r}", task=t.task_id))
            if proof.right > proof.tried:
                findings.append(Finding(env_id, CHECK_REPORT, f"{name}: {proof.right} judged right of "
                                        f"{proof.tried} tried", task=t.task_id))
            if proof.tried - proof.right != len(proof.wrong):
                findings.append(Finding(env_id, CHECK_REPORT, f"{name}: the wrongly judged trajectories are not "
                                        "all listed", task=t.task_id))
    return findings


def inspect_reports(store, env_ids: list[str]) -> list[Finding]:
    return [f for env_id in env_ids for f in report_findings(
        env_id, store.read_model(env_id, "report.json", VerificationReport),
        store.read_model(env_id, "tasks.json", TaskSet), store.read_model(env_id, "verifiers.json", VerifierSet))]


@dg.asset_check(asset=VERIFICATION_REPORTS, name="verification_reports_valid", blocking=True,
                partitions_def=domain_partitions,
                description="Every report the stage kept proves exactly the environment's tasks, each with a "
                            "verifier, and is consistent, so the catalog publishes only tasks that passed.")
def verification_reports_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                               generator: GeneratorResource):
    yield from validity_results(context, store, generator, VERIFICATION_REPORTS, "report.json", inspect_reports)


@dg.asset_check(asset=VERIFICATION_REPORTS, name="verification_reports_solvability",
                partitions_def=domain_partitions,
                description="Per task: the reference solution passes, the null trajectory fails, the verifier is "
                            "deterministic and read-only, it rejects wrong final states and shortcuts (collateral "
                            "writes, hedged, dumped and echoed answers, changed details; mutation kill rate "
                            f"target {MUTATION_KILL_TARGET:.0%}) and accepts valid alternatives. Lists every task "
                            "that failed a proof, and why, and the rates by proof class.")
def verification_reports_solvability(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                                     generator: GeneratorResource):
    st = store.store()
    yield from per_domain(context, {domain: solvability_result(st, partition_environments(
        st, VERIFICATION_REPORTS, generator.slots, "report.json", domain)) for domain in checked_domains(context)})


def solvability_result(st, envs) -> dg.AssetCheckResult:
    """One domain's proofs: every task that failed one, by proof, and the mutation kill rate."""
    reports = [st.read_model(env_id, "report.json", VerificationReport) for env_id in envs.valid]
    tasks = [t for r in reports for t in r.tasks]
    tried = sum(t.mutations_tried for t in tasks)
    killed = sum(t.mutations_killed for t in tasks)
    kill_rate = killed / tried if tried else 1.0
    failing = [(r.env_id, t) for r in reports for t in r.tasks if not t.publishable]
    by_proof: dict[str, int] = {}
    for _, t in failing:
        by_proof[t.failure_check()] = by_proof.get(t.failure_check(), 0) + 1
    rows = ["| environment | task | failed proof | partition | why |", "|---|---|---|---|---|"]
    for env_id, t in failing[:200]:
        why = t.error or "; ".join(t.evidence + t.survivors + t.rejected_alternatives) or "-"
        rows.append(f"| {env_id} | {t.task_id} | {t.failure_check()} | "
                    f"[{envs.domain}]({partition_url(VERIFICATION_REPORTS, envs.domain)}) | {why.replace('|', '/')[:300]} |")
    metadata = {
        "domain": envs.domain,
        "environments": len(reports),
        "tasks": len(tasks),
        "publishable_tasks": len(tasks) - len(failing),
        "environments_with_unproven_tasks": ", ".join(sorted({env_id for env_id, _ in failing})) or "none",
        "reference_passed": sum(t.reference_passed for t in tasks),
        "null_passed": sum(t.null_passed for t in tasks),
        "nondeterministic_verifiers": sum(not t.deterministic for t in tasks),
        "verifiers_that_tried_to_write": sum(not t.read_only for t in tasks),
        "mutations_tried": tried,
        "mutations_killed": killed,
        "mutation_kill_rate": dg.MetadataValue.float(round(kill_rate, 4)),
        "failed_tasks_by_proof": dg.MetadataValue.json(by_proof),
        "proofs_by_class": dg.MetadataValue.md(proof_table(proof_totals(tasks))),
    }
    if failing:
        metadata["failed_tasks"] = dg.MetadataValue.md("\n".join(rows))
    passed = not failing and kill_rate >= MUTATION_KILL_TARGET
    description = (f"{len(tasks) - len(failing)} of {len(tasks)} task(s) proven; mutation kill rate "
                   f"{kill_rate:.1%} ({killed}/{tried})")
    if failing:
        description += "; unproven tasks in " + ", ".join(sorted({env_id for env_id, _ in failing}))
    return dg.AssetCheckResult(passed=passed, severity=dg.AssetCheckSeverity.WARN, metadata=metadata,
                               description=description[:1000])


verification_reports_yield = yield_check(VERIFICATION_REPORTS, "report.json",
                                         "How many environments of the partition the stage could not verify, and why.")


verification_checks = [verification_reports_valid, verification_reports_solvability, verification_reports_yield]
