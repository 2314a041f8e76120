"""The sample verl config (examples/verl/) fits the data: the agent loop it registers is the one the verl rows
name, the prompt length holds every prompt with its tool schemas, and the tool response length holds the
reference results (verl's default, 256 characters, cuts most of them)."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from awm.export import export_lines, verl_row
from awm.runtime import open_environment
from awm.trainers import verl as trainers_verl

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "verl"
CHARS_PER_TOKEN = 3  # an estimate that errs long (benchmarks/bench_trainer_lengths.py)


def test_the_sample_verl_config_fits_the_data(published, pool):
    [loop] = yaml.safe_load((EXAMPLES / "agent_loop.yaml").read_text())
    module, _, name = loop["_target_"].rpartition(".")
    assert module == trainers_verl.__name__ and name == "AWMAgentLoop"
    config = yaml.safe_load((EXAMPLES / "awm_grpo.yaml").read_text())
    data, rollout = config["data"], config["actor_rollout_ref"]["rollout"]
    assert data["return_raw_chat"] and rollout["multi_turn"]["enable"]
    assert rollout["agent"]["default_agent_loop"] == loop["name"]
    records = list(export_lines(published, tool_format="verl"))
    assert {verl_row(r, i)["agent_name"] for i, r in enumerate(records)} == {loop["name"]}
    longest = max(len("".join(m["content"] for m in r["prompt"]) +
                      json.dumps([trainers_verl.openai_tool(t) for t in r["tools"]])) for r in records)
    assert longest / CHARS_PER_TOKEN <= data["max_prompt_length"], longest
    results, steps, per_task = [], [], []
    for env_id in {r["env_id"] for r in records}:
        env = open_environment(env_id, home=published.home, pool=pool)
        try:
            for task in env.tasks:
                steps.append(task.steps)
                with env.reset(task.task_id) as episode:
                    lengths = [len(json.dumps(episode.call(s.tool, s.arguments), ensure_ascii=False))
                               for s in task.reference_solution]
                results += lengths
                per_task.append(sum(lengths))
        finally:
            env.close()
    assert max(results) <= rollout["multi_turn"]["max_tool_response_length"], max(results)
    assert rollout["multi_turn"]["max_assistant_turns"] > max(steps)
    # a reference rollout's tool results, with room for the model's own turns
    assert data["max_response_length"] >= 2 * max(per_task) / CHARS_PER_TOKEN, max(per_task)


def test_the_final_turn_of_a_verl_response_and_a_row_without_its_episode():
    import asyncio

    import pytest

    from awm.client import AWMClientError

    decode = lambda ids, skip_special_tokens: " ".join(map(str, ids))  # noqa: E731 - a tokenizer's decode
    # model tokens (mask 1), a tool result (0), the model's last turn (1), padding of tool tokens (0)
    assert trainers_verl.final_text([1, 2, 3, 4, 5, 6, 7], [1, 1, 0, 0, 1, 1, 0], decode) == "5 6"
    assert trainers_verl.final_text([], [], decode) == ""
    episodes = trainers_verl.RolloutEpisodes("http://127.0.0.1:9", admin_token="t")
    with pytest.raises(AWMClientError, match="lacks env_id, task_id.*--layout verl"):
        asyncio.run(episodes.start("r1", {"index": 0}))
