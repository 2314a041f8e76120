"""Fixtures for the runtime: a published copy of the session corpus, and sandbox pools."""

from __future__ import annotations

import shutil

import pytest

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


@pytest.fixture(scope="session")
def pool():
    """A small pool shared by the runtime tests (short deadlines keep runaway tests quick)."""
    with WorkerPool(workers=2, call_seconds=1.0, kill_grace=0.5) as shared:
        yield shared
