"""Imported AWM-1K environments over streamable HTTP: `awm serve`'s server, a real MCP client and awm.client on
127.0.0.1; each episode on its own database copy in the foreign host, scored by their verifier; and the foreign
host's memory budget."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import httpx
import pytest
from mcp import Client as MCPClient

from awm import artifacts
from awm.awm1k.importer import import_dataset
from awm.awm1k.runtime import ForeignHost
from awm.awm1k.serving import ImportedEnvironments
from awm.client import AsyncClient, AWMClientError, Client
from awm.runtime.pool import WorkerPool
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.stages.catalog import build_catalog
from awm.store import ArtifactStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "awm1k"
TOKEN = "awm1k-token"
ENV = "broken_verifiers__00"  # t01: "Order 3 bolts" (item 1, qty 3); t05 reads the clock; the others failed


@pytest.fixture(scope="module")
def imported(os_isolated, tmp_path_factory) -> ArtifactStore:
    store = ArtifactStore(tmp_path_factory.mktemp("awm1k-served") / "home")
    import_dataset(store, FIXTURES / "broken", ["broken_verifiers"])
    build_catalog(store, store.env_ids())
    return store


@pytest.fixture(scope="module")
def base(imported):
    with WorkerPool(workers=1) as pool:
        source = ImportedEnvironments(imported)
        handle = serve_in_thread(RuntimeServer(imported, pool, TOKEN, score_grace=30, sources=(source,)))
        yield handle.url
        handle.stop()
    assert source.loaded == []  # the server closed its hosts on the way out


def orders(snapshot: bytes, tmp_path: Path) -> list[tuple]:
    path = tmp_path / "final.db"
    path.write_bytes(snapshot)
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT item_id, qty FROM orders ORDER BY id").fetchall()
    finally:
        conn.close()


def test_awm_client_reserves_calls_and_scores_an_imported_episode_by_their_verifier(base):
    with Client(base, admin_token=TOKEN) as client:
        episode = client.reserve(ENV, "t01", key="bolts")
        assert sorted(t["name"] for t in episode.tools) == ["create_order", "get_item"]
        text, failed = episode.call("get_item", {"item_id": 1})
        assert not failed and '"qty"' in text
        text, failed = episode.call("get_item", {"item_id": 99})
        assert failed and "Item not found" in text and "http_404" in text
        text, failed = episode.call("create_order", {"item_id": 1, "qty": 3})
        assert not failed, text
        verdict = episode.score()
        assert (verdict["complete"], verdict["reward"], verdict["verdict"]) == (True, 1.0, "complete")
        assert verdict["calls"] == 3 and verdict["tool_errors"] == 1
        ended = episode.end()
        assert ended["state"] == "ended" and ended["episode"] == "bolts" and ended["reward"] == 1.0
        null = client.reserve(ENV, "t01")
        assert null.end()["verdict"] == "others"  # nothing done: their verifier says no
        with pytest.raises(AWMClientError, match="publishes no task 't02'"):
            client.reserve(ENV, "t02")  # its verifier passes the unchanged database: failed, never served


def test_concurrent_episodes_each_have_their_own_database(base):
    async def one(client: AsyncClient, qty: int | None) -> dict:
        episode = await client.reserve(ENV, "t01")
        if qty is not None:
            assert not (await episode.call("create_order", {"item_id": 1, "qty": qty}))[1]
        await asyncio.sleep(0)  # the others call in between
        return await episode.end()

    async def go():
        async with AsyncClient(base, admin_token=TOKEN) as client:
            return await asyncio.gather(one(client, 3), one(client, None), one(client, 2), one(client, 3))

    verdicts = asyncio.run(go())
    assert [v["verdict"] for v in verdicts] == ["complete", "others", "others", "complete"]
    assert len({v["episode"] for v in verdicts}) == 4


def test_a_real_mcp_client_on_an_open_session_and_the_trainer_scores_it(base, tmp_path):
    async def go():
        async with httpx.AsyncClient() as http:
            listed = (await http.get(f"{base}/envs")).json()["environments"]
            assert [(e["env_id"], e["tasks"]) for e in listed] == [(ENV, ["t01", "t05"])]
            async with MCPClient(f"{base}/envs/{ENV}/mcp?task=t01&episode=agent-1") as agent, \
                    MCPClient(f"{base}/envs/{ENV}/mcp?task=t01&episode=agent-2") as other:
                tools = {t.name: t for t in (await agent.list_tools()).tools}
                assert sorted(tools) == ["create_order", "get_item"]
                assert tools["create_order"].input_schema["required"] == ["item_id", "qty"]
                assert not (await agent.call_tool("create_order", {"item_id": 1, "qty": 3})).is_error
                assert not (await other.call_tool("create_order", {"item_id": 2, "qty": 1})).is_error
                headers = {"Authorization": f"Bearer {TOKEN}"}
                first = (await http.post(f"{base}/admin/episodes/agent-1/score", json={}, headers=headers)).json()
                second = (await http.post(f"{base}/admin/episodes/agent-2/score", json={}, headers=headers)).json()
            return first, second

    first, second = asyncio.run(go())
    assert (first["verdict"], first["reward"]) == ("complete", 1.0)
    assert (second["verdict"], second["reward"]) == ("others", 0.0)


def test_an_imported_environment_whose_files_changed_is_not_served(imported, tmp_path):
    import shutil

    home = tmp_path / "home"
    shutil.copytree(imported.home, home)
    store = ArtifactStore(home)
    with open(artifacts.AWM1K_APP.path(store, ENV), "a", encoding="utf-8") as fh:
        fh.write("\n# changed after the import\n")
    with WorkerPool(workers=1) as pool:
        handle = serve_in_thread(RuntimeServer(store, pool, TOKEN, sources=(ImportedEnvironments(store),)))
        try:
            with Client(handle.url, admin_token=TOKEN) as client, \
                    pytest.raises(AWMClientError, match="app.py changed after its import recorded them"):
                client.reserve(ENV, "t01")
        finally:
            handle.stop()


def test_awm_serve_leaves_imported_environments_out_when_told(imported):
    with WorkerPool(workers=1) as pool:
        assert ENV in RuntimeServer(imported, pool, TOKEN, sources=(ImportedEnvironments(imported),)).catalog
        assert ENV not in RuntimeServer(imported, pool, TOKEN).catalog


SLOW_ROUTE = """

