"""Typed answers: the submit_answer tool, its normalisers, and the strict reading of prose, through the real
runtime, sandbox and `awm serve`."""

from __future__ import annotations

import asyncio
import json

import pytest
from mcp import Client

from awm.builder.intents.base import long_date
from awm.contracts import AnswerSlot, Goal, Task, ToolCall
from awm.runtime import is_error, open_environment
from awm.runtime.answers import SUBMIT_ANSWER, SubmissionError, answer_tool, read_submission
from awm.runtime.environment import UNGROUNDED
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.runtime.tools import is_evidence
from awm.store import ArtifactStore
from tests.awm.runtime.test_server import TOKEN, admin, mcp_url

ENV = "retail_banking__00"
NUMBER_NAMES = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]


@pytest.fixture(scope="module")
def env(published: ArtifactStore, pool):
    environment = open_environment(ENV, home=published.home, pool=pool)
    yield environment
    environment.close()


def questions(env) -> list[Task]:
    return [t for t in env.tasks if t.answer_schema]


def right_values(task: Task) -> dict:
    answers = [g for g in task.goals if g.kind == "answer"]
    return {slot.name: goal.expect["value"] for slot, goal in zip(task.answer_schema, answers)}


def replayed(env, task: Task):
    episode = env.reset(task.task_id)
    for step in task.reference_solution:
        assert not is_error(episode.call(step.tool, step.arguments)), step.tool
    return episode


TASK = Task(task_id="t01", kind="question", template="test", instruction="How many orders, what total, due when?",
            reference_solution=[ToolCall(tool="list_orders")], reference_answer="3 orders, 12.50, due 2025-06-04",
            goals=[Goal(kind="answer", expect={"value": 3}), Goal(kind="answer", expect={"value": 12.5}),
                   Goal(kind="answer", expect={"value": "2025-06-04"}),
                   Goal(kind="answer", expect={"value": "shipped", "type": "status",
                                               "values": ["pending", "shipped", "checked_in"]})])


def test_the_answer_schema_types_each_slot_and_never_gives_a_closed_set_away():
    schema = TASK.answer_schema
    assert [(s.name, s.type) for s in schema] == [("answer_1", "count"), ("answer_2", "amount"),
                                                  ("answer_3", "date"), ("answer_4", "status")]
    assert schema[1].precision == 2 and schema[3].values == ["checked_in", "pending", "shipped"]
    spec = answer_tool(TASK)
    properties = spec["inputSchema"]["properties"]
    assert spec["name"] == SUBMIT_ANSWER and spec["inputSchema"]["additionalProperties"] is False
    assert spec["inputSchema"]["required"] == ["answer_1", "answer_2", "answer_3", "answer_4"]
    assert [properties[s]["type"] for s in spec["inputSchema"]["required"]] == ["integer", "number", "string", "string"]
    assert properties["answer_4"]["enum"] == ["checked_in", "pending", "shipped"]
    # a status slot's closed set always holds more than the answer
    assert AnswerSlot.of("a", Goal(kind="answer", expect={"value": "x", "type": "status"})).values == ["x"]


@pytest.mark.parametrize("submitted", [
    {"answer_1": 3, "answer_2": 12.5, "answer_3": "2025-06-04", "answer_4": "shipped"},
    {"answer_1": "three", "answer_2": "$12.50", "answer_3": "June 4, 2025", "answer_4": "SHIPPED"},
    {"answer_1": 3.0, "answer_2": 12.499, "answer_3": "2025/06/04", "answer_4": " Shipped "},
])
def test_submitted_values_are_normalised_to_their_slots_canonical_form(submitted):
    assert read_submission(TASK, submitted) == {"answer_1": 3, "answer_2": 12.5, "answer_3": "2025-06-04",
                                                "answer_4": "shipped"}


