"""What the client negotiates with a server, against `awm llm-serve` over 127.0.0.1 (one of them emulating
llama-cpp-python: owned_by "me", json_schema refused with its HTTP 500, one request at a time): the profile
recognised or configured, the structured-output mode stepped down once on a refusal and remembered for the
endpoint, max_tokens clamped to the context, endpoint errors counted and never shown to the model."""

from __future__ import annotations

import json
import sqlite3

import pytest

from awm.llm.capabilities import EndpointMemory
from awm.llm.client import LLMClient
from awm.llm.errors import LLMConfigError, LLMTransportError
from awm.llm.ledger import CallRecord, Ledger, summarize
from awm.stages import scenarios, tasks
from awm.stages.base import ATTEMPT_LOG
from awm.store import ArtifactStore
from tests.llm.test_backend import llm_backend, user_prompt
from tests.llm.test_client import ask


@pytest.fixture
def llama(llama_serve, monkeypatch):
    return llama_serve.ready(monkeypatch)


def test_auto_recognises_llama_cpp_python_and_asks_for_the_schema_inside_json_object(llama, home):
    client = LLMClient(llama.settings(cache=False, timeout_s=None), home)
    records: list = []
    ask(client, records=records)
    sent = llama.requests()
    assert [r["mode"] for r in sent] == ["json_object_schema"] and sent[0]["status"] == 200
    described = client.describe()
    assert described["profile"] == "llama.cpp" and described["modes"][0] == "json_object_schema"
    assert (described["concurrency"], described["timeout_s"], described["context_tokens"]) == (1, 1800.0, 32768)
    assert described["limits_from"]["concurrency"] == "profile llama.cpp"
    # the profile's 32,768 completion tokens would not leave the prompt room in a 32,768 context: clamped, and said
    record = records[0]
    assert record.max_tokens == sent[0]["max_tokens"] < 32768 and record.clamped.startswith("max_tokens 32768 clamped")
    assert summarize(records)["llm_clamped_calls"] == 1
    stored = client.ledger.records()[0]
    assert (stored.structured_output, stored.requests, stored.clamped) == ("json_object_schema", 1, record.clamped)


def test_a_json_schema_refused_with_http_500_steps_down_once_and_is_remembered_for_the_endpoint(llama, home):
    client = LLMClient(llama.settings(cache=False, profile="openai", transport_retries=4), home)
    records: list = []
    ask(client, records=records)
    sent = llama.requests()
    assert [(r["mode"], r["status"]) for r in sent] == [("json_schema", 500), ("json_object", 200)]  # not 5 x 500
    assert (records[0].requests, records[0].transport_retries) == (2, 0)
    assert records[0].structured_output == "json_object" and "literal_error" in client.refusals[0]
    # another client of this process, then one of a new process (the SQLite memory), start at json_object
    for fresh in (False, True):
        if fresh:
            EndpointMemory._process.clear()
        llama.reset()
        again = LLMClient(llama.settings(cache=False, profile="openai"), home)
        ask(again, slot=1)
        assert [r["mode"] for r in llama.requests()] == ["json_object"]
        assert "literal_error" in again.describe()["refusals"][0]


def test_an_explicit_mode_the_server_refuses_says_which_setting_to_change(llama):
    client = LLMClient(llama.settings(cache=False, structured_output="json_schema"), None)
    with pytest.raises(LLMConfigError, match=r"refused structured output json_schema \(500\): .*Input should be "
                                             r"'text' or 'json_object'.*AWM_LLM_STRUCTURED_OUTPUT=json_object_schema"
                                             r".*AWM_LLM_PROFILE=llama.cpp") as caught:
        ask(client)
    assert len(llama.requests()) == 1 and caught.value.feedback is False


@pytest.mark.parametrize("mode", ["guided_json", "json_object_schema"])
def test_each_mode_is_sent_as_its_server_expects(serve, mode):
    client = LLMClient(serve.settings(cache=False, structured_output=mode), None)
    ask(client)
    assert [r["mode"] for r in serve.requests()] == [mode]


def test_a_prompt_the_context_cannot_hold_is_not_sent(serve):
    client = LLMClient(serve.settings(cache=False, context_tokens=1000), None)
    records: list = []
    with pytest.raises(LLMConfigError, match=r"the scenarios prompt is about \d+ tokens and the context window is "
                                             r"1000 \(set\), which leaves -?\d+ for the answer"):
        ask(client, records=records)
    assert serve.requests() == [] and records[0].outcome == "too_long"


def test_a_ledger_written_before_the_new_columns_gains_them(tmp_path):
    path = tmp_path / "ledger.sqlite"
    with sqlite3.connect(path) as old:
        old.execute("CREATE TABLE calls (id INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, run_id TEXT, "
                    "stage TEXT NOT NULL, domain TEXT, env_id TEXT, subject TEXT, attempt INTEGER, model TEXT NOT "
                    "NULL, cache_key TEXT NOT NULL, cache_hit INTEGER NOT NULL, prompt_tokens INTEGER, "
                    "completion_tokens INTEGER, latency_ms REAL NOT NULL, cost_usd REAL, transport_retries INTEGER "
                    "NOT NULL, structured_output TEXT, outcome TEXT NOT NULL, error TEXT)")
    ledger = Ledger(path)
    ledger.record(CallRecord(stage="tasks", model="m", cache_key="k", cache_hit=False, latency_ms=1.0, requests=2,
                             repair="removed 3 characters of text before and 0 after the JSON object"))
    assert ledger.records()[0].requests == 2 and ledger.records()[0].repair.startswith("removed 3")