import time as _time


@app.get("/slow", operation_id="slow")
def slow(seconds: float):
    _time.sleep(seconds)
    return {"slept": seconds}
"""


@pytest.mark.slow
def test_a_call_past_its_deadline_ends_the_host_and_the_next_episode_gets_a_new_one(imported, tmp_path):
    import shutil

    from awm.awm1k.serving import ForeignEnvironment

    shutil.copytree(imported.home, tmp_path / "home")
    store = ArtifactStore(tmp_path / "home")
    with open(artifacts.AWM1K_APP.path(store, ENV), "a", encoding="utf-8") as fh:
        fh.write(SLOW_ROUTE)
    env = ForeignEnvironment(store, ENV, ["t01"], call_seconds=2)
    try:
        bystander, runaway = env.reset("t01"), env.reset("t01")
        assert "id" in bystander.call("create_order", {"item_id": 1, "qty": 3})
        ended = runaway.call("slow", {"seconds": 60})
        assert ended["error"]["code"] == "call_failed" and "did not answer call within 2 s" in ended["error"]["message"]
        lost = bystander.call("get_item", {"item_id": 1})
        assert "ended" in lost["error"]["message"] and "reserve another episode" in lost["error"]["message"]
        fresh = env.reset("t01")  # a new host, the app loaded again
        assert "id" in fresh.call("create_order", {"item_id": 1, "qty": 3})
        assert fresh.score()["verdict"] == "complete"
        bystander.close()
        runaway.close()
    finally:
        env.close()


# --- the memory budget ---------------------------------------------------------------------------------------

GREEDY_APP = '''
import threading

from fastapi import FastAPI
app = FastAPI()

@app.get("/thread", operation_id="thread")
def thread():  # the kernel's id: a new thread gets a new one (get_ident's may be reused once a thread ends)
    return {"thread": threading.get_native_id()}

@app.get("/spawn", operation_id="spawn")
def spawn():  # a thread of their own, started and ended inside the call
    done = []
    helper = threading.Thread(target=done.append, args=(1,))
    helper.start()
    helper.join()
    return {"done": len(done)}

@app.get("/greedy", operation_id="greedy")
def greedy(mib: int, kind: str = "list"):
    if kind == "buffer":  # zeroed pages the kernel gives lazily: address space, not memory, until written
        return {"bytes": len(bytes(mib << 20))}
    hoard = [0] * (mib * 131072)  # 8 bytes a slot: `mib` MiB of list
    return {"slots": len(hoard)}
'''


def test_a_call_over_the_memory_budget_gets_a_clear_error_and_the_host_carries_on(os_isolated, tmp_path):
    db = tmp_path / "e.db"
    sqlite3.connect(db).close()
    with ForeignHost.start(memory_mb=64) as host:
        host.load(GREEDY_APP, db)
        assert host.call_tool("greedy", {"mib": 1})["body"] == {"slots": 131072}
        # 512 MiB: the machine would give it (untouched pages), the budget does not
        over = host.call_tool("greedy", {"mib": 512, "kind": "buffer"})
        assert over["status"] == 500
        assert over["body"]["error"].startswith("MemoryError: the call went over its memory budget (64 MiB")
        huge = host.call_tool("greedy", {"mib": 1 << 20})  # a list of 1 TiB
        assert huge["status"] == 500 and "memory budget" in huge["body"]["error"]
        assert host.call_tool("greedy", {"mib": 2})["body"] == {"slots": 262144}  # the host carries on
        # every sync call on the one thread started at load: a thread started inside a call's budget can fail
        # in its first allocation, and Thread.start then waits forever (the call timed out on a loaded machine)
        assert len({host.call_tool("thread", {})["body"]["thread"] for _ in range(3)}) == 1
        # a thread their code starts inside a call starts outside the budget, and the call's budget is intact
        assert [host.call_tool("spawn", {})["body"] for _ in range(5)] == [{"done": 1}] * 5
        assert host.call_tool("greedy", {"mib": 32, "kind": "buffer"})["body"] == {"bytes": 32 << 20}
        judged = host.verify('def verify_task_completion(initial_db_path, final_db_path, final_answer=None):\n'
                             '    return {"result": str(len(bytes(1 << 31)))}\n')
        assert judged["verdict"] is None and judged["error"].startswith("MemoryError: the call went over its memory")


@pytest.mark.slow
def test_the_awm_serve_command_serves_them(imported, tmp_path):
    import re
    import subprocess
    import sys

    token = tmp_path / "token"
    token.write_text("cli-token\n")
    token.chmod(0o600)
    server = subprocess.Popen([sys.executable, "-m", "awm.cli", "--home", str(imported.home), "serve", "--port", "0",
                               "--workers", "1", "--admin-token-file", str(token)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()
        found = re.search(r"(\d+) environments at (http://127\.0\.0\.1:\d+)/envs", line)
        assert found and found.group(1) == "1", line
        with Client(found.group(2), admin_token="cli-token") as client:
            episode = client.reserve(ENV, "t01")
            assert not episode.call("create_order", {"item_id": 1, "qty": 3})[1]
            assert episode.end()["verdict"] == "complete"
    finally:
        server.terminate()
        server.wait(timeout=30)
