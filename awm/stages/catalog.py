"""The catalog: publish the tasks that passed verification, list what did not, chart the corpus.

An environment ends in one of three states:
  published    every stage succeeded and at least `min_tasks` of its tasks passed every proof (all of them when
               it was built with fewer tasks, AWM_TASKS_PER_ENV below min_tasks)
               (awm/stages/verification_reports.py); its passing tasks go into catalog.jsonl
  quarantined  every stage succeeded but some tasks failed a proof (those tasks are left out), or fewer
               than `min_tasks` passed (the whole environment is left out)
  failed       a stage failed it (failed.json names the stage, and the check in the reason)
Every failed or quarantined environment gets a line in AWM_HOME/failures.jsonl naming its stage, the
check, the reason and the asset partition (the domain) to open in the UI.
"""

from __future__ import annotations

import io
import json
import logging
import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from awm import artifacts
from awm.contracts import (
    ACCEPTANCE_CLASSES,
    CatalogEntry,
    TaskReport,
    VerificationReport,
    proof_totals,
)
from awm.domains import split_env_id
from awm.errors import AWMError
from awm.quality.diversity import Masker, TaskText, corpus_diversity
from awm.quality.findings import check_named_in
from awm.quality.realism import RealismText, needs_staff_tool, realism
from awm.store import ArtifactStore, atomic_write_text

log = logging.getLogger(__name__)

DEFAULT_MIN_TASKS = 5
STATUSES = ("published", "quarantined", "failed", "missing")


@dataclass
class EnvStatus:
    env_id: str
    domain: str
    status: str  # published | quarantined | failed | missing
    stage: str | None = None
    check: str | None = None
    reason: str | None = None
    published_tasks: int = 0
    tasks: int = 0
    tables: int = 0
    tools: int = 0
    api_style: str = ""  # naming/paging/filters/errors/bodies, empty when the tools have none

    def failure_record(self) -> dict:
        """One line of failures.jsonl: where the environment stopped and which partition to open."""
        return {"env_id": self.env_id, "domain": self.domain, "status": self.status, "stage": self.stage,
                "check": self.check, "reason": self.reason, "asset": self.stage, "partition": self.domain}


@dataclass
class CatalogSummary:
    entries: list[CatalogEntry] = field(default_factory=list)
    statuses: list[EnvStatus] = field(default_factory=list)
    proven: list[TaskReport] = field(default_factory=list)  # every task's proofs, published or not
    diversity: dict = field(default_factory=dict)  # awm.quality.diversity.corpus_diversity of the published tasks

    def proofs(self) -> dict[str, dict[str, int]]:
        return proof_totals(self.proven)

    def count(self, status: str) -> int:
        return sum(1 for s in self.statuses if s.status == status)

    def by_domain(self) -> dict[str, Counter]:
        table: dict[str, Counter] = defaultdict(Counter)
        for s in self.statuses:
            table[s.domain][s.status] += 1
        return dict(sorted(table.items()))

    @property
    def problems(self) -> list[EnvStatus]:
        return [s for s in self.statuses if s.status in ("failed", "quarantined")]

    def api_styles(self) -> dict:
        """The API styles of the published environments: how many distinct, and how many speak each value of
        each axis (naming, paging, filters, errors, bodies)."""
        styles = [s.api_style for s in self.statuses if s.status == "published" and s.api_style]
        axes = ("naming", "paging", "filters", "errors", "bodies")
        counts = {axis: dict(sorted(Counter(style.split("/")[i] for style in styles).items()))
                  for i, axis in enumerate(axes)}
        return {"distinct": len(set(styles)), **counts}

    def distributions(self) -> dict[str, list[int]]:
        """Tables and tools per published environment, steps per published task."""
        published = [s for s in self.statuses if s.status == "published"]
        return {"tables per environment": [s.tables for s in published],
                "tools per environment": [s.tools for s in published],
                "steps per task": [e.steps for e in self.entries]}


def _quarantine_reason(report: VerificationReport) -> str:
    parts = []
    for t in report.tasks:
        if t.publishable:
            continue
        why = t.error or "; ".join(t.evidence + t.survivors + t.rejected_alternatives) or "failed"
        parts.append(f"{t.task_id} {t.failure_check()}: {why}")
    return "; ".join(parts)[:1000]


