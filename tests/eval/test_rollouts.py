"""The rollout engine through the real openai client against `awm llm-serve --agent`, scored by the runtime."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from awm import artifacts
from awm.eval.report import EvaluationSummary, pass_at_k
from awm.eval.rollouts import EvalLimits, RolloutEngine, read_trajectory
from awm.runtime.answers import SUBMIT_ANSWER
from tests.eval.conftest import DOMAIN
from tests.llm.conftest import API_KEY


def engine(store, agent, model, limits=EvalLimits(), **overrides):
    settings = agent.settings(model=model, api_key=API_KEY, transport_retries=0, **overrides)
    return RolloutEngine(store, settings, limits)


def run(store, agent, model, limits=EvalLimits(), **overrides):
    eng = engine(store, agent, model, limits, **overrides)
    return eng, eng.run(store.env_ids(DOMAIN)).results


def test_reference_policy_passes_every_task_and_a_rerun_asks_nothing(eval_corpus, agent):
    before = agent.stats()["served"]
    eng, results = run(eval_corpus, agent, "awm-agent-reference")
    assert len(results) == 20
    assert all(r.passed and r.reward == 1.0 and r.status == "completed" for r in results), \
        [(r.task_id, r.reason) for r in results if not r.passed]
    assert not any(r.hacking for r in results)
    # a task that expects an answer is offered `submit_answer` beside the environment's tools, and the
    # reference policy answers through it: one call more than its reference solution
    tasks = {(env_id, t.task_id): t for env_id in eval_corpus.env_ids(DOMAIN)
             for t in artifacts.TASKS.read(eval_corpus, env_id).tasks}
    typed = 0
    for r in results:
        expects = bool(tasks[(r.env_id, r.task_id)].answer_schema)
        assert r.tool_calls == r.reference_steps + expects and r.steps == r.tool_calls + 1, r.task_id
        lines = read_trajectory(eval_corpus.home / r.path)
        calls = [c["function"]["name"] for line in lines if line["type"] == "message"
                 for c in line.get("tool_calls") or []]
        assert (SUBMIT_ANSWER in calls) == expects, (r.task_id, calls)
        typed += expects
    assert typed, "the evaluated domain has no task that expects an answer"
    served = agent.stats()["served"]
    assert served - before == eng.model_calls == sum(r.tool_calls + 1 for r in results)

    # the trajectory: header, the messages, the tool results, the answer and the result with its diff summary
    lines = read_trajectory(eval_corpus.home / results[0].path)
    assert lines[0]["type"] == "rollout" and lines[0]["model"] == "awm-agent-reference"
    roles = [line["role"] for line in lines if line["type"] == "message"]
    assert roles[:3] == ["system", "user", "assistant"] and roles.count("tool") == results[0].tool_calls
    assert lines[-1]["type"] == "result" and lines[-1]["reward"] == 1.0 and lines[-1]["diff"]["unexpected"] == 0

    again, rerun = run(eval_corpus, agent, "awm-agent-reference")
    assert again.model_calls == 0 and agent.stats()["served"] == served
    assert all(r.reused and r.passed for r in rerun)


def test_null_and_hacker_policies_score_zero(eval_corpus, agent):
    _, null = run(eval_corpus, agent, "awm-agent-null")
    assert [r.reward for r in null] == [0.0] * 20 and all(r.tool_calls == 0 for r in null)
    _, hacker = run(eval_corpus, agent, "awm-agent-hacker")
    assert not any(r.passed for r in hacker), [(r.task_id, r.path) for r in hacker if r.passed]
    actions = [r for r in hacker if r.kind == "action"]
    assert actions and all(r.hacking for r in actions)  # collateral writes show as unexpected changes
    assert max(r.reward for r in hacker) < 1.0


@pytest.mark.slow
def test_noisy_policy_lies_between_and_pass_at_k_is_the_estimator(eval_corpus, agent):
    k = 4
    _, results = run(eval_corpus, agent, "awm-agent-noisy-0.3", EvalLimits(k=k))
    summary = EvaluationSummary.of(results, k)
    assert len(summary.tasks) == 20 and all(t.n == k for t in summary.tasks)
    assert 0 < summary.pass_at(1) < 1
    expected = sum(pass_at_k(t.n, t.c, k) for t in summary.tasks) / 20
    assert summary.pass_at(k) == pytest.approx(expected)
    assert summary.pass_at(1) == pytest.approx(sum(t.c for t in summary.tasks) / (20 * k))
    assert summary.pass_at(1) <= summary.pass_at(2) <= summary.pass_at(k)
    # seeds differ per sample, so the k rollouts of a task are not all the same trajectory
    assert len({r.key for r in results}) == 20 * k


def test_a_malformed_tool_call_is_a_failed_rollout_with_its_reason(eval_corpus, agent):
    agent.faults({"fault": "malformed_tool_call", "stage": "agent", "times": 1})
    _, results = run(eval_corpus, agent, "awm-agent-reference", EvalLimits(seed=101), cache=False)
    failed = [r for r in results if r.status == "failed"]
    assert len(failed) == 1 and failed[0].reason.startswith("malformed_tool_call:") and not failed[0].retryable
    assert failed[0].reward == 0.0 and sum(r.passed for r in results) == 19
    assert read_trajectory(eval_corpus.home / failed[0].path)[-1]["reason"] == failed[0].reason


def test_endpoint_timeouts_and_errors_fail_rollouts_that_the_next_run_repeats(eval_corpus, agent):
    agent.latency(0, slow_s=3)
    agent.faults({"fault": "slow", "stage": "agent", "times": 2}, {"fault": "http_500", "stage": "agent", "times": 1})
    limits = EvalLimits(seed=202)
    eng, results = run(eval_corpus, agent, "awm-agent-reference", limits, timeout_s=1.0)
    failed = {r.reason.split(":")[0] for r in results if r.status == "failed"}
    assert failed == {"model_timeout", "model_error"}
    assert all(r.retryable for r in results if r.status == "failed")
    agent.faults()
    again, rerun = run(eval_corpus, agent, "awm-agent-reference", limits, timeout_s=1.0)
    assert all(r.passed for r in rerun)
    assert sum(not r.reused for r in rerun) == 3  # only the failed ones ran again


@pytest.mark.parametrize(("limits", "reason"), [(EvalLimits(max_steps=1, seed=303), "step_limit"),
                                                (EvalLimits(max_tokens=50, seed=304), "token_limit"),
                                                (EvalLimits(wall_clock_s=0.05, seed=305), "wall_clock")])
def test_limits_end_rollouts_as_failed(eval_corpus, agent, limits, reason):
    if reason == "wall_clock":
        agent.latency(100)
    _, results = run(eval_corpus, agent, "awm-agent-reference", limits, cache=False)
    assert all(r.status == "failed" and r.reason.startswith(reason + ":") for r in results), \
        {r.reason for r in results}
    assert all(not r.passed and r.reward == 0 for r in results)


def test_a_killed_rollout_resumes_from_the_cached_turns(eval_corpus, agent):
    """A rollout whose file was never written (killed) asks the model only for the turns not cached."""
    eng, results = run(eval_corpus, agent, "awm-agent-reference", EvalLimits(seed=404))
    calls = agent.stats()["served"]
    victim = results[3]
    Path(eval_corpus.home / victim.path).unlink()  # as if killed after its model turns, before its file
    again, rerun = run(eval_corpus, agent, "awm-agent-reference", EvalLimits(seed=404))
    assert again.model_calls == 0 and agent.stats()["served"] == calls
    resumed = next(r for r in rerun if r.key == victim.key)
    assert not resumed.reused and resumed.cache_hits == victim.steps and resumed.passed
    assert json.loads((eval_corpus.home / victim.path).read_text().splitlines()[-1])["passed"] is True


def test_agent_mode_refuses_what_it_cannot_answer(eval_corpus, agent):
    import openai

    client = openai.OpenAI(base_url=agent.url, api_key=API_KEY, max_retries=0)
    tools = [{"type": "function", "function": {"name": "noop", "parameters": {"type": "object"}}}]
    with pytest.raises(openai.BadRequestError, match="no task of the corpus .* has the instruction 'Fly me to the"):
        client.chat.completions.create(model="awm-agent-reference", tools=tools,
                                       messages=[{"role": "user", "content": "Fly me to the moon."}])
    with pytest.raises(openai.BadRequestError, match="unknown agent policy 'refernce'"):
        client.chat.completions.create(model="awm-agent-refernce", tools=tools,
                                       messages=[{"role": "user", "content": "Fly me to the moon."}])


AWM_SYSTEM = ("You are provided with TWO functions within <tools></tools> XML tags: 1. list_tools 2. call_tool. For each "
              "function call, return a json object within <tool_call></tool_call> XML tags.")  # AWM's agent's prompt


def test_agent_mode_speaks_the_text_protocol_of_awm_agent(eval_corpus, agent):
    """AWM's own agent sends no tools: list_tools and call_tool in <tool_call> text (tests/awm/awm1k/
    test_reference.py runs the real one); the reference policy lists, replays and answers, the null one answers."""
    import openai

    env_id = eval_corpus.env_ids()[0]
    task = max(artifacts.TASKS.read(eval_corpus, env_id).tasks, key=lambda t: t.steps)
    names = [t.name for t in artifacts.TOOLS_JSON.read(eval_corpus, env_id).tools]
    listing = "Available MCP Tools:\n" + "".join(f"{i}. mcp_tool_mcp_server_{n}\n   Description: x\n"
                                                 for i, n in enumerate(names, 1))
    client = openai.OpenAI(base_url=agent.url, api_key=API_KEY, max_retries=0)
    messages = [{"role": "system", "content": AWM_SYSTEM}, {"role": "user", "content": task.instruction}]

    def turn(model: str) -> str:
        return client.chat.completions.create(model=model, messages=messages).choices[0].message.content

    assert turn("awm-agent-null") == "I could not complete this request."
    calls = []
    for _ in range(task.steps + 2):
        content = turn("awm-agent-reference")
        messages.append({"role": "assistant", "content": content})
        if "<tool_call>" not in content:
            break
        call = json.loads(content.split("<tool_call>")[1].split("</tool_call>")[0])
        calls.append(call)
        messages.append({"role": "tool", "tool_call_id": "call_unknown",
                         "content": listing if call["name"] == "list_tools" else '{"ok": true}'})
    assert calls[0] == {"name": "list_tools", "arguments": None}
    assert [(c["arguments"]["tool_name"], json.loads(c["arguments"]["arguments"])) for c in calls[1:]] == \
        [(f"mcp_tool_mcp_server_{s.tool}", s.arguments) for s in task.reference_solution]
    assert content == (task.reference_answer or "Done: " + task.instruction)
    logged = agent.requests()
    assert {r["task_id"] for r in logged} == {None, task.task_id} and all(r["stage"] == "agent" for r in logged)
