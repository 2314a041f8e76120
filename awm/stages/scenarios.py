"""Stage 1: scenarios. A scenario per (domain, slot)."""

from __future__ import annotations

from awm import artifacts
from awm.domains import split_env_id
from awm.quality.gates import gate_scenario
from awm.registry import stage
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = stage("scenarios")


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    domain, slot = split_env_id(env_id)

    def produce():
        scenario = backend.scenario(domain, slot)
        if scenario.env_id != env_id:
            raise ValueError(f"backend returned scenario {scenario.env_id!r} for {env_id!r}")
        gate_scenario(store, env_id, scenario)
        return {artifacts.SCENARIO.name: dump_json(scenario)}, {
            "modules": len(scenario.modules), "builtin": scenario.builtin, "origin": scenario.origin, "name": scenario.name}

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
