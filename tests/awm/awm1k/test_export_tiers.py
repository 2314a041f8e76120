"""`awm export` of a store holding one of our environments and an imported AWM-1K one: every row says its tier
and origin, `--tier` keeps only the tiers named, a promoted imported task exports as proven with its reference,
the rows of the imported one are what `awm serve` serves, and the layouts that cannot carry an imported
environment (SFT, awm1k) say so; `awm serve --transport stdio` points an imported environment to the right
command."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from awm.awm1k.importer import import_dataset
from awm.awm1k.serving import ImportedEnvironments
from awm.cli import main as awm_main
from awm.client import Client
from awm.errors import UnknownEnvironmentError
from awm.runtime import open_environment
from awm.runtime.pool import WorkerPool
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.conftest import copied_store, needs_os_isolation

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "awm1k"
OURS = "dental_clinic__00"
THEIRS = "broken_verifiers__00"  # t01 "Order 3 bolts" and t05 are checked; its other tasks failed their checks
TOKEN = "export-tiers-token"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> ArtifactStore:
    needs_os_isolation()
    store = ArtifactStore(tmp_path_factory.mktemp("awm1k-export-tiers") / "home")
    outcomes = build_environment(store, "dental_clinic", 0)
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    import_dataset(store, FIXTURES / "broken", ["broken_verifiers"])
    build_catalog(store, store.env_ids())
    return store


@pytest.fixture
def home(mixed, tmp_path) -> ArtifactStore:
    return copied_store(mixed, tmp_path)


def export(store: ArtifactStore, out: Path, *args: str) -> int:
    return awm_main(["--home", str(store.home), "export", "--out", str(out), "--quiet", *args])


def rows_of(path: Path) -> list[dict]:
    files = [path] if path.is_file() else sorted(path.glob("*.jsonl"))
    return [json.loads(line) for f in files if f.name != "tools.jsonl" for line in f.read_text().splitlines()]


def catalog(store: ArtifactStore) -> list[dict]:
    return [json.loads(line) for line in store.catalog_path.read_text().splitlines()]


def test_the_export_carries_ours_as_proven_and_the_imported_tasks_as_checked_with_their_origin(mixed, tmp_path,
                                                                                               capsys):
    ours = [e for e in catalog(mixed) if e["env_id"] == OURS]
    assert ours and {e["origin"] for e in ours} != {"awm1k"}
    assert export(mixed, tmp_path / "awm") == 0
    out = capsys.readouterr().out
    assert f"wrote {len(ours) + 2} tasks of 2 environments" in out and f"by tier: proven {len(ours)}, checked 2" in out
    rows = rows_of(tmp_path / "awm")
    tiers = {(r["env_id"], r["task_id"]): (r["tier"], r["origin"]) for r in rows}
    assert tiers == {**{(OURS, e["task_id"]): ("proven", e["origin"]) for e in ours},
                     (THEIRS, "t01"): ("checked", "awm1k"), (THEIRS, "t05"): ("checked", "awm1k")}
    t01 = next(r for r in rows if (r["env_id"], r["task_id"]) == (THEIRS, "t01"))
    assert t01["instruction"] == "Order 3 bolts for the workshop."
    assert t01["prompt"][1]["content"] == t01["instruction"]
    assert t01["answer_mode"] == "prose" and t01["answer_slots"] == []
    assert t01["mcp"]["reserve"]["body"]["env_id"] == THEIRS
    assert "serve-awm1k" in t01["stdio"]["args"] and "--transport" not in t01["stdio"]["args"]
    tools = {line["env_id"]: [t["name"] for t in json.loads(line["tools"])]
             for line in map(json.loads, (tmp_path / "awm" / "tools.jsonl").read_text().splitlines())}
    assert sorted(tools[THEIRS]) == ["create_order", "get_item"] and len(tools[OURS]) > 10

    card = (tmp_path / "awm" / "README.md").read_text()
    assert f"| proven | {len(ours)} | 1 |" in card and "| checked | 2 | 1 |" in card
    assert "CC-BY-4.0" in card  # their rows carry their licence


def test_tier_proven_keeps_only_proven_tasks_in_every_dataset_layout(mixed, tmp_path, capsys):
    ours = {e["task_id"] for e in catalog(mixed) if e["env_id"] == OURS}
    assert export(mixed, tmp_path / "awm.jsonl", "--tier", "proven") == 0
    assert {(r["env_id"], r["tier"]) for r in rows_of(tmp_path / "awm.jsonl")} == {(OURS, "proven")}
    assert export(mixed, tmp_path / "hf.jsonl", "--layout", "hf", "--tier", "proven") == 0
    assert {r["task_id"] for r in rows_of(tmp_path / "hf.jsonl")} == ours
    assert export(mixed, tmp_path / "verl", "--layout", "verl", "--format", "jsonl", "--tier", "proven") == 0
    verl = rows_of(tmp_path / "verl")
    assert {r["extra_info"]["task_id"] for r in verl} == ours and {r["extra_info"]["tier"] for r in verl} == {"proven"}
    card = (tmp_path / "verl" / "README.md").read_text()
    assert "kept only the tier proven" in card and "| checked |" not in card and "CC-BY-4.0" not in card

    assert export(mixed, tmp_path / "checked", "--layout", "verl", "--format", "jsonl", "--tier", "checked") == 0
    checked = rows_of(tmp_path / "checked")
    assert {(r["extra_info"]["env_id"], r["extra_info"]["task_id"], r["extra_info"]["tier"],
             r["extra_info"]["origin"]) for r in checked} == {(THEIRS, "t01", "checked", "awm1k"),
                                                             (THEIRS, "t05", "checked", "awm1k")}
    capsys.readouterr()
    assert export(mixed, tmp_path / "none", "--tier", "checked", "--env", OURS) == 2
    assert "no published task matches environment dental_clinic__00; tier checked" in capsys.readouterr().err


@pytest.mark.slow
def test_a_promoted_imported_task_exports_as_proven_with_its_reference(home, tmp_path, capsys):
    solved = tmp_path / "solved.jsonl"
    solved.write_text(json.dumps({"env_id": THEIRS, "task_id": "t01", "answer": "Ordered.",
                                  "calls": [{"tool": "create_order", "arguments": {"item_id": 1, "qty": 3}}]}) + "\n")
    assert awm_main(["--home", str(home.home), "promote-awm1k", "--trajectories", str(solved)]) == 0
    assert export(home, tmp_path / "proven.jsonl", "--tier", "proven", "--with-reference") == 0
    rows = {(r["env_id"], r["task_id"]): r for r in rows_of(tmp_path / "proven.jsonl")}
    assert (THEIRS, "t05") not in rows  # still checked
    t01 = rows[(THEIRS, "t01")]
    assert (t01["tier"], t01["origin"]) == ("proven", "awm1k")
    assert t01["reference"] == {"solution": [{"tool": "create_order", "arguments": {"item_id": 1, "qty": 3}}],
                                "answer": "Ordered."}
    assert export(home, tmp_path / "all.jsonl", "--with-reference", "--env", THEIRS) == 0
    t05 = next(r for r in rows_of(tmp_path / "all.jsonl") if r["task_id"] == "t05")
    assert t05["tier"] == "checked" and t05["reference"] is None

    # the row's stdio entry, run as given, serves the promoted task (awm serve-awm1k) and their verifier judges it
    from mcp import Client as MCPClient
    from mcp.client.stdio import StdioServerParameters

    stdio = t01["stdio"]
    params = StdioServerParameters(command=stdio["command"], env=stdio["env"], args=[
        *stdio["args"], "--final-db", str(tmp_path / "final.db"), "--verdict", str(tmp_path / "verdict.json")])

    async def go():
        async with MCPClient(params) as agent:
            listed = (await agent.list_tools()).tools
            assert sorted(t.name for t in listed) == sorted(t["name"] for t in t01["tools"])
            assert not (await agent.call_tool("create_order", {"item_id": 1, "qty": 3})).is_error

    asyncio.run(go())
    assert json.loads((tmp_path / "verdict.json").read_text())["verdict"] == "complete"


def test_an_exported_imported_row_is_what_awm_serve_serves(mixed, tmp_path):
    assert export(mixed, tmp_path / "rows.jsonl", "--env", THEIRS) == 0
    row = next(r for r in rows_of(tmp_path / "rows.jsonl") if r["task_id"] == "t01")
    with WorkerPool(workers=1) as pool:
        handle = serve_in_thread(RuntimeServer(mixed, pool, TOKEN, score_grace=30,
                                               sources=(ImportedEnvironments(mixed),)))
        try:
            with Client(handle.url, admin_token=TOKEN) as client:
                body = row["mcp"]["reserve"]["body"]
                episode = client.reserve(body["env_id"], body["task_id"], tool_format=body["tool_format"])
                assert episode.tools == row["tools"]
                text, failed = episode.call("create_order", {"item_id": 1, "qty": 3})
                assert not failed, text
                assert episode.end(answer="Ordered.")["complete"] is True
        finally:
            handle.stop()


def test_layouts_that_cannot_carry_an_imported_environment_say_why(mixed, tmp_path, capsys):
    assert awm_main(["--home", str(mixed.home), "export", "--sft", "--env", THEIRS, "--out", str(tmp_path / "sft")]) == 2
    err = capsys.readouterr().err
    assert f"every environment matching environment {THEIRS} is imported" in err and "SFT rows are references" in err
    assert export(mixed, tmp_path / "awm1k", "--layout", "awm1k") == 0
    captured = capsys.readouterr()
    assert "wrote" in captured.out and "1 environments" in captured.out
    assert f"left out 1 imported AWM-1K environment ({THEIRS}): the awm1k layout writes environments built here" \
        in captured.err
    tiers = [json.loads(line) for line in (tmp_path / "awm1k" / "awm_tiers.jsonl").read_text().splitlines()]
    assert {t["env_id"] for t in tiers} == {OURS}
    assert export(mixed, tmp_path / "awm1k-checked", "--layout", "awm1k", "--tier", "checked") == 2
    assert "keeps none of them" in capsys.readouterr().err


def test_serve_over_stdio_names_the_command_for_an_imported_environment(mixed, capsys):
    code = awm_main(["--home", str(mixed.home), "serve", "--transport", "stdio", "--env", THEIRS, "--task", "t01"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"`awm serve-awm1k --env {THEIRS} --task t01`" in err and "over HTTP with `awm serve`" in err


def test_opening_an_imported_environment_in_process_names_how_to_serve_it(mixed):
    """open_environment runs our environments in-process; an imported one runs only in the foreign runtime, and
    the error says how to reach it (it used to say the environment publishes no task)."""
    with pytest.raises(UnknownEnvironmentError, match=rf"{THEIRS} is an imported AWM-1K environment.*awm serve"):
        open_environment(THEIRS, home=mixed.home)
    with pytest.raises(UnknownEnvironmentError, match="publishes no task"):
        open_environment("no_such_domain__00", home=mixed.home)
