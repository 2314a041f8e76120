"""The MCP server, driven by the official mcp client over streamable HTTP and stdio."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
import time

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from awm.runtime import open_environment
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.store import ArtifactStore
from tests.awm.runtime.conftest import record_proofs
from tests.awm.runtime.test_containment import TOOLS, taskset, toolset, verifiers
from tests.conftest import dialect_of
from tests.lanes import PATIENCE_S, POLL_S


async def _until(holds, patience: float = PATIENCE_S) -> None:
    """Wait until `holds()` (asked every POLL_S seconds); fail after `patience` seconds, the last resort against a
    hang."""
    deadline = time.monotonic() + patience
    while not holds():
        assert time.monotonic() < deadline, f"still not so after {patience} s"
        await asyncio.sleep(POLL_S)


TOKEN = "test-admin-token"
ENV = "retail_banking__00"
GET_CUSTOMER = dialect_of(ENV).name("get_customer")  # in the environment's own API dialect
SEARCH_CUSTOMERS = dialect_of(ENV).name("search_customers")
SANDBOX_ENV = "sandbox_test__00"


@pytest.fixture(scope="module")
def served_store(published: ArtifactStore, tmp_path_factory) -> ArtifactStore:
    """The published corpus plus one environment whose tools include runaway code."""
    home = tmp_path_factory.mktemp("served")
    shutil.copytree(published.home, home, dirs_exist_ok=True)
    store = ArtifactStore(home)
    store.write_text(SANDBOX_ENV, "tools.py", TOOLS)
    store.write_model(SANDBOX_ENV, "tools.json", toolset())
    store.write_model(SANDBOX_ENV, "tasks.json", taskset())
    store.write_model(SANDBOX_ENV, "verifiers.json", verifiers())
    conn = sqlite3.connect(store.path(SANDBOX_ENV, "env.db"))
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    conn.executemany("INSERT INTO items(name) VALUES (?)", [("a",), ("b",)])
    conn.commit()
    conn.close()
    entry = {"env_id": SANDBOX_ENV, "domain": "sandbox_test", "task_id": "t01", "instruction": "Add z.",
             "kind": "action", "scenario": "test", "steps": 1, "tools": 1, "path": "corpus/sandbox_test"}
    with open(store.catalog_path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(entry) + "\n")
    record_proofs(store, SANDBOX_ENV, ["t01"])
    return store


@pytest.fixture(scope="module")
def server(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, score_grace=30)
    running = serve_in_thread(runtime)
    yield runtime, running.url
    running.stop()


@pytest.fixture(scope="module")
def env(served_store, pool):
    environment = open_environment(ENV, home=served_store.home, pool=pool)
    yield environment
    environment.close()


def mcp_url(base: str, env_id: str = ENV, **query: str) -> str:
    suffix = "&".join(f"{k}={v}" for k, v in query.items())
    return f"{base}/envs/{env_id}/mcp" + (f"?{suffix}" if suffix else "")


async def admin(base: str, method: str, path: str, token: str | None = TOKEN, **kwargs) -> httpx2.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx2.AsyncClient() as http:
        return await http.request(method, f"{base}{path}", headers=headers, **kwargs)


async def replay(base: str, task, key: str, answer: str | dict | None = None) -> dict:
    async with Client(mcp_url(base, task=task.task_id, episode=key)) as agent:
        for step in task.reference_solution:
            result = await agent.call_tool(step.tool, step.arguments)
            assert not result.is_error, (step.tool, result.content)
        answer = task.reference_answer if answer is None else answer
        response = await admin(base, "POST", f"/admin/sessions/{key}/score", json={"answer": answer})
    assert response.status_code == 200, response.text
    return response.json()


def test_tools_list_and_call_over_streamable_http(server, env):
    runtime, base = server

    async def go():
        async with Client(mcp_url(base)) as agent:
            assert agent.protocol_version == "2025-11-25"  # sessions need the handshake era
            listed = (await agent.list_tools()).tools
            assert [t.name for t in listed] == [t["name"] for t in env.tools]
            assert all(t.input_schema.get("type") == "object" for t in listed)
            assert not {t.name for t in listed} & {"verify", "score", "judge"}
            found = await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})
            assert not found.is_error and found.structured_content["id"] == 1
            assert json.loads(found.content[0].text) == found.structured_content
            wrong = await agent.call_tool(GET_CUSTOMER, {"customer_id": "one"})
            assert wrong.is_error and wrong.structured_content["error"]["code"] == "invalid_arguments"
            missing = await agent.call_tool("no_such_tool", {})
            assert missing.is_error and missing.structured_content["error"]["code"] == "unknown_tool"

    asyncio.run(go())


def test_reference_solutions_replayed_over_mcp_earn_reward_one_and_null_trajectories_zero(server, env):
    _, base = server

    async def go():
        for task in env.tasks[:4]:
            score = await replay(base, task, f"replay-{task.task_id}")
            assert score["reward"] == 1.0 and score["complete"] and score["task_id"] == task.task_id
            assert score["diff"]["unexpected"] == 0 and score["calls"] == task.steps and score["tool_errors"] == 0
            async with Client(mcp_url(base, task=task.task_id, episode=f"null-{task.task_id}")):
                null = await admin(base, "POST", f"/admin/sessions/null-{task.task_id}/score", json={})
            assert null.status_code == 200 and null.json()["reward"] == 0.0
        question = next(t for t in env.tasks if t.kind == "question")  # a structured answer, keyed by slot
        values = [g.expect["value"] for g in question.goals if g.kind == "answer"]
        structured = await replay(base, question, "slots", dict(zip(question.answer_slots, values)))
        assert structured["reward"] == 1.0, structured
        hedged = await replay(base, question, "hedged", {slot: [v, v] for slot, v in zip(question.answer_slots, values)})
        assert hedged["reward"] == 0.0 and not hedged["complete"]

    asyncio.run(go())


def test_concurrent_sessions_on_one_environment_do_not_see_each_others_writes(server, env):
    _, base = server
    task = next(t for t in env.tasks if t.kind == "action")

    async def bystander() -> dict:
        async with Client(mcp_url(base, task=task.task_id, episode="bystander")) as agent:
            for _ in range(len(task.reference_solution)):
                await agent.call_tool(SEARCH_CUSTOMERS, {})
            return (await admin(base, "POST", "/admin/sessions/bystander/score", json={})).json()

    async def go():
        return await asyncio.gather(replay(base, task, "writer"), bystander())

    writer, other = asyncio.run(go())
    assert writer["reward"] == 1.0 and other["reward"] == 0.0


def test_runaway_code_in_one_session_leaves_the_others_serving(server, env):
    _, base = server

    async def attacker():
        async with Client(mcp_url(base, SANDBOX_ENV)) as agent:
            started = time.monotonic()
            result = await agent.call_tool("c_level_loop", {})
            return result, time.monotonic() - started

    async def bystander():
        latencies = []
        async with Client(mcp_url(base, task="t01", episode="calm")) as agent:
            for _ in range(20):
                started = time.monotonic()
                result = await agent.call_tool(GET_CUSTOMER, {"customer_id": 2})
                assert not result.is_error
                latencies.append(time.monotonic() - started)
                await asyncio.sleep(0.05)
        return latencies

    async def go():
        return await asyncio.gather(attacker(), bystander())

    (result, seconds), latencies = asyncio.run(go())
    assert result.is_error and result.structured_content["error"]["code"] == "timeout"
    assert seconds < 10 and len(latencies) == 20


async def refusal(url: str) -> str:
    """Why the official client could not open a session at `url` (it must not open)."""
    try:
        async with Client(url):
            pass
    except BaseException as exc:  # the client raises the MCPError inside an exception group
        return " | ".join(str(e) for e in leaves(exc) if isinstance(e, MCPError))
    raise AssertionError(f"{url} opened a session")


def test_sessions_are_refused_for_unknown_tasks_environments_and_taken_keys(server):
    _, base = server

    async def go():
        assert "publishes no task 't99'" in await refusal(mcp_url(base, task="t99"))
        assert "no published environment" in await refusal(mcp_url(base, "retail_banking__77"))
        assert "must be 1-128 characters" in await refusal(mcp_url(base, episode="bad key!"))
        assert "must be 1-128 characters" in await refusal(mcp_url(base, episode="run-1%0A"))  # "run-1\n"
        async with Client(mcp_url(base, episode="taken")):
            assert "is taken by another unreserved episode" in await refusal(mcp_url(base, episode="taken"))

    asyncio.run(go())


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def test_admin_endpoints_need_the_token_and_name_their_problems(server):
    runtime, base = server

    async def go():
        assert (await admin(base, "GET", "/admin/sessions", token=None)).status_code == 401
        assert (await admin(base, "GET", "/admin/sessions", token="wrong")).status_code == 401
        assert (await admin(base, "POST", "/admin/sessions/ghost/score", token="wrong")).status_code == 401
        assert (await admin(base, "POST", "/admin/sessions/ghost/score", json={})).status_code == 404
        async with Client(mcp_url(base, episode="no-task")) as agent:
            await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})
            listed = (await admin(base, "GET", "/admin/sessions")).json()["sessions"]
            mine = next(s for s in listed if s["episode"] == "no-task")
            assert mine["state"] == "live" and mine["calls"] == 1 and mine["env_id"] == ENV
            needs_task = await admin(base, "POST", "/admin/sessions/no-task/score", json={})
            assert needs_task.status_code == 400 and "give task_id" in needs_task.json()["error"]
            bad = await admin(base, "POST", "/admin/sessions/no-task/score", json={"task_id": "t99"})
            assert bad.status_code == 400
            not_text = await admin(base, "POST", "/admin/sessions/no-task/score", json={"task_id": "t01", "answer": 5})
            assert not_text.status_code == 400
            by_session_id = await admin(base, "POST", f"/admin/sessions/{mine['session']}/score",
                                        json={"task_id": "t01"})
            assert by_session_id.status_code == 200 and by_session_id.json()["reward"] == 0.0
            assert runtime.session("no-task").episode.score(task_id="t01")["reward"] == 0.0  # the Python API
            freed = await admin(base, "DELETE", "/admin/sessions/no-task")
            assert freed.status_code == 200
            assert (await admin(base, "POST", "/admin/sessions/no-task/score", json={})).status_code == 404

    asyncio.run(go())


def test_an_ended_session_is_kept_for_scoring_then_freed(server, env, pool):
    runtime, base = server
    task = next(t for t in env.tasks if t.kind == "action" and not t.reference_answer)  # scored with no answer

    async def go():
        async with Client(mcp_url(base, task=task.task_id, episode="late")) as agent:
            for step in task.reference_solution:
                await agent.call_tool(step.tool, step.arguments)
        listed = (await admin(base, "GET", "/admin/sessions")).json()["sessions"]
        assert next(s for s in listed if s["episode"] == "late")["state"] == "ended"
        late = await admin(base, "POST", "/admin/sessions/late/score", json={})
        assert late.json()["reward"] == 1.0
        held = sum(w["episodes"] for w in pool.stats()["workers"])
        runtime.registry.score_grace = 0
        try:
            async with Client(mcp_url(base, episode="brief")) as agent:
                await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})
                assert sum(w["episodes"] for w in pool.stats()["workers"]) == held + 1
            await asyncio.sleep(0.2)
            assert sum(w["episodes"] for w in pool.stats()["workers"]) == held
            assert (await admin(base, "POST", "/admin/sessions/brief/score", json={})).status_code == 404
        finally:
            runtime.registry.score_grace = 30

    asyncio.run(go())


def test_discovery_endpoints(server):
    _, base = server

    async def go():
        envs = (await admin(base, "GET", "/envs", token=None)).json()["environments"]
        assert {e["env_id"] for e in envs} >= {ENV, SANDBOX_ENV}
        assert all(e["url"].endswith(f"/envs/{e['env_id']}/mcp") and e["tasks"] for e in envs)
        health = (await admin(base, "GET", "/healthz", token=None)).json()
        assert health["status"] == "ok" and health["workers_down"] == 0 and len(health["pool"]["workers"]) == 2
        assert all("pid" not in w for w in health["pool"]["workers"])  # unauthenticated: no process ids

    asyncio.run(go())


def stdio_params(store: ArtifactStore, task_id: str, final_db) -> StdioServerParameters:
    return StdioServerParameters(command=sys.executable, args=[
        "-m", "awm.cli", "--home", str(store.home), "serve", "--transport", "stdio", "--env", ENV,
        "--task", task_id, "--final-db", str(final_db), "--workers", "1"])


def test_stdio_serves_one_episode_scored_from_its_final_database(served_store, env, tmp_path):
    task = next(t for t in env.tasks if t.kind == "action")

    async def go():
        async with Client(stdio_params(served_store, task.task_id, tmp_path / "replayed.db")) as agent:
            # (with submit_answer where the task expects an answer)
            assert [t.name for t in (await agent.list_tools()).tools] == [t["name"] for t in env.tools_for(task.task_id)]
            for step in task.reference_solution:
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
        async with Client(stdio_params(served_store, task.task_id, tmp_path / "null.db"), mode="legacy") as agent:
            assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error

    asyncio.run(go())
    assert env.score_database(task.task_id, tmp_path / "replayed.db", task.reference_answer)["reward"] == 1.0
    assert env.score_database(task.task_id, tmp_path / "null.db")["reward"] == 0.0


def test_the_session_limit_refuses_new_sessions_with_503(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, max_sessions=1, max_unreserved=1, score_grace=0)
    running = serve_in_thread(runtime)

    async def go():
        async with Client(mcp_url(running.url)):
            async with httpx2.AsyncClient() as http:
                refused = await http.post(mcp_url(running.url), json={
                    "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                        "protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": {"name": "test", "version": "1"}}},
                    headers={"Accept": "application/json, text/event-stream"})
        assert refused.status_code == 503 and "holds 1 episode (1 live" in refused.json()["error"]["message"]
        async with Client(mcp_url(running.url)) as agent:  # the first one ended: room again
            assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error

    try:
        asyncio.run(go())
    finally:
        running.stop()


def test_serve_command_line_names_misuse(served_store, capsys):
    from awm.cli import main as awm

    home = ["--home", str(served_store.home)]
    assert awm([*home, "serve", "--transport", "stdio"]) == 2
    assert "exactly one --env" in capsys.readouterr().err
    assert awm([*home, "serve", "--task", "t01"]) == 2
    assert "for --transport stdio" in capsys.readouterr().err
    assert awm([*home, "serve", "--transport", "stdio", "--env", "retail_banking__77"]) == 2
    assert "publishes no task" in capsys.readouterr().err
    assert awm([*home, "serve", "--max-request-bytes", "100"]) == 2
    assert "the request limit must be at least 1024 bytes" in capsys.readouterr().err
    assert awm([*home, "serve", "--max-sessions", "0"]) == 2
    assert "the session limit must be at least 1" in capsys.readouterr().err
    assert awm([*home, "serve", "--max-sessions", "10", "--max-unreserved", "11"]) == 2
    assert "the unreserved session limit must be 0 to the session limit (10)" in capsys.readouterr().err
    assert awm([*home, "serve", "--max-connections", "0"]) == 2
    assert "the connection limit of a reserved episode must be at least 1" in capsys.readouterr().err
    assert awm([*home, "serve", "--public-url", "envs.example"]) == 2
    assert "must start with http:// or https://" in capsys.readouterr().err


# --- the trainer's binding, and hostile clients ------------------------------------------------

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}


async def open_raw(http: httpx2.AsyncClient, url: str) -> dict[str, str]:
    """Open a session with raw HTTP, as a hand-written client would; the headers that continue it."""
    opened = await http.post(url, json=INITIALIZE, headers=HEADERS)
    assert opened.status_code == 200, opened.text
    headers = {**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
    return headers


def tool_call(request_id: int, tool: str, arguments: dict) -> dict:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def raw_status(base: str, method: str, path: str, header: bytes) -> int:
    """The status of a request written byte for byte (HTTP clients tidy header values; an attacker need not)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(base)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n".encode() + header
                     + b"\r\nConnection: close\r\n\r\n")
        return int(sock.recv(64).split()[1])


