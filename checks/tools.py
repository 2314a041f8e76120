"""Checks on the tools asset: safe code, valid specs that match the code, every tool smoke-called on a
fresh episode without crashing, every table reachable by some tool."""

import dagster as dg

from awm.contracts import SchemaSpec, TaskSet, ToolSet
from awm.quality.tools import gate_vouched, tool_findings
from awm_assets.constants import TOOLS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


def inspect_tools(store, env_ids: list[str]) -> list:
    """Every rule on files the gate did not pass as they are now (changed since, or never gated)."""
    return [f for env_id in env_ids if not gate_vouched(store, env_id) for f in tool_findings(
        env_id, store.read_text(env_id, "tools.py"), store.read_model(env_id, "tools.json", ToolSet),
        store.read_model(env_id, "schema.json", SchemaSpec), store.read_model(env_id, "tasks.json", TaskSet),
        store.database_path(env_id))]


@dg.asset_check(asset=TOOLS, name="tools_valid", blocking=True, partitions_def=domain_partitions,
                description="Every tool module the stage kept passes the sandbox policy; every spec is valid JSON "
                            "Schema naming the implementation's parameters; every tool answers a smoke call on a "
                            "fresh episode without crashing; every table is reachable by some tool.")
def tools_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                generator: GeneratorResource):
    yield from validity_results(context, store, generator, TOOLS, "tools.py", inspect_tools)


tools_yield = yield_check(TOOLS, "tools.py",
                          "How many tool modules of the partition the stage rejected, and why.")


tool_checks = [tools_valid, tools_yield]
