"""What the verification reports add up to: totals over tasks, a report's consistency, and a domain's proofs.

`VerificationTotals` is the one place verification counts are summed (the stage's metrics, the checks,
the launcher's summary, the catalog); `report_findings` is the rule the blocking check applies to each
report.json; `solvability_summary` rolls a domain's reports up for the WARN solvability check.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from awm.contracts import (
    ACCEPTANCE_CLASSES,
    MUTANT_CLASSES,
    TaskReport,
    TaskSet,
    VerificationReport,
    VerifierSet,
    proof_totals,
)
from awm.quality.findings import Finding

CHECK_REPORT = "verification_report_consistent"
MUTATION_KILL_TARGET = 0.9


@dataclass(frozen=True)
class VerificationTotals:
    """Counts over a set of task reports."""

    tasks: int
    reference_passed: int
    null_passed: int
    deterministic: int
    read_only: int
    mutations_tried: int
    mutations_killed: int
    publishable: int
    proofs: dict[str, dict[str, int]] = field(default_factory=dict)  # per proof class: tried, right

    @classmethod
    def of(cls, tasks: Iterable[TaskReport]) -> VerificationTotals:
        tasks = list(tasks)
        return cls(
            tasks=len(tasks),
            reference_passed=sum(t.reference_passed for t in tasks),
            null_passed=sum(t.null_passed for t in tasks),
            deterministic=sum(t.deterministic for t in tasks),
            read_only=sum(t.read_only for t in tasks),
            mutations_tried=sum(t.mutations_tried for t in tasks),
            mutations_killed=sum(t.mutations_killed for t in tasks),
            publishable=sum(t.publishable for t in tasks),
            proofs=proof_totals(tasks),
        )

    @property
    def null_rejected(self) -> int:
        return self.tasks - self.null_passed

    @property
    def kill_rate(self) -> float:
        return self.mutations_killed / self.mutations_tried if self.mutations_tried else 1.0

    def alternatives(self) -> tuple[int, int]:
        """Valid alternatives (accepted, tried) over every acceptance class."""
        return (sum(self.proofs[c]["right"] for c in ACCEPTANCE_CLASSES),
                sum(self.proofs[c]["tried"] for c in ACCEPTANCE_CLASSES))


def report_findings(env_id: str, report: VerificationReport, tasks: TaskSet, verifiers: VerifierSet) -> list[Finding]:
    """A report covers exactly the environment's tasks, each with a verifier, and its counts agree."""
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


@dataclass
class SolvabilitySummary:
    """A domain's proofs: totals, and every task that failed one (with the first proof it failed)."""

    environments: int
    totals: VerificationTotals
    failing: list[tuple[str, TaskReport]]  # (env_id, task report)

    @property
    def by_proof(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for _, t in self.failing:
            counts[t.failure_check()] = counts.get(t.failure_check(), 0) + 1
        return counts

    @property
    def environments_with_unproven_tasks(self) -> list[str]:
        return sorted({env_id for env_id, _ in self.failing})

    @property
    def passed(self) -> bool:
        return not self.failing and self.totals.kill_rate >= MUTATION_KILL_TARGET

    def describe(self) -> str:
        t = self.totals
        text = (f"{t.tasks - len(self.failing)} of {t.tasks} task(s) proven; mutation kill rate "
                f"{t.kill_rate:.1%} ({t.mutations_killed}/{t.mutations_tried})")
        if self.failing:
            text += "; unproven tasks in " + ", ".join(self.environments_with_unproven_tasks)
        return text


def failure_explanation(task: TaskReport) -> str:
    """Why a task failed its proofs, in one line."""
    return task.error or "; ".join(task.evidence + task.survivors + task.rejected_alternatives) or "-"


def solvability_summary(reports: list[VerificationReport]) -> SolvabilitySummary:
    tasks = [t for r in reports for t in r.tasks]
    failing = [(r.env_id, t) for r in reports for t in r.tasks if not t.publishable]
    return SolvabilitySummary(len(reports), VerificationTotals.of(tasks), failing)