def test_a_reserved_episode_is_bound_to_its_task_and_lives_across_sessions(server, env):
    runtime, base = server
    task = next(t for t in env.tasks if t.kind == "action" and t.steps >= 2)
    other = next(t for t in env.tasks if t.task_id != task.task_id)

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions",
                               json={"env_id": ENV, "task_id": task.task_id, "key": "bound-1"})
        assert reserved.status_code == 201, reserved.text
        url = reserved.json()["url"]
        assert reserved.json()["state"] == "reserved" and url.startswith(f"{base}/episodes/")
        assert task.task_id not in url and "bound-1" not in url  # nothing in it for the agent to edit
        taken = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                   "key": "bound-1"})
        assert taken.status_code == 409 and "reserved" in taken.json()["error"]
        # the agent can pick neither another task nor another key on its URL
        assert f"bound to task {task.task_id!r}" in await refusal(f"{url}?task={other.task_id}")
        assert "bound to episode" in await refusal(f"{url}?tool_format=awm")
        unopened = await admin(base, "POST", "/admin/sessions/bound-1/score", json={})
        assert unopened.status_code == 409 and "no agent has opened it" in unopened.json()["error"]
        first, rest = task.reference_solution[:1], task.reference_solution[1:]
        # two sessions opened at once share the one episode their reservation made
        async with Client(url) as agent, Client(url) as watcher:
            assert len(runtime.session("bound-1").connections) == 2
            for step in first:
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
            assert (await watcher.list_tools()).tools
        # every session closed: the episode lives on, and the next session at the URL continues it (the server
        # detaches a session when it has handled the client's closing request, which the client does not wait for)
        await _until(lambda: not runtime.session("bound-1").connections)
        assert runtime.session("bound-1").state == "live"
        async with Client(url) as agent:
            for step in rest:
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
        score = await admin(base, "POST", "/admin/sessions/bound-1/score",
                            json={"answer": task.reference_answer, "end": True})
        assert score.json()["task_id"] == task.task_id and score.json()["reward"] == 1.0, score.json()
        assert score.json()["calls"] == task.steps and score.json()["state"] == "ended"
        assert "has ended" in await refusal(url)  # an ended episode opens no more sessions
        again = await admin(base, "POST", "/admin/sessions/bound-1/score", json={"answer": task.reference_answer})
        assert again.json()["reward"] == 1.0  # still scorable within the grace
        gone = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t99"})
        assert gone.status_code == 400 and "publishes no task 't99'" in gone.json()["error"]

    asyncio.run(go())


