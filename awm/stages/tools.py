"""Stage 5: tools. tools.py (implementations) and tools.json (MCP specs).

The stage's gate (awm.quality.tools) proves the code passes the sandbox policy, every spec is valid
JSON Schema naming exactly the implementation's parameters, every table is reachable, and every tool
answers a smoke call on a copy of env.db."""

from __future__ import annotations

from awm import artifacts
from awm.contracts import ToolSet
from awm.errors import StageError
from awm.quality.gates import gate_tools
from awm.registry import stage
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = stage("tools")


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = artifacts.SCENARIO.read(store, env_id)
        spec = artifacts.SCHEMA_JSON.read(store, env_id)
        tasks = artifacts.TASKS.read(store, env_id)
        source, toolset = backend.tools(scenario, spec, tasks)
        toolset = ToolSet.model_validate(toolset.model_dump(by_alias=True))
        used = {c.tool for t in tasks.tasks for c in t.reference_solution}
        unknown = used - {t.name for t in toolset.tools}
        if unknown:
            raise StageError(STAGE.name, env_id, f"reference solutions call tools that do not exist: {sorted(unknown)}")
        gate_tools(env_id, source, toolset, spec, tasks, artifacts.DATABASE.read(store, env_id))
        writes = sum(1 for t in toolset.tools if not t.annotations.get("readOnlyHint"))
        return {artifacts.TOOLS_PY.name: source, artifacts.TOOLS_JSON.name: dump_json(toolset)}, {
            "tools": len(toolset.tools), "write_tools": writes, "read_tools": len(toolset.tools) - writes,
            "source_lines": source.count("\n")}

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
