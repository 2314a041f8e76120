"""A request the customer writes in their own words is offered only the tools a customer may use, and the runtime
refuses the staff's tools in its episodes, over every path a call takes (an episode, a replayed trajectory, MCP):
the call never reaches the tools, counts as a tool error and as no evidence."""

from __future__ import annotations

import asyncio

import pytest
from mcp import Client

from awm.contracts import Task
from awm.runtime import open_environment
from awm.runtime.tools import is_evidence
from awm.store import ArtifactStore
from tests.awm.runtime.test_server import mcp_url, served_store, server  # noqa: F401 - the module's server


def _cases(store: ArtifactStore, pool):
    """An environment of the corpus with a customer's own request and a staff request whose reference calls a
    staff-only tool; that call's index."""
    for env_id in store.env_ids():
        env = open_environment(env_id, home=store.home, pool=pool)
        staff_only = {s.name for s in env.toolset.tools if s.staff_only}
        party = next((t for t in env.tasks if t.requester == "party"), None)
        for task in env.tasks:
            index = next((n for n, c in enumerate(task.reference_solution) if c.tool in staff_only), None)
            if party is not None and task.requester == "staff" and index is not None:
                return env, party, task, index
        env.close()
    raise AssertionError("no environment of the test corpus has both a customer's request and a staff tool in use")


@pytest.fixture(scope="module")
def case(published: ArtifactStore, pool):
    env, party, staff, index = _cases(published, pool)
    yield env, party, staff, index
    env.close()


def _names(specs: list[dict]) -> list[str]:
    return [s["name"] for s in specs if s["name"] != "submit_answer"]


def test_a_customers_request_lists_no_staff_tool_and_a_staff_request_lists_them_all(case):
    env, party, staff, _ = case
    every = [s.name for s in env.toolset.tools]
    staff_only = [s.name for s in env.toolset.tools if s.staff_only]
    assert staff_only and len(staff_only) < len(every)
    assert _names(env.tools_for(party.task_id)) == [name for name in every if name not in staff_only]
    assert _names(env.tools_for(staff.task_id)) == every == _names(env.tools_for(None))
    assert {c.tool for c in party.reference_solution} <= set(_names(env.tools_for(party.task_id)))


def test_an_episode_of_a_customers_request_refuses_a_staff_tool_and_changes_nothing(case):
    env, party, staff, index = case
    calls = [(c.tool, c.arguments) for c in staff.reference_solution[:index + 1]]
    staff_results, _ = env.send_trajectory(calls, staff.task_id).result()
    assert "error" not in staff_results[index]  # the call is a good one: the staff's episode runs it
    party_results, _ = env.send_trajectory(calls, party.task_id).result()
    assert party_results[index]["error"]["code"] == "not_permitted"
    assert party_results[:index] == staff_results[:index]
    tool, arguments = calls[index]
    with env.reset(party.task_id) as episode:
        before = episode.snapshot()
        refused = episode.call(tool, arguments)
        assert refused["error"]["code"] == "not_permitted" and tool in refused["error"]["message"]
        assert not is_evidence(refused) and episode.tool_errors == 1 and episode.evidence_calls == 0
        assert episode.snapshot() == before


def test_over_mcp_a_customers_session_lists_and_runs_only_the_customers_tools(server, case):  # noqa: F811
    env, party, staff, index = case
    _, base = server
    tool, arguments = staff.reference_solution[index].tool, staff.reference_solution[index].arguments

    async def go():
        async with Client(mcp_url(base, env.env_id, task=party.task_id, episode="customer")) as agent:
            listed = [t.name for t in (await agent.list_tools()).tools]
            assert listed == [t["name"] for t in env.tools_for(party.task_id)] and tool not in listed
            refused = await agent.call_tool(tool, arguments)
            assert refused.is_error and refused.structured_content["error"]["code"] == "not_permitted"
        async with Client(mcp_url(base, env.env_id, task=staff.task_id, episode="staff")) as agent:
            assert tool in [t.name for t in (await agent.list_tools()).tools]

    asyncio.run(go())


def test_the_reference_of_every_customers_request_in_the_corpus_runs_in_its_own_episode(case):
    """The customer's requests are solvable with the customer's tools (the verification stage proves the same)."""
    env = case[0]
    parties: list[Task] = [t for t in env.tasks if t.requester == "party"]
    assert parties
    for task in parties:
        results, _ = env.send_trajectory([(c.tool, c.arguments) for c in task.reference_solution], task.task_id).result()
        assert not any(isinstance(r, dict) and r.get("error", {}).get("code") == "not_permitted" for r in results)
