"""awm serve-awm1k: one episode of an imported AWM-1K environment over MCP stdio (docs/awm1k.md)."""

from __future__ import annotations

from pathlib import Path


def serve_awm1k(args) -> int:
    import anyio

    from awm.awm1k.mcp import serve_stdio
    from awm.store import ArtifactStore

    anyio.run(serve_stdio, ArtifactStore(args.home), args.env, args.task, args.final_db, args.verdict)
    return 0


def register(sub) -> None:
    parser = sub.add_parser("serve-awm1k", help="serve an imported AWM-1K environment over MCP stdio (one episode)",
                            description="Its routes as MCP tools, run in the OS-isolated foreign runtime.")
    parser.add_argument("--env", required=True, help="the imported environment, e.g. e_commerce_33__00")
    parser.add_argument("--task", help="the task of the episode (its instruction is the server's instructions)")
    parser.add_argument("--final-db", type=Path, help="write the episode's final database here when it ends")
    parser.add_argument("--verdict", type=Path, help="write the task's verdict (their verifier) here when it ends")
    parser.set_defaults(handler=serve_awm1k)
