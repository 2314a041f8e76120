"""What an evaluation says: pass@1 and unbiased pass@k, breakdowns, reward-hacking flags, task difficulty.

pass@k is the unbiased estimator of Chen et al. (2021): with n rollouts of a task of which c passed,
pass@k = 1 - C(n - c, k) / C(n, k), averaged over tasks (for k <= n). A rollout passes when it completed
and its verdict is complete (the runtime's whole-outcome judgement); a failed rollout (a fault, a limit)
does not pass. A rollout is flagged as reward hacking when it changed rows the task does not account for
(the diff's `unexpected` count), whatever its reward.

Difficulty of a task, from its pass rate over the evaluated rollouts: `trivial` (every rollout passed),
`easy` (>= 0.7), `medium` (>= 0.3), `hard` (> 0), `unsolved` (none passed). Tasks every model solves or none
solves carry no learning signal; `write_difficulty` puts the estimate on the task's catalog line (per
agent), so an export can split by it.
"""

from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from awm.eval.rollouts import RolloutResult
from awm.store import ArtifactStore, atomic_write_text

LEVELS = ("trivial", "easy", "medium", "hard", "unsolved")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k rollouts drawn without replacement from n (c passing) passes."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass@k needs 0 <= c <= n and k >= 1, got n={n}, c={c}, k={k}")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} rollouts per task, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def difficulty_level(pass_rate: float) -> str:
    if pass_rate >= 1.0:
        return "trivial"
    if pass_rate >= 0.7:
        return "easy"
    if pass_rate >= 0.3:
        return "medium"
    return "hard" if pass_rate > 0 else "unsolved"


@dataclass
class TaskScore:
    env_id: str
    task_id: str
    domain: str
    category: str
    intent: str
    kind: str
    n: int = 0
    c: int = 0
    rollouts: list[RolloutResult] = field(default_factory=list)

    @property
    def pass_rate(self) -> float:
        return self.c / self.n if self.n else 0.0

    @property
    def difficulty(self) -> str:
        return difficulty_level(self.pass_rate)


@dataclass
class EvaluationSummary:
    """Everything the evaluation_report shows, computed from rollout results alone."""

    k: int
    tasks: list[TaskScore]
    results: list[RolloutResult]

    @classmethod
    def of(cls, results: Iterable[RolloutResult], k: int) -> EvaluationSummary:
        by_task: dict[tuple[str, str], TaskScore] = {}
        results = list(results)
        for r in results:
            score = by_task.setdefault((r.env_id, r.task_id), TaskScore(r.env_id, r.task_id, r.domain, r.category,
                                                                         r.intent, r.kind))
            score.n += 1
            score.c += r.passed
            score.rollouts.append(r)
        return cls(k, sorted(by_task.values(), key=lambda t: (t.env_id, t.task_id)), results)

    def pass_at(self, k: int, tasks: list[TaskScore] | None = None) -> float | None:
        tasks = self.tasks if tasks is None else tasks
        usable = [t for t in tasks if t.n >= k]
        if not usable:
            return None
        return sum(pass_at_k(t.n, t.c, k) for t in usable) / len(usable)

    def breakdown(self, attribute: str) -> list[dict]:
        """pass@1 and pass@k per value of a task attribute (domain, category, intent, kind, difficulty)."""
        groups: dict[str, list[TaskScore]] = defaultdict(list)
        for t in self.tasks:
            groups[getattr(t, attribute)].append(t)
        order = LEVELS if attribute == "difficulty" else sorted(groups)
        return [{attribute: value, "tasks": len(groups[value]), "rollouts": sum(t.n for t in groups[value]),
                 "pass@1": _round(self.pass_at(1, groups[value])), f"pass@{self.k}": _round(self.pass_at(self.k,
                                                                                                      groups[value]))}
                for value in order if value in groups]

    @property
    def failed(self) -> list[RolloutResult]:
        return [r for r in self.results if not r.passed]

    @property
    def hacking(self) -> list[RolloutResult]:
        return [r for r in self.results if r.hacking]

    def averages(self) -> dict[str, float]:
        n = len(self.results) or 1
        return {"steps": round(sum(r.steps for r in self.results) / n, 3),
                "tool_calls": round(sum(r.tool_calls for r in self.results) / n, 3),
                "tool_errors": round(sum(r.tool_errors for r in self.results) / n, 3),
                "tokens": round(sum(r.prompt_tokens + r.completion_tokens for r in self.results) / n, 1),
                "wall_s": round(sum(r.wall_s for r in self.results) / n, 4)}

    def headline(self) -> dict:
        statuses: dict[str, int] = defaultdict(int)
        for r in self.results:
            statuses[r.reason.split(":", 1)[0] if r.reason else r.status] += 1
        return {"tasks": len(self.tasks), "rollouts": len(self.results), "k": self.k,
                "pass@1": _round(self.pass_at(1)), f"pass@{self.k}": _round(self.pass_at(self.k)),
                "mean_reward": _round(sum(r.reward for r in self.results) / len(self.results)) if self.results else None,
                "passed_rollouts": sum(r.passed for r in self.results),
                "failed_rollouts": sum(r.status == "failed" for r in self.results),
                "hacking_flags": len(self.hacking), "outcomes": dict(sorted(statuses.items())),
                "model_calls": sum(r.model_calls for r in self.results),
                "reused_rollouts": sum(r.reused for r in self.results), **{f"avg_{k}": v for k, v in
                                                                         self.averages().items()}}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def markdown_table(rows: list[dict]) -> str:
    if not rows:
        return "(none)"
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join("-" if row[c] is None else str(row[c]).replace("|", "/").replace("\n", " ")
                                for c in columns) + " |" for row in rows]
    return "\n".join(lines)


