"""The private Dagster name the checks use is imported in one place, checked against one release."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import dagster

from checks import dagster_private

ROOT = Path(__file__).resolve().parents[2]


def test_the_private_import_was_checked_against_the_installed_dagster():
    assert dagster.__version__ == dagster_private.CHECKED_AGAINST, (
        f"Dagster is {dagster.__version__}, checks/dagster_private.py was checked against "
        f"{dagster_private.CHECKED_AGAINST}: check its private import again (is the name exported now? are its "
        "fields the same?), then update CHECKED_AGAINST")
    pin = re.search(r'"dagster==([^"]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    assert pin == dagster_private.CHECKED_AGAINST


def test_the_private_name_has_the_fields_the_checks_give_it():
    made = dagster_private.target_materialization(storage_id=7, run_id="r", timestamp=1.5)
    assert tuple(made._fields) == dagster_private.FIELDS
    assert (made.storage_id, made.run_id, made.timestamp) == (7, "r", 1.5)
    assert dagster.AssetCheckEvaluation(asset_key=dagster.AssetKey("tools"), check_name="tools_valid", passed=True,
                                        target_materialization_data=made).target_materialization_data == made


def test_no_other_module_of_the_dagster_layer_imports_a_private_dagster_module():
    found = []
    for package in ("awm_assets", "checks", "resources"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                         else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
                if any(n.startswith("dagster._") or re.match(r"dagster_\w+\._", n) for n in names):
                    found.append(path.relative_to(ROOT).as_posix())
    assert found == ["checks/dagster_private.py"]
