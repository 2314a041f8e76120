"""A stage's code version covers the code and data that shape its output (awm/sources.py).

The digest is taken over a copy of the core package in a temporary folder, edited there: the stages whose
sources hold the edited file get another code version and are rebuilt, every other stage is reused, and a
change to the runtime, the docs or the tests changes nothing.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from awm import sources
from awm.backends.offline import OfflineBackend, source_files, sources_digest
from awm.registry import STAGE_NAMES
from awm.stages.base import code_version
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore

TEMPLATE = "awm/builder/templates/tools/accounts.py"  # a tool template: what one kind of tool does
PACK = "awm/builder/categories/banking/pack.yaml"
DOMAIN = "retail_banking"


def copy_of_core(dest: Path) -> Path:
    """The core package, copied byte for byte, with a docs and a tests folder beside it."""
    shutil.copytree(sources.ROOT / "awm", dest / "awm", ignore=shutil.ignore_patterns("__pycache__"))
    (dest / "docs").mkdir()
    (dest / "docs" / "architecture.md").write_text("# Architecture\n")
    (dest / "tests").mkdir()
    (dest / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    (dest / "README.md").write_text("# AWM\n")
    return dest


def edit(path: Path, line: str = "# edited\n") -> None:
    path.write_text(path.read_text(encoding="utf-8") + line, encoding="utf-8")


def digests(root: Path) -> dict[str, str]:
    return {stage: sources_digest(stage, root=root) for stage in STAGE_NAMES}


def stages_holding(rel: str) -> set[str]:
    return {stage for stage in STAGE_NAMES if rel in source_files(stage)}


@pytest.fixture(scope="module")
def original(tmp_path_factory) -> dict[str, str]:
    return digests(copy_of_core(tmp_path_factory.mktemp("original")))


def test_the_digest_is_of_the_files_not_of_where_they_are(original):
    """Relative paths and bytes only: a copy in another folder has the checkout's digests."""
    assert original == digests(sources.ROOT)
    assert len(set(original.values())) == len(STAGE_NAMES)  # each stage is made of other files


def test_the_sources_are_found_from_the_entry_modules():
    tools = source_files("tools")
    assert {TEMPLATE, "awm/builder/templates/tool_prelude.py", "awm/builder/codegen.py", "awm/quality/tools.py",
            "awm/builder/catalogue/catalogue.yaml", PACK, "awm/builder/phrasing.py", "awm/stages/base.py",
            "awm/store.py", "awm/contracts.py"} <= set(tools)
    assert not [f for f in tools if f.startswith(("awm/runtime/", "awm/llm/"))]  # runs tools; calls no model
    assert "awm/llm/rephrase.py" in source_files("tasks", phrased=True)  # unless a model rewrites the tasks
    verifiers = source_files("verification_reports")
    assert {"awm/builder/templates/verifier.py", "awm/builder/verifiergen.py", "awm/quality/mutations.py"} <= set(
        verifiers)
    assert "awm/builder/templates/verifier.py" not in tools
    # the backend module adds itself, not what it imports (every stage's generator)
    assert "awm/builder/verifiergen.py" not in tools and "awm/backends/offline.py" in tools
    with pytest.raises(ValueError, match="source entry 'awm.builder.nothing': no module awm.builder.nothing"):
        sources.closure(("awm.builder.nothing",))


def test_a_template_change_moves_the_code_version_of_the_stages_made_from_it(tmp_path, original):
    root = copy_of_core(tmp_path)
    edit(root / TEMPLATE)
    changed = {stage for stage, digest in digests(root).items() if digest != original[stage]}
    assert changed == stages_holding(TEMPLATE)
    # the tasks name tools as they are declared (awm.builder.toolgen, which imports every tool template), and the
    # verifiers look intents up (awm.builder.intents, which imports toolgen); the world, its schema and its
    # rows are made without them
    assert {"tasks", "tools"} <= changed and not changed & {"scenarios", "schemas", "databases"}


@pytest.mark.parametrize(("kind", "stages"), [
    # a category's requests shape the tasks and the verifiers (which look intents up), nothing before them
    ("requests.py", {"tasks", "verification_reports"}),
    # its tool templates shape the tools and whatever names them (tasks, verifiers), not the world or its rows
    ("templates.py", {"tasks", "tools", "verification_reports"}),
    # its tables shape every stage
    ("entities.py", set(STAGE_NAMES)),
])
def test_a_change_in_a_category_folder_moves_exactly_the_stages_made_from_it(tmp_path, original, kind, stages):
    """The category modules are imported by a name found at run time (awm.builder.categories.modules): the
    modules importing them say so (`# discovers:`), and the digest follows."""
    rel = f"awm/builder/categories/banking/{kind}"
    root = copy_of_core(tmp_path)
    edit(root / rel)
    changed = {stage for stage, digest in digests(root).items() if digest != original[stage]}
    assert changed == stages_holding(rel) == stages