def imported_status(store: ArtifactStore, env_id: str) -> tuple[EnvStatus, list[CatalogEntry]]:
    """An environment imported from AWM-1K (awm1k.json): its `checked` tasks, and those a candidate reference
    promoted to `proven` (awm/awm1k/promotion.py), published with their tier; quarantined as its import's checks
    said."""
    domain, _ = split_env_id(env_id)
    try:
        manifest = artifacts.AWM1K.read(store, env_id)
        scenario = artifacts.SCENARIO.read(store, env_id)
    except AWMError as exc:
        return EnvStatus(env_id, domain, "failed", "catalog", "artifacts_readable", str(exc)), []
    checked = manifest.checked_tasks
    status = EnvStatus(env_id, domain, "published", tasks=len(manifest.tasks), published_tasks=len(checked),
                       tables=len(manifest.checks.get("insert_tables") or {}), tools=len(manifest.routes))
    if manifest.status != "checked":
        status.status, status.stage = "quarantined", "awm1k_environments"
        first = manifest.reason.split(":", 1)[0]
        status.check = first if first.isidentifier() else "awm1k_import"
        status.reason, status.published_tasks = manifest.reason[:1000], 0
        return status, []
    if len(checked) < len(manifest.tasks):
        failing = [t for t in manifest.tasks if t not in checked]
        status.status, status.stage, status.check = "quarantined", "awm1k_environments", "verifier_checks"
        status.reason = "; ".join(f"{t.task_id} {t.tier}: {t.reason}" for t in failing)[:1000]
    path = str(store.env_dir(env_id).relative_to(store.home))
    return status, [CatalogEntry(env_id=env_id, domain=domain, task_id=t.task_id, instruction=t.instruction,
                                 kind="action", scenario=scenario.name, steps=len(t.reference or ()), tools=0,
                                 path=path, origin="awm1k", origin_reason=scenario.origin_reason, tier=t.tier)
                    for t in checked]


def environment_status(store: ArtifactStore, env_id: str, min_tasks: int) -> tuple[EnvStatus, list[CatalogEntry]]:
    domain, _ = split_env_id(env_id)
    if artifacts.AWM1K.exists(store, env_id):
        return imported_status(store, env_id)
    failure = store.failure(env_id)
    if failure:
        return EnvStatus(env_id, domain, "failed", failure.stage, check_named_in(failure.reason) or failure.stage,
                         failure.reason), []
    if not artifacts.REPORT.exists(store, env_id):
        return EnvStatus(env_id, domain, "missing", None, None, "not built yet (no report.json)"), []
    try:
        report = artifacts.REPORT.read(store, env_id)
        tasks = artifacts.TASKS.read(store, env_id)
        scenario = artifacts.SCENARIO.read(store, env_id)
        tables = len(artifacts.SCHEMA_JSON.read(store, env_id).tables)
        toolset = artifacts.TOOLS_JSON.read(store, env_id)
    except AWMError as exc:
        return EnvStatus(env_id, domain, "failed", "catalog", "artifacts_readable", str(exc)), []
    passed = {r.task_id for r in report.passed}
    style = toolset.style_name
    status = EnvStatus(env_id, domain, "published", tasks=len(tasks.tasks), published_tasks=len(passed),
                       tables=tables, tools=len(toolset.tools), api_style=style)
    failing_checks = Counter(t.failure_check() for t in report.tasks if not t.publishable)
    needed = min(min_tasks, len(tasks.tasks))  # an environment built with fewer tasks must pass them all
    if len(passed) < needed:
        status.status, status.stage = "quarantined", "verification_reports"
        status.check = failing_checks.most_common(1)[0][0] if failing_checks else "min_passing_tasks"
        status.reason = (f"only {len(passed)} of {len(tasks.tasks)} tasks passed verification (minimum {needed})"
                         + (f": {_quarantine_reason(report)}" if failing_checks else ""))[:1000]
        status.published_tasks = 0
        return status, []
    if len(passed) < len(tasks.tasks):
        status.status, status.stage = "quarantined", "verification_reports"
        status.check = failing_checks.most_common(1)[0][0]
        status.reason = _quarantine_reason(report)
    path = str(store.env_dir(env_id).relative_to(store.home))
    entries = [
        CatalogEntry(env_id=env_id, domain=domain, task_id=t.task_id, instruction=t.instruction, kind=t.kind,
                     scenario=scenario.name, steps=t.steps, tools=t.distinct_tools, path=path,
                     origin=scenario.origin, origin_reason=scenario.origin_reason, api_style=style)
        for t in tasks.tasks if t.task_id in passed
    ]
    return status, entries


