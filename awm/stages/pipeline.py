"""All six stages for one environment, in order: the core library's own pipeline (no Dagster)."""

from __future__ import annotations

from awm.backends import get_backend
from awm.domains import env_id_for
from awm.stages.base import StageOutcome
from awm.stages.databases import build_database
from awm.stages.scenarios import build_scenario
from awm.stages.schemas import build_schema
from awm.stages.tasks import build_tasks
from awm.stages.tools import build_tools
from awm.stages.verification import build_verification
from awm.store import ArtifactStore


def build_environment(store: ArtifactStore, domain: str, slot: int, backend=None, force: bool = False) -> list[StageOutcome]:
    backend = backend or get_backend()
    outcomes = [build_scenario(store, domain, slot, backend, force)]
    env_id = env_id_for(domain, slot)
    for stage in (build_tasks, build_schema, build_database, build_tools, build_verification):
        outcomes.append(stage(store, env_id, backend, force))
    return outcomes
