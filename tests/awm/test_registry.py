"""The stage registry: each stage declared once, consistent, and the one source of the docs' stage table."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from awm import __version__, artifacts
from awm.registry import STAGE_NAMES, STAGES, markdown_table, stage

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"


def test_every_stage_module_has_the_one_build_signature():
    for spec in STAGES:
        params = list(inspect.signature(spec.build).parameters)
        assert params == ["store", "env_id", "backend", "force"], (spec.name, params)
        assert spec.build.__module__ == f"awm.stages.{spec.name}"


def test_every_input_is_written_by_an_earlier_stage():
    written: set[str] = set()
    for spec in STAGES:
        missing = {a.name for a in spec.inputs} - written
        assert not missing, f"{spec.name} reads {missing} before any stage writes it"
        assert not written & {a.name for a in spec.outputs}, f"{spec.name} rewrites an earlier stage's output"
        written |= {a.name for a in spec.outputs}
    assert written == ({a.name for a in artifacts.ALL} - {"provenance.json", "attempts.json", "failed.json"}
                       - {a.name for a in artifacts.IMPORTED})


def test_the_chain_and_the_names():
    assert STAGE_NAMES == ("scenarios", "tasks", "schemas", "databases", "tools", "verification_reports")
    assert [s.upstream.name if s.upstream else None for s in STAGES] == [None, *STAGE_NAMES[:-1]]
    assert stage("tools").number == 5 and stage("tools").valid_check == "tools_valid"
    assert stage("databases").before(stage("tools")) and not stage("tools").before(stage("databases"))


def test_code_versions_carry_the_platform_version_and_a_revision_only_when_set():
    from dataclasses import replace

    assert stage("schemas").code_version == f"schemas:{__version__}"
    assert replace(stage("schemas"), revision=2).code_version == f"schemas:{__version__}+2"


def test_an_unknown_stage_is_named_with_the_choices():
    with pytest.raises(KeyError, match="no stage named 'verification'; the stages are scenarios, tasks"):
        stage("verification")


def test_the_docs_stage_table_is_the_registry_s():
    text = DOC.read_text()
    match = re.search(r"<!-- stage-table: [^>]*-->\n(.*?)\n<!-- /stage-table -->", text, re.DOTALL)
    assert match, f"{DOC} lost its stage-table markers"
    assert match.group(1) == markdown_table(), "docs/architecture.md's stage table is stale: paste markdown_table()"