def _keep_difficulty(store: ArtifactStore, entries: list[CatalogEntry]) -> None:
    """Difficulty estimates written by evaluations stay on the lines of tasks whose instruction is unchanged.
    A torn line (a write cut short) keeps nothing: the damaged catalog is set aside (catalog.jsonl.corrupt)
    and the catalog written anew, rather than the build failing on its own output."""
    torn: list[int] = []
    known = {(e.get("env_id"), e.get("task_id"), e.get("instruction")): e["difficulty"]
             for e in store.iter_catalog(torn) if e.get("difficulty")}
    if torn:
        aside = store.catalog_path.with_name(store.catalog_path.name + ".corrupt")
        os.replace(store.catalog_path, aside)
        log.warning("%s: line(s) %s torn; set aside as %s and written anew", store.catalog_path,
                    ", ".join(map(str, torn)), aside.name)
    for entry in entries:
        entry.difficulty = known.get((entry.env_id, entry.task_id, entry.instruction))


def build_catalog(store: ArtifactStore, env_ids: list[str], min_tasks: int = DEFAULT_MIN_TASKS) -> CatalogSummary:
    """Write AWM_HOME/catalog.jsonl and failures.jsonl (atomically); return what was published."""
    if min_tasks < 1:
        raise ValueError(f"min_tasks must be at least 1, got {min_tasks}")
    summary = CatalogSummary()
    for env_id in env_ids:
        status, entries = environment_status(store, env_id, min_tasks)
        summary.statuses.append(status)
        summary.entries.extend(entries)
        if status.status in ("published", "quarantined") and artifacts.REPORT.exists(store, env_id):
            summary.proven += artifacts.REPORT.read(store, env_id).tasks
    summary.diversity = task_diversity(store, [e for e in summary.entries  # ours: imported tasks have no tasks.json
                                               if e.tier == "proven" and e.origin != "awm1k"])
    with store.catalog_lock():
        _keep_difficulty(store, summary.entries)
        atomic_write_text(store.catalog_path, "".join(e.model_dump_json(exclude_none=True) + "\n"
                                                      for e in summary.entries))
    atomic_write_text(store.home / "failures.jsonl",
                      "".join(json.dumps(s.failure_record()) + "\n" for s in summary.problems))
    return summary


def task_texts(store: ArtifactStore, entries: list[CatalogEntry]) -> list[TaskText]:
    """The published tasks, masked with their own environment's values and nouns (awm/quality/diversity.py)."""
    by_env: dict[str, list[CatalogEntry]] = defaultdict(list)
    for entry in entries:
        by_env[entry.env_id].append(entry)
    texts = []
    for env_id, published in by_env.items():
        scenario = artifacts.SCENARIO.read(store, env_id)
        templates = {t.task_id: t.template for t in artifacts.TASKS.read(store, env_id).tasks}
        masker = Masker.for_environment(scenario.labels, artifacts.DATABASE.path(store, env_id),
                                        scenario.items + scenario.item_categories)
        for e in published:
            texts.append(TaskText(env_id, e.domain, e.instruction, tuple(templates[e.task_id].split("+")), e.steps,
                                  e.tools, masker.mask(e.instruction), e.task_id))
    return texts


def customer_staff_calls(store: ArtifactStore, env_ids: set[str]) -> set[tuple[str, str]]:
    """(env_id, task_id) of each request the customer writes whose calls need a staff-only tool (a voice
    violation: awm.quality.realism.needs_staff_tool)."""
    found = set()
    for env_id in env_ids:
        staff_only = {s.name for s in artifacts.TOOLS_JSON.read(store, env_id).tools if s.staff_only}
        found |= {(env_id, t.task_id) for t in artifacts.TASKS.read(store, env_id).tasks
                  if needs_staff_tool(t, staff_only)}
    return found


def task_diversity(store: ArtifactStore, entries: list[CatalogEntry]) -> dict:
    """How varied the published tasks are: intents, phrasing skeletons, vocabulary, cross-domain
    near-duplicates, shapes, steps and tools per task (the builder's intents give the shapes), and under
    "realism" whether they read like a real user's requests (awm/quality/realism.py)."""
    from awm.builder.intents import INTENTS

    shapes = {name: i.shape for name, i in INTENTS.items()}
    specific = {name for name, i in INTENTS.items() if i.specific}
    texts = task_texts(store, entries)
    report = corpus_diversity(texts, shapes, specific)
    staff_calls = customer_staff_calls(store, {t.env_id for t in texts})
    report["realism"] = realism([RealismText(t.instruction, t.intents,
                                             all(shapes.get(i) == "infeasible" for i in t.intents),
                                             (t.env_id, t.task_id) in staff_calls) for t in texts])
    return report


