"""Checks on the tools asset: safe code, valid specs that match the code, every tool smoke-called on a
fresh episode without crashing, every table reachable by some tool."""

import dagster as dg

from awm import artifacts
from awm.quality.tools import gate_vouched, tool_findings
from awm.registry import stage
from awm_assets.constants import TOOLS
from awm_assets.partitions import domain_partitions
from checks.environments import validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


def inspect_tools(store, env_ids: list[str]) -> list:
    """Every rule on files the gate did not pass as they are now (changed since, or never gated)."""
    return [f for env_id in env_ids if not gate_vouched(store, env_id) for f in tool_findings(
        env_id, artifacts.TOOLS_PY.read(store, env_id), artifacts.TOOLS_JSON.read(store, env_id),
        artifacts.SCHEMA_JSON.read(store, env_id), artifacts.TASKS.read(store, env_id),
        artifacts.DATABASE.read(store, env_id))]


@dg.asset_check(asset=TOOLS, name=stage(TOOLS).valid_check, blocking=True, partitions_def=domain_partitions,
                description="Every tool module the stage kept passes the sandbox policy; every spec is valid JSON "
                            "Schema naming the implementation's parameters; every tool answers a smoke call on a "
                            "fresh episode without crashing; every table is reachable by some tool.")
def tools_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                generator: GeneratorResource):
    yield from validity_results(context, store, generator, TOOLS, inspect_tools)


tools_yield = yield_check(TOOLS,
                          "How many tool modules of the partition the stage rejected, and why.")


tool_checks = [tools_valid, tools_yield]
