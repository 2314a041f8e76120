"""Checks on the verification_reports asset: solvability.

The stage proves every task (awm/stages/verification_reports.py): the reference solution replayed through the
runtime is judged complete, the null trajectory incomplete, the verifier is deterministic and read-only,
and wrong final states (mutations) are rejected. These checks make that proof visible per partition:
  verification_reports_valid         (blocking) every report covers exactly its tasks and verifiers and
                                     is internally consistent, so the catalog publishes only what passed;
  verification_reports_solvability   (WARN) the proof's yield: tasks that failed a proof, by proof, and
                                     the mutation kill rate against its target;
  verification_reports_yield         (WARN) environments the stage could not verify at all.
"""

import dagster as dg

from awm import artifacts
from awm.quality.findings import Finding
from awm.quality.verification_reports import (
    MUTATION_KILL_TARGET,
    failure_explanation,
    report_findings,
    solvability_summary,
)
from awm.registry import stage
from awm.stages.catalog import proof_table
from awm_assets.constants import VERIFICATION_REPORTS
from awm_assets.partitions import domain_partitions, partition_url
from checks.environments import checked_domains, partition_environments, per_domain, validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


def inspect_reports(store, env_ids: list[str]) -> list[Finding]:
    return [f for env_id in env_ids for f in report_findings(
        env_id, artifacts.REPORT.read(store, env_id), artifacts.TASKS.read(store, env_id),
        artifacts.VERIFIERS.read(store, env_id))]


@dg.asset_check(asset=VERIFICATION_REPORTS, name=stage(VERIFICATION_REPORTS).valid_check, blocking=True,
                partitions_def=domain_partitions,
                description="Every report the stage kept proves exactly the environment's tasks, each with a "
                            "verifier, and is consistent, so the catalog publishes only tasks that passed.")
def verification_reports_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                               generator: GeneratorResource):
    yield from validity_results(context, store, generator, VERIFICATION_REPORTS, inspect_reports)


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
        st, VERIFICATION_REPORTS, generator.slots, domain)) for domain in checked_domains(context)})


def solvability_result(st, envs) -> dg.AssetCheckResult:
    """One domain's proofs: every task that failed one, by proof, and the mutation kill rate."""
    summary = solvability_summary([artifacts.REPORT.read(st, env_id) for env_id in envs.valid])
    totals = summary.totals
    rows = ["| environment | task | failed proof | partition | why |", "|---|---|---|---|---|"]
    for env_id, t in summary.failing[:200]:
        rows.append(f"| {env_id} | {t.task_id} | {t.failure_check()} | "
                    f"[{envs.domain}]({partition_url(VERIFICATION_REPORTS, envs.domain)}) | "
                    f"{failure_explanation(t).replace('|', '/')[:300]} |")
    metadata = {
        "domain": envs.domain,
        "environments": summary.environments,
        "tasks": totals.tasks,
        "publishable_tasks": totals.tasks - len(summary.failing),
        "environments_with_unproven_tasks": ", ".join(summary.environments_with_unproven_tasks) or "none",
        "reference_passed": totals.reference_passed,
        "null_passed": totals.null_passed,
        "nondeterministic_verifiers": totals.tasks - totals.deterministic,
        "verifiers_that_tried_to_write": totals.tasks - totals.read_only,
        "mutations_tried": totals.mutations_tried,
        "mutations_killed": totals.mutations_killed,
        "mutation_kill_rate": dg.MetadataValue.float(round(totals.kill_rate, 4)),
        "failed_tasks_by_proof": dg.MetadataValue.json(summary.by_proof),
        "proofs_by_class": dg.MetadataValue.md(proof_table(totals.proofs)),
    }
    if summary.failing:
        metadata["failed_tasks"] = dg.MetadataValue.md("\n".join(rows))
    return dg.AssetCheckResult(passed=summary.passed, severity=dg.AssetCheckSeverity.WARN, metadata=metadata,
                               description=summary.describe()[:1000])


verification_reports_yield = yield_check(VERIFICATION_REPORTS,
                                         "How many environments of the partition the stage could not verify, and why.")


verification_checks = [verification_reports_valid, verification_reports_solvability, verification_reports_yield]
