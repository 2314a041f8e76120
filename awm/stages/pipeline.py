"""All six stages for one environment, in order: the core library's own pipeline (no Dagster)."""

from __future__ import annotations

from awm.backends import get_backend
from awm.domains import env_id_for
from awm.registry import STAGES
from awm.stages.base import StageOutcome
from awm.store import ArtifactStore


def build_environment(store: ArtifactStore, domain: str, slot: int, backend=None, force: bool = False) -> list[StageOutcome]:
    backend = backend or get_backend()
    env_id = env_id_for(domain, slot)
    return [stage.build(store, env_id, backend, force) for stage in STAGES]
