"""The ecosystem fit, measured: tools a strict function-calling request refuses, and what the adapters cost.

    python benchmarks/bench_ecosystem.py                      # builds 40 environments in a temp dir
    python benchmarks/bench_ecosystem.py --home .awm          # a built corpus (every environment)

Prints a table and writes benchmarks/results/ecosystem.json. What is measured:

  strict   every tool spec of the corpus checked against OpenAI strict-mode rules (awm.toolspecs.strict_problems):
           as tools.json holds it (the permissive form, what was published before) and in the strict form that
           `awm serve` and `awm export` now publish; with the reasons of the refusals before
  steps    one read tool call per step, p50 / p99 over --n steps: the Python API (Episode.call, the baseline),
           the OpenEnv adapter in-process (AWMOpenEnv.step) and through openenv-core's WebSocket server and
           client on 127.0.0.1, the MCP server (official client over streamable HTTP) in the strict and the
           AWM agent format, and the verifiers adapter's turn with one tool call (AWMEnv.env_response over the
           rollout's MCP session; run by benchmarks/verifiers_steps.py in the agent-side virtualenv, where
           verifiers and mcp 1.x live: .venv-clients, or --clients-python), beside the bare mcp 1.x client
           there; overhead = p50 minus the baseline's p50
  rollout  the verifiers adapter's fixed cost per rollout: setup (reserve, open the MCP session, list the
           tools) and cleanup (close it, score and end the episode)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.contracts import ToolSet  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402
from awm.toolspecs import strict_problems, strict_schema  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "ecosystem.json"
TOKEN = "bench-token"


def build_corpus(home: Path, domains: int, slots: int) -> ArtifactStore:
    from awm.builder.catalogue.seeds import builtin_domains
    from awm.stages.catalog import build_catalog
    from awm.stages.pipeline import build_environment

    store = ArtifactStore(home)
    for domain in builtin_domains()[:domains]:
        for slot in range(slots):
            build_environment(store, domain, slot)
    build_catalog(store, store.env_ids())
    return store


def bench_strict(store: ArtifactStore) -> dict:
    tools = refused_before = refused_after = 0
    reasons = {"optional parameter not in required": 0, "minLength": 0, "default": 0, "other keyword": 0}
    for env_id in store.env_ids():
        try:
            toolset = store.read_model(env_id, "tools.json", ToolSet)
        except (OSError, ValueError):
            continue  # an environment that failed before its tools
        for spec in toolset.tools:
            tools += 1
            before = strict_problems(spec.input_schema)
            refused_before += bool(before)
            refused_after += bool(strict_problems(strict_schema(spec.input_schema)))
            text = " ".join(before)
            reasons["optional parameter not in required"] += "must be required" in text
            reasons["minLength"] += "'minLength'" in text
            reasons["default"] += "'default'" in text
            reasons["other keyword"] += any("keyword" in p and "'minLength'" not in p and "'default'" not in p
                                            for p in before)
    return {"environments": len(store.env_ids()), "tools": tools, "refused_before": refused_before,
            "refused_before_share": round(refused_before / tools, 3) if tools else None,
            "refused_after": refused_after, "tools_with_reason_before": reasons}


def percentiles(samples: list[float]) -> dict:
    samples = sorted(samples)
    return {"p50_ms": round(statistics.median(samples) * 1000, 3),
            "p99_ms": round(samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1000, 3), "n": len(samples)}


def read_call(store: ArtifactStore, env_id: str) -> tuple[str, dict]:
    toolset = store.read_model(env_id, "tools.json", ToolSet)
    spec = next(s for s in toolset.tools if s.annotations.get("readOnlyHint") and list(s.input_schema["properties"])
                == s.input_schema.get("required") and len(s.input_schema["required"]) == 1
                and s.input_schema["required"][0].endswith("_id"))  # get one row by id, in any API style
    return spec.name, {spec.input_schema["required"][0]: 1}


def bench_python_api(store, pool, env_id, task_id, tool, arguments, n) -> dict:
    from awm.runtime import open_environment

    env = open_environment(env_id, home=store.home, pool=pool)
    with env.reset(task_id) as episode:
        samples = []
        for _ in range(n):
            start = time.perf_counter()
            episode.call(tool, arguments)
            samples.append(time.perf_counter() - start)
    env.close()
    return percentiles(samples[n // 10:])


def bench_openenv_in_process(store, pool, env_id, task_id, tool, arguments, n) -> dict:
    from awm.adapters.openenv import AWMAction, AWMOpenEnv

    openenv = AWMOpenEnv(store.home, pool)
    openenv.reset(env_id=env_id, task_id=task_id)
    samples = []
    for _ in range(n):
        action = AWMAction(tool=tool, arguments=arguments)  # the client's action, as the server parses it
        start = time.perf_counter()
        openenv.step(action)
        samples.append(time.perf_counter() - start)
    openenv.close()
    return percentiles(samples[n // 10:])


def bench_openenv_server(store, pool, env_id, task_id, tool, arguments, n) -> dict:
    import uvicorn

    from awm.adapters.openenv import AWMAction, AWMEnvClient, create_awm_app

    server = uvicorn.Server(uvicorn.Config(create_awm_app(store.home, pool), host="127.0.0.1", port=0,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    url = f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"

    async def go():
        samples = []
        async with AWMEnvClient(base_url=url) as client:
            await client.reset(env_id=env_id, task_id=task_id)
            for _ in range(n):
                start = time.perf_counter()
                await client.step(AWMAction(tool=tool, arguments=arguments))
                samples.append(time.perf_counter() - start)
        return samples

    try:
        return percentiles(asyncio.run(go())[n // 10:])
    finally:
        server.should_exit = True
        thread.join(10)


def bench_mcp(base: str, env_id: str, task_id: str, tool: str, arguments: dict, n: int, tool_format: str) -> dict:
    import httpx2
    from mcp import Client

    reserved = httpx2.post(f"{base}/admin/sessions", headers={"Authorization": f"Bearer {TOKEN}"},
                           json={"env_id": env_id, "task_id": task_id, "tool_format": tool_format}).json()
    name, args = tool, arguments
    if tool_format == "awm":
        name, args = "call_tool", {"tool_name": f"mcp_tool_{tool}", "arguments": json.dumps(arguments)}

    async def go():
        samples = []
        async with Client(reserved["url"]) as agent:
            for _ in range(n):
                start = time.perf_counter()
                await agent.call_tool(name, args)
                samples.append(time.perf_counter() - start)
        return samples

    return percentiles(asyncio.run(go())[n // 10:])


def bench_verifiers(clients_python: Path, store, base, env_id, task_id, tool, arguments, n) -> dict | None:
    """The verifiers adapter in the agent-side virtualenv (verifiers pins mcp<2: not importable here)."""
    from awm.export import write_export

    if not clients_python.exists():
        print(f"no agent-side virtualenv at {clients_python} (make test builds it): verifiers adapter not measured")
        return None
    export = write_export(store, store.home / "export" / "bench-verifiers.jsonl", base_url=base).path
    job = {"export": str(export), "base_url": base, "token": TOKEN, "env_id": env_id, "task_id": task_id,
           "tool": tool, "arguments": arguments, "n": n}
    done = subprocess.run([str(clients_python), str(ROOT / "benchmarks" / "verifiers_steps.py"), json.dumps(job)],
                          capture_output=True, text=True, timeout=600, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise RuntimeError(f"verifiers_steps.py failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="a built corpus (default: build one in a temp dir)")
    parser.add_argument("--domains", type=int, default=20)
    parser.add_argument("--slots", type=int, default=2)
    parser.add_argument("--n", type=int, default=400, help="steps per measured path")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--clients-python", type=Path,
                        default=Path(os.environ.get("AWM_CLIENTS_PYTHON", ROOT / ".venv-clients" / "bin" / "python")),
                        help="Python of the agent-side virtualenv (verifiers, mcp 1.x)")
    args = parser.parse_args(argv)

    from awm.runtime.pool import WorkerPool
    from awm.runtime.server import RuntimeServer, serve_in_thread

    with tempfile.TemporaryDirectory(prefix="awm-bench-eco-") as scratch:
        started = time.perf_counter()
        store = ArtifactStore(args.home) if args.home else build_corpus(Path(scratch), args.domains, args.slots)
        results: dict = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                     "platform": platform.platform()},
                         "corpus": str(args.home) if args.home else f"{args.domains} domains x {args.slots} slots",
                         "build_seconds": None if args.home else round(time.perf_counter() - started, 1)}
        results["strict"] = bench_strict(store)
        entry = next(iter(store.iter_catalog()))
        env_id, task_id = entry["env_id"], entry["task_id"]
        tool, arguments = read_call(store, env_id)
        with WorkerPool(workers=1) as pool:
            steps = {"python_api": bench_python_api(store, pool, env_id, task_id, tool, arguments, args.n),
                     "openenv_in_process": bench_openenv_in_process(store, pool, env_id, task_id, tool, arguments,
                                                                    args.n),
                     "openenv_server_websocket": bench_openenv_server(store, pool, env_id, task_id, tool, arguments,
                                                                      args.n)}
            running = serve_in_thread(RuntimeServer(store, pool, TOKEN))
            try:
                for tool_format in ("strict", "awm"):
                    steps[f"mcp_http_{tool_format}"] = bench_mcp(running.url, env_id, task_id, tool, arguments,
                                                                 args.n, tool_format)
                measured = bench_verifiers(args.clients_python, store, running.url, env_id, task_id, tool,
                                           arguments, args.n)
                if measured is not None:
                    steps["mcp1_client_http"] = measured["mcp1_client"]
                    steps["verifiers_adapter_http"] = measured["verifiers_adapter"]["step"]
                    results["rollout"] = {"verifiers_adapter_setup": measured["verifiers_adapter"]["rollout_setup"],
                                          "verifiers_adapter_cleanup": measured["verifiers_adapter"]["rollout_cleanup"]}
            finally:
                running.stop()
        baseline = steps["python_api"]["p50_ms"]
        for path in steps.values():
            path["overhead_p50_ms"] = round(path["p50_ms"] - baseline, 3)
        results["steps"] = {"tool": tool, "env_id": env_id, **steps}
    strict = results["strict"]
    print(f"strict-mode refusals: {strict['refused_before']} of {strict['tools']} tools "
          f"({strict['refused_before_share']:.0%}) before, {strict['refused_after']} after "
          f"({strict['environments']} environments); reasons before: {strict['tools_with_reason_before']}")
    print(f"{'one tool call per step':32} {'p50 ms':>8} {'p99 ms':>8} {'overhead p50':>13}")
    for name, path in steps.items():
        print(f"{name:32} {path['p50_ms']:8.3f} {path['p99_ms']:8.3f} {path['overhead_p50_ms']:13.3f}")
    for name, path in results.get("rollout", {}).items():
        print(f"{name + ' (once per rollout)':45} p50 {path['p50_ms']:8.3f} ms, p99 {path['p99_ms']:8.3f} ms")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