def test_a_reserved_episode_idles_out_once_no_session_is_open(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, score_grace=30, idle_timeout=0.5)
    running = serve_in_thread(runtime)
    try:
        async def go():
            reserved = await admin(running.url, "POST", "/admin/sessions",
                                   json={"env_id": ENV, "task_id": "t01", "key": "idle-1"})
            async with Client(reserved.json()["url"]) as agent:
                await agent.list_tools()
            assert runtime.session("idle-1").state == "live"
            await asyncio.sleep(1.2)
            assert runtime.session("idle-1").state == "ended"  # kept for scoring, opens nothing more
            assert "has ended" in await refusal(reserved.json()["url"])

        asyncio.run(go())
    finally:
        running.stop()


def test_an_ended_sessions_key_cannot_be_taken_over_within_the_score_grace(server, env):
    _, base = server
    task = next(t for t in env.tasks if t.kind == "action")
    other = next(t for t in env.tasks if t.task_id != task.task_id)

    async def go():
        async with Client(mcp_url(base, task=task.task_id, episode="finished")) as agent:
            for step in task.reference_solution:
                await agent.call_tool(step.tool, step.arguments)
        assert "is taken by another unreserved episode" in await refusal(
            mcp_url(base, task=other.task_id, episode="finished"))
        score = await admin(base, "POST", "/admin/sessions/finished/score", json={"answer": task.reference_answer})
        assert score.json()["task_id"] == task.task_id and score.json()["reward"] == 1.0

    asyncio.run(go())


