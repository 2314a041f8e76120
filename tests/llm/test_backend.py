"""The LLM backend through the core stages (no Dagster) against `awm llm-serve`."""

from __future__ import annotations

import json

import pytest

from awm.backends import get_backend
from awm.backends.llm import RowsError, rows_by_table
from awm.backends.offline import OfflineBackend
from awm.contracts import Column, Scenario, SchemaSpec, Table, ToolSet, VerificationReport
from awm.llm.prompts import RowsDraft, stage_prompt_hash
from awm.stages import scenarios, tasks, verification_reports
from awm.stages.base import ATTEMPT_LOG, STAGES
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore


def llm_backend(serve, store, **settings):
    return get_backend("openai", settings=serve.settings(**settings), store=store, tasks_per_env=10, run_id="r1")


def user_prompt(entry: dict) -> str:
    return next(m["content"] for m in entry["messages"] if m["role"] == "user")


def test_a_clean_build_passes_every_stage_and_matches_the_offline_builder(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    outcomes = build_environment(store, "dental_clinic", 0, backend)
    assert [o.status for o in outcomes] == ["built"] * 6, [o.error for o in outcomes]
    report = json.loads(store.path("dental_clinic__00", "report.json").read_text())
    assert all(t["reference_passed"] and not t["null_passed"] for t in report["tasks"])
    # a call per stage, databases and tools in parts (24K tokens a request: two for the rows, two or three for the
    # tools, whose every part repeats their helpers), each part one call, and one verifier per task
    calls = [o.usage["llm_calls"] for o in outcomes]
    parts = {json.loads(user_prompt(r).split("<part>\n")[1].split("\n</part>")[0])["parts"]
             for r in serve.requests(messages=True) if r["env_id"] == "dental_clinic__00" and r["stage"] == "tools"}
    assert calls[:4] + calls[5:] == [1, 1, 1, 2, 10] and [calls[4]] == list(parts) and calls[4] in (2, 3), calls
    provenance = store.provenance("dental_clinic__00")
    for stage in STAGES:
        assert provenance[stage].backend == "openai" and provenance[stage].model == "awm-offline"
        assert provenance[stage].prompt_hash == stage_prompt_hash(stage)
        assert provenance[stage].attempts == 1 and provenance[stage].errors == []
        assert provenance[stage].metrics["llm_usage"]["llm_completion_tokens"] > 0
    # the served answers are the offline builder's for the same scenario, passed through the stages unchanged
    scenario = store.read_model("dental_clinic__00", "scenario.json", Scenario)
    _, offline_tools = OfflineBackend().tools(scenario, None, None)
    served_tools = store.read_model("dental_clinic__00", "tools.json", ToolSet)
    # the tools a model writes come with no API style recorded (the offline builder records the one it drew)
    assert served_tools.api_style is None and offline_tools.api_style is not None
    assert {t.name: t for t in served_tools.tools} == {t.name: t for t in offline_tools.tools}
    # whom a patient may act for is the schema's rule, kept on the model's tools (a representative's request would
    # otherwise be refused by the runtime and fail its proof)
    assert served_tools.representative == offline_tools.representative == ["patients", "representative_id"]
    # the avoid list of a later slot names the earlier scenario
    scenarios.build(store, "dental_clinic__01", backend)
    later = [r for r in serve.requests(messages=True) if r["env_id"] == "dental_clinic__01"][0]
    assert scenario.name in user_prompt(later)


def test_a_rejected_scenario_is_retried_with_its_error_in_the_prompt(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "pet_grooming__00", backend).ok
    serve.faults({"fault": "duplicate", "stage": "scenarios", "times": 1})
    first = scenarios.build(store, "pet_grooming__01", backend)
    assert first.status == "failed" and "ScenarioDuplicateError" in first.error
    assert "repeats pet_grooming__00" in first.error
    assert json.loads(store.path("pet_grooming__01", ATTEMPT_LOG).read_text())["scenarios"][0]["attempt"] == 1

    second = scenarios.build(store, "pet_grooming__01", backend)
    assert second.status == "built" and second.attempt == 2
    retry = [r for r in serve.requests(messages=True) if r["env_id"] == "pet_grooming__01"][-1]
    prompt = user_prompt(retry)
    assert "<previous_attempt_errors>" in prompt and "repeats pet_grooming__00" in prompt
    provenance = store.provenance("pet_grooming__01")["scenarios"]
    assert provenance.attempts == 2 and "repeats pet_grooming__00" in provenance.errors[0]
    assert not store.exists("pet_grooming__01", ATTEMPT_LOG)  # success clears the log


def test_login_tasks_and_wall_clock_rows_are_rejected(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "airline__00", backend).ok
    serve.faults({"fault": "login_task", "stage": "tasks", "times": None})  # every answer, the rest's too
    outcome = tasks.build(store, "airline__00", backend)
    assert outcome.status == "failed" and "TaskPolicyError: 9 of 10 tasks were valid" in outcome.error
    assert "t01: it is about 'password'" in outcome.error
    assert len([r for r in serve.requests() if r["stage"] == "tasks"]) == 3  # the answer, then the rest twice
    serve.faults()
    assert tasks.build(store, "airline__00", backend).ok


@pytest.mark.slow
def test_a_lying_verifier_fails_its_proof_and_only_its_task_is_asked_again(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    serve.faults({"fault": "lying_verifier", "stage": "verifier", "times": 1})
    outcomes = build_environment(store, "k12_school", 0, backend)
    failed = outcomes[-1]
    assert failed.status == "failed" and "VerifierProofError" in failed.error
    liar = next(r for r in serve.requests() if r["faults"] == ["lying_verifier"])["task_id"]
    assert f"{liar}: on the untouched database with no answer the verifier said complete" in failed.error
    attempts = json.loads(store.path("k12_school__00", ATTEMPT_LOG).read_text())["verification_reports"]
    assert list(attempts[0]["details"]) == [liar]
    served = len(serve.requests())

    fixed = verification_reports.build(store, "k12_school__00", backend)
    assert fixed.status == "built" and fixed.attempt == 2
    again = serve.requests(messages=True)[served:]
    assert [r["task_id"] for r in again] == [liar]  # the nine proven verifiers came from the cache
    assert "the verifier said complete" in user_prompt(again[0])
    assert fixed.usage["llm_cache_hits"] == 9


@pytest.mark.slow
def test_a_lax_verifier_that_accepts_hedges_fails_its_proof_and_the_retry_corrects_it(serve, home):
    """The right goals, judged by substring: a hedged or dumped answer, a negated note would earn the reward.
    The proof step's shortcut classes catch it, the evidence goes into the next prompt, the retry is proven."""
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    serve.faults({"fault": "lax_verifier", "stage": "verifier", "times": 10})
    failed = build_environment(store, "k12_school", 0, backend)[-1]
    assert failed.status == "failed" and "VerifierProofError" in failed.error
    assert "the verifier accepted wrong trajectories" in failed.error
    assert "hedged_answer" in failed.error or "text_negated" in failed.error
    served = len(serve.requests())

    fixed = verification_reports.build(store, "k12_school__00", backend)
    assert fixed.status == "built" and fixed.attempt == 2
    again = serve.requests(messages=True)[served:]
    assert again and all("the verifier accepted wrong trajectories" in user_prompt(r) for r in again)
    report = store.read_model("k12_school__00", "report.json", VerificationReport)
    assert all(t.publishable for t in report.tasks)


def test_an_endpoint_that_was_down_is_not_shown_to_the_model_as_an_error(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store, transport_retries=0)
    serve.faults({"fault": "http_500", "stage": "scenarios", "times": 1})
    down = scenarios.build(store, "florist__00", backend)
    assert down.status == "failed" and "LLMTransportError" in down.error
    assert json.loads(store.path("florist__00", ATTEMPT_LOG).read_text())["scenarios"][0]["feedback"] is False
    retry = scenarios.build(store, "florist__00", backend)
    assert retry.status == "built" and retry.attempt == 2
    assert "<previous_attempt_errors>" not in user_prompt(serve.requests(messages=True)[-1])


def test_output_a_stage_rejects_is_evicted_from_the_cache(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    serve.faults({"fault": "unsafe_code", "stage": "tools", "times": 1})
    outcomes = build_environment(store, "bakery", 0, backend)
    assert outcomes[4].status == "failed" and "import of 'os' is not allowed" in outcomes[4].error
    cached = len(backend.client.cache)
    store.path("bakery__00", ATTEMPT_LOG).unlink()  # forget the feedback: the same prompt is asked again
    assert build_environment(store, "bakery", 0, backend)[4].status == "built"
    tools_calls = [r for r in serve.requests() if r["stage"] == "tools"]
    # the tools are asked in two parts (24K tokens a request): both parts of the rejected module were evicted
    assert len(tools_calls) == 2 * 2 and len(backend.client.cache) == cached + 2 + 10


def test_rows_must_fit_the_schema_and_never_use_the_wall_clock():
    spec = SchemaSpec(env_id="x__00", tables=[Table(name="shops", description="", columns=[
        Column(name="id", type="INTEGER", primary_key=True), Column(name="opened_at", type="TEXT")])])

    def rows(table="shops", columns=("id", "opened_at"), values=(1, "2025-05-01")):
        return RowsDraft.model_validate({"tables": [{"table": table, "columns": list(columns),
                                                     "rows": [list(values)]}]})

    assert rows_by_table(rows(), spec) == {"shops": [{"id": 1, "opened_at": "2025-05-01"}]}
    with pytest.raises(RowsError, match="table 'stores', which the schema does not have"):
        rows_by_table(rows(table="stores"), spec)
    with pytest.raises(RowsError, match=r"columns \['city'\] that it does not have"):
        rows_by_table(rows(columns=("id", "city")), spec)
    with pytest.raises(RowsError, match="depends on the wall clock"):
        rows_by_table(rows(values=(1, "CURRENT_TIMESTAMP")), spec)
    with pytest.raises(ValueError, match="2 values for 3 columns"):
        RowsDraft.model_validate({"tables": [{"table": "shops", "columns": ["id", "a", "b"], "rows": [[1, 2]]}]})


def test_a_task_whose_kind_its_goals_contradict_is_sent_back():
    """A real 1.5B model published "Calculate the total number of orders for the bakery." as an action whose goals
    change nothing; a question whose goals write is as wrong. Each is rejected with the reason, the rest kept."""
    from awm.backends.llm import _sort_tasks
    from awm.backends.offline import OfflineBackend

    backend = OfflineBackend()
    # the first of the bakery's task sets with a question in it (a set's refusal may be a goal with writes)
    taskset = next(ts for ts in (backend.tasks(backend.scenario("bakery", slot)) for slot in range(10))
                   if any(t.kind == "question" for t in ts.tasks))
    data = taskset.model_dump(mode="json")
    question = next(t for t in data["tasks"] if t["kind"] == "question")
    action = next(t for t in data["tasks"] if t["kind"] == "action")
    question["kind"], action["kind"] = "action", "question"
    action["reference_answer"] = action["reference_answer"] or "Done."
    wanted = [t["task_id"] for t in data["tasks"]]
    user, good, bad = _sort_tasks(data, wanted, None)
    assert user == taskset.acting_user
    assert bad == {question["task_id"]: "its kind is action but every goal is an answer: a task that only reads the "
                                        "database is a question, with a reference_answer",
                   action["task_id"]: "its kind is question but some of its goals change the database: a task that "
                                      "changes it is an action"}
    assert set(good) == set(wanted) - set(bad)
