"""Our export loaded by their own code: `agent-world-model` 0.1.0 from PyPI, in an interpreter of its own
(it needs Python 3.12 and pins what our environment cannot hold, e.g. mcp<2 for its mcp_agent).

Runs only where AWM1K_REFERENCE_PYTHON names that interpreter (docs/awm1k.md, "Their code on our export"):

    python3.12 -m venv .venv-awm1k && .venv-awm1k/bin/pip install agent-world-model==0.1.0 fastapi-mcp 'mcp<2'
    AWM1K_REFERENCE_PYTHON=.venv-awm1k/bin/python pytest tests/awm/awm1k/test_reference.py
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import textwrap

import pytest

from awm import artifacts
from awm.cli import main as awm_main
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore

REFERENCE = os.environ.get("AWM1K_REFERENCE_PYTHON", "")
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not REFERENCE, reason="AWM1K_REFERENCE_PYTHON names no agent-world-model interpreter")]

THEIRS = textwrap.dedent("""
    import json, os, sys
    from awm.core.reset import reset_all_databases
    from awm.core.verifier import VerificationMode, execute_verification_code
    from awm.tools import tools_jsonl_load
    folder, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    reset_all_databases(os.path.join(folder, "gen_db.jsonl"), os.path.join(folder, "gen_sample.jsonl"), out, {name})
    db = os.path.join(out, name + ".db")
    verdicts = [execute_verification_code(item["verification"]["code"], "verify_task_completion", db,
                                          mode=VerificationMode.code)
                for item in tools_jsonl_load(os.path.join(folder, "gen_verifier.pure_code.jsonl"))]
    print(json.dumps({"db": db, "verdicts": verdicts}))
""")


def test_their_reset_and_verifier_runner_load_our_export(tmp_path):
    store = ArtifactStore(tmp_path / "ours")
    assert all(o.ok for o in build_environment(store, "dental_clinic", 0))
    build_catalog(store, store.env_ids())
    out = tmp_path / "export"
    assert awm_main(["--home", str(store.home), "export", "--layout", "awm1k", "--out", str(out)]) == 0
    done = subprocess.run([REFERENCE, "-c", THEIRS, str(out), "dental_clinic_00", str(tmp_path / "dbs")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    ours, theirs = sqlite3.connect(artifacts.DATABASE.read(store, "dental_clinic__00")), sqlite3.connect(found["db"])
    for (table,) in ours.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
        assert theirs.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall() == \
            ours.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall(), table
    published = list(store.iter_catalog())
    # their runner's own test of a verifier (final = initial, a placeholder answer): each runs, none is complete
    assert [(v["execution_status"], v["result"]["result"]) for v in found["verdicts"]] == \
        [("success", "others")] * len(published)
