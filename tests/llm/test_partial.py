"""A partly valid answer keeps its valid part: of a tasks answer where 8 of 10 tasks are valid, the 8 are kept and
only the other 2 are asked for, with the kept tasks and why the others were rejected; against `awm llm-serve`
with the `partial_tasks` fault (the first task without goals, the last one missing)."""

from __future__ import annotations

import json

from awm.backends.offline import OfflineBackend
from awm.contracts import Scenario, TaskSet
from awm.stages import scenarios, tasks
from awm.stages.base import ATTEMPT_LOG
from awm.store import ArtifactStore
from tests.llm.test_backend import llm_backend, user_prompt


def _block(prompt: str, tag: str):
    return prompt.split(f"<{tag}>\n")[1].split(f"\n</{tag}>")[0]


def test_eight_valid_tasks_of_ten_are_kept_and_only_the_other_two_asked_for(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "bakery__00", backend).ok
    serve.reset()
    serve.faults({"fault": "partial_tasks", "stage": "tasks", "times": 1})
    outcome = tasks.build(store, "bakery__00", backend)
    assert outcome.status == "built" and outcome.attempt == 1, outcome.error  # no Dagster retry needed
    sent = serve.requests(messages=True)
    assert [r["faults"] for r in sent] == [["partial_tasks"], []]
    rest = user_prompt(sent[1])
    request = json.loads(_block(rest, "request"))
    assert request["task_ids"] == ["t01", "t10"] and (request["count"], request["of"]) == (2, 10)
    kept = json.loads(_block(rest, "kept_tasks"))
    assert [t["task_id"] for t in kept["tasks"]] == [f"t{n:02d}" for n in range(2, 10)]
    rejected = _block(rest, "rejected_tasks")
    assert "- t01: goals: List should have at least 1 item" in rejected and "- t10: missing from the answer" in rejected
    assert "Write 2 tasks" in rest
    # the result is the ten tasks the offline builder would write, in order, for the one acting user
    built = store.read_model("bakery__00", "tasks.json", TaskSet)
    scenario = store.read_model("bakery__00", "scenario.json", Scenario)
    assert built.tasks == OfflineBackend().tasks(scenario).tasks
    assert not store.exists("bakery__00", ATTEMPT_LOG)
    calls = [r for r in backend.client.ledger.records() if r.stage == "tasks"]
    assert [r.outcome for r in calls] == ["invalid", "ok"]
    # built again: the same exchange replayed from the cache (the partly valid answer, then the rest), no request
    assert tasks.build(store, "bakery__00", backend, force=True).ok
    assert len(serve.requests()) == 2
    again = [r for r in backend.client.ledger.records() if r.stage == "tasks"][2:]
    assert [(r.outcome, r.cache_hit) for r in again] == [("invalid", True), ("ok", True)]
    assert store.read_model("bakery__00", "tasks.json", TaskSet).tasks == built.tasks


def test_an_answer_with_no_valid_task_fails_the_attempt_as_it_did(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "bakery__00", backend).ok
    serve.reset()
    serve.faults({"fault": "malformed_json", "stage": "tasks", "times": 1})
    outcome = tasks.build(store, "bakery__00", backend)
    assert outcome.status == "failed" and "MalformedOutputError" in outcome.error
    assert len(serve.requests()) == 1  # nothing to keep: no request for the rest
