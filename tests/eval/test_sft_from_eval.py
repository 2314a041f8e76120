"""awm export --sft --from-eval: `awm eval` trajectories that scored reward 1 (rejection sampling) in the SFT
row shape, rendered through a real chat template."""

from __future__ import annotations

import json
import re

import pytest

from awm.errors import AWMError
from awm.eval.rollouts import EvalLimits, RolloutEngine
from awm.sft import template_inputs, write_sft
from tests.chat_templates import QWEN2_5, render
from tests.eval.conftest import DOMAIN
from tests.llm.conftest import API_KEY


def rollouts(store, agent, model, limits=EvalLimits()):
    settings = agent.settings(model=model, api_key=API_KEY, transport_retries=0)
    return RolloutEngine(store, settings, limits).run(store.env_ids(DOMAIN)).results


def test_only_trajectories_that_scored_one_become_sft_rows(eval_corpus, agent, tmp_path):
    k = 3
    results = rollouts(eval_corpus, agent, "awm-agent-noisy", EvalLimits(k=k, seed=7))
    passed = [r for r in results if r.passed]
    assert 0 < len(passed) < len(results)  # some samples fail: they are rejected
    summary = write_sft(eval_corpus, tmp_path / "sft", from_eval="awm-agent-noisy", fractions=(0.5, 0.5, 0.0))
    rows = [json.loads(line) for path in sorted((tmp_path / "sft").glob("*.jsonl"))
            for line in path.read_text().splitlines()]
    assert summary.tasks == len(rows) == len(passed) and all(r["reward"] == 1.0 for r in rows)
    assert sorted((r["env_id"], r["task_id"], r["source"]) for r in rows) == sorted(
        (r.env_id, r.task_id, f"eval:awm-agent-noisy:s{r.sample}") for r in passed)
    row = next(r for r in rows if sum(1 for m in r["messages"] if m.get("tool_calls")) >= 2)
    inputs = template_inputs(row)
    text = render(QWEN2_5, inputs["conversation"], inputs["tools"])
    calls = [json.loads(b) for b in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", text, re.S)[1:]]
    assert calls == [{"name": c["tool_calls"][0]["function"]["name"],
                      "arguments": json.loads(c["tool_calls"][0]["function"]["arguments"])}
                     for c in row["messages"] if c.get("tool_calls")]
    assert text.count("<tool_response>") == sum(1 for m in row["messages"] if m["role"] == "tool")

    rollouts(eval_corpus, agent, "awm-agent-null")
    with pytest.raises(AWMError, match="no trajectory scored reward 1"):
        write_sft(eval_corpus, tmp_path / "null", from_eval="awm-agent-null", fractions=(1.0, 0.0, 0.0))
    assert not (tmp_path / "null").exists()
