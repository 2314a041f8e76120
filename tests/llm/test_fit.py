"""Prompts that fit: the databases and tools stages asked in parts so that no request takes more than the request
budget (24K tokens by default, the context when smaller), measured before sending; a stage that cannot fit at all
says so before anything is sent. Against `awm llm-serve --context N`, which refuses (HTTP 400, as vLLM does) any
request whose prompt and max_tokens exceed its context."""

from __future__ import annotations

import json

import pytest

from awm.contracts import Column, Table, ToolSet
from awm.llm.fit import (
    PromptTooLargeError,
    SourceMergeError,
    merge_sources,
    part_of_tool,
    plan_parts,
    rows_answer_tokens,
    tool_table,
)
from awm.stages import databases, scenarios, schemas, tasks
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.llm.conftest import start_llm_serve
from tests.llm.test_backend import llm_backend

CONTEXT = 16384


@pytest.fixture(scope="module")
def tiny_context():
    server = start_llm_serve("--context", str(CONTEXT))
    yield server
    server.stop()


def _table(name: str, columns: int) -> Table:
    return Table(name=name, description="", columns=[Column(name="id", type="INTEGER", primary_key=True)] + [
        Column(name=f"c{n}", type="TEXT") for n in range(columns - 1)])


def test_tables_are_grouped_in_order_to_fit_and_a_table_that_cannot_fit_is_named():
    tables = [_table(f"t{n}", 6) for n in range(10)]
    need = rows_answer_tokens(tables[0])
    parts = plan_parts("databases", tables, rows_answer_tokens, 4000, 4000 + 400 + 3 * need, "the test budget")
    assert parts == [["t0", "t1", "t2"], ["t3", "t4", "t5"], ["t6", "t7", "t8"], ["t9"]]
    assert plan_parts("databases", tables, rows_answer_tokens, 4000, 24000, "x") == [[t.name for t in tables]]
    with pytest.raises(PromptTooLargeError, match=r"the databases stage cannot fit a request of 5500 tokens \(the "
                                                  r"test budget\): its prompt is about 4000 tokens and the answer for "
                                                  r"table t0 alone needs about \d+.*AWM_LLM_CONTEXT.*"
                                                  r"AWM_LLM_REQUEST_TOKENS"):
        plan_parts("databases", tables, rows_answer_tokens, 4000, 5500, "the test budget")


def test_a_tool_goes_to_the_part_of_the_table_it_names():
    tables = ["patients", "addresses", "treatment_categories", "treatment_lines", "case_notes"]
    assert tool_table("add_address", tables) == "addresses"
    assert tool_table("search_treatment_categories", tables) == "treatment_categories"
    assert tool_table("remove_treatment_line", tables) == "treatment_lines"
    assert tool_table("get_patient", tables) == "patients"
    assert tool_table("ping", tables) is None
    parts = [["patients", "addresses"], ["treatment_categories", "treatment_lines", "case_notes"]]
    assert [part_of_tool(t, parts) for t in ("add_case_note", "list_addresses", "ping")] == [1, 0, 0]


def test_parts_of_a_tools_module_merge_once_and_a_helper_defined_differently_is_an_error():
    helper = "def error(code):\n    return {'error': code}\n"
    one = "import json\n\nLIMIT = 5\n\n" + helper + "\n\ndef get_a(db, id):\n    return db.one('x', [id])\n"
    two = "import json\n\nLIMIT = 5\n\n" + helper + "\n\ndef get_b(db, id):\n    return error('no')\n"
    merged = merge_sources([one, two])
    assert merged.count("import json") == 1 and merged.count("def error") == 1 and merged.count("LIMIT = 5") == 1
    assert "def get_a" in merged and "def get_b" in merged
    compile(merged, "tools.py", "exec")
    assert merge_sources([one]) == one
    with pytest.raises(SourceMergeError, match="part 2 defines error differently"):
        merge_sources([one, two.replace("{'error': code}", "None")])


