"""The tools asset."""

import dagster as dg

from awm.contracts import ToolSet
from awm.domains import env_id_for
from awm.stages.tools import build_tools
from awm_assets.constants import DATABASES, TOOLS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    toolset = store.read_model(first, "tools.json", ToolSet)
    lines = [f"Tools of **{first}** ({len(toolset.tools)})", "", "| tool | writes | parameters | description |",
             "|---|---|---|---|"]
    for t in toolset.tools:
        params = ", ".join(t.input_schema.get("properties", {}))
        writes = "" if t.annotations.get("readOnlyHint") else "yes"
        lines.append(f"| {t.name} | {writes} | {params} | {t.description[:120]} |")
    return "\n".join(lines)


@dg.asset(
    name=TOOLS,
    deps=[DATABASES],
    kinds={"python", "mcp"},
    code_version="tools-1",
    tags={"stage": "5"},
    **STAGE_ASSET_OPTIONS,
)
def tools(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
          generator: GeneratorResource) -> dg.MaterializeResult:
    """The tool API: tools.py (sandbox-checked implementations against SQLite) and tools.json
    (MCP tool specs whose JSON Schema inputs match the implementations' parameters)."""
    return run_stage(context, store, generator, TOOLS,
                     lambda st, domain, slot, backend: build_tools(st, env_id_for(domain, slot), backend), preview)
