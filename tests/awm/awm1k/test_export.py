"""`awm export --layout awm1k`: our corpus in AWM-1K's files; the round trip through our import gives the same
environments, and the exported app and verifiers judge the reference solution as our runtime does."""

from __future__ import annotations

import json
import sqlite3

import pytest

from awm import artifacts
from awm.awm1k.dataset import read_dataset
from awm.awm1k.export import TIERS_FILE
from awm.awm1k.importer import import_dataset
from awm.awm1k.runtime import ForeignHost
from awm.cli import main as awm_main
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.conftest import needs_os_isolation

ENV = "dental_clinic__00"


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> ArtifactStore:
    needs_os_isolation()
    store = ArtifactStore(tmp_path_factory.mktemp("ours"))
    assert all(o.ok for o in build_environment(store, "dental_clinic", 0))
    build_catalog(store, [ENV])
    return store


def table_rows(path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                        "'sqlite_%' ORDER BY name")]
    found = {n: [tuple(r) for r in conn.execute(f'PRAGMA table_info("{n}")')]
             + conn.execute(f'SELECT * FROM "{n}" ORDER BY rowid').fetchall() for n in names}
    conn.close()
    return found


def test_export_then_import_gives_the_same_environment(built, tmp_path):
    out = tmp_path / "awm1k"
    assert awm_main(["--home", str(built.home), "export", "--layout", "awm1k", "--out", str(out)]) == 0
    published = [e for e in built.iter_catalog()]
    assert {e["tier"] for e in published} == {"proven"}
    tiers = [json.loads(line) for line in (out / TIERS_FILE).read_text().splitlines()]
    assert [(t["task_id"], t["tier"]) for t in tiers] == [(e["task_id"], "proven") for e in published]
    verifier_lines = [json.loads(line) for line in (out / "gen_verifier.pure_code.jsonl").read_text().splitlines()]
    assert {v["tier"] for v in verifier_lines} == {"proven"}

    theirs = ArtifactStore(tmp_path / "theirs")
    (result,) = import_dataset(theirs, out)
    assert (result.env_id, result.status) == ("dental_clinic_00__00", "checked")
    assert result.tasks == {"checked": len(published)}  # our verifiers reject the unchanged database
    assert table_rows(artifacts.DATABASE.read(theirs, result.env_id)) == table_rows(
        artifacts.DATABASE.read(built, ENV))
    manifest = artifacts.AWM1K.read(theirs, result.env_id)
    assert [t.instruction for t in manifest.tasks] == [e["instruction"] for e in published]
    ours = artifacts.TOOLS_JSON.read(built, ENV).tools
    imported = {t.name: t for t in artifacts.TOOLS_JSON.read(theirs, result.env_id).tools}
    assert sorted(imported) == sorted(t.name for t in ours)
    for tool in ours:
        assert set(imported[tool.name].input_schema["properties"]) == set(tool.input_schema.get("properties", {}))
        assert imported[tool.name].input_schema["required"] == sorted(tool.input_schema.get("required", []))
    assert manifest.checks["routes_answer"] and manifest.checks["inserts_ok"]
    assert artifacts.SCENARIO.read(theirs, result.env_id).description == artifacts.SCENARIO.read(built, ENV).description


def test_the_exported_app_and_verifiers_judge_the_reference_as_ours_do(built, tmp_path):
    out = tmp_path / "awm1k"
    awm_main(["--home", str(built.home), "export", "--layout", "awm1k", "--out", str(out)])
    exported = read_dataset(out)["dental_clinic_00"]
    tasks = {t.task_id: t for t in artifacts.TASKS.read(built, ENV).tasks}
    published = [e for e in built.iter_catalog()]
    action = next(i for i, e in enumerate(published) if tasks[e["task_id"]].kind == "action")
    task = tasks[published[action]["task_id"]]
    code = exported.verifiers[action]
    with ForeignHost.start() as host:
        host.load(exported.code, artifacts.DATABASE.read(built, ENV))
        assert host.verify(code, final="initial")["verdict"] == "others"  # the null trajectory
        for call in task.reference_solution:
            answer = host.call_tool(call.tool, call.arguments)
            assert answer["status"] == 200 and "error" not in (answer["body"] or {}), (call, answer)
        judged = host.verify(code, answer=task.reference_answer)  # a change that also reports a sum is answered
        assert (judged["verdict"], judged["error"], judged["wrote"]) == ("complete", None, False)
        # a collateral write the reference does not make: the inlined outcome check rejects it
        final = host.snapshot()
        conn = sqlite3.connect(tmp_path / "collateral.db")
        conn.deserialize(final)
        # a row the reference wrote is no collateral (the goal would name it): a table no goal names
        touched = {t for g in task.goals for t in (g.table, g.child_table) if t}
        table = next(r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
                     if r[0] not in touched)
        conn.execute(f'DELETE FROM "{table}" WHERE rowid = (SELECT MAX(rowid) FROM "{table}")')
        conn.commit()
        collateral = conn.serialize()
        conn.close()
        verdict = host.verify(code, final=collateral, answer=task.reference_answer)
        assert verdict["verdict"] == "others", verdict
        assert any(e.startswith("unexpected change: ") and table in e for e in verdict["evidence"]), verdict


def test_a_home_with_both_exports_both_with_their_tiers_and_keeps_the_imported_to_the_foreign_runtime(built, tmp_path):
    import shutil
    from pathlib import Path

    from awm.runtime.server import published_catalog

    home = tmp_path / "both"
    shutil.copytree(built.home, home)
    store = ArtifactStore(home)
    sample = Path(__file__).resolve().parents[2] / "fixtures" / "awm1k" / "sample"
    import_dataset(store, sample, ["e_commerce_33"])
    build_catalog(store, store.env_ids())
    tiers = {(e["env_id"], e["tier"]) for e in store.iter_catalog()}
    assert tiers == {(ENV, "proven"), ("e_commerce_33__00", "checked")}
    assert sorted(published_catalog(store)) == [ENV]
    out = tmp_path / "tasks.jsonl"
    assert awm_main(["--home", str(home), "export", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {(r["env_id"], r["tier"]) for r in rows} == {(ENV, "proven"), ("e_commerce_33__00", "checked")}