@pytest.mark.slow
def test_a_context_of_16k_builds_an_environment_in_parts_none_over_the_context(tiny_context, home, monkeypatch):
    """Whole, the databases and tools requests need about 21K and 27K tokens (characters / 4): a 16K server would
    cut their answers (before the split every attempt failed as truncated). In parts, every request fits."""
    serve = tiny_context.ready(monkeypatch)
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    outcomes = build_environment(store, "dental_clinic", 0, backend)
    assert [o.status for o in outcomes] == ["built"] * 6, [o.error for o in outcomes]
    sent = serve.requests()
    assert {r["status"] for r in sent} == {200} and {r["finish_reason"] for r in sent} == {"stop"}
    by_stage = {stage: [r for r in sent if r["stage"] == stage] for stage in ("databases", "tools")}
    assert len(by_stage["databases"]) >= 2 and len(by_stage["tools"]) >= 2
    assert outcomes[3].usage["llm_calls"] == len(by_stage["databases"])
    records = [r for r in backend.client.ledger.records() if r.stage in ("databases", "tools")]
    assert all(r.prompt_tokens + r.max_tokens <= CONTEXT for r in records)  # as the server counted the prompt
    assert backend.client.describe()["request_tokens"] == CONTEXT
    assert backend.client.describe()["limits_from"]["request_tokens"] == "the context window (server)"
    # every part asked only for its own tables, and together the tables of the schema, each once
    asked = []
    for entry in serve.requests(messages=True):
        if entry["stage"] == "databases":
            user = next(m["content"] for m in entry["messages"] if m["role"] == "user")
            asked += json.loads(user.split("<part>\n")[1].split("\n</part>")[0])["tables"]
    schema = json.loads(store.path("dental_clinic__00", "schema.json").read_text())
    assert asked == [t["name"] for t in schema["tables"]]
    tools = store.read_model("dental_clinic__00", "tools.json", ToolSet)
    assert len({t.name for t in tools.tools}) == len(tools.tools) > 30


def test_a_stage_that_cannot_fit_at_all_fails_before_sending_and_says_why(serve, home):
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    for stage in (scenarios, tasks, schemas):
        assert stage.build(store, "bakery__00", backend).ok
    small = llm_backend(serve, store, request_tokens=9000)
    serve.reset()
    outcome = databases.build(store, "bakery__00", small)
    assert outcome.status == "failed"
    assert "PromptTooLargeError" in outcome.error and "cannot fit a request of 9000 tokens (AWM_LLM_REQUEST_TOKENS)" \
        in outcome.error
    assert serve.requests() == []  # nothing was sent


def test_a_budget_set_smaller_asks_in_more_parts(serve, home):
    store = ArtifactStore(home)
    default = llm_backend(serve, store)
    for stage in (scenarios, tasks, schemas):
        assert stage.build(store, "bakery__00", default).ok
    serve.reset()
    assert databases.build(store, "bakery__00", default).ok
    whole = len([r for r in serve.requests() if r["stage"] == "databases"])
    smaller = llm_backend(serve, store, request_tokens=14000)
    serve.reset()
    assert databases.build(store, "bakery__00", smaller, force=True).ok
    parts = [r for r in serve.requests() if r["stage"] == "databases"]
    assert len(parts) > whole and all(r["max_tokens"] <= 14000 for r in parts)



def test_max_tokens_of_a_stage_is_set_from_the_answer_it_is_expected_to_need(serve, home):
    """A scenario answer is about 500 tokens: a model that loops (on whitespace, say) stops at 2,048, not at the
    20K the request budget would leave."""
    store = ArtifactStore(home)
    backend = llm_backend(serve, store)
    assert scenarios.build(store, "bakery__00", backend).ok
    assert tasks.build(store, "bakery__00", backend).ok
    sent = {r["stage"]: r["max_tokens"] for r in serve.requests()}
    assert sent == {"scenarios": 2048, "tasks": 2048 + 1200 * 10}
    record = next(r for r in backend.client.ledger.records() if r.stage == "scenarios")
    assert record.clamped.endswith("set to 2048, the most the scenarios answer is expected to need")