def test_the_admin_token_is_compared_exactly(server):
    _, base = server
    token = TOKEN.encode()
    assert raw_status(base, "GET", "/admin/sessions", b"Authorization: Bearer " + token) == 200
    assert raw_status(base, "GET", "/admin/sessions", b"Authorization: bearer " + token) == 200  # RFC 7235
    # Trailing spaces and tabs are not part of a field value (RFC 9110 5.5; uvicorn 0.55 strips them before the
    # application sees the header), so they are not near misses on the wire; the comparison itself is exact
    # (test_the_admin_comparison_is_exact_on_the_value_it_is_given).
    for near in (b"Bearer  " + token, b"Bearer " + token + b"\xa0", b"Bearer " + token[:-1], b"Bearer " + token + b"x",
                 b"Bearer \t" + token, token, b"Bearer"):
        assert raw_status(base, "GET", "/admin/sessions", b"Authorization: " + near) == 401, near


def test_the_admin_comparison_is_exact_on_the_value_it_is_given(served_store, pool):
    """Whatever an HTTP parser leaves in the value (some keep trailing whitespace), only the exact token passes."""
    server = RuntimeServer(served_store, pool, TOKEN)

    class Given:
        def __init__(self, value: str) -> None:
            self.headers = {"authorization": value}

    assert server._authorized(Given("Bearer " + TOKEN)) and server._authorized(Given("bearer " + TOKEN))
    for near in ("Bearer " + TOKEN + " ", "Bearer " + TOKEN + "\t", "Bearer  " + TOKEN, " Bearer " + TOKEN,
                 "Bearer " + TOKEN[:-1], "Bearer " + TOKEN + "x", TOKEN, "Bearer", ""):
        assert not server._authorized(Given(near)), near


