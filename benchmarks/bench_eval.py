"""Rollout throughput against an agent model of fixed latency, and the platform's cost per tool call.

`awm llm-serve --agent` plays the reference policy with a simulated latency (default 200 ms) per model
call; the rollout engine (awm.eval.rollouts: the real openai client, tool calls through the runtime's
sandbox workers, scoring, JSONL trajectories; the response cache off) runs rollouts of a small built
corpus at concurrency C. The ideal is C / latency model calls per second: everything else a rollout does
(tool calls, reset, scoring, writing its trajectory) should hide behind the model's latency. Then, at
latency 0 and C = 1, what the platform costs per tool call: the episode's call (argument check, sandbox
worker, result) and everything else the engine does that is not waiting for the model.

Prints a table and writes benchmarks/results/eval.json.

    python benchmarks/bench_eval.py                              # latency 200 ms, C = 1 8 32 64
    python benchmarks/bench_eval.py --concurrency 32 --rollouts-per-slot 3
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.eval.rollouts import EvalLimits, RolloutEngine  # noqa: E402
from awm.llm.settings import LLMSettings  # noqa: E402
from awm.stages.pipeline import build_environment  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402

MODEL = "awm-agent-reference"
DOMAINS = ("dental_clinic", "retail_banking")


def start_agent_server(home: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "awm.cli", "--home", str(home), "llm-serve", "--agent", "--port",
                             "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    match = re.search(r"on (http://127\.0\.0\.1:\d+/v1)", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit(f"awm llm-serve --agent did not start: {proc.stderr.read()[-2000:]}")
    return proc, match.group(1)


def set_latency(url: str, latency_ms: float) -> None:
    request = urllib.request.Request(url.removesuffix("/v1") + "/_awm/latency", method="PUT",
                                     data=json.dumps({"latency_ms": latency_ms}).encode(),
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()


def server_stats(url: str, clear: bool = False) -> dict:
    root = url.removesuffix("/v1")
    if clear:
        urllib.request.urlopen(urllib.request.Request(root + "/_awm/requests", method="DELETE"), timeout=10).read()
    return json.loads(urllib.request.urlopen(root + "/_awm/stats", timeout=10).read())


def measure(store: ArtifactStore, url: str, env_ids: list[str], concurrency: int, k: int, seed: int,
            latency_ms: float) -> dict:
    settings = LLMSettings(base_url=url, api_key="bench", model=MODEL, cache=False, concurrency=concurrency,
                           transport_retries=0, timeout_s=120)
    engine = RolloutEngine(store, settings, EvalLimits(k=k, seed=seed, max_steps=60, wall_clock_s=600))
    server_stats(url, clear=True)
    started, cpu = time.perf_counter(), time.process_time()
    results = engine.run(env_ids).results
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    peak = server_stats(url)["peak_in_flight"]
    calls = sum(r.model_calls for r in results)
    tools = sum(r.tool_calls for r in results)
    failed = [r.reason for r in results if not r.passed]
    turns = calls / len(results)
    ideal_calls = concurrency / (latency_ms / 1000) if latency_ms else None
    return {"concurrency": concurrency, "latency_ms": latency_ms, "rollouts": len(results), "model_calls": calls,
            "tool_calls": tools, "wall_s": round(wall, 3), "rollouts_per_s": round(len(results) / wall, 3),
            "model_calls_per_s": round(calls / wall, 2), "tool_calls_per_s": round(tools / wall, 2),
            "ideal_model_calls_per_s": ideal_calls, "ideal_rollouts_per_s":
                round(ideal_calls / turns, 3) if ideal_calls else None,
            "fraction_of_ideal": round(calls / wall / ideal_calls, 3) if ideal_calls else None,
            "passed": len(results) - len(failed), "failures": failed[:5], "peak_in_flight": peak,
            "client_cpu_ms_per_model_call": round(cpu * 1000 / max(calls, 1), 2),
            "tool_ms_per_call": round(sum(r.tool_ms for r in results) / max(tools, 1), 3),
            "tool_ms_per_call_median_rollout": round(statistics.median(r.tool_ms / r.tool_calls for r in results
                                                                       if r.tool_calls), 3),
            "model_ms_per_call": round(sum(r.model_latency_ms for r in results) / max(calls, 1), 2),
            "other_ms_per_tool_call": round((sum(r.wall_s for r in results) * 1000 - sum(r.model_latency_ms for r in
                                                                                      results)) / max(tools, 1), 3)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32, 64])
    parser.add_argument("--slots", type=int, default=2, help="environments per domain in the corpus")
    parser.add_argument("--rollouts-per-slot", type=float, default=6.0,
                        help="rollouts run at concurrency C: about this many times C (at least one per task)")
    args = parser.parse_args(argv)

    rows = []
    with tempfile.TemporaryDirectory(prefix="awm-bench-eval-") as tmp:
        store = ArtifactStore(Path(tmp) / "home")
        env_ids = []
        for domain in DOMAINS:
            for slot in range(args.slots):
                outcomes = build_environment(store, domain, slot)
                if not all(o.ok for o in outcomes):
                    raise SystemExit(f"building {domain} slot {slot} failed: {[o.error for o in outcomes if not o.ok]}")
                env_ids.append(outcomes[0].env_id)
        proc, url = start_agent_server(store.home)
        try:
            tasks_per_env = 10
            seed = 0
            for concurrency in args.concurrency:
                wanted = max(tasks_per_env, int(args.rollouts_per_slot * concurrency))
                envs = env_ids[:max(1, min(len(env_ids), math.ceil(wanted / tasks_per_env)))]
                k = max(1, math.ceil(wanted / (len(envs) * tasks_per_env)))
                set_latency(url, args.latency_ms)
                row = measure(store, url, envs, concurrency, k, seed, args.latency_ms)
                seed += k
                rows.append(row)
                print(f"C={concurrency:3d}  {row['rollouts']:4d} rollouts  {row['rollouts_per_s']:7.2f} rollouts/s  "
                      f"{row['model_calls_per_s']:7.1f} model calls/s (ideal {row['ideal_model_calls_per_s']:.0f}, "
                      f"{row['fraction_of_ideal']:.2f})  {row['tool_calls_per_s']:7.1f} tool calls/s  "
                      f"peak in flight {row['peak_in_flight']}  client CPU {row['client_cpu_ms_per_model_call']:.1f} "
                      f"ms/call  passed {row['passed']}/{row['rollouts']}", flush=True)
            set_latency(url, 0)
            rounds = [measure(store, url, env_ids[:1], 1, 2, seed + 1000 + 10 * n, 0) for n in range(5)]
            overhead = {"rounds": rounds, **{name: statistics.median(r[name] for r in rounds) for name in (
                "tool_ms_per_call", "tool_ms_per_call_median_rollout", "other_ms_per_tool_call", "model_ms_per_call",
                "client_cpu_ms_per_model_call")}}
            print(f"latency 0, C=1, median of 5 rounds: {overhead['tool_ms_per_call']:.3f} ms per tool call in the "
                  f"episode ({overhead['tool_ms_per_call_median_rollout']:.3f} in the median rollout), "
                  f"{overhead['other_ms_per_tool_call']:.3f} ms per tool call of everything but the model "
                  f"(model call round trip {overhead['model_ms_per_call']:.2f} ms)")
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    result = {"benchmark": "eval", "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                                               "load_avg": os.getloadavg()},
              "throughput": rows, "overhead_at_latency_0": overhead,
              "at_32": next((r["fraction_of_ideal"] for r in rows if r["concurrency"] == 32), None)}
    out = ROOT / "benchmarks" / "results" / "eval.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
