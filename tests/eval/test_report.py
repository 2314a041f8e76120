"""pass@k, difficulty and the catalog write-back, on known counts."""

from __future__ import annotations

import json
import math

import pytest

from awm.eval.report import EvaluationSummary, difficulty_level, pass_at_k, write_difficulty
from awm.eval.rollouts import RolloutResult
from awm.store import ArtifactStore


def result(task: str, sample: int, passed: bool, category: str = "health", unexpected: int = 0) -> RolloutResult:
    return RolloutResult(key=f"{task}{sample}", path=f"evals/m/{task}/{sample}.jsonl", agent="m", model="m",
                         env_id="dental_clinic__00", domain="dental_clinic", task_id=task, sample=sample, seed=sample,
                         category=category, intent="cancel", kind="action", reference_steps=3,
                         complete=passed, reward=1.0 if passed else 0.0, unexpected_changes=unexpected, steps=4)


@pytest.mark.parametrize(("n", "c", "k", "expected"), [
    (10, 0, 1, 0.0), (10, 10, 5, 1.0), (10, 3, 1, 0.3), (5, 1, 2, 1 - math.comb(4, 2) / math.comb(5, 2)),
    (4, 2, 3, 1.0), (20, 5, 10, 1 - math.comb(15, 10) / math.comb(20, 10))])
def test_pass_at_k_is_the_unbiased_estimator(n, c, k, expected):
    assert pass_at_k(n, c, k) == pytest.approx(expected)


def test_pass_at_k_refuses_impossible_counts():
    with pytest.raises(ValueError, match="at least 5 rollouts"):
        pass_at_k(4, 1, 5)
    with pytest.raises(ValueError, match="c <= n"):
        pass_at_k(3, 4, 1)


def test_summary_breakdowns_flags_and_difficulty():
    results = ([result("t01", i, True) for i in range(4)] + [result("t02", i, i == 0, "retail") for i in range(4)]
               + [result("t03", i, False, "retail", unexpected=2 if i == 1 else 0) for i in range(4)])
    summary = EvaluationSummary.of(results, 4)
    assert summary.pass_at(1) == pytest.approx((1 + 0.25 + 0) / 3)
    assert summary.pass_at(2) == pytest.approx((1 + pass_at_k(4, 1, 2) + 0) / 3)
    assert summary.pass_at(4) == pytest.approx(2 / 3)
    by_category = {row["category"]: row for row in summary.breakdown("category")}
    assert by_category["health"]["pass@1"] == 1.0 and by_category["retail"]["pass@1"] == pytest.approx(0.125)
    assert [row["difficulty"] for row in summary.breakdown("difficulty")] == ["trivial", "hard", "unsolved"]
    assert [r.task_id for r in summary.hacking] == ["t03"]
    assert summary.headline()["hacking_flags"] == 1 and summary.headline()["failed_rollouts"] == 0
    assert [difficulty_level(x) for x in (1.0, 0.8, 0.5, 0.1, 0.0)] == ["trivial", "easy", "medium", "hard",
                                                                         "unsolved"]


def test_difficulty_goes_onto_the_catalog_lines_and_keeps_other_agents(tmp_path):
    store = ArtifactStore(tmp_path)
    lines = [{"env_id": "dental_clinic__00", "task_id": t, "instruction": "x" * 12} for t in ("t01", "t02", "t09")]
    store.catalog_path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    results = [result("t01", i, True) for i in range(2)] + [result("t02", i, i == 0) for i in range(2)]
    assert write_difficulty(store, "a", EvaluationSummary.of(results, 2).tasks) == 2
    assert write_difficulty(store, "b", EvaluationSummary.of(results[:2], 2).tasks) == 1
    written = [json.loads(line) for line in store.catalog_path.read_text().splitlines()]
    assert written[0]["difficulty"] == {"a": {"pass_rate": 1.0, "rollouts": 2, "level": "trivial"},
                                        "b": {"pass_rate": 1.0, "rollouts": 2, "level": "trivial"}}
    assert written[1]["difficulty"] == {"a": {"pass_rate": 0.5, "rollouts": 2, "level": "medium"}}
    assert "difficulty" not in written[2]
