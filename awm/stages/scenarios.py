"""Stage 1: scenarios. A scenario per (domain, slot)."""

from __future__ import annotations

from awm.domains import env_id_for
from awm.quality.gates import gate_scenario
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "scenarios"


def build_scenario(store: ArtifactStore, domain: str, slot: int, backend, force: bool = False) -> StageOutcome:
    env_id = env_id_for(domain, slot)

    def produce():
        scenario = backend.scenario(domain, slot)
        if scenario.env_id != env_id:
            raise ValueError(f"backend returned scenario {scenario.env_id!r} for {env_id!r}")
        gate_scenario(store, env_id, scenario)
        return {"scenario.json": dump_json(scenario)}, {
            "modules": len(scenario.modules), "builtin": scenario.builtin, "origin": scenario.origin, "name": scenario.name}

    return run_env_stage(store, STAGE, env_id, [], ["scenario.json"], produce, backend, force)
