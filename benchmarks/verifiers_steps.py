"""The verifiers adapter's cost, measured in the agent-side environment (verifiers 0.3.1, mcp 1.x);
bench_ecosystem.py runs it with the clients' Python against its `awm serve` and reads the JSON it prints.

    <clients python> benchmarks/verifiers_steps.py '{"export": ..., "base_url": ..., "token": ..., "env_id": ...,
                                                     "task_id": ..., "tool": ..., "arguments": {...}, "n": 400}'

Per step: the adapter's turn with one tool call (AWMEnv.env_response: the model's call parsed, run over the
rollout's MCP session, answered as a tool message), and the bare mcp 1.x ClientSession.call_tool on a reserved
URL in the same process, for comparison. Per rollout: setup (reserve the episode, open the MCP session, list
the tools) and cleanup (close the session, score and end the episode).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time


def percentiles(samples: list[float]) -> dict:
    samples = sorted(samples)
    return {"p50_ms": round(statistics.median(samples) * 1000, 3),
            "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1000, 3), "n": len(samples)}


async def adapter(job: dict) -> dict:
    import verifiers as vf
    from verifiers.types import ClientConfig

    env = vf.load_environment("awm.adapters.verifiers", export=job["export"], base_url=job["base_url"],
                              admin_token=job["token"], train_split="all", eval_split=None)
    row = next(r for r in env.get_dataset().to_list()
               if (r["info"]["env_id"], r["info"]["task_id"]) == (job["env_id"], job["task_id"]))
    client = ClientConfig(api_base_url="http://127.0.0.1:9/v1", api_key_var="PATH")  # never called
    steps, setups, cleanups = [], [], []
    rollouts = max(5, job["n"] // 40)
    for rollout in range(rollouts):
        state = await env.init_state(row, client, "bench")
        start = time.perf_counter()
        await env.setup_state(state)
        setups.append(time.perf_counter() - start)
        for i in range(job["n"] // rollouts):
            call = vf.ToolCall(id=f"call_{rollout}_{i}", name=job["tool"], arguments=json.dumps(job["arguments"]))
            messages = [vf.AssistantMessage(content=None, tool_calls=[call])]
            start = time.perf_counter()
            await env.env_response(messages, state)
            steps.append(time.perf_counter() - start)
        start = time.perf_counter()
        await env.cleanup(state)
        cleanups.append(time.perf_counter() - start)
        assert state["awm"]["verdict"]["calls"] == job["n"] // rollouts, state["awm"]["verdict"]
    per_rollout = job["n"] // rollouts
    return {"step": percentiles(steps[per_rollout // 10:]), "rollout_setup": percentiles(setups),
            "rollout_cleanup": percentiles(cleanups)}


async def bare_mcp(job: dict) -> dict:
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with httpx.AsyncClient() as http:
        reserved = (await http.post(f"{job['base_url']}/admin/sessions", headers={"Authorization": f"Bearer {job['token']}"},
                                    json={"env_id": job["env_id"], "task_id": job["task_id"]})).json()
    samples = []
    async with streamable_http_client(reserved["url"]) as (read, write, _), ClientSession(read, write) as session:
        await session.initialize()
        for _ in range(job["n"]):
            start = time.perf_counter()
            await session.call_tool(job["tool"], job["arguments"])
            samples.append(time.perf_counter() - start)
    return percentiles(samples[job["n"] // 10:])


async def main(job: dict) -> dict:
    return {"verifiers_adapter": await adapter(job), "mcp1_client": await bare_mcp(job)}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(json.loads(sys.argv[1])))))