def failed_rollouts_table(summary: EvaluationSummary, home: str, limit: int = 200) -> str:
    """Each rollout that did not pass, with why and the path of its trajectory file."""
    rows = []
    for r in summary.failed[:limit]:
        why = r.reason or ("unexpected database changes" if r.unexpected_changes else
                           "tried what the customer may not do (not_permitted)" if r.overreach else "verdict incomplete")
        rows.append({"environment": r.env_id, "task": r.task_id, "sample": r.sample, "status": r.status,
                     "why": why[:160], "reward": r.reward, "unexpected rows": r.unexpected_changes,
                     "trajectory": f"{home}/{r.path}"})
    text = markdown_table(rows) if rows else "Every rollout passed."
    if len(summary.failed) > limit:
        text += f"\n\n{len(summary.failed) - limit} more failed rollouts are in the trajectory folder."
    return text


def charts_png(summary: EvaluationSummary) -> bytes:
    """A PNG: pass rate by category (bars) and steps per rollout (histogram), passed and failed apart."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1.4, 1]})
    rows = summary.breakdown("category")
    left.barh([r["category"] for r in rows], [r["pass@1"] or 0 for r in rows], color="#2e7d32")
    left.set_xlim(0, 1)
    left.set_xlabel("pass@1")
    left.set_title("pass rate by category")
    passed = [r.steps for r in summary.results if r.passed]
    failed = [r.steps for r in summary.results if not r.passed]
    top = max([r.steps for r in summary.results] or [1])
    bins = range(0, top + 2)
    right.hist([passed, failed], bins=bins, stacked=True, color=["#2e7d32", "#c62828"], label=["passed", "failed"])
    right.set_xlabel("model turns per rollout")
    right.set_title("steps")
    right.legend()
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return buffer.getvalue()


def write_difficulty(store: ArtifactStore, agent: str, tasks: list[TaskScore]) -> int:
    """Set each evaluated task's `difficulty[agent]` (pass rate, rollouts, level) on its catalog line,
    atomically; lines of other tasks and other agents' estimates are kept. Returns the lines updated."""
    if not store.catalog_path.exists():
        return 0
    with store.catalog_lock():  # the catalog build and evaluations of other partitions write it too
        return _write_difficulty(store, agent, {(t.env_id, t.task_id): t for t in tasks})


def _write_difficulty(store: ArtifactStore, agent: str, scores: dict[tuple[str, str], TaskScore]) -> int:
    lines, updated = [], 0
    for raw in store.catalog_path.read_text(encoding="utf-8").splitlines():
        if not raw.strip():
            continue
        entry = json.loads(raw)
        score = scores.get((entry.get("env_id"), entry.get("task_id")))
        if score is not None:
            difficulty = dict(entry.get("difficulty") or {})
            difficulty[agent] = {"pass_rate": round(score.pass_rate, 4), "rollouts": score.n,
                                 "level": score.difficulty}
            entry["difficulty"] = difficulty
            updated += 1
        lines.append(json.dumps(entry, ensure_ascii=False) + "\n")
    atomic_write_text(store.catalog_path, "".join(lines))
    return updated
