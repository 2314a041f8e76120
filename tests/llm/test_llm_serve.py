"""`awm llm-serve`: the command line, fault rules, keys, genuine truncation, and prompts it cannot answer."""

from __future__ import annotations

import pytest

from awm.cli import main
from awm.llm.client import LLMClient
from awm.llm.errors import LLMConfigError, LLMTransportError, TruncatedOutputError
from awm.llm.prompts import ScenarioDraft
from awm.llm_serve.server import FaultRule, FaultSpecError, LLMServer
from tests.llm.test_client import ask


def test_fault_rules_are_parsed_and_checked():
    assert FaultRule.parse("http_429:tasks:2") == FaultRule("http_429", "tasks", 2)
    assert FaultRule.parse("malformed_json:*:always").times is None
    assert FaultRule.parse("slow").stage == "*"
    with pytest.raises(FaultSpecError, match="unknown fault 'bogus'"):
        FaultRule.parse("bogus")
    with pytest.raises(FaultSpecError, match="bad_sql applies to databases, not tools"):
        FaultRule.parse("bad_sql:tools")
    with pytest.raises(FaultSpecError, match="TIMES must be a number or 'always'"):
        FaultRule.parse("truncated:tasks:often")


def test_the_command_refuses_a_bad_fault_with_the_reason(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["llm-serve", "--fault", "unsafe_code:schemas"])
    assert exit_info.value.code == 2
    assert "unsafe_code applies to tools, verifier, not schemas" in capsys.readouterr().err


def test_a_server_with_a_key_rejects_other_keys(serve):
    server = LLMServer(api_key="right").start()
    try:
        with pytest.raises(LLMConfigError, match="rejected the API key"):
            LLMClient(serve.settings(base_url=server.url, api_key="wrong"), None).ping()
        assert LLMClient(serve.settings(base_url=server.url, api_key="right"), None).ping() == ["awm-offline"]
    finally:
        server.stop()


def test_max_tokens_truncates_for_real_and_that_is_an_error(serve):
    client = LLMClient(serve.settings(max_tokens=50, cache=False), None)
    with pytest.raises(TruncatedOutputError, match="max_tokens=50"):
        ask(client)
    assert serve.requests()[0]["finish_reason"] == "length"


def test_a_prompt_it_does_not_know_is_refused_clearly(serve):
    client = LLMClient(serve.settings(cache=False), None)
    with pytest.raises(LLMTransportError, match="answers AWM stage prompts only"):
        client.complete("scenarios", [{"role": "user", "content": "write a poem"}], ScenarioDraft, "awm_x")