def diversity_table(report: dict) -> str:
    """Markdown: the diversity figures a trainer looks at first."""
    if not report.get("tasks"):
        return "No published tasks."
    rows = ["| measure | value |", "|---|---|",
            f"| published tasks | {report['tasks']} in {report['domains']} domains |",
            f"| distinct intents | {report['distinct_intents']} ({report['category_specific_intents']} specific to a "
            "category of business) |",
            f"| distinct phrasing skeletons (values and domain nouns masked) | {report['distinct_skeletons']} |",
            f"| most frequent skeleton | {report['top_skeleton_share']:.2%} of tasks |",
            f"| most frequent request sentence (one stating a value or naming a thing) | "
            f"{report['top_request_sentence_share']:.2%} of tasks: `{report['top_request_sentence'][:80]}` |",
            f"| most frequent small-talk sentence | {report['top_filler_sentence_share']:.2%} of tasks: "
            f"`{report['top_filler_sentence'][:80]}` |",
            f"| non-entity vocabulary | {report['vocabulary']} words |",
            f"| tasks with a near-duplicate in another domain | {report['cross_domain_near_duplicate_share']:.2%} |",
            f"| steps per task | mean {report['steps']['mean']}, median {report['steps']['median']} |",
            f"| distinct tools per task | mean {report['distinct_tools']['mean']}, median "
            f"{report['distinct_tools']['median']} |"]
    real = report.get("realism")
    if real:
        rows += [f"| tasks joining two requests | {real['multi_request_share']:.2%} |",
                 f"| most frequent sentence | {real['top_sentence_share']:.2%} of tasks: `{real['top_sentence'][:80]}` |",
                 f"| first-person user goals | {real['user_goal_share']:.2%} |",
                 f"| requests for another person, with the authority on record / refused | "
                 f"{real.get('authority_requests', 0) - real.get('authority_refusals', 0)} / "
                 f"{real.get('authority_refusals', 0)} |",
                 f"| voice violations | {real['voice_violations']} |"]
    for shape, counts in report["shapes"].items():
        rows.append(f"| {shape} tasks | {counts['tasks']} ({counts['share']:.2%}) |")
    return "\n".join(rows)


def proof_table(totals: dict[str, dict[str, int]]) -> str:
    """Markdown: per proof class, what it must do, how many were tried and how many judged right."""
    rows = ["| proof class | must be | tried | judged right | rate |", "|---|---|---|---|---|"]
    for name, counts in totals.items():
        rate = f"{counts['right'] / counts['tried']:.2%}" if counts["tried"] else "-"
        must = "accepted" if name in ACCEPTANCE_CLASSES else "rejected"
        rows.append(f"| {name} | {must} | {counts['tried']} | {counts['right']} | {rate} |")
    return "\n".join(rows)


# --- the corpus chart --------------------------------------------------------------------

_COLOURS = {"published": "#2e7d32", "quarantined": "#f9a825", "failed": "#c62828", "missing": "#9e9e9e"}


def corpus_chart_png(summary: CatalogSummary, max_domains: int = 40) -> bytes:
    """A PNG: environments per domain by status (stacked bars), and the distributions of tables and
    tools per published environment and steps per published task (histograms)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    fig, axes = plt.subplots(1, 4, figsize=(16, 3.8), gridspec_kw={"width_ratios": [2.2, 1, 1, 1]})
    by_domain = summary.by_domain()
    domains = list(by_domain)[:max_domains]
    bottom = [0] * len(domains)
    ax = axes[0]
    for status in STATUSES:
        values = [by_domain[d][status] for d in domains]
        if any(values):
            ax.bar(range(len(domains)), values, bottom=bottom, color=_COLOURS[status], label=status)
            bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xticks(range(len(domains)))
    ax.set_xticklabels(domains, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("environments")
    shown = f" (first {max_domains} of {len(by_domain)})" if len(by_domain) > max_domains else ""
    ax.set_title(f"environments per domain{shown}", fontsize=10)
    ax.legend(fontsize=7, loc="upper right")
    for ax, (name, values) in zip(axes[1:], summary.distributions().items()):
        if values:
            lo, hi = min(values), max(values)
            ax.hist(values, bins=range(lo, hi + 2), color="#1565c0", edgecolor="white", align="left")
            ax.set_title(f"{name}\nmean {sum(values) / len(values):.1f}, {lo}..{hi}", fontsize=10)
        else:
            ax.set_title(f"{name}\n(nothing published)", fontsize=10)
        ax.set_ylabel("count")
    for ax in axes:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return buffer.getvalue()
