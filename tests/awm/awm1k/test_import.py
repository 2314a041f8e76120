"""AWM-1K import: their files into the store, their code in the OS-isolated foreign runtime, the checks and tiers."""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import sqlite3
from pathlib import Path

import pytest

from awm import artifacts
from awm.awm1k.database import build_database
from awm.awm1k.dataset import DatasetError, read_dataset
from awm.awm1k.importer import import_dataset
from awm.awm1k.runtime import ForeignHost
from awm.cli import main as awm_main
from awm.runtime.isolation import IsolationUnavailable
from awm.stages.catalog import build_catalog

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "awm1k"
SAMPLE, BROKEN = FIXTURES / "sample", FIXTURES / "broken"


def line_hash(path: Path, number: int) -> str:
    return hashlib.sha256(path.read_text(encoding="utf-8").splitlines()[number - 1].encode()).hexdigest()


# --- their files -----------------------------------------------------------------------------------------------


def test_the_dataset_is_read_by_scenario_with_the_line_each_piece_came_from():
    found = read_dataset(SAMPLE)
    assert sorted(found) == ["e_commerce_33", "marketplace_1"]
    shop = found["e_commerce_33"]
    assert len(shop.tasks) == 10 and len(shop.tables) == 7 and sorted(shop.verifiers) == [0]
    assert shop.missing() == ["description"]
    assert found["marketplace_1"].missing() == ["tasks", "schema", "sample data", "environment code"]
    (source,) = shop.sources["db"]
    assert (source.file, source.line, source.sha256) == ("gen_db.jsonl", 1, line_hash(SAMPLE / "gen_db.jsonl", 1))


def test_a_line_not_in_the_format_is_named(tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "d")
    with open(tmp_path / "d" / "gen_tasks.jsonl", "a") as fh:
        fh.write('{"scenario": "x", "tasks": "not a list"}\n')
    with pytest.raises(DatasetError, match=r"gen_tasks.jsonl line 2: 'tasks' must be list"):
        read_dataset(tmp_path / "d")
    with pytest.raises(DatasetError, match="holds none of the AWM-1K files"):
        read_dataset(tmp_path)


def test_a_table_whose_insert_fails_is_rolled_back_whole_and_recorded_with_its_statement(tmp_path):
    scenario = read_dataset(BROKEN)["broken_inserts"]
    schema, inserts = build_database(tmp_path / "x.db", scenario.tables, scenario.samples)
    assert schema.errors == []
    assert inserts.failures == [{"table": "orders", "index": 1, "error": "FOREIGN KEY constraint failed",
                                 "statement": "INSERT INTO orders (id, item_id, qty) VALUES (2, 99, 1);"}]
    conn = sqlite3.connect(tmp_path / "x.db")
    assert conn.execute("SELECT COUNT(*) FROM items").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM orders").fetchone()[0] == 0  # not the first, good statement alone
    conn.close()


# --- import ----------------------------------------------------------------------------------------------------


def test_the_sample_imports_with_provenance_and_its_task_is_checked_not_proven(os_isolated, store):
    results = {r.scenario: r for r in import_dataset(store, SAMPLE)}
    shop = results["e_commerce_33"]
    assert (shop.env_id, shop.status, shop.tasks) == ("e_commerce_33__00", "checked", {"checked": 1, "unverified": 9})
    manifest = artifacts.AWM1K.read(store, shop.env_id)
    assert manifest.checks["schema_executes"] and manifest.checks["inserts_ok"] and manifest.checks["routes_answer"]
    assert manifest.checks["clock_dependent_inserts"] == 37  # datetime('now', ...) in every statement
    t01 = manifest.tasks[0]
    assert t01.tier == "checked" and t01.checks == {"runs": True, "deterministic": True, "read_only": True,
                                                    "null_rejected": True, "clock_free": True}
    assert manifest.provenance["env.db"] == [
        {"file": "gen_db.jsonl", "line": 1, "sha256": line_hash(SAMPLE / "gen_db.jsonl", 1)},
        {"file": "gen_sample.jsonl", "line": 1, "sha256": line_hash(SAMPLE / "gen_sample.jsonl", 1)}]
    assert artifacts.SCENARIO.read(store, shop.env_id).origin == "awm1k"
    assert artifacts.AWM1K_APP.read(store, shop.env_id) == read_dataset(SAMPLE)["e_commerce_33"].code
    tools = artifacts.TOOLS_JSON.read(store, shop.env_id)
    assert sorted(t.name for t in tools.tools) == ["add_cart_item", "get_cart", "search_products"]
    add = next(t for t in tools.tools if t.name == "add_cart_item")
    assert add.input_schema["required"] == ["product_offer_id", "quantity"]
    conn = sqlite3.connect(artifacts.DATABASE.read(store, shop.env_id))
    assert conn.execute("SELECT COUNT(*) FROM products").fetchone()[0] == 7
    conn.close()
    record = store.provenance(shop.env_id)["awm1k_environments"]
    assert record.inputs["gen_envs.jsonl:1"] == line_hash(SAMPLE / "gen_envs.jsonl", 1)
    assert record.outputs["env.db"] == store.hash(shop.env_id, "env.db")

    assert results["marketplace_1"].status == "quarantined"
    assert store.failure("marketplace_1__00").reason.startswith("missing from the dataset: tasks")

    summary = build_catalog(store, store.env_ids())
    lines = [json.loads(line) for line in store.catalog_path.read_text().splitlines()]
    assert [(e["env_id"], e["task_id"], e["tier"], e["origin"]) for e in lines] == [
        ("e_commerce_33__00", "t01", "checked", "awm1k")]
    assert {s.env_id: s.status for s in summary.statuses} == {"e_commerce_33__00": "quarantined",
                                                              "marketplace_1__00": "quarantined"}