def test_a_retry_shows_the_model_its_rejected_answer_beside_the_errors(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "bakery__00", backend).ok
    serve.faults({"fault": "schema_violation", "stage": "tasks", "times": 1})
    first = tasks.build(store, "bakery__00", backend)
    assert first.status == "failed" and "SchemaViolationError" in first.error
    logged = json.loads(store.path("bakery__00", ATTEMPT_LOG).read_text())["tasks"][0]
    assert logged["feedback"] is True and logged["answer"].startswith("{")
    assert tasks.build(store, "bakery__00", backend).status == "built"
    retry = user_prompt(serve.requests(messages=True)[-1])
    assert "<previous_answer>\nYour previous answer, which was rejected:\n" + logged["answer"][:2000] in retry
    assert retry.index("<previous_answer>") < retry.index("<previous_attempt_errors>")
    assert "Correct your previous answer" in retry


def test_an_endpoint_error_is_counted_and_never_becomes_the_models_feedback(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store, transport_retries=2)
    serve.faults({"fault": "http_500", "stage": "scenarios", "times": 3})
    down = scenarios.build(store, "florist__00", backend)
    assert down.status == "failed" and "3 request(s) for this scenarios call" in down.error
    assert down.usage["llm_requests"] == 3 and down.usage["llm_endpoint_errors"] == 1
    logged = json.loads(store.path("florist__00", ATTEMPT_LOG).read_text())["scenarios"][0]
    assert logged["feedback"] is False and logged["answer"] is None
    assert scenarios.build(store, "florist__00", backend).status == "built"
    retry = user_prompt(serve.requests(messages=True)[-1])
    assert "<previous_attempt_errors>" not in retry and "<previous_answer>" not in retry


def test_a_timeout_on_a_one_request_server_is_not_retried_behind_the_abandoned_answer(llama):
    """llama-cpp-python goes on generating after its client gave up, and answers one request at a time: a retry
    would wait behind the abandoned answer. One request, and the error says which setting to raise."""
    llama.faults({"fault": "slow", "stage": "scenarios", "times": 1})
    client = LLMClient(llama.settings(cache=False, timeout_s=0.5, transport_retries=4), None, sleep=lambda s: None)
    records: list = []
    with pytest.raises(LLMTransportError, match=r"1 request\(s\) for this scenarios call, last error no answer within "
                                                r"0.5 s; raise AWM_LLM_TIMEOUT \(now 0.5 s, set\)"):
        ask(client, records=records)
    assert client.describe()["concurrency"] == 1 and records[0].requests == 1
    assert [r["faults"] for r in llama.requests()] == [["slow"]]


def test_a_call_stopped_midway_is_recorded_as_interrupted_not_ok(serve, home):
    """A run stopped during a call (SIGTERM arrives as an exception while the client waits to retry)."""
    serve.faults({"fault": "http_500", "stage": "scenarios", "times": 1})

    def stopped(seconds: float) -> None:
        raise KeyboardInterrupt

    client = LLMClient(serve.settings(cache=False), home, sleep=stopped)
    records: list = []
    with pytest.raises(KeyboardInterrupt):
        ask(client, records=records)
    assert records[0].outcome == "interrupted" and client.ledger.records()[0].outcome == "interrupted"
    assert summarize(records)["llm_endpoint_errors"] == 1


@pytest.fixture(scope="module")
def small_context():
    from tests.llm.conftest import start_llm_serve

    server = start_llm_serve("--context", "8000")
    yield server
    server.stop()


@pytest.mark.slow
def test_a_context_the_server_reports_clamps_max_tokens_and_a_server_refusal_names_the_setting(small_context,
                                                                                               monkeypatch):
    """A server with an 8,000-token context that says so in GET /models (vLLM's max_model_len) and refuses
    longer requests with vLLM's 400: the client clamps to fit; told a larger context, it is refused and says
    which setting to fix, in one request."""
    serve = small_context.ready(monkeypatch)
    client = LLMClient(serve.settings(cache=False), None)
    records: list = []
    ask(client, records=records)
    assert client.describe()["context_tokens"] == 8000 and client.limits.source["context_tokens"] == "server"
    assert [r["status"] for r in serve.requests()] == [200] and records[0].max_tokens < 8000
    assert records[0].clamped.startswith("max_tokens 32768 clamped to")
    serve.reset()
    wrong = LLMClient(serve.settings(cache=False, context_tokens=64000), None)
    with pytest.raises(LLMTransportError, match=r"maximum context length is 8000 tokens.*set AWM_LLM_CONTEXT"):
        ask(wrong)
    assert [r["status"] for r in serve.requests()] == [400]
