"""An imported AWM-1K environment over MCP (stdio): its routes as tools, called in the foreign runtime.

    awm serve-awm1k --env e_commerce_33__00 [--task t01] [--final-db final.db] [--verdict verdict.json]

One episode per process, as `awm serve --transport stdio` serves ours: the app is loaded in a ForeignHost (the
OS-isolated sandbox) on a copy of env.db, each tools/call is one route through ASGI there, and when the client
leaves the final database is written to `--final-db` and the task's verifier (their verify_task_completion, on
read-only copies) judges it into `--verdict`. Only `checked` environments are served (awm1k.json), and
their `checked` or `proven` tasks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

import awm
from awm import artifacts
from awm.awm1k.runtime import ForeignCodeError, ForeignHost
from awm.errors import AWMError
from awm.store import ArtifactStore, atomic_write_bytes, atomic_write_text


def _result(answer: dict) -> types.CallToolResult:
    body = answer.get("body")
    status = int(answer.get("status", 500))
    structured = body if isinstance(body, dict) else {"result": body}
    return types.CallToolResult(content=[types.TextContent(type="text", text=json.dumps(body, ensure_ascii=False))],
                                structured_content={**structured, "status": status} if status >= 400 else structured,
                                is_error=status >= 400)


async def serve_stdio(store: ArtifactStore, env_id: str, task_id: str | None = None, final_db: Path | None = None,
                      verdict: Path | None = None) -> None:
    from mcp.server.stdio import stdio_server

    manifest = artifacts.AWM1K.read(store, env_id)
    if manifest.status != "checked":
        raise AWMError(f"{env_id} is quarantined ({manifest.reason[:300]}); not served")
    task = next((t for t in manifest.tasks if t.task_id == task_id), None) if task_id else None
    if task_id and (task is None or task.tier not in ("checked", "proven")):  # a promoted task is proven
        raise AWMError(f"{env_id} has no checked or proven task {task_id!r}")
    host = ForeignHost.start()
    try:
        routes = host.load(artifacts.AWM1K_APP.read(store, env_id), artifacts.DATABASE.read(store, env_id))
        tools = types.ListToolsResult(tools=[types.Tool.model_validate(r.spec()) for r in routes])
        lock = anyio.Lock()

        async def list_tools(ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
            return tools

        async def call_tool(ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
            async with lock:  # one episode, one database: calls in order
                try:
                    answer = await anyio.to_thread.run_sync(host.call_tool, params.name, params.arguments or {})
                except ForeignCodeError as exc:
                    return _result({"status": 400, "body": {"error": str(exc)[:500]}})
            return _result(answer)

        server = Server(f"awm1k:{env_id}", version=awm.__version__, on_list_tools=list_tools, on_call_tool=call_tool,
                        instructions=task.instruction if task else None)
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())
        if final_db is not None:
            atomic_write_bytes(Path(final_db), host.snapshot())
        if verdict is not None and task is not None:
            atomic_write_text(Path(verdict), json.dumps(host.verify(task.verifier or "")) + "\n")
    finally:
        host.close()