def test_broken_scenarios_are_caught_by_the_checks(os_isolated, store):
    results = {r.scenario: r for r in import_dataset(store, BROKEN)}
    inserts = results["broken_inserts"]
    assert inserts.status == "quarantined" and "FOREIGN KEY constraint failed in INSERT INTO orders" in inserts.reason
    assert not artifacts.DATABASE.exists(store, inserts.env_id)  # never half-written
    route = results["broken_route"]
    assert route.status == "quarantined"
    assert "stock_ratio (GET /stock/ratio): ZeroDivisionError: division by zero" in route.reason
    manifest = artifacts.AWM1K.read(store, results["broken_verifiers"].env_id)
    tiers = {t.task_id: (t.tier, sorted(k for k, v in t.checks.items() if not v)) for t in manifest.tasks}
    assert tiers == {
        "t01": ("checked", []),                        # honest
        "t02": ("failed", ["null_rejected"]),          # always true: passes the unchanged database
        "t03": ("failed", ["read_only"]),              # writes the final database
        "t04": ("failed", ["deterministic", "null_rejected"]),  # flips its verdict
        "t05": ("checked", ["clock_free"]),            # reads the clock: reported, not failed
        "t06": ("failed", ["runs"]),                   # crashes
    }
    build_catalog(store, store.env_ids())
    published = [json.loads(line) for line in store.catalog_path.read_text().splitlines()]
    assert [(e["env_id"], e["task_id"]) for e in published] == [("broken_verifiers__00", "t01"),
                                                               ("broken_verifiers__00", "t05")]


def test_an_import_never_overwrites_an_environment_built_here(store):
    from awm.awm1k.importer import import_scenario
    from awm.stages.pipeline import build_environment

    assert all(o.ok for o in build_environment(store, "pet_grooming", 0))
    before = store.hash("pet_grooming__00", "env.db")
    scenario = read_dataset(BROKEN)["broken_inserts"]
    scenario.name = "pet_grooming"
    result = import_scenario(store, scenario)
    assert result.status == "skipped" and "never overwrites" in result.reason
    assert store.hash("pet_grooming__00", "env.db") == before and not artifacts.AWM1K.exists(store, "pet_grooming__00")


def test_the_command_imports_and_says_what_it_found(os_isolated, tmp_path, capsys):
    assert awm_main(["--home", str(tmp_path / "home"), "import-awm", str(SAMPLE), "--scenario", "e_commerce_33"]) == 0
    out = capsys.readouterr().out
    assert "e_commerce_33__00: checked (1 checked, 9 unverified)" in out and "catalog: 1 tasks (1 checked" in out
    assert awm_main(["--home", str(tmp_path / "home"), "import-awm", str(SAMPLE), "--scenario", "nope"]) == 2


# --- the foreign runtime ---------------------------------------------------------------------------------------

