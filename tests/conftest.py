"""Shared fixtures: a small corpus built once per session through the core stages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from awm.backends import get_backend
from awm.domains import env_id_for
from awm.stages.databases import build_database
from awm.stages.scenarios import build_scenario
from awm.stages.schemas import build_schema
from awm.stages.tasks import build_tasks
from awm.stages.tools import build_tools
from awm.stages.verification import build_verification
from awm.store import ArtifactStore

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")


def build_environment(store: ArtifactStore, domain: str, slot: int, backend=None, force: bool = False) -> list:
    backend = backend or get_backend()
    outcomes = [build_scenario(store, domain, slot, backend, force)]
    env_id = env_id_for(domain, slot)
    for stage in (build_tasks, build_schema, build_database, build_tools, build_verification):
        outcomes.append(stage(store, env_id, backend, force))
    return outcomes


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> ArtifactStore:
    """Two environments of two built-in domains and one unseen domain."""
    store = ArtifactStore(tmp_path_factory.mktemp("corpus"))
    for domain in ("retail_banking", "dental_clinic", "pet_grooming"):
        for slot in (0, 1):
            outcomes = build_environment(store, domain, slot)
            assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    return store


@pytest.fixture
def store(tmp_path: Path) -> ArtifactStore:
    return ArtifactStore(tmp_path / "home")
