"""A request the customer writes in their own words is offered only the tools a customer may use, and the runtime
refuses the staff's tools in its episodes, over every path a call takes (an episode, a replayed trajectory, MCP):
the call never reaches the tools, counts as a tool error and as no evidence. In those episodes a write may name
only the customer's own rows, or those of someone whose record names them as representative."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from mcp import Client

from awm.contracts import OwnedArgument, Task
from awm.runtime import open_environment
from awm.runtime.environment import OVERREACH, Environment
from awm.runtime.tools import is_evidence
from awm.store import ArtifactStore
from tests.awm.runtime.test_server import mcp_url, served_store, server  # noqa: F401 - the module's server


def _cases(store: ArtifactStore, pool):
    """An environment of the corpus with a customer's own request and a staff request whose reference calls a
    staff-only tool, none of the calls before it a write with an ownership rule (the customer's episode would refuse
    it on another customer's row); that call's index."""
    for env_id in store.env_ids():
        env = open_environment(env_id, home=store.home, pool=pool)
        staff_only = {s.name for s in env.toolset.tools if s.staff_only}
        owned = {s.name for s in env.toolset.tools if s.owned}
        party = next((t for t in env.tasks if t.requester == "party"), None)
        for task in env.tasks:
            index = next((n for n, c in enumerate(task.reference_solution) if c.tool in staff_only), None)
            if (party is not None and task.requester == "staff" and index is not None
                    and not any(c.tool in owned for c in task.reference_solution[:index])):
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


# --- a customer acts only on their own records --------------------------------------------------------------


def _owner(db: sqlite3.Connection, owned: OwnedArgument, row_id: int) -> int | None:
    row = db.execute(owned.owner_sql(), (row_id,)).fetchone()
    return row[0] if row else None


def _representative_of(db: sqlite3.Connection, env: Environment, party_id: int) -> int | None:
    return db.execute(env.toolset.representative_sql(), (party_id,)).fetchone()[0]


@pytest.fixture(scope="module")
def owned_write(published: ArtifactStore, pool):
    """A customer's own request whose reference writes on a row they own (every customer's write is on their own
    row or on the row of whom they represent): (env, task, the call's index, the argument's ownership rule, a row of
    another customer who does not name them as representative, a row whose owner names a representative)."""
    for env_id in published.env_ids():
        env = open_environment(env_id, home=published.home, pool=pool)
        specs = {s.name: s for s in env.toolset.tools}
        db = sqlite3.connect(env.db_path)
        for task in (t for t in env.tasks if t.requester == "party"):
            for n, call in enumerate(task.reference_solution):
                for owned in (o for o in specs[call.tool].owned if o.argument in call.arguments):
                    owner = _owner(db, owned, call.arguments[owned.argument])
                    if owner is None:
                        continue  # a row the request itself makes (a new case's lines, its payment): not there yet
                    # Their own row, or (a request as someone's representative) the row of whom they represent.
                    assert owner == task.party_id or _representative_of(db, env, owner) == task.party_id
                    if owner != task.party_id:
                        continue
                    ids = [r[0] for r in db.execute(f'SELECT id FROM "{owned.path[0]}" ORDER BY id')]
                    owners = {i: _owner(db, owned, i) for i in ids}
                    others = [i for i in ids if owners[i] not in (None, task.party_id)
                              and _representative_of(db, env, owners[i]) != task.party_id]
                    represented = [i for i in others if _representative_of(db, env, owners[i]) is not None]
                    if others and represented:
                        db.close()
                        yield env, task, n, owned, others[0], represented[0]
                        env.close()
                        return
        db.close()
        env.close()
    raise AssertionError("no customer's request of the test corpus writes on a row a customer owns")


def _as(env: Environment, task: Task, **changes) -> Environment:
    """The environment with `task` changed (who writes it): its own tools, database and pool."""
    copy = task.model_copy(update=changes)
    return Environment(env.env_id, env.tools_source, env.toolset, env.taskset.model_copy(update={"tasks": [copy]}),
                       None, env.db_path, pool=env.pool)


def _calls(task: Task, n: int, argument: str, value: int) -> list[tuple[str, dict]]:
    calls = [(c.tool, dict(c.arguments)) for c in task.reference_solution[:n + 1]]
    calls[n][1][argument] = value
    return calls


def _code(result) -> str | None:
    return result.get("error", {}).get("code") if isinstance(result, dict) else None


def test_a_customers_write_on_another_customers_row_is_refused_and_the_staffs_is_not(owned_write):
    env, task, n, owned, other, _ = owned_write
    own = _calls(task, n, owned.argument, task.reference_solution[n].arguments[owned.argument])
    results, _ = env.send_trajectory(own, task.task_id).result()
    assert _code(results[n]) != "not_permitted"
    foreign = _calls(task, n, owned.argument, other)
    results, _ = env.send_trajectory(foreign, task.task_id).result()
    assert _code(results[n]) == "not_permitted" and str(other) in results[n]["error"]["message"]
    with env.reset(task.task_id) as episode:
        for tool, arguments in foreign[:n]:
            episode.call(tool, arguments)
        before = episode.snapshot()
        refused = episode.call(*foreign[n])
        assert _code(refused) == "not_permitted" and not is_evidence(refused)
        assert episode.snapshot() == before
    staff = _as(env, task, requester="staff", party_id=None)
    try:  # the same call in the staff's own request: no ownership rule (the business's rules may still refuse)
        results, _ = staff.send_trajectory(foreign, task.task_id).result()
        assert _code(results[n]) != "not_permitted"
    finally:
        staff.close()


def test_a_representative_on_record_may_write_on_the_represented_customers_rows(owned_write):
    env, task, n, owned, _, represented = owned_write
    db = sqlite3.connect(env.db_path)
    try:
        holder = _owner(db, owned, represented)
        delegate = _representative_of(db, env, holder)
        stranger = next(r[0] for r in db.execute(f'SELECT id FROM "{env.toolset.representative[0]}"')
                        if r[0] not in (holder, delegate))
    finally:
        db.close()
    calls = _calls(task, n, owned.argument, represented)
    for acting, refused in ((delegate, False), (holder, False), (stranger, True)):
        as_them = _as(env, task, party_id=acting)
        try:
            results, _ = as_them.send_trajectory(calls, task.task_id).result()
        finally:
            as_them.close()
        assert (_code(results[n]) == "not_permitted") is refused, (acting, results[n])


def test_over_mcp_a_customers_session_refuses_another_customers_row(server, owned_write):  # noqa: F811
    env, task, n, owned, other, _ = owned_write
    tool, arguments = _calls(task, n, owned.argument, other)[n]

    async def go():
        async with Client(mcp_url(base, env.env_id, task=task.task_id, episode="owner")) as agent:
            refused = await agent.call_tool(tool, arguments)
            assert refused.is_error and refused.structured_content["error"]["code"] == "not_permitted"

    _, base = server
    asyncio.run(go())


def test_an_episode_that_tries_what_the_customer_may_not_do_is_never_complete(owned_write, case):
    """The task done as the reference does it, and one call the customer may not make tried on the way (another
    customer's row; a staff tool): the runtime refused it and nothing changed, yet the verdict is not complete
    (nor partial), over a trajectory and over an episode; the reference alone is complete."""
    env, task, n, owned, other, _ = owned_write
    calls = [(c.tool, c.arguments) for c in task.reference_solution]
    tries = calls[:n] + [_calls(task, n, owned.argument, other)[n]] + calls[n:]
    honest, tried = env.judge_trajectories(task.task_id, [(calls, task.reference_answer),
                                                          (tries, task.reference_answer)])
    assert honest["complete"], honest
    assert not tried["complete"] and not tried["partial"] and tried["overreach"] == 1, tried
    assert OVERREACH in tried["evidence"] and not tried["diff"]["unexpected"]
    with env.reset(task.task_id) as episode:
        for tool, arguments in tries:
            episode.call(tool, arguments)
        verdict = episode.judge(task.reference_answer)
        assert not verdict["complete"] and episode.overreach == 1
    staff_env, party, staff, index = case
    staff_call = (staff.reference_solution[index].tool, staff.reference_solution[index].arguments)
    calls = [(c.tool, c.arguments) for c in party.reference_solution]
    honest, tried = staff_env.judge_trajectories(party.task_id, [(calls, party.reference_answer),
                                                                 ([staff_call] + calls, party.reference_answer)])
    assert honest["complete"] and not tried["complete"] and tried["overreach"] == 1, (honest, tried)
