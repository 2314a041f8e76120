"""scripts/codegen_equivalence.py, the proof a generator refactor changes nothing: it accepts a reformatted
tools.py and refuses a changed constant or a changed JSON artifact."""

import ast
import importlib.util
import shutil
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[3] / "scripts" / "codegen_equivalence.py"


@pytest.fixture(scope="module")
def equivalence():
    spec = importlib.util.spec_from_file_location("codegen_equivalence", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def snapshot(equivalence, tmp_path_factory):
    out = tmp_path_factory.mktemp("snapshot")
    for domain, slot in (("dental_clinic", 0), ("llama_farm", 1)):
        equivalence.snapshot_environment(out, domain, slot)
    return out


def copy_of(snapshot, tmp_path) -> Path:
    other = tmp_path / "other"
    shutil.copytree(snapshot, other)
    return other


def test_a_reformatted_tools_py_is_ast_identical(equivalence, snapshot, tmp_path):
    other = copy_of(snapshot, tmp_path)
    for path in other.glob("*/tools.py"):
        path.write_text(ast.unparse(ast.parse(path.read_text())).replace("\n\n", "\n\n\n"))
    result = equivalence.compare(snapshot, other)
    assert result["differences"] == 0 and result["environments"] == 2
    assert result["by_kind"]["tools.py"] == {"files": 2, "byte_identical": 0, "ast_identical": 2}
    assert result["by_kind"]["verifier.py"]["byte_identical"] == 20


def test_a_changed_constant_or_json_artifact_is_a_difference(equivalence, snapshot, tmp_path):
    other = copy_of(snapshot, tmp_path)
    tools = next(other.glob("dental_clinic__00/tools.py"))
    tools.write_text(tools.read_text().replace("does not exist", "is missing", 1))
    specs = next(other.glob("llama_farm__01/tools.json"))
    specs.write_text(specs.read_text().replace("page size", "rows per page", 1))
    result = equivalence.compare(snapshot, other)
    assert result["differences"] == 2
    assert result["first_differences"] == ["differs: dental_clinic__00/tools.py", "differs: llama_farm__01/tools.json"]