PROBE_APP = '''
import os, socket
from fastapi import FastAPI
from sqlalchemy import create_engine
engine = create_engine("sqlite:///nowhere.db")
app = FastAPI()

def attempt(action):
    try:
        action()
        return "allowed"
    except Exception as exc:
        return type(exc).__name__

@app.get("/probe", operation_id="probe")
def probe(port: int, secret: str):
    def connect():
        with socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
    def write():
        with open("/usr/awm1k-probe", "w") as fh:
            fh.write("x")
    def read():
        with open(secret) as fh:
            fh.read()
    return {"uid": os.getuid(), "socket": attempt(lambda: socket.socket().close()), "connect": attempt(connect),
            "write": attempt(write), "read": attempt(read), "environ": sorted(os.environ)}
'''


def test_foreign_code_runs_inside_the_isolation_our_workers_get(os_isolated, tmp_path, monkeypatch):
    monkeypatch.setenv("AWM1K_TEST_SECRET", "not for foreign code")
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    db = tmp_path / "e.db"
    sqlite3.connect(db).close()
    with socket.create_server(("127.0.0.1", 0)) as server, ForeignHost.start() as host:
        server.setblocking(False)
        host.load(PROBE_APP, db)
        seen = host.call_tool("probe", {"port": server.getsockname()[1], "secret": str(secret)})
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody knocked
    assert seen["status"] == 200, seen
    body = seen["body"]
    assert body["socket"] != "allowed" and body["connect"] != "allowed"
    assert body["write"] != "allowed" and body["read"] == "FileNotFoundError"
    assert "AWM1K_TEST_SECRET" not in body["environ"]
    assert body["uid"] != 0


def test_foreign_code_is_refused_without_os_isolation(monkeypatch):
    monkeypatch.setenv("AWM_SANDBOX_ALLOW_ROOT", "1")
    with pytest.raises(IsolationUnavailable, match="runs only under OS isolation"):
        ForeignHost.start("process")


GREW = '''
def verify_task_completion(initial_db_path, final_db_path, final_answer=None):
    import sqlite3
    count = lambda p: sqlite3.connect(f"file:{p}?mode=ro", uri=True).execute("SELECT COUNT(*) FROM cart_items").fetchone()[0]
    return {"result": "complete" if count(final_db_path) > count(initial_db_path) else "others"}
'''


def test_a_reset_restores_the_initial_database_and_verifiers_judge_the_episode(os_isolated, tmp_path):
    shop = read_dataset(SAMPLE)["e_commerce_33"]
    db = tmp_path / "shop.db"
    build_database(db, shop.tables, shop.samples)
    with ForeignHost.start() as host:
        host.load(shop.code, db)
        added = host.call_tool("add_cart_item", {"product_offer_id": 3, "quantity": 1})
        assert added["status"] == 200 and added["body"]["quantity"] == 1
        assert len(host.call_tool("get_cart", {})["body"]["items"]) == 2
        assert host.verify(GREW) == {"verdict": "complete", "error": None, "wrote": False}
        assert host.verify(GREW, final="initial")["verdict"] == "others"
        host.reset()
        assert len(host.call_tool("get_cart", {})["body"]["items"]) == 1
        host.call(method="POST", path="/api/cart/items", body={"product_offer_id": 3, "quantity": 0})
        assert len(host.call_tool("get_cart", {})["body"]["items"]) == 1
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM cart_items").fetchone()[0] == 3  # the original: untouched


@pytest.mark.slow
def test_an_imported_environment_is_served_over_mcp_stdio_and_its_episode_judged(os_isolated, store, tmp_path):
    import asyncio
    import sys

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    import_dataset(store, BROKEN, ["broken_verifiers"])
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "awm.cli", "--home", str(store.home), "serve-awm1k", "--env", "broken_verifiers__00", "--task", "t01",
        "--final-db", str(tmp_path / "final.db"), "--verdict", str(tmp_path / "verdict.json")])

    async def go():
        async with Client(params) as agent:
            assert sorted(t.name for t in (await agent.list_tools()).tools) == ["create_order", "get_item"]
            missing = await agent.call_tool("get_item", {"item_id": 99})
            assert missing.is_error and "Item not found" in missing.content[0].text
            assert not (await agent.call_tool("create_order", {"item_id": 1, "qty": 3})).is_error

    asyncio.run(go())
    conn = sqlite3.connect(tmp_path / "final.db")
    assert conn.execute("SELECT item_id, qty FROM orders").fetchall() == [(1, 3)]
    conn.close()
    assert json.loads((tmp_path / "verdict.json").read_text())["verdict"] == "complete"
