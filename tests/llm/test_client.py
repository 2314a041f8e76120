"""The client through the real openai package against `awm llm-serve`: output handling, cache, ledger,
transport retries, structured-output fallback, concurrency."""

from __future__ import annotations

import threading

import pytest

from awm.llm.client import CallTags, LLMClient, parse_answer, parse_output
from awm.llm.errors import (
    LLMConfigError,
    LLMTransportError,
    MalformedOutputError,
    SchemaViolationError,
    TruncatedOutputError,
)
from awm.llm.ledger import summarize
from awm.llm.prompts import SCENARIOS, ScenarioDraft, json_block
from awm.llm.rephrase import PhrasingDraft
from awm.llm.settings import LLMSettings, Price


def scenario_messages(slot: int = 0, domain: str = "dental_clinic") -> list[dict[str, str]]:
    env_id = f"{domain}__{slot:02d}"
    return SCENARIOS.render(
        request=json_block("request", {"stage": "scenarios", "domain": domain, "slot": slot, "env_id": env_id}),
        avoid=json_block("avoid", []), number=str(slot + 1), domain=domain)


def ask(client: LLMClient, slot: int = 0, records: list | None = None) -> ScenarioDraft:
    return client.complete("scenarios", scenario_messages(slot), ScenarioDraft, SCENARIOS.schema_name,
                           CallTags(domain="dental_clinic", env_id=f"dental_clinic__{slot:02d}"),
                           on_record=records.append if records is not None else None)


# --- strict output handling, without a server ------------------------------------------------

def test_finish_reason_length_is_an_error_never_repaired():
    with pytest.raises(TruncatedOutputError, match="finish_reason length, max_tokens=100"):
        parse_output('{"name": "A complete object"}', "length", ScenarioDraft, 100)


def test_malformed_json_names_the_position():
    with pytest.raises(MalformedOutputError, match=r"not valid JSON: Expecting ':' delimiter at line 1 column 9"):
        parse_output('{"name" "x"}', "stop", ScenarioDraft, 100)
    with pytest.raises(MalformedOutputError, match="NaN is not valid JSON"):
        parse_output('{"price": NaN}', "stop", ScenarioDraft, 100)
    with pytest.raises(MalformedOutputError, match="empty"):
        parse_output("  ", "stop", ScenarioDraft, 100)
    with pytest.raises(MalformedOutputError):  # an unfinished object is never completed
        parse_output('Here it is: {"name": "x", "items": ["a"', "stop", ScenarioDraft, 100)
    with pytest.raises(MalformedOutputError):  # two objects: which one was meant is not guessed
        parse_output('{"name": "x"} or {"name": "y"}', "stop", ScenarioDraft, 100)


def test_only_repairs_that_cannot_change_the_answer_are_made_and_each_is_named():
    good = '{"instruction": "Please cancel order ORD-1042."}'
    assert parse_answer(good, "stop", PhrasingDraft, 100)[1] is None
    assert parse_answer(f"```json\n{good}\n```", "stop", PhrasingDraft, 100)[1] is None  # a whole-answer fence
    draft, repair = parse_answer(f"Sure! Here is the JSON:\n```json\n{good}\n```\nHope it helps.", "stop",
                                 PhrasingDraft, 100)
    assert draft.instruction == "Please cancel order ORD-1042." and "``` fence" in repair
    draft, repair = parse_answer(f"Here it is: {good} Done.", "stop", PhrasingDraft, 100)
    assert draft.instruction.startswith("Please") and repair == ("removed 12 characters of text before and 5 after "
                                                                "the JSON object")
    with pytest.raises(TruncatedOutputError):  # cut at the limit: never completed, even when it would parse
        parse_answer(good, "length", PhrasingDraft, 100)


def test_schema_violations_are_listed_by_field():
    with pytest.raises(SchemaViolationError, match=r"ScenarioDraft schema .*name: Field required"):
        parse_output('{"description": "x"}', "stop", ScenarioDraft, 100)
    with pytest.raises(SchemaViolationError, match="must be a JSON object, got list"):
        parse_output("[1, 2]", "stop", ScenarioDraft, 100)


def test_a_single_json_fence_is_the_only_wrapping_removed(serve):
    client = LLMClient(serve.settings(cache=False), None)
    good = ask(client).model_dump_json()
    assert parse_output(f"```json\n{good}\n```", "stop", ScenarioDraft, 100).model_dump_json() == good


# --- against the server ------------------------------------------------------------------------

def test_response_cache_makes_a_repeated_call_free_and_can_be_bypassed(serve, home):
    client = LLMClient(serve.settings(), home)
    records: list = []
    first = ask(client, records=records)
    again = ask(client, records=records)
    assert first == again
    assert len(serve.requests()) == 1
    assert [r.cache_hit for r in records] == [False, True]
    assert records[0].prompt_tokens > 0 and records[1].prompt_tokens is None  # a hit costs nothing
    bypass = LLMClient(serve.settings(cache=False), home)
    ask(bypass)
    assert len(serve.requests()) == 2
    # the cache is keyed by model, messages and parameters: another temperature is another entry
    ask(LLMClient(serve.settings(temperature=0.7), home))
    assert len(serve.requests()) == 3
    assert len(client.cache) == 2


