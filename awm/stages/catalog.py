"""The catalog: publish the tasks that passed verification, list what did not.

An environment ends in one of three states:
  published    every stage succeeded and at least `min_tasks` of its tasks passed
               verification; its passing tasks go into catalog.jsonl
  quarantined  every stage succeeded but some tasks failed verification (the failing
               tasks are left out), or fewer than `min_tasks` passed (all are left out)
  failed       a stage failed (failed.json names the stage and the reason)
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from awm.contracts import CatalogEntry, Scenario, TaskSet, VerificationReport
from awm.domains import split_env_id
from awm.errors import AWMError
from awm.store import ArtifactStore, atomic_write_text

DEFAULT_MIN_TASKS = 5


@dataclass
class EnvStatus:
    env_id: str
    domain: str
    status: str  # published | quarantined | failed | missing
    stage: str | None = None
    reason: str | None = None
    published_tasks: int = 0
    tasks: int = 0


@dataclass
class CatalogSummary:
    entries: list[CatalogEntry] = field(default_factory=list)
    statuses: list[EnvStatus] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for s in self.statuses if s.status == status)

    def by_domain(self) -> dict[str, Counter]:
        table: dict[str, Counter] = defaultdict(Counter)
        for s in self.statuses:
            table[s.domain][s.status] += 1
        return dict(sorted(table.items()))


def environment_status(store: ArtifactStore, env_id: str, min_tasks: int) -> tuple[EnvStatus, list[CatalogEntry]]:
    domain, _ = split_env_id(env_id)
    failure = store.failure(env_id)
    if failure:
        return EnvStatus(env_id, domain, "failed", failure.stage, failure.reason), []
    if not store.exists(env_id, "report.json"):
        return EnvStatus(env_id, domain, "missing", None, "not built yet (no report.json)"), []
    try:
        report = store.read_model(env_id, "report.json", VerificationReport)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        scenario = store.read_model(env_id, "scenario.json", Scenario)
    except AWMError as exc:
        return EnvStatus(env_id, domain, "failed", "catalog", str(exc)), []
    passed = {r.task_id for r in report.passed}
    status = EnvStatus(env_id, domain, "published", tasks=len(tasks.tasks), published_tasks=len(passed))
    if len(passed) < min_tasks:
        status.status, status.stage = "quarantined", "verification_reports"
        status.reason = f"only {len(passed)} of {len(tasks.tasks)} tasks passed verification (minimum {min_tasks})"
        status.published_tasks = 0
        return status, []
    if len(passed) < len(tasks.tasks):
        failing = [r for r in report.tasks if not r.publishable]
        status.status, status.stage = "quarantined", "verification_reports"
        status.reason = "; ".join(f"{r.task_id}: {r.error or ', '.join(r.evidence) or 'failed'}" for r in failing)[:500]
    path = str(store.env_dir(env_id).relative_to(store.home))
    entries = [
        CatalogEntry(env_id=env_id, domain=domain, task_id=t.task_id, instruction=t.instruction, kind=t.kind,
                     scenario=scenario.name, steps=t.steps, tools=t.distinct_tools, path=path)
        for t in tasks.tasks if t.task_id in passed
    ]
    return status, entries


def build_catalog(store: ArtifactStore, env_ids: list[str], min_tasks: int = DEFAULT_MIN_TASKS) -> CatalogSummary:
    """Write AWM_HOME/catalog.jsonl (atomically) and failures.jsonl; return what was published."""
    summary = CatalogSummary()
    for env_id in env_ids:
        status, entries = environment_status(store, env_id, min_tasks)
        summary.statuses.append(status)
        summary.entries.extend(entries)
    atomic_write_text(store.catalog_path, "".join(e.model_dump_json() + "\n" for e in summary.entries))
    problems = [s for s in summary.statuses if s.status in ("failed", "quarantined")]
    atomic_write_text(store.home / "failures.jsonl", "".join(
        json.dumps({"env_id": s.env_id, "domain": s.domain, "status": s.status, "stage": s.stage,
                    "reason": s.reason, "partition": s.domain}) + "\n" for s in problems))
    return summary