@pytest.mark.parametrize("token", ["", "two words", "tab\tinside", "new\nline"])
def test_an_admin_token_with_whitespace_is_refused_at_start(served_store, pool, token):
    with pytest.raises(ValueError, match="admin token"):
        RuntimeServer(served_store, pool, token)


def test_a_call_larger_than_the_request_limit_is_refused_and_the_session_continues(server):
    _, base = server
    url = mcp_url(base)

    async def go():
        async with httpx2.AsyncClient(timeout=30) as http:
            headers = await open_raw(http, url)
            big = await http.post(url, json=tool_call(1, "add_case_note", {
                "account_application_id": 1, "body": "x" * 100_000}), headers=headers)
            assert big.status_code == 413, big.text
            error = big.json()["error"]
            assert error["code"] == -32600 and "65536 bytes" in error["message"] and "--max-request-bytes" in error[
                "message"]
            small = await http.post(url, json=tool_call(2, GET_CUSTOMER, {"customer_id": 1}), headers=headers)
            assert small.status_code == 200 and not small.json()["result"]["isError"]

    asyncio.run(go())


def test_two_requests_with_one_id_in_flight_are_both_answered(server):
    _, base = server
    url = mcp_url(base, SANDBOX_ENV)

    async def go():
        async with httpx2.AsyncClient(timeout=20) as http:
            headers = await open_raw(http, url)
            slow = asyncio.create_task(http.post(url, json=tool_call(7, "spin", {}), headers=headers))
            await asyncio.sleep(0.3)
            twin = await http.post(url, json=tool_call(7, "count_items", {}), headers=headers)
            assert twin.status_code == 400 and "already in flight" in twin.json()["error"]["message"]
            assert twin.json()["id"] == 7
            first = await asyncio.wait_for(slow, 10)
            assert first.json()["result"]["structuredContent"]["error"]["code"] == "timeout"
            again = await http.post(url, json=tool_call(7, "count_items", {}), headers=headers)  # free again
            assert again.json()["result"]["structuredContent"] == {"n": 2}

    asyncio.run(go())


def test_max_sessions_bounds_held_episodes_ended_ones_included(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, max_sessions=3, max_unreserved=3, score_grace=30)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        for i in range(3):
            async with Client(mcp_url(base, episode=f"held-{i}")) as agent:
                await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})
        async with httpx2.AsyncClient() as http:
            refused = await http.post(mcp_url(base), json=INITIALIZE, headers=HEADERS)
        assert refused.status_code == 503, refused.text
        assert "holds 3 episodes (0 live, 3 ended" in refused.json()["error"]["message"]
        reserving = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01"})
        assert reserving.status_code == 503
        health = (await admin(base, "GET", "/healthz", token=None)).json()
        assert health["held"] == 3 and health["sessions"] == 0
        assert (await admin(base, "DELETE", "/admin/sessions/held-0")).status_code == 200
        async with Client(mcp_url(base)) as agent:  # room again
            assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error

    try:
        asyncio.run(go())
    finally:
        running.stop()


def test_unauthenticated_answers_disclose_no_server_paths_nor_echo_the_host_header(published, pool, tmp_path):
    shutil.copytree(published.home, tmp_path, dirs_exist_ok=True)
    store = ArtifactStore(tmp_path)
    broken = "dental_clinic__00"
    store.path(broken, "env.db").write_bytes(b"not a database")
    runtime = RuntimeServer(store, pool, TOKEN)
    running = serve_in_thread(runtime)

    async def go():
        async with httpx2.AsyncClient() as http:
            failed = await http.post(mcp_url(running.url, broken), json=INITIALIZE, headers=HEADERS)
            assert failed.status_code == 503 and broken in failed.text
            listed = await http.get(f"{running.url}/envs", headers={"Host": "attacker.example"})
            assert listed.status_code == 200 and listed.json()["environments"]
        return failed.text, listed.text

    try:
        failed, listed = asyncio.run(go())
    finally:
        running.stop()
    assert str(tmp_path) not in failed and "/tmp" not in failed
    assert "attacker.example" not in listed and f"{running.url}/envs/{ENV}/mcp" in listed