def test_ledger_records_tokens_and_cost_from_the_price_table(serve, home):
    price = Price(input_per_mtok=2.0, output_per_mtok=8.0)
    client = LLMClient(serve.settings(prices={"awm-offline": price}, cache=False), home)
    records: list = []
    ask(client, records=records)
    rec = records[0]
    assert rec.cost_usd == pytest.approx((rec.prompt_tokens * 2 + rec.completion_tokens * 8) / 1e6)
    stored = client.ledger.records()
    assert [(r.prompt_tokens, r.completion_tokens, r.domain) for r in stored] == [
        (rec.prompt_tokens, rec.completion_tokens, "dental_clinic")]
    by_domain = client.ledger.cost_by_domain(["dental_clinic"])
    assert by_domain["dental_clinic"]["llm_cost_usd"] == pytest.approx(rec.cost_usd, abs=1e-6)
    unpriced = LLMClient(serve.settings(cache=False), home)
    ask(unpriced, records=records)
    assert summarize(records[1:])["llm_unpriced_calls"] == 1


def test_429_and_500_are_retried_inside_the_client_with_backoff(serve):
    serve.faults({"fault": "http_429", "stage": "scenarios", "times": 2},
                 {"fault": "http_500", "stage": "scenarios", "times": 1})
    waits: list[float] = []
    client = LLMClient(serve.settings(cache=False, backoff_s=0.5), None, sleep=waits.append)
    records: list = []
    ask(client, records=records)
    assert [r["status"] for r in serve.requests()] == [429, 429, 500, 200]
    assert records[0].transport_retries == 3 and records[0].outcome == "ok"
    assert waits == [0.5, 1.0, 2.0]  # exponential; the server's Retry-After of 0 s does not shorten it


def test_a_server_that_keeps_failing_is_a_transport_error_after_the_retries(serve):
    serve.faults({"fault": "http_500", "stage": "*", "times": None})
    client = LLMClient(serve.settings(cache=False, transport_retries=2), None, sleep=lambda s: None)
    records: list = []
    with pytest.raises(LLMTransportError, match=r"3 request\(s\) for this scenarios call, last error 500.*not shown "
                                                r"to the model") as caught:
        ask(client, records=records)
    assert records[0].outcome == "transport_error" and len(serve.requests()) == 3
    assert records[0].requests == 3 and caught.value.requests == 3 and caught.value.feedback is False


def test_a_slow_response_times_out_and_is_retried(serve, llm_serve):
    serve.faults({"fault": "slow", "stage": "scenarios", "times": 1})
    client = LLMClient(serve.settings(cache=False, timeout_s=0.5), None, sleep=lambda s: None)
    records: list = []
    ask(client, records=records)
    assert records[0].transport_retries == 1
    assert [r["faults"] for r in serve.requests()] == [["slow"], []]


def test_missing_usage_is_counted_not_guessed(serve):
    serve.faults({"fault": "missing_usage", "stage": "*", "times": 1})
    client = LLMClient(serve.settings(cache=False, prices={"awm-offline": Price(input_per_mtok=1,
                                                                                  output_per_mtok=1)}), None)
    records: list = []
    ask(client, records=records)
    ask(client, slot=1, records=records)
    total = summarize(records)
    assert total["llm_calls_without_usage"] == 1 and total["llm_unpriced_calls"] == 1
    assert records[0].prompt_tokens is None and records[1].prompt_tokens > 0


def test_structured_output_falls_back_to_json_object_then_plain_json(serve):
    serve.faults({"fault": "no_json_schema", "stage": "*", "times": None})
    client = LLMClient(serve.settings(cache=False), None)
    ask(client)
    ask(client, slot=1)
    assert [r["response_format"] for r in serve.requests()] == ["json_schema", "json_object", "json_object"]
    assert client.structured_output == "json_object"

    serve.reset()
    serve.faults({"fault": "no_response_format", "stage": "*", "times": None})
    plain = LLMClient(serve.settings(cache=False), None)
    ask(plain)
    assert [r["response_format"] for r in serve.requests()] == ["json_schema", "json_object", None]
    assert plain.structured_output == "none"


def test_an_explicit_json_schema_mode_does_not_fall_back(serve):
    serve.faults({"fault": "no_json_schema", "stage": "*", "times": None})
    client = LLMClient(serve.settings(cache=False, structured_output="json_schema"), None)
    with pytest.raises(LLMConfigError, match=r"refused structured output json_schema \(400\).*"
                                             r"AWM_LLM_STRUCTURED_OUTPUT=auto"):
        ask(client)
    assert len(serve.requests()) == 1


def test_in_flight_calls_never_exceed_the_concurrency_limit(serve):
    serve.latency(150)
    client = LLMClient(serve.settings(cache=False, concurrency=3), None)
    threads = [threading.Thread(target=ask, args=(client, slot)) for slot in range(9)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    peak = serve.stats()["peak_in_flight"]
    assert 1 < peak <= 3


def test_missing_key_and_unreachable_endpoint_are_clear_errors(serve):
    with pytest.raises(LLMConfigError, match="no API key: set OPENAI_API_KEY"):
        LLMClient(serve.settings(api_key=None), None)
    dead = LLMClient(LLMSettings(base_url="http://127.0.0.1:9/v1", api_key="k", timeout_s=2), None)
    with pytest.raises(LLMConfigError, match=r"cannot reach the LLM endpoint http://127.0.0.1:9/v1"):
        dead.ping()
    assert LLMClient(serve.settings(), None).ping() == ["awm-offline"]


def test_credentials_in_the_endpoint_url_are_never_recorded_nor_shown():
    from awm.backends.llm import LLMBackend

    settings = LLMSettings(base_url="http://user:pa55word@127.0.0.1:9/v1", api_key="k", timeout_s=2)
    assert settings.shown_url == "http://***@127.0.0.1:9/v1"
    assert LLMBackend(LLMClient(settings, None)).params["base_url"] == "http://***@127.0.0.1:9/v1"  # provenance
    with pytest.raises(LLMConfigError) as refused:
        LLMClient(settings, None).ping()
    assert "pa55word" not in str(refused.value) and "http://***@127.0.0.1:9/v1" in str(refused.value)