def test_a_discovers_line_takes_in_every_module_its_pattern_names(tmp_path):
    """A category added to a folder is digested by the stages discovering that kind of module."""
    (tmp_path / "awm" / "kinds" / "alpha").mkdir(parents=True)
    for rel in ("awm/__init__.py", "awm/kinds/__init__.py", "awm/kinds/alpha/__init__.py",
                "awm/kinds/alpha/tools.py", "awm/kinds/alpha/requests.py"):
        (tmp_path / rel).write_text("")
    (tmp_path / "awm" / "user.py").write_text("def load():\n    # discovers: awm.kinds.*.tools\n    pass\n")
    before = sources.closure(("awm.user",), root=tmp_path)
    assert "awm/kinds/alpha/tools.py" in before and "awm/kinds/alpha/requests.py" not in before
    (tmp_path / "awm" / "kinds" / "beta").mkdir()
    for rel in ("awm/kinds/beta/__init__.py", "awm/kinds/beta/tools.py", "awm/kinds/beta/pack.yaml"):
        (tmp_path / rel).write_text("")
    after = sources.closure(("awm.user",), root=tmp_path)
    assert {"awm/kinds/beta/tools.py", "awm/kinds/beta/pack.yaml"} <= set(after)


def test_a_catalogue_change_moves_every_stage(tmp_path, original):
    root = copy_of_core(tmp_path)
    edit(root / PACK)
    assert all(digest != original[stage] for stage, digest in digests(root).items())


def test_the_runtime_the_docs_and_the_tests_move_nothing(tmp_path, original):
    root = copy_of_core(tmp_path)
    edit(root / "awm" / "runtime" / "server.py")
    edit(root / "docs" / "architecture.md", "More.\n")
    edit(root / "README.md", "More.\n")
    edit(root / "tests" / "test_x.py")
    assert digests(root) == original


def test_a_template_change_rebuilds_exactly_its_stages_and_a_runtime_change_nothing(tmp_path, monkeypatch):
    """Through the harness: the environment's earlier outputs are reused only by the stages whose sources are
    unchanged. (The code that runs is the checkout's, so the rebuilt stages write the same bytes and the
    stages after them see unchanged inputs.)"""
    store = ArtifactStore(tmp_path / "home")
    assert [o.status for o in build_environment(store, DOMAIN, 0, OfflineBackend())] == ["built"] * 6

    runtime_only = copy_of_core(tmp_path / "runtime")
    edit(runtime_only / "awm" / "runtime" / "server.py")
    edit(runtime_only / "README.md", "More.\n")
    monkeypatch.setattr(sources, "ROOT", runtime_only)
    assert [o.status for o in build_environment(store, DOMAIN, 0, OfflineBackend())] == ["cached"] * 6

    template = copy_of_core(tmp_path / "template")
    edit(template / TEMPLATE)
    monkeypatch.setattr(sources, "ROOT", template)
    outcomes = {o.stage: o.status for o in build_environment(store, DOMAIN, 0, OfflineBackend())}
    assert outcomes == {stage: "built" if stage in stages_holding(TEMPLATE) else "cached" for stage in STAGE_NAMES}
    assert outcomes["tools"] == "built" and outcomes["schemas"] == outcomes["databases"] == "cached"
    recorded = store.provenance(f"{DOMAIN}__00")
    backend = OfflineBackend()
    assert recorded["tools"].code_version == code_version("tools", backend.params, backend)
    assert recorded["tools"].code_version.endswith(f":code-{sources_digest('tools', root=template)}")


def test_the_dagster_asset_shows_the_changed_code_version(tmp_path, monkeypatch):
    """What marks the asset unsynced in the UI: its code version, made when the definitions load."""
    import dagster as dg

    from awm_assets.stage_asset import stage_asset

    def shown() -> str:
        asset = stage_asset("tools", {"python"}, "tools", lambda store, outcomes: "")
        return asset.code_versions_by_key[dg.AssetKey("tools")]

    before = shown()
    assert before.endswith(f":code-{sources_digest('tools')}")
    root = copy_of_core(tmp_path)
    edit(root / TEMPLATE)
    monkeypatch.setattr(sources, "ROOT", root)
    assert shown() != before and shown().endswith(f":code-{sources_digest('tools', root=root)}")


def test_the_model_backend_fingerprint_follows_its_code_not_its_bookkeeping(tmp_path, monkeypatch):
    from awm.backends.llm import LLMBackend
    from awm.llm.client import LLMClient
    from awm.llm.settings import LLMSettings

    def fingerprint(root: Path) -> str:
        monkeypatch.setattr(sources, "ROOT", root)
        return LLMBackend(LLMClient(LLMSettings(api_key="k"), None)).fingerprint("tasks")

    before = fingerprint(copy_of_core(tmp_path / "before"))
    bookkeeping = copy_of_core(tmp_path / "bookkeeping")
    edit(bookkeeping / "awm" / "llm" / "cache.py")  # where answers are kept
    edit(bookkeeping / "awm" / "llm" / "ledger.py")  # and counted
    assert fingerprint(bookkeeping) == before
    client = copy_of_core(tmp_path / "client")
    edit(client / "awm" / "llm" / "client.py")  # structured-output modes, clamping, repairs: they shape answers
    assert fingerprint(client) != before
    backend = copy_of_core(tmp_path / "backend")
    edit(backend / "awm" / "backends" / "llm.py")
    assert fingerprint(backend) != before
