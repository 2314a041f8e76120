"""The layers are enforced: the source tree keeps every import contract, and a wrong import breaks one."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "import_contracts.py"

spec = importlib.util.spec_from_file_location("import_contracts", SCRIPT)
contracts = importlib.util.module_from_spec(spec)
sys.modules["import_contracts"] = contracts  # dataclasses look their module up by name
spec.loader.exec_module(contracts)


@pytest.fixture
def tree(tmp_path) -> Path:
    """A copy of the packages the contracts cover, to break on purpose."""
    for package in contracts.PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def add_line(tree: Path, module: str, line: str, after: str = "from __future__ import annotations\n") -> None:
    path = tree / (module.replace(".", "/") + ".py")
    text = path.read_text()
    assert after in text, f"{path} has no {after!r} to insert after"
    path.write_text(text.replace(after, after + line + "\n", 1))


def broken(tree: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for v in contracts.check(contracts.graph_of(tree)):
        found.setdefault(v.contract, []).append(v.message)
    return found


def test_the_source_tree_keeps_every_contract():
    assert contracts.check(contracts.graph_of(ROOT)) == []


def test_the_copy_keeps_them_too_before_it_is_broken(tree):
    assert broken(tree) == {}


def test_the_core_importing_dagster_breaks_the_contract(tree):
    add_line(tree, "awm.stages.tasks", "import dagster as dg")
    found = broken(tree)
    assert list(found) == ["core-without-dagster"]
    assert "awm.stages.tasks (line 4) imports dagster" in found["core-without-dagster"][0]


def test_the_core_importing_the_dagster_layer_inside_a_function_breaks_it(tree):
    add_line(tree, "awm.store", "def _late():\n    from resources import ArtifactStoreResource  # noqa\n")
    assert "imports resources.ArtifactStoreResource" in broken(tree)["core-without-dagster"][0]


@pytest.mark.parametrize("block", [
    "try:\n    pass\nexcept ImportError:\n    import dagster  # noqa\n",
    "with open(__file__):\n    class _Late:\n        import dagster  # noqa\n",
    "match __name__:\n    case 'x':\n        import dagster  # noqa\n",
    "for _ in ():\n    pass\nelse:\n    while False:\n        import dagster  # noqa\n",
], ids=["except", "with-class", "match-case", "for-else-while"])
def test_an_import_nested_in_any_statement_breaks_the_contract(block):
    """The walk looks inside every statement that can hold one (never inside expressions, which cannot)."""
    graph = contracts.ImportGraph()
    graph.add_source("awm.store", block)
    assert [(i.imported, i.line) for i in graph.imports] == [("dagster", block.count("\n"))]
    assert [v.contract for v in contracts.check(graph)] == ["core-without-dagster"]


def test_an_import_cycle_between_core_modules_breaks_the_contract(tree):
    add_line(tree, "awm.store", "from awm.stages.base import STAGES  # noqa")
    messages = broken(tree)["core-acyclic"]
    assert any("cycle between modules" in m and "awm.store -> awm.stages.base" in m for m in messages)


def test_a_cycle_between_parts_of_the_core_breaks_it_even_without_a_module_cycle(tree):
    # the LLM client reaching up into the stages (it once took the stage lock from there)
    add_line(tree, "awm.llm.cache", "from awm.stages.catalog import DEFAULT_MIN_TASKS  # noqa")
    messages = broken(tree)["core-acyclic"]
    assert any("cycle between parts" in m and "awm.llm.cache -> awm.stages.catalog" in m for m in messages)


@pytest.mark.slow
def test_a_check_importing_an_asset_module_breaks_the_contract(tree):
    add_line(tree, "checks.tools", "from awm_assets.catalog import failure_report  # noqa",
             after="import dagster as dg\n")
    found = broken(tree)
    assert list(found) == ["checks-use-keys-only"]
    assert "checks.tools" in found["checks-use-keys-only"][0] and "awm_assets.catalog" in found["checks-use-keys-only"][0]


def test_resources_importing_assets_breaks_the_contract(tree):
    add_line(tree, "resources.store", "from awm_assets.constants import TOOLS  # noqa")
    assert list(broken(tree)) == ["resources-below-assets"]


def test_an_import_only_for_type_checking_does_not_count(tree):
    add_line(tree, "awm.store", "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import dagster  # noqa")
    assert broken(tree) == {}


def test_the_command_exits_1_naming_the_broken_contract(tree):
    add_line(tree, "awm.quality.gates", "import dagster  # noqa")
    done = subprocess.run([sys.executable, str(SCRIPT), str(tree)], capture_output=True, text=True)
    assert done.returncode == 1
    assert "core-without-dagster: awm.quality.gates" in done.stdout
    ok = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