def test_files_changed_after_their_proofs_are_not_served(published, pool, tmp_path, capsys):
    shutil.copytree(published.home, tmp_path, dirs_exist_ok=True)
    store = ArtifactStore(tmp_path)
    edited = "dental_clinic__00"
    with open(store.path(edited, "tools.py"), "a", encoding="utf-8") as fh:
        fh.write("\n\ndef helper(db):\n    return 1\n")
    runtime = RuntimeServer(store, pool, TOKEN)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        async with httpx2.AsyncClient() as http:
            refused = await http.post(mcp_url(base, edited), json=INITIALIZE, headers=HEADERS)
            assert refused.status_code == 503, refused.text
            assert "tools.py changed after its proofs" in refused.json()["error"]["message"]
            reserving = await admin(base, "POST", "/admin/sessions", json={"env_id": edited, "task_id": "t01"})
            assert reserving.status_code == 409 and "tools.py changed after its proofs" in reserving.text
            async with Client(mcp_url(base, episode="before-edit")) as agent:  # loaded as proven
                tasks = store.path(ENV, "tasks.json")
                tasks.write_text(tasks.read_text().replace("Karen", "Mallory", 1) + " ")
                refused = await http.post(mcp_url(base), json=INITIALIZE, headers=HEADERS)
                assert refused.status_code == 503
                assert "tasks.json changed on disk since the server loaded" in refused.json()["error"]["message"]
                assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error  # carries on

    try:
        asyncio.run(go())
    finally:
        running.stop()
    from awm.cli import main as awm

    assert awm(["--home", str(tmp_path), "serve", "--transport", "stdio", "--env", edited]) == 2
    assert "tools.py changed after its proofs" in capsys.readouterr().err


def served_url(proc: subprocess.Popen) -> str:
    """The base URL `awm serve` announces on stderr (after any warning it prints first, such as the
    sandbox's fallback to process isolation on a machine without bubblewrap)."""
    for _ in range(50):
        line = proc.stderr.readline()
        found = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
        if found:
            return found.group(1)
        if not line:
            break
    raise AssertionError("awm serve announced no URL on stderr")


def test_the_admin_token_is_read_from_a_file_or_the_environment(served_store, tmp_path, capsys, monkeypatch):
    import argparse
    import os

    from awm.cli import main as awm
    from awm.commands.serve import admin_token

    home = ["--home", str(served_store.home)]
    spaced = tmp_path / "spaced"
    spaced.write_text("two words\n")
    assert awm([*home, "serve", "--admin-token-file", str(spaced)]) == 2
    assert f"the admin token in {spaced} must be printable ASCII without spaces" in capsys.readouterr().err
    assert awm([*home, "serve", "--admin-token-file", str(spaced), "--admin-token", "x"]) == 2
    assert "not both" in capsys.readouterr().err
    token_file = tmp_path / "token"
    token_file.write_text("file-token-0123456789\n")  # the final line break is an editor's, not the token's
    token_file.chmod(0o600)
    monkeypatch.setenv("AWM_ADMIN_TOKEN_FILE", str(token_file))
    monkeypatch.setenv("AWM_ADMIN_TOKEN", "env-token-0123456789")
    no_flags = argparse.Namespace(admin_token=None, admin_token_file=None)
    assert admin_token(no_flags, []) == "file-token-0123456789"
    monkeypatch.delenv("AWM_ADMIN_TOKEN_FILE")
    assert admin_token(no_flags, []) == "env-token-0123456789"

    proc = subprocess.Popen([sys.executable, "-m", "awm.cli", *home, "serve", "--port", "0", "--workers", "1",
                             "--admin-token-file", str(token_file)], stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "AWM_ADMIN_TOKEN": "env-token-0123456789"})
    try:
        base = served_url(proc)
        assert "file-token" not in open(f"/proc/{proc.pid}/cmdline", "rb").read().decode()
        assert raw_status(base, "GET", "/admin/sessions", b"Authorization: Bearer file-token-0123456789") == 200
        assert raw_status(base, "GET", "/admin/sessions", b"Authorization: Bearer file-token-01234567890") == 401
        assert raw_status(base, "GET", "/admin/sessions", b"Authorization: Bearer env-token-0123456789") == 401

        async def unreserved() -> httpx2.Response:  # a configured token means a trainer: reservations only
            async with httpx2.AsyncClient() as http:
                return await http.post(mcp_url(base), json=INITIALIZE, headers=HEADERS)

        refused = asyncio.run(unreserved())
        assert refused.status_code == 403 and "--reserved-only" in refused.json()["error"]["message"]
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_awm_agent_format_serves_two_meta_tools_over_the_same_episode(server, env):
    runtime, base = server
    task = next(t for t in env.tasks if t.kind == "action")

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                      "key": "awm-1", "tool_format": "awm"})
        assert reserved.status_code == 201 and reserved.json()["tool_format"] == "awm"
        async with Client(reserved.json()["url"]) as agent:
            assert [t.name for t in (await agent.list_tools()).tools] == ["list_tools", "call_tool"]
            listing = (await agent.call_tool("list_tools", {})).content[0].text
            offered = env.tools_for(task.task_id)  # (with submit_answer where the task expects an answer)
            assert listing.startswith(f"Available MCP Tools ({len(offered)} tools):")
            assert all(f"mcp_tool_{spec['name']}" in listing for spec in offered)
            for n, step in enumerate(task.reference_solution):
                if n % 2:  # AWM's loop also calls a prefixed name directly
                    result = await agent.call_tool(f"mcp_tool_{step.tool}", step.arguments)
                else:
                    result = await agent.call_tool("call_tool", {"tool_name": f"mcp_tool_{step.tool}",
                                                                 "arguments": json.dumps(step.arguments)})
                assert not result.is_error, result.content
            broken = await agent.call_tool("call_tool", {"tool_name": "mcp_tool_x", "arguments": "{not json"})
            assert broken.is_error and broken.structured_content["error"]["code"] == "invalid_arguments"
            for nested in ("[" * 30_000 + "]" * 30_000, '{"a": ' + "[" * 100 + "]" * 100 + "}"):  # a tool error
                deep = await agent.call_tool("call_tool", {"tool_name": "mcp_tool_x", "arguments": nested})
                assert deep.is_error and "deeper than 64 levels" in deep.structured_content["error"]["message"]
        score = await admin(base, "POST", "/admin/sessions/awm-1/score", json={"answer": task.reference_answer})
        assert score.json()["reward"] == 1.0 and score.json()["tool_errors"] == 3, score.json()
        refused = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                     "tool_format": "xml"})
        assert refused.status_code == 400 and "tool_format" in refused.json()["error"]
        async with Client(mcp_url(base, tool_format="permissive")) as agent:
            listed = {t.name: t.input_schema for t in (await agent.list_tools()).tools}
            assert listed == {spec["name"]: spec["inputSchema"] for spec in env.tools}

    asyncio.run(go())


