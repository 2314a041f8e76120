"""Artifact files are declared once (awm/artifacts.py) and read through their declaration."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from awm import artifacts
from awm.contracts import Scenario
from awm.errors import CorruptArtifactError, MissingArtifactError
from awm.store import ArtifactStore

ROOT = Path(__file__).resolve().parents[2]
ENV = "dental_clinic__00"
# Outside these, a file name of an environment is spelled only in awm/artifacts.py (docstrings aside).
SCANNED = ("awm", "awm_assets", "checks", "resources")
NOT_SCANNED = ("awm/builder", "awm/artifacts.py")
# Files that name a file of their own which happens to share an artifact's name.
OWN_FILES = {"awm_assets/evaluation.py": {"report.json"}}  # the evaluation's report, in its own folder


def literal_uses(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    names = {a.name for a in artifacts.ALL}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and node.value in names and id(node) not in docstrings]


def test_no_artifact_file_name_is_spelled_outside_its_declaration():
    found = []
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if relative.startswith(NOT_SCANNED):
                continue
            found += [f"{relative}:{line}: {value!r}" for line, value in literal_uses(path)
                      if value not in OWN_FILES.get(relative, set())]
    assert found == [], "use the declaration in awm/artifacts.py instead:\n" + "\n".join(found)


def test_read_validates_json_against_its_contract(tmp_path):
    store = ArtifactStore(tmp_path)
    store.write_text(ENV, artifacts.SCENARIO.name, '{"env_id": "dental_clinic__00"}')
    with pytest.raises(CorruptArtifactError, match="scenario.json does not match the Scenario contract"):
        artifacts.SCENARIO.read(store, ENV)
    with pytest.raises(MissingArtifactError, match="tasks.json does not exist"):
        artifacts.TASKS.read(store, ENV)
    assert artifacts.SCENARIO.model is Scenario and artifacts.SCENARIO.exists(store, ENV)


def test_read_gives_text_and_a_checked_database_path(tmp_path):
    store = ArtifactStore(tmp_path)
    store.write_text(ENV, artifacts.SCHEMA_SQL.name, "CREATE TABLE t (id INTEGER PRIMARY KEY);\n")
    assert artifacts.SCHEMA_SQL.read(store, ENV).startswith("CREATE TABLE")
    store.write_text(ENV, artifacts.DATABASE.name, "not a database")
    with pytest.raises(CorruptArtifactError, match="not a SQLite database"):
        artifacts.DATABASE.read(store, ENV)
    assert artifacts.DATABASE.path(store, ENV) == store.env_dir(ENV) / "env.db"
