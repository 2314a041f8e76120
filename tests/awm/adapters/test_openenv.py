"""The OpenEnv adapter: in-process, and through the real openenv-core server and client on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import pytest

from awm.runtime import open_environment
from awm.toolspecs import strict_problems
from tests.awm.runtime.conftest import pool, published  # noqa: F401 - fixtures

ENV = "dental_clinic__00"


@pytest.fixture(scope="module")
def adapter():
    """awm.adapters.openenv, imported by the tests that use it: openenv-core imports gradio (seconds), which every
    pytest-xdist worker would otherwise import to collect this module, though one runs it."""
    pytest.importorskip("openenv.core")
    from awm.adapters import openenv

    return openenv


@pytest.fixture(scope="module")
def tasks(published, pool):  # noqa: F811
    env = open_environment(ENV, home=published.home, pool=pool)
    yield env.tasks
    env.close()


def test_reference_replays_earn_one_null_zero_and_format_errors_are_counted_in_process(adapter, published, pool, tasks):  # noqa: F811
    openenv = adapter.AWMOpenEnv(published.home, pool)
    for task in tasks[:3]:
        first = openenv.reset(env_id=ENV, task_id=task.task_id)
        assert first.prompt[1] == {"role": "user", "content": task.instruction} and first.prompt[0]["role"] == "system"
        assert first.tools and all(not strict_problems(t["inputSchema"]) for t in first.tools)
        for step in task.reference_solution:
            observation = openenv.step(adapter.AWMAction(tool=step.tool, arguments=step.arguments))
            assert observation.error is None and observation.reward == 0.0, observation.error  # a number, not None
        final = openenv.step(adapter.AWMAction(answer=task.reference_answer))
        assert final.done and final.reward == 1.0 and final.verdict["complete"]
        assert openenv.state.step_count == task.steps + 1
    openenv.reset(env_id=ENV, task_id=tasks[0].task_id)
    wrong = openenv.step(adapter.AWMAction(tool="no_such_tool"))
    assert wrong.reward == -1.0 and wrong.error["code"] == "unknown_tool"
    assert openenv.state.format_errors == 1
    null = openenv.step(adapter.AWMAction(answer=None))
    assert null.done and null.reward == 0.0 and null.verdict["format_errors"] == 1
    assert openenv.step(adapter.AWMAction(tool="x")).error["code"] == "invalid_action"  # over: reset first
    picked = openenv.reset(seed=7)
    assert (picked.env_id, picked.task_id) == (openenv.reset(seed=7).env_id, openenv.reset(seed=7).task_id)
    openenv.close()


@pytest.fixture(scope="module")
def openenv_server(adapter, published, pool):  # noqa: F811
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(adapter.create_awm_app(published.home, pool), host="127.0.0.1", port=0,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    server.should_exit = True
    thread.join(10)


def test_reference_replays_earn_one_and_null_zero_through_the_openenv_server_and_client(adapter, openenv_server, tasks):
    async def episode(task, replay: bool) -> tuple[float, int]:
        async with adapter.AWMEnvClient(base_url=openenv_server) as client:
            reset = await client.reset(env_id=ENV, task_id=task.task_id)
            assert reset.observation.task_id == task.task_id and reset.observation.tools
            for step in task.reference_solution if replay else ():
                result = await client.step(adapter.AWMAction(tool=step.tool, arguments=step.arguments))
                assert result.observation.error is None, result.observation.error
                assert result.reward == 0.0 and result.observation.reward == 0.0
            final = await client.step(adapter.AWMAction(answer=task.reference_answer if replay else None))
            assert final.done
            state = await client.state()
            return final.reward, state.step_count

    async def go():
        for task in tasks[:3]:
            assert await episode(task, replay=True) == (1.0, task.steps + 1)
            assert (await episode(task, replay=False))[0] == 0.0

    asyncio.run(go())


def test_the_openenv_server_refuses_messages_over_its_cap_and_carries_on(adapter, openenv_server, tasks):
    """As `awm serve --max-request-bytes`: a step over 64 KiB never reaches OpenEnv's parser."""
    import httpx2

    task = tasks[0]
    big = {"tool": task.reference_solution[0].tool, "arguments": {"note": "x" * 100_000}}

    async def go():
        async with httpx2.AsyncClient() as http:
            refused = await http.post(f"{openenv_server}/step", json={"action": big})
            assert refused.status_code == 413 and "65536 bytes" in refused.text
        client = adapter.AWMEnvClient(base_url=openenv_server)
        await client.connect()
        assert (await client.reset(env_id=ENV, task_id=task.task_id)).observation.task_id == task.task_id
        with pytest.raises(Exception, match="1009|too big|closed"):  # the server closed the WebSocket (1009)
            await client.step(adapter.AWMAction(**big))
        with contextlib.suppress(Exception):
            await client.close()
        async with adapter.AWMEnvClient(base_url=openenv_server) as client:  # the server carries on
            reset = await client.reset(env_id=ENV, task_id=task.task_id)
            assert reset.observation.task_id == task.task_id

    asyncio.run(go())
