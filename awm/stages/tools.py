"""Stage 5: tools. tools.py (implementations) and tools.json (MCP specs), checked to agree."""

from __future__ import annotations

import inspect

from awm.contracts import Scenario, SchemaSpec, TaskSet, ToolSet
from awm.errors import StageError
from awm.quality.gates import gate_tools
from awm.runtime.sandbox import functions_of, load_module
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "tools"


def check_tools_agree(env_id: str, source: str, toolset: ToolSet) -> None:
    """The code passes the sandbox policy and every spec matches a function's parameters."""
    functions = functions_of(load_module(source, f"{env_id}/tools.py"))
    for spec in toolset.tools:
        fn = functions.get(spec.name)
        if fn is None:
            raise StageError(STAGE, env_id, f"tool {spec.name} has a spec but no implementation")
        params = list(inspect.signature(fn).parameters.values())
        if not params or params[0].name != "db":
            raise StageError(STAGE, env_id, f"tool {spec.name} must take db as its first parameter")
        declared = set(spec.input_schema.get("properties", {}))
        accepted = {p.name for p in params[1:]}
        if declared != accepted:
            raise StageError(STAGE, env_id, f"tool {spec.name}: spec parameters {sorted(declared)} != "
                                            f"implementation parameters {sorted(accepted)}")
        required_in_code = {p.name for p in params[1:] if p.default is inspect.Parameter.empty}
        if not required_in_code <= set(spec.input_schema.get("required", [])):
            raise StageError(STAGE, env_id, f"tool {spec.name}: {sorted(required_in_code)} are required by the "
                                            "code but optional in the spec")


def build_tools(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        spec = store.read_model(env_id, "schema.json", SchemaSpec)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        source, toolset = backend.tools(scenario, spec, tasks)
        toolset = ToolSet.model_validate(toolset.model_dump(by_alias=True))
        check_tools_agree(env_id, source, toolset)
        used = {c.tool for t in tasks.tasks for c in t.reference_solution}
        unknown = used - {t.name for t in toolset.tools}
        if unknown:
            raise StageError(STAGE, env_id, f"reference solutions call tools that do not exist: {sorted(unknown)}")
        gate_tools(env_id, source, toolset, spec, tasks, store.database_path(env_id))
        writes = sum(1 for t in toolset.tools if not t.annotations.get("readOnlyHint"))
        return {"tools.py": source, "tools.json": dump_json(toolset)}, {
            "tools": len(toolset.tools), "write_tools": writes, "read_tools": len(toolset.tools) - writes,
            "source_lines": source.count("\n")}

    # env.db is an input: the stage's gate smoke-calls every tool against it
    return run_env_stage(store, STAGE, env_id, ["scenario.json", "schema.json", "tasks.json", "env.db"],
                         ["tools.py", "tools.json"], produce, backend, force)
