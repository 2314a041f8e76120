"""A scripted agent: replay a task's reference solution over MCP, then score the episode as the trainer does.

The trainer side holds the admin token: it reserves an episode of the task and
gets the URL to hand to the agent, then asks the server for the episode's reward.
The agent side uses only what a real agent gets: that URL (which fixes the
environment and the task) and the tools the server lists.

    awm export --with-reference --out tasks.jsonl          # or a directory export (awm export --with-reference)
    (umask 077; python -c "import secrets; print(secrets.token_urlsafe(32))" > ~/.awm-token)
    AWM_ADMIN_TOKEN_FILE=~/.awm-token awm serve &
    python examples/replay_agent.py tasks.jsonl --token-file ~/.awm-token --env retail_banking__00 --task t01

It prints the score, ends the episode (the server frees it), and exits 0 when the reward is 1.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import uuid
from pathlib import Path

import httpx2
from mcp import Client


def pick_task(export: Path, env_id: str | None, task_id: str | None) -> dict:
    """One record of an `awm export --with-reference` file or directory (the first one if no environment is
    named). Only the lines that name the environment and the task are parsed, and the search stops at the
    first match: a 400 MB export is scanned, not loaded."""
    files = sorted(export.glob("*.jsonl")) if export.is_dir() else [export]
    files = [f for f in files if f.name != "tools.jsonl"]  # a directory export's tools table
    needles = [json.dumps(value) for value in (env_id, task_id) if value is not None]
    for path in files:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not all(needle in line for needle in needles):
                    continue
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
    """The trainer reserves an episode of the record's task, the agent runs on the URL the server handed out,
    and the trainer scores the episode through the admin endpoint."""
    server = (base_url or record["mcp"]["url"].split("/envs/")[0]).rstrip("/")
    key = f"replay-{uuid.uuid4().hex[:12]}"  # the trainer's name for this episode
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx2.AsyncClient() as http:
        reserved = await http.post(f"{server}/admin/sessions", headers=headers,
                                   json={"env_id": record["env_id"], "task_id": record["task_id"], "key": key})
        reserved.raise_for_status()
        transcript = await run_agent(reserved.json()["url"], record["reference"]["solution"])
        try:
            response = await http.post(f"{server}/admin/episodes/{key}/score", headers=headers,
                                       json={"answer": record["reference"]["answer"]})
            response.raise_for_status()
        finally:  # end the episode: the server frees its database and its reservation
            (await http.delete(f"{server}/admin/episodes/{key}", headers=headers)).raise_for_status()
    return {**response.json(), "steps": len(transcript)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("export", type=Path, help="a file or directory written by `awm export --with-reference`")
    parser.add_argument("--env", help="environment id (default: the first line's)")
    parser.add_argument("--task", help="task id (default: the first of the environment)")
    parser.add_argument("--token", default=os.environ.get("AWM_ADMIN_TOKEN"), help="the server's admin token")
    parser.add_argument("--token-file", type=Path, default=os.environ.get("AWM_ADMIN_TOKEN_FILE"),
                        help="a file holding it (as `awm serve --admin-token-file` reads it)")
    parser.add_argument("--base-url", help="where `awm serve` listens, if not where the export says")
    args = parser.parse_args(argv)
    if not args.token and args.token_file:
        text = Path(args.token_file).expanduser().read_text(encoding="utf-8")
        args.token = text.removesuffix("\n").removesuffix("\r")  # as awm serve reads it
    if not args.token:
        parser.error("give --token or --token-file, or set AWM_ADMIN_TOKEN(_FILE) (the token `awm serve` uses)")
    record = pick_task(args.export, args.env, args.task)
    score = asyncio.run(replay(record, args.token, args.base_url))
    print(json.dumps(score, indent=2))
    return 0 if score["reward"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
