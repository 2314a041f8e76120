"""A scripted agent: replay a task's reference solution over MCP, then score the episode as the trainer does.

The agent side uses only what a real agent gets: the MCP URL of its environment
(with the task in it) and the tools the server lists. The trainer side holds the
admin token and asks the server for the reward of the agent's session.

    awm export --with-reference --out tasks.jsonl
    AWM_ADMIN_TOKEN=secret awm serve &
    python examples/replay_agent.py tasks.jsonl --token secret --env retail_banking__00 --task t01

It prints the score, and exits 0 when the reward is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
from mcp import Client


def pick_task(export: Path, env_id: str | None, task_id: str | None) -> dict:
    """One line of an `awm export --with-reference` file (the first one if no environment is named)."""
    with open(export, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            if env_id in (None, record["env_id"]) and task_id in (None, record["task_id"]):
                if "reference" not in record:
                    raise SystemExit(f"{export} has no reference solutions; export with --with-reference")
                return record
    raise SystemExit(f"{export} has no task {env_id or '*'} {task_id or '*'}")


async def run_agent(url: str, solution: list[dict]) -> list[dict]:
    """The agent: list the tools, then call them as the reference solution does."""
    transcript = []
    async with Client(url) as session:
        available = {tool.name for tool in (await session.list_tools()).tools}
        for step in solution:
            if step["tool"] not in available:
                raise RuntimeError(f"the server does not offer {step['tool']}")
            result = await session.call_tool(step["tool"], step["arguments"])
            transcript.append({"tool": step["tool"], "is_error": result.is_error, "result": result.structured_content})
            if result.is_error:
                break
    return transcript


async def replay(record: dict, token: str, base_url: str | None = None) -> dict:
    """Run the agent on a fresh episode, then score it through the admin endpoint (the trainer's side)."""
    url = record["mcp"]["url"]
    if base_url:
        parts = urlsplit(url)
        url = base_url.rstrip("/") + parts.path + (f"?{parts.query}" if parts.query else "")
    key = f"replay-{uuid.uuid4().hex[:12]}"  # the trainer's name for this episode
    url += ("&" if "?" in url else "?") + f"episode={key}"
    transcript = await run_agent(url, record["reference"]["solution"])
    server = url.split("/envs/")[0]
    async with httpx2.AsyncClient() as http:
        response = await http.post(f"{server}/admin/sessions/{key}/score",
                                   json={"answer": record["reference"]["answer"]},
                                   headers={"Authorization": f"Bearer {token}"})
    response.raise_for_status()
    return {**response.json(), "steps": len(transcript)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="a file written by `awm export --with-reference`")
    parser.add_argument("--env", help="environment id (default: the first line's)")
    parser.add_argument("--task", help="task id (default: the first of the environment)")
    parser.add_argument("--token", default=os.environ.get("AWM_ADMIN_TOKEN"), help="the server's admin token")
    parser.add_argument("--base-url", help="where `awm serve` listens, if not where the export says")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("give --token or set AWM_ADMIN_TOKEN (the token `awm serve` was started with)")
    record = pick_task(args.export, args.env, args.task)
    score = asyncio.run(replay(record, args.token, args.base_url))
    print(json.dumps(score, indent=2))
    return 0 if score["reward"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
