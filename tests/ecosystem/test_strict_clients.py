"""Strict function calling and per-call sessions, with the real converters and clients (LangChain's
MultiServerMCPClient and convert_to_openai_tool, the OpenAI Agents SDK) against `awm serve` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

from awm.runtime import open_environment
from awm.toolspecs import strict_problems
from tests.conftest import dialect_of
from tests.ecosystem.conftest import ENV, admin, run_client


def test_strict_converters_keep_the_served_schemas_and_per_call_clients_keep_one_episode(running, published, pool):  # noqa: F811
    server, base = running
    env = open_environment(ENV, home=published.home, pool=pool)
    try:
        # a staff member's request: its episode is offered every tool the open endpoint serves (a customer's is
        # offered the customer's tools only)
        task = max((t for t in env.tasks if t.kind == "action" and t.requester == "staff"), key=lambda t: t.steps)
        list_tool = dialect_of(ENV).name("search_customers")  # a list tool with several optional parameters
    finally:
        env.close()
    reserved = admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id, "key": "lc-1"})
    assert reserved.status_code == 201, reserved.text
    seen = run_client("strict_clients.py", {
        "reserved_url": reserved.json()["url"], "open_url": f"{base}/envs/{ENV}/mcp",
        "permissive_url": f"{base}/envs/{ENV}/mcp?tool_format=permissive", "list_tool": list_tool,
        "solution": [step.model_dump() for step in task.reference_solution]})

    async def served_schemas():
        from mcp import Client

        async with Client(f"{base}/envs/{ENV}/mcp") as agent:
            return {t.name: t.input_schema for t in (await agent.list_tools()).tools}

    served = asyncio.run(served_schemas())
    for converted in (seen["langchain"]["parameters"], seen["agents"]["parameters"]):
        # an episode of a task that expects an answer also offers submit_answer (awm.runtime.answers)
        assert converted.keys() - {"submit_answer"} == served.keys() - {"submit_answer"}
        for name, schema in ((n, s) for n, s in converted.items() if n in served):
            assert strict_problems(schema) == [], (name, strict_problems(schema))
            assert schema["properties"] == served[name]["properties"], name  # nothing made mandatory or non-null
    assert all(seen["agents"]["strict_json_schema"].values()) and all(seen["langchain"]["strict"].values())
    # the call a strict model makes (optional parameters null) answers as the permissive one (left out)
    assert not seen["agents"]["strict_error"]
    assert seen["agents"]["strict_call"] == seen["agents"]["permissive_call"]
    assert all('"error"' not in result for result in seen["langchain"]["results"]), seen["langchain"]["results"]
    # one MCP session per call, one episode: the trainer scores the whole trajectory
    score = admin(base, "POST", "/admin/sessions/lc-1/score", json={"answer": task.reference_answer, "end": True})
    assert score.json()["reward"] == 1.0, score.json()
    assert score.json()["calls"] == task.steps and score.json()["tool_errors"] == 0
    listed = {s["episode"]: s for s in admin(base, "GET", "/admin/sessions").json()["sessions"]}
    assert listed["lc-1"]["state"] == "ended" and listed["lc-1"]["connections"] == 0
    assert json.dumps(seen)  # what the clients saw is plain JSON
