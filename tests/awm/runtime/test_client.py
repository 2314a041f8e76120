"""awm.client against the real `awm serve` on 127.0.0.1: reserve, call, score, end, sync and async; and the
text of a number given for an optional numeric parameter (the MCP Inspector's form field) runs as the number."""

from __future__ import annotations

import asyncio
import json

import pytest

from awm.client import AsyncClient, AWMClientError, Client
from awm.runtime import open_environment
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.runtime.tools import numbers_from_text

TOKEN = "client-token"
ENV = "retail_banking__00"


@pytest.fixture(scope="module")
def base(published, pool):
    handle = serve_in_thread(RuntimeServer(published, pool, TOKEN))
    yield handle.url
    handle.stop()


@pytest.fixture(scope="module")
def action(published, pool):
    env = open_environment(ENV, home=published.home, pool=pool)
    try:
        return max((t for t in env.tasks if t.kind == "action"), key=lambda t: t.steps)
    finally:
        env.close()


def test_sync_client_replays_a_reference_to_one_and_a_null_run_to_zero(base, action):
    with Client(base, admin_token=TOKEN) as client:
        episode = client.reserve(ENV, action.task_id, key="client-replay", tool_format="permissive")
        assert {t["name"] for t in episode.tools} >= {step.tool for step in action.reference_solution}
        for step in action.reference_solution:
            text, failed = episode.call(step.tool, step.arguments)
            assert not failed, text
        assert episode.score(action.reference_answer)["reward"] == 1.0  # scored, still open
        verdict = episode.end(action.reference_answer)
        assert verdict["reward"] == 1.0 and verdict["episode"] == "client-replay" and verdict["state"] == "ended"
        assert verdict["calls"] == action.steps
        null = client.reserve(ENV, action.task_id)
        assert null.end()["reward"] == 0.0
        with pytest.raises(AWMClientError, match="no published environment"):
            client.reserve("nowhere__00", action.task_id)
        with pytest.raises(AWMClientError, match="tool_format"):
            client.reserve(ENV, action.task_id, tool_format="loose")
    with pytest.raises(AWMClientError, match="HTTP 401"):
        Client(base, admin_token="wrong").reserve(ENV, action.task_id)


def test_async_client_runs_concurrent_episodes_apart(base, action):
    async def one(client: AsyncClient, replay: bool) -> dict:
        episode = await client.reserve(ENV, action.task_id, tool_format="verl")
        for step in action.reference_solution if replay else ():
            assert not (await episode.call(step.tool, step.arguments))[1]
        return await episode.end(action.reference_answer if replay else None)

    async def go():
        async with AsyncClient(base, admin_token=TOKEN) as client:
            return await asyncio.gather(one(client, True), one(client, False), one(client, True))

    verdicts = asyncio.run(go())
    assert [v["reward"] for v in verdicts] == [1.0, 0.0, 1.0]
    assert len({v["episode"] for v in verdicts}) == 3


def test_number_text_for_an_optional_numeric_parameter_runs_as_the_number():
    schema = {"type": "object", "required": ["id"], "properties": {
        "id": {"type": "integer"}, "limit": {"type": "integer"}, "price": {"type": "number"},
        "code": {"type": ["string", "integer"]}, "filters": {"type": "object", "properties": {"min": {"type": "number"}}}}}
    given = {"id": "7", "limit": "48", "price": "-2.5e1", "code": "12", "filters": {"min": "0.5"}}
    assert numbers_from_text(schema, given) == {"id": "7", "limit": 48, "price": -25.0, "code": "12",
                                                "filters": {"min": 0.5}}
    for text in ("48.0", "4 8", "0x30", "", "1e400", "NaN", "048"):
        assert numbers_from_text(schema, {"limit": text})["limit"] == text
    assert numbers_from_text(schema, {"price": "1e400"})["price"] == "1e400"


def test_the_inspector_sends_a_nullable_integer_as_text_and_the_call_runs(base, published, pool):
    """The strict form serves an optional integer as ["integer", "null"]; the Inspector's form sends "48"."""
    from awm.artifacts import TOOLS_JSON

    tools = TOOLS_JSON.read(published, ENV).tools
    spec, name = next((s.mcp(), n) for s in tools for n, p in s.mcp()["inputSchema"].get("properties", {}).items()
                      if p.get("type") == "integer" and n not in (s.mcp()["inputSchema"].get("required") or ()))
    with Client(base, admin_token=TOKEN) as client:
        episode = client.reserve(ENV, action_task(published, pool))
        text, failed = episode.call(spec["name"], {name: "2"})
        as_number, _ = episode.call(spec["name"], {name: 2})
        episode.end()
    assert not failed, text
    assert json.loads(text) == json.loads(as_number)


def action_task(published, pool) -> str:
    env = open_environment(ENV, home=published.home, pool=pool)
    try:
        return env.tasks[0].task_id
    finally:
        env.close()


def test_the_client_example_replays_to_one_and_a_null_run_to_zero(base, published, action, tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from awm.export import write_export

    export = write_export(published, tmp_path / "tasks.jsonl", with_reference=True).path
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n")
    script = Path(__file__).resolve().parents[3] / "examples" / "client_replay.py"
    for extra, reward, calls in (([], 1.0, action.steps), (["--null"], 0.0, 0)):
        done = subprocess.run([sys.executable, str(script), str(export), ENV, action.task_id, "--base-url", base,
                               "--admin-token-file", str(token), *extra], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        verdict = json.loads(done.stdout.strip().splitlines()[-1])
        assert verdict["reward"] == reward and verdict["calls"] == calls, verdict
