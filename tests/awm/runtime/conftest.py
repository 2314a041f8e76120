"""Fixtures for the runtime: a published copy of the session corpus, and sandbox pools."""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from awm.contracts import Provenance, TaskReport, VerificationReport
from awm.runtime.pool import WorkerPool
from awm.stages.catalog import build_catalog
from awm.store import ArtifactStore


@pytest.fixture(scope="session")
def published(corpus: ArtifactStore, tmp_path_factory) -> ArtifactStore:
    """The session corpus, copied, with its catalog built (the runtime serves published environments)."""
    home = tmp_path_factory.mktemp("published")
    shutil.copytree(corpus.home, home, dirs_exist_ok=True)
    store = ArtifactStore(home)
    summary = build_catalog(store, store.env_ids())
    assert summary.entries, [(s.env_id, s.status, s.reason) for s in summary.statuses]
    return store


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    """A two-row items database for the hand-built sandbox test environments (tests/awm/runtime/test_containment.py
    TOOLS), one per test module."""
    path = tmp_path_factory.mktemp("items") / "env.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    conn.executemany("INSERT INTO items(name) VALUES (?)", [("a",), ("b",)])
    conn.commit()
    conn.close()
    return path


@pytest.fixture(scope="session")
def pool():
    """A small pool shared by the runtime tests (short deadlines keep runaway tests quick)."""
    with WorkerPool(workers=2, call_seconds=1.0, kill_grace=0.5) as shared:
        yield shared


def record_proofs(store: ArtifactStore, env_id: str, task_ids: list[str]) -> None:
    """Vouch for a hand-built test environment as the verification stage would: report.json with its tasks
    proven, and a verification_reports provenance record of the files as they are now (the server serves
    nothing else)."""
    report = VerificationReport(env_id=env_id, tasks=[
        TaskReport(task_id=t, reference_passed=True, null_passed=False, steps=1, distinct_tools=1) for t in task_ids])
    store.write_model(env_id, "report.json", report)
    inputs = [name for name in ("scenario.json", "tasks.json", "schema.json", "env.db", "tools.py", "tools.json")
              if store.exists(env_id, name)]
    store.record_provenance(env_id, Provenance(
        stage="verification_reports", backend="hand-built test environment", code_version="test",
        inputs={name: store.hash(env_id, name) for name in inputs},
        outputs={name: store.hash(env_id, name) for name in ("verifiers.json", "report.json")}))