def test_a_worker_that_stays_down_takes_no_sessions_and_healthz_says_degraded(served_store, env, monkeypatch):
    import os
    import signal

    from awm.runtime import pool as pool_module
    from awm.runtime.pool import WorkerPool
    from tests.awm.runtime.test_failover import FailingStarts, wait_for

    task = next(t for t in env.tasks if t.kind == "action" and t.steps >= 2)
    pool = WorkerPool(workers=2, call_seconds=1.0, kill_grace=0.5)
    runtime = RuntimeServer(served_store, pool, TOKEN, score_grace=30)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                      "key": "survivor"})
        async with Client(reserved.json()["url"]) as agent:
            first, *rest = task.reference_solution
            assert not (await agent.call_tool(first.tool, first.arguments)).is_error
            holder = next(w for w in pool.stats()["workers"] if w["episodes"])
            failing = FailingStarts(None)
            monkeypatch.setattr(pool_module, "start_python", failing)
            os.kill(holder["pid"], signal.SIGKILL)
            await asyncio.to_thread(wait_for, lambda: failing.failed >= 1)
            for _ in range(6):  # the down worker has the fewest episodes: it would be first in line
                async with Client(mcp_url(base)) as other:
                    assert not (await other.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error
            for step in rest:  # the reserved episode goes on, rebuilt on the live worker
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
        score = await admin(base, "POST", "/admin/sessions/survivor/score", json={"answer": task.reference_answer})
        assert score.json()["reward"] == 1.0, score.json()
        health = await admin(base, "GET", "/healthz", token=None)
        assert health.json()["status"] == "degraded" and health.json()["workers_down"] == 1, health.json()
        assert [w["state"] for w in health.json()["pool"]["workers"]].count("down") == 1
        assert '"pid"' not in health.text and f':{pool.stats()["workers"][1 - holder_index()]["pid"]}' not in health.text

    def holder_index() -> int:
        return next(i for i, w in enumerate(pool.stats()["workers"]) if w["state"] == "down")

    try:
        asyncio.run(go())
    finally:
        running.stop()
        pool.close()


# --- the trainer first -------------------------------------------------------------------------------


def test_a_key_equal_to_a_session_id_does_not_capture_the_trainers_scoring(server, env):
    runtime, base = server
    task = next(t for t in env.tasks if t.kind == "action")

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                      "key": "capture-1"})
        async with Client(reserved.json()["url"]) as agent:
            for step in task.reference_solution:
                assert not (await agent.call_tool(step.tool, step.arguments)).is_error
            session_id = runtime.session("capture-1", "key").session_id
            # the agent opens an unreserved episode keyed with its reserved session's id, and leaves it untouched
            async with Client(mcp_url(base, task=task.task_id, episode=session_id)):
                ambiguous = await admin(base, "POST", f"/admin/sessions/{session_id}/score", json={})
                assert ambiguous.status_code == 409, ambiguous.text
                assert f"/admin/mcp-sessions/{session_id}" in ambiguous.json()["error"]
                assert (await admin(base, "DELETE", f"/admin/sessions/{session_id}")).status_code == 409
                by_id = await admin(base, "POST", f"/admin/mcp-sessions/{session_id}/score",
                                    json={"answer": task.reference_answer})
                assert by_id.json()["episode"] == "capture-1" and by_id.json()["reward"] == 1.0, by_id.json()
                by_key = await admin(base, "POST", f"/admin/episodes/{session_id}/score", json={})
                assert by_key.json()["episode"] == session_id and by_key.json()["reward"] == 0.0
                assert (await admin(base, "DELETE", f"/admin/episodes/{session_id}")).status_code == 200
                assert runtime.session("capture-1", "key").state == "live"  # the trainer's episode, untouched
        done = await admin(base, "POST", "/admin/episodes/capture-1/score", json={"answer": task.reference_answer})
        assert done.json()["reward"] == 1.0
        missing = await admin(base, "POST", "/admin/mcp-sessions/capture-1/score", json={})
        assert missing.status_code == 404 and "MCP session id" in missing.json()["error"]

    asyncio.run(go())