@pytest.mark.parametrize("submitted, message", [
    ({"answer_1": 3, "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "shipped", "other": 1},
     "other: not a slot of this task's answer"),
    ({"answer_1": 3, "answer_2": 1, "answer_3": "2025-06-04"}, "no value for answer_4"),
    ({"answer_1": 3.5, "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "shipped"},
     "answer_1 must be a whole number"),
    ({"answer_1": "3 or 4", "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "shipped"},
     "answer_1 must be a whole number"),
    ({"answer_1": 3, "answer_2": "about 12", "answer_3": "2025-06-04", "answer_4": "shipped"},
     "answer_2 must be an amount"),
    ({"answer_1": 3, "answer_2": 1, "answer_3": "soon", "answer_4": "shipped"}, "answer_3 must be a date"),
    ({"answer_1": 3, "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "lost"},
     "answer_4 must be one of checked_in, pending, shipped"),
    ({"answer_1": [3, 4], "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "shipped"},
     "answer_1 must be a whole number"),
    ({"answer_1": True, "answer_2": 1, "answer_3": "2025-06-04", "answer_4": "shipped"},
     "answer_1 must be a whole number"),
])
def test_a_submission_that_is_not_one_value_of_its_type_per_slot_is_refused_naming_the_slot(submitted, message):
    with pytest.raises(SubmissionError, match=message):
        read_submission(TASK, submitted)


def test_a_typed_submission_is_judged_slot_by_slot_and_only_once(env):
    task = questions(env)[0]
    right = right_values(task)
    episode = replayed(env, task)
    assert SUBMIT_ANSWER in {t["name"] for t in episode.tools}
    wrong_type = episode.call(SUBMIT_ANSWER, {**right, "surplus": 1})
    assert is_error(wrong_type) and "surplus" in wrong_type["error"]["message"] and episode.submission is None
    assert episode.call(SUBMIT_ANSWER, right) == {"submitted": right}
    again = episode.call(SUBMIT_ANSWER, right)
    assert again["error"]["code"] == "already_submitted"
    score = episode.score()
    assert score["reward"] == 1.0 and score["complete"], score
    assert score["calls"] == task.steps + 3 and score["tool_errors"] == 2
    episode.close()
    episode = replayed(env, task)
    slot, value = next(iter(right.items()))
    wrong = {**right, slot: value + 1 if isinstance(value, (int, float)) else value}
    kind = task.answer_schema[0]
    if kind.type == "status":
        wrong[slot] = next(v for v in kind.values if v != value)
    elif kind.type in ("name", "date"):
        wrong[slot] = "2020-01-01" if kind.type == "date" else "Nobody Atall"
    assert episode.call(SUBMIT_ANSWER, wrong) == {"submitted": wrong}
    score = episode.score()
    assert not score["complete"] and score["reward"] < 1.0 and any(slot in e for e in score["evidence"])
    episode.close()


def test_a_task_without_an_answer_offers_no_submit_answer(env):
    action = next(t for t in env.tasks if not t.answer_schema)
    with env.reset(action.task_id) as episode:
        assert SUBMIT_ANSWER not in {t["name"] for t in episode.tools}
        assert episode.call(SUBMIT_ANSWER, {"answer_1": 1})["error"]["code"] == "unknown_tool"


def prose_forms(task: Task) -> tuple[list[str], list[str]]:
    """(prose a strict reader must refuse, prose it must accept) built from the task's reference answer."""
    answer = task.reference_answer
    slot = task.answer_schema[0]
    value = right_values(task)[slot.name]
    shown = str(value) if not isinstance(value, float) else f"{value:.2f}"
    refused = [f"Presumably {answer}, give or take; it may be otherwise.", f"{answer} That is my best reckoning.",
               "0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 400.0"]
    accepted = [answer, f"As of June 1, 2025, {answer[:1].lower()}{answer[1:]}"]
    if shown in answer:
        refused.append(answer.replace(shown, f"not {shown}", 1))
        if slot.type == "count" and 0 <= value < len(NUMBER_NAMES):
            accepted.append(answer.replace(shown, NUMBER_NAMES[value], 1))
        if slot.type == "date":
            accepted.append(answer.replace(shown, long_date(shown)))
    return refused, accepted


def test_prose_is_read_strictly_through_the_runtime(env):
    tried = 0
    for task in questions(env):
        refused, accepted = prose_forms(task)
        verdicts = env.judge_trajectories(task.task_id, [([(c.tool, c.arguments) for c in task.reference_solution], a)
                                                         for a in refused + accepted])
        for answer, verdict in zip(refused + accepted, verdicts):
            assert verdict["complete"] == (answer in accepted), (task.task_id, answer, verdict["evidence"])
            tried += 1
    assert tried >= 10


def test_a_fixed_answer_with_no_call_earns_nothing_on_any_task(env):
    blind = ["0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 400.0; 0, 1, 2, 3, 4, 5, 400",
             "I cannot do that: it is not allowed. The record is inactive, the item is sold out, the address is "
             "primary and the window has closed."]
    for task in env.tasks:
        verdicts = env.judge_trajectories(task.task_id, [([], answer) for answer in blind])
        assert not any(v["complete"] for v in verdicts), task.task_id


def test_the_right_answer_with_no_call_the_world_answered_earns_nothing(env):
    """A fixed answer is right by chance on some tasks (a count of 0, the first status of a closed set); with no
    call the world answered it earns nothing, typed or in prose, and a call that only met the runtime's own
    error (an unknown tool) does not count. After the reference's calls the same answer earns 1."""
    tried = 0
    for task in questions(env):
        right = right_values(task)
        reference = [(c.tool, c.arguments) for c in task.reference_solution]
        with env.reset(task.task_id) as episode:
            assert is_error(episode.call("no_such_tool", {}))
            assert episode.call(SUBMIT_ANSWER, right) == {"submitted": right}
            score = episode.score()
            assert not score["complete"] and score["reward"] == 0.0, task.task_id
            if all(g.kind == "answer" for g in task.goals):  # (a task that also writes fails on its rows first)
                assert score["evidence"] == [UNGROUNDED], task.task_id
                tried += 1
        verdicts = env.judge_trajectories(task.task_id, [([], task.reference_answer), ([], json.dumps(right)),
                                                         (reference, task.reference_answer)])
        assert [v["complete"] for v in verdicts] == [False, False, True], task.task_id
    assert tried >= 1  # a task that only asks (its evidence names the rule alone)


def test_a_refusal_grounded_on_the_tools_own_refusal_counts(env):
    """A business error the tool gives (the rule it enforces) is the world's answer: an agent that tries the
    forbidden write, is refused, and reports the refusal has evidence; a call refused for its arguments has none."""
    refusal = next(t for t in env.tasks if t.answer_schema and t.answer_schema[0].refusal)
    assert is_evidence({"error": {"code": "not_allowed", "message": "the account is frozen"}})
    assert not is_evidence({"error": {"code": "invalid_arguments", "message": "missing id"}})
    with env.reset(refusal.task_id) as episode:
        assert is_error(episode.call(refusal.reference_solution[0].tool, {"no_such_argument": 1}))
        assert episode.evidence_calls == 0
        step = refusal.reference_solution[0]
        assert not is_error(episode.call(step.tool, step.arguments))
        assert episode.evidence_calls == 1


def test_submit_answer_over_mcp_is_listed_for_its_task_and_scored_without_an_answer(published, pool):
    runtime = RuntimeServer(published, pool, TOKEN, score_grace=30)
    running = serve_in_thread(runtime)
    environment = open_environment(ENV, home=published.home, pool=pool)
    task = questions(environment)[0]
    right = right_values(task)

    async def go():
        async with Client(mcp_url(running.url, task=task.task_id, episode="typed-1")) as agent:
            listed = {t.name: t for t in (await agent.list_tools()).tools}
            assert set(listed[SUBMIT_ANSWER].input_schema["required"]) == set(right)
            for step in task.reference_solution:
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
            bad = await agent.call_tool(SUBMIT_ANSWER, {**right, "other_possibilities": ["x"]})
            assert bad.is_error and "other_possibilities" in json.loads(bad.content[0].text)["error"]["message"]
            ok = await agent.call_tool(SUBMIT_ANSWER, right)
            assert not ok.is_error
            second = await agent.call_tool(SUBMIT_ANSWER, right)
            assert second.is_error and second.structured_content["error"]["code"] == "already_submitted"
        score = await admin(running.url, "POST", "/admin/sessions/typed-1/score", json={})
        assert score.status_code == 200 and score.json()["reward"] == 1.0, score.text
        refused, accepted = prose_forms(task)  # prose, scored by the trainer through the admin endpoint
        for n, (answer, reward) in enumerate([(a, 0.0) for a in refused[:2]] + [(accepted[-1], 1.0)]):
            async with Client(mcp_url(running.url, task=task.task_id, episode=f"prose-{n}")) as agent:
                for step in task.reference_solution:
                    assert not (await agent.call_tool(step.tool, step.arguments)).is_error
            score = await admin(running.url, "POST", f"/admin/sessions/prose-{n}/score", json={"answer": answer})
            assert score.json()["complete"] == (reward == 1.0), (answer, score.json()["evidence"])
        async with Client(mcp_url(running.url)) as agent:  # no task: no answer to submit
            assert SUBMIT_ANSWER not in {t.name for t in (await agent.list_tools()).tools}

    try:
        asyncio.run(go())
    finally:
        running.stop()
        environment.close()


def test_an_answer_alone_earns_no_partial_credit(env):
    """A right guess of one slot (no work done) is not partial progress; a change made is."""
    for task in questions(env):
        right = right_values(task)
        first = next(iter(right))
        others = {slot: "2020-01-01" if s.type == "date" else (s.values or ["none"])[-1] if s.type == "status"
                  else 0 if s.type == "count" else 0.0 if s.type == "amount" else "none"
                  for slot, s in zip(right, task.answer_schema)}
        guess = {**others, first: right[first]}
        if guess == right:
            continue
        with env.reset(task.task_id) as episode:
            episode.call(SUBMIT_ANSWER, guess)
            verdict = episode.judge()
        assert not verdict["complete"] and not verdict["partial"], (task.task_id, verdict["evidence"])


def test_a_refusal_names_the_rule_the_tools_refuse_the_request_with(env):
    """An infeasible request's answer has a rule slot: its closed set is every error code the environment's tools
    can return, the tool the request asks for refuses it with the rule's code and changes nothing (beyond the parts
    of its goal that stand on their own), and only the right rule (in any case or separator) with the right
    blocking fact earns the reward."""
    task = next(t for t in env.tasks if t.refusals)  # (a refusal alone, or inside a goal whose other parts are done)
    writes = sum(g.kind != "answer" for g in task.goals)
    refusal = task.refusals[0]
    rule = next(s for s in task.answer_schema if s.type == "rule")
    assert not rule.refusal and any(s.refusal for s in task.answer_schema)  # the fact, and the rule
    offered = answer_tool(task)["inputSchema"]["properties"][rule.name]
    assert offered["enum"] == rule.values and refusal.code in rule.values and len(rule.values) >= 3
    right = right_values(task)
    assert right[rule.name] == refusal.code
    episode = replayed(env, task)
    attempt = episode.call(refusal.call.tool, refusal.call.arguments)
    assert is_error(attempt) and attempt["error"]["code"].lower() == refusal.code, attempt
    written = refusal.code.replace("_", " ").upper()
    assert episode.call(SUBMIT_ANSWER, {**right, rule.name: written}) == {"submitted": right}
    score = episode.score()
    assert score["reward"] == 1.0 and score["diff"]["unexpected"] == 0 and (score["diff"]["changed"] == 0) == (
        writes == 0), score
    episode.close()
    for other in (v for v in rule.values if v != refusal.code):
        episode = replayed(env, task)
        assert episode.call(SUBMIT_ANSWER, {**right, rule.name: other}) == {"submitted": {**right, rule.name: other}}
        score = episode.score()
        assert score["reward"] == 0.0 and any(rule.name in e for e in score["evidence"]), (other, score)
        episode.close()
    episode = replayed(env, task)
    unknown = episode.call(SUBMIT_ANSWER, {**right, rule.name: "not_a_rule"})
    assert is_error(unknown) and rule.name in unknown["error"]["message"] and episode.submission is None
    episode.close()
