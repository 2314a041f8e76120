"""awm export --sft: the reference trajectories replayed through the runtime, as OpenAI chat messages, loaded
by Hugging Face datasets and rendered through a real model's chat template (Qwen2.5's)."""

from __future__ import annotations

import json
import re

import pytest

from awm.cli import main as awm
from awm.errors import AWMError
from awm.runtime import open_environment
from awm.sft import template_inputs, write_sft
from tests.chat_templates import QWEN2_5, render


def rows_of(folder) -> list[dict]:
    return [json.loads(line) for path in sorted(folder.glob("*.jsonl")) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def sft(published, pool, tmp_path_factory):
    out = tmp_path_factory.mktemp("sft") / "sft"
    return write_sft(published, out, pool=pool), rows_of(out)


def test_every_published_task_is_one_reference_trajectory_with_the_real_tool_outputs(published, pool, sft):
    summary, rows = sft
    catalog = list(published.iter_catalog())
    assert summary.tasks == len(rows) == len(catalog) and all(r["reward"] == 1.0 for r in rows)
    assert sum(summary.splits.values()) == len(rows)
    env = open_environment(rows[0]["env_id"], home=published.home, pool=pool)
    try:
        for row in rows[:12]:
            task = env.task(row["task_id"]) if row["env_id"] == env.env_id else None
            messages = row["messages"]
            assert [m["role"] for m in messages[:2]] == ["system", "user"] and messages[-1]["role"] == "assistant"
            calls = [m for m in messages if m.get("tool_calls")]
            results = [m for m in messages if m["role"] == "tool"]
            assert [c["tool_calls"][0]["id"] for c in calls] == [r["tool_call_id"] for r in results]
            offered = {t["function"]["name"] for t in json.loads(row["tools"])}
            assert {c["tool_calls"][0]["function"]["name"] for c in calls} <= offered
            assert all(not json.loads(r["content"]).get("error") for r in results if r["content"].startswith("{"))
            if task is not None:  # the outputs are the runtime's: a fresh episode gives the same first result
                with env.reset(task.task_id) as episode:
                    first = task.reference_solution[0]
                    assert json.loads(results[0]["content"]) == json.loads(
                        json.dumps(episode.call(first.tool, first.arguments), default=str))
                if task.answer_schema:  # typed: the answer is a submit_answer call the runtime accepted
                    assert calls[-1]["tool_calls"][0]["function"]["name"] == "submit_answer"
                    assert "submit_answer" in offered and "submitted" in json.loads(results[-1]["content"])
    finally:
        env.close()


def test_the_sft_export_loads_as_a_dataset_dict(sft, tmp_path):
    datasets = pytest.importorskip("datasets")
    summary, rows = sft
    loaded = datasets.load_dataset(str(summary.path), cache_dir=str(tmp_path / "cache"))
    assert {name: len(split) for name, split in loaded.items()} == {k: v for k, v in summary.splits.items() if v}
    first = loaded["train"][0]
    assert first["messages"][2]["tool_calls"][0]["type"] == "function"
    assert json.loads(first["tools"])[0]["type"] == "function"


def test_a_trajectory_renders_through_qwen2_5s_chat_template_with_its_tool_calls_and_results(sft):
    _, rows = sft
    row = next(r for r in rows if any(m.get("tool_calls") and m["tool_calls"][0]["function"]["name"] == "submit_answer"
                                      for m in r["messages"]))
    inputs = template_inputs(row)
    text = render(QWEN2_5, inputs["conversation"], inputs["tools"])
    tools = json.loads(row["tools"])
    listed = re.search(r"<tools>\n(.*?)\n</tools>", text, re.S).group(1).splitlines()
    assert [json.loads(line) for line in listed] == tools  # every tool, in the OpenAI function shape
    rendered_calls = [json.loads(block) for block in re.findall(r"<tool_call>\n(.*?)\n</tool_call>", text, re.S)[1:]]
    calls = [c["tool_calls"][0]["function"] for c in row["messages"] if c.get("tool_calls")]
    assert rendered_calls == [{"name": c["name"], "arguments": json.loads(c["arguments"])} for c in calls]
    responses = re.findall(r"<tool_response>\n(.*?)\n</tool_response>", text, re.S)
    assert responses == [m["content"] for m in row["messages"] if m["role"] == "tool"]
    assert text.endswith(f"<|im_start|>assistant\n{row['messages'][-1]['content']}<|im_end|>\n")
    assert text.count("<|im_start|>system") == 1 and row["messages"][0]["content"] in text
    # as stored (OpenAI shape, arguments a JSON string), the template would quote the arguments as a string
    raw = render(QWEN2_5, row["messages"], tools)
    assert '"arguments": "{' in raw and '"arguments": "{' not in text


def test_the_cli_writes_sft_and_refuses_what_it_cannot(published, tmp_path, capsys):
    env = next(published.iter_catalog())["env_id"]
    assert awm(["--home", str(published.home), "export", "--sft", "--quiet", "--env", env,
                "--out", str(tmp_path / "one")]) == 0
    assert {r["env_id"] for r in rows_of(tmp_path / "one")} == {env}
    assert "reference trajectories of 1 environments" in capsys.readouterr().out
    assert awm(["--home", str(published.home), "export", "--from-eval", "someone", "--out", str(tmp_path / "x")]) == 2
    assert awm(["--home", str(published.home), "export", "--sft", "--from-eval", "nobody", "--out",
                str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "give --sft with it" in err and "no trajectories of agent 'nobody'" in err
    with pytest.raises(AWMError, match="use --tool-format strict or permissive"):
        write_sft(published, tmp_path / "y", tool_format="awm")
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
