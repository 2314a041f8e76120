"""The tools asset."""

from awm import artifacts
from awm_assets.constants import TOOLS
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    toolset = artifacts.TOOLS_JSON.read(store, first)
    lines = [f"Tools of **{first}** ({len(toolset.tools)})", "", "| tool | writes | parameters | description |",
             "|---|---|---|---|"]
    for t in toolset.tools:
        params = ", ".join(t.input_schema.get("properties", {}))
        writes = "" if t.annotations.get("readOnlyHint") else "yes"
        lines.append(f"| {t.name} | {writes} | {params} | {t.description[:120]} |")
    return "\n".join(lines)


tools = stage_asset(
    TOOLS, kinds={"python", "mcp"}, preview=preview,
    description="The tool API: tools.py (sandbox-checked implementations against SQLite) and tools.json (MCP tool "
                "specs whose JSON Schema inputs match the implementations' parameters).")
