"""Run in the agent-side environment (.venv-clients: LangChain, the OpenAI Agents SDK, mcp 1.x).

Given a reserved episode's URL and a task's reference solution, it
  1. loads the tools with LangChain's default MultiServerMCPClient (a new MCP session per call), converts
     each with convert_to_openai_tool(strict=True), and replays the reference as a strict model would send
     it (every parameter present, the optional ones not used null), one session per call;
  2. loads the tools through the Agents SDK with convert_schemas_to_strict=True, and calls a list tool
     with the strict values on an unreserved URL, and with the permissive ones (optional parameters left
     out) on one that serves the permissive form;
and prints what it saw as JSON, for the test in the project's own environment to judge.
"""

from __future__ import annotations

import asyncio
import json
import sys


def strict_values(schema: dict, arguments: dict) -> dict:
    """Every property present, as strict decoding makes a model send them: null for those not used, also inside
    an object argument (a `filters` object)."""
    values = {}
    for name, sub in schema["properties"].items():
        value = arguments.get(name)
        inner = next((s for s in [sub, *sub.get("anyOf", [])] if "properties" in s), None)
        values[name] = strict_values(inner, value) if isinstance(value, dict) and inner else value
    return values


async def langchain_replay(url: str, solution: list[dict]) -> dict:
    from langchain_core.utils.function_calling import convert_to_openai_tool
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({"awm": {"url": url, "transport": "streamable_http"}})
    tools = {tool.name: tool for tool in await client.get_tools()}  # no session kept: one per call
    converted = {name: convert_to_openai_tool(tool, strict=True)["function"] for name, tool in tools.items()}
    results = []
    for step in solution:
        parameters = converted[step["tool"]]["parameters"]
        results.append(await tools[step["tool"]].ainvoke(strict_values(parameters, step["arguments"])))
    return {"parameters": {name: f["parameters"] for name, f in converted.items()},
            "strict": {name: f.get("strict") for name, f in converted.items()},
            "results": [r if isinstance(r, str) else json.dumps(r, default=str) for r in results]}


async def agents_sdk_calls(url: str, permissive_url: str, tool_name: str) -> dict:
    from agents.mcp import MCPServerStreamableHttp, MCPUtil

    async with MCPServerStreamableHttp(params={"url": url}, cache_tools_list=True) as server:
        listed = await server.list_tools()
        function_tools = {t.name: MCPUtil.to_function_tool(t, server, convert_schemas_to_strict=True) for t in listed}
        schema = function_tools[tool_name].params_json_schema
        strict_call = await server.call_tool(tool_name, strict_values(schema, {}))
    # a client that leaves optional parameters out checks them against the listed schema: it wants the
    # permissive form, where they are not required
    async with MCPServerStreamableHttp(params={"url": permissive_url}, cache_tools_list=True) as server:
        await server.list_tools()
        permissive_call = await server.call_tool(tool_name, {})
        return {"parameters": {name: t.params_json_schema for name, t in function_tools.items()},
                "strict_json_schema": {name: t.strict_json_schema for name, t in function_tools.items()},
                "strict_call": [c.text for c in strict_call.content], "strict_error": strict_call.isError,
                "permissive_call": [c.text for c in permissive_call.content]}


async def main(job: dict) -> dict:
    return {"langchain": await langchain_replay(job["reserved_url"], job["solution"]),
            "agents": await agents_sdk_calls(job["open_url"], job["permissive_url"], job["list_tool"])}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