def test_an_unreserved_caller_learns_nothing_about_the_trainers_keys(server):
    runtime, base = server

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01",
                                                                      "key": "hidden-1"})
        assert reserved.status_code == 201
        answers = []
        async with httpx2.AsyncClient() as http:
            for key in ("hidden-1", "never-reserved-1"):  # a trainer's key, and a key nobody holds
                opened = await http.post(mcp_url(base, episode=key), json=INITIALIZE, headers=HEADERS)
                answers.append((opened.status_code, opened.json()["result"]["serverInfo"]["name"]))
                await http.delete(mcp_url(base), headers={**HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]})
        assert answers[0] == answers[1] and answers[0][0] == 200
        assert runtime.session("hidden-1", "key").state == "reserved"  # and the reservation is untouched

    asyncio.run(go())


def test_connections_at_a_reservation_url_are_limited_and_counted(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, max_sessions=4, max_unreserved=2, max_connections=2,
                            score_grace=30)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01", "key": "many"})
        url = reserved.json()["url"]
        async with httpx2.AsyncClient(timeout=30) as http:
            await open_raw(http, url)
            second = await open_raw(http, url)
            third = await http.post(url, json=INITIALIZE, headers=HEADERS)
            assert third.status_code == 429 and "--max-connections" in third.json()["error"]["message"], third.text
            health = (await admin(base, "GET", "/healthz", token=None)).json()
            assert health["held"] == 2 and health["episodes"] == 1
            assert (await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01"})).status_code \
                == 201
            await open_raw(http, mcp_url(base))  # the fourth of --max-sessions 4
            full = await http.post(mcp_url(base), json=INITIALIZE, headers=HEADERS)
            assert full.status_code == 503 and "1 more open MCP session" in full.json()["error"]["message"], full.text
            assert (await http.post(url, json=INITIALIZE, headers=HEADERS)).status_code == 429
            await http.delete(url, headers=second)  # a connection closed gives its slot back
            for _ in range(100):
                if runtime.registry.slots == 3:
                    break
                await asyncio.sleep(0.02)
            assert (await admin(base, "GET", "/healthz", token=None)).json()["held"] == 3
            await open_raw(http, url)

    try:
        asyncio.run(go())
    finally:
        running.stop()


def test_unreserved_sessions_cannot_take_the_sessions_reservations_need(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, max_sessions=3, max_unreserved=1, score_grace=30)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        async with httpx2.AsyncClient(timeout=30) as http:
            await open_raw(http, mcp_url(base))
            refused = await http.post(mcp_url(base), json=INITIALIZE, headers=HEADERS)
            assert refused.status_code == 503 and "--max-unreserved" in refused.json()["error"]["message"]
            for _ in range(2):  # what is left of --max-sessions is the trainer's
                reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01"})
                assert reserved.status_code == 201, reserved.text
                async with Client(reserved.json()["url"]) as agent:
                    assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error
            assert (await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01"})).status_code \
                == 503

    try:
        asyncio.run(go())
    finally:
        running.stop()


def test_reserved_only_refuses_every_unreserved_session(served_store, pool):
    runtime = RuntimeServer(served_store, pool, TOKEN, reserved_only=True)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        async with httpx2.AsyncClient() as http:
            refused = await http.post(mcp_url(base, episode="mine"), json=INITIALIZE, headers=HEADERS)
        assert refused.status_code == 403 and "reserved episodes only" in refused.json()["error"]["message"]
        assert (await admin(base, "GET", "/healthz", token=None)).json()["reserved_only"] is True
        reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": "t01"})
        async with Client(reserved.json()["url"]) as agent:
            assert not (await agent.call_tool(GET_CUSTOMER, {"customer_id": 1})).is_error

    try:
        asyncio.run(go())
    finally:
        running.stop()


GROW = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) "
        "INSERT INTO items(name) SELECT hex(zeroblob(500)) FROM c")  # about 2 MB


def test_unreserved_episodes_cannot_take_the_memory_reservations_need(served_store):
    from awm.runtime.pool import WorkerPool

    pool = WorkerPool(workers=1, call_seconds=2.0, unreserved_memory_mb=1)
    runtime = RuntimeServer(served_store, pool, TOKEN, score_grace=30)
    running = serve_in_thread(runtime)
    base = running.url

    async def go():
        async with Client(mcp_url(base, SANDBOX_ENV)) as agent:
            grown = await agent.call_tool("sql", {"statement": GROW})
            assert grown.is_error and grown.structured_content["error"]["code"] == "resource_limit", grown
            assert "kept for reserved episodes" in grown.structured_content["error"]["message"]
            assert not (await agent.call_tool("add_item", {"name": "small"})).is_error  # within the quota
        # each unreserved episode of a 188 KiB database takes its share: a handful fit in 1 MiB, then no more
        async with contextlib.AsyncExitStack() as stack:
            opened = 0
            for _ in range(12):
                try:
                    await stack.enter_async_context(Client(mcp_url(base)))
                except BaseException as exc:  # noqa: BLE001 - the client raises inside an exception group
                    assert "no room for another unreserved episode" in " | ".join(
                        str(e) for e in leaves(exc) if isinstance(e, MCPError)), exc
                    break
                opened += 1
            assert 3 <= opened < 12
            # the trainer's episodes still open, and grow as they need
            reserved = await admin(base, "POST", "/admin/sessions", json={"env_id": SANDBOX_ENV, "task_id": "t01"})
            async with Client(reserved.json()["url"]) as trained:
                assert not (await trained.call_tool("sql", {"statement": GROW})).is_error
                assert (await trained.call_tool("count_items", {})).structured_content == {"n": 2002}

    try:
        asyncio.run(go())
    finally:
        running.stop()
        pool.close()
