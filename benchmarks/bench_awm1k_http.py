"""Imported AWM-1K environments served over streamable HTTP by `awm serve`'s server: reset (a reserved episode
opened), call and score latency as a trainer sees them through awm.client on 127.0.0.1. Prints a table and
writes benchmarks/results/awm1k_http.json.

    python benchmarks/bench_awm1k_http.py [--dataset tests/fixtures/awm1k/sample] [--scenario e_commerce_33]
                                          [--episodes 30] [--calls 50]

The scenario is imported into a temporary store and served by RuntimeServer with ImportedEnvironments (one
sandboxed foreign host for the environment, each episode its own database file in it). Measured:
  first_episode     the first reservation: the host started under bubblewrap and their app loaded, then reset
  reset             reserve + open (initialize, tools/list) of a new episode: a copy of the initial database
  read / write      one tools/call of a read route and of a write route, in the same episode
  alternating       a read call of two episodes in turn: each call first swaps the working database
  score             their verifier on the episode (POST /admin/episodes/<key>/score)
  end               close the session, score and free it
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from awm.awm1k.importer import import_dataset  # noqa: E402
from awm.awm1k.serving import ImportedEnvironments  # noqa: E402
from awm.client import Client  # noqa: E402
from awm.runtime.pool import WorkerPool  # noqa: E402
from awm.runtime.server import RuntimeServer, serve_in_thread  # noqa: E402
from awm.stages.catalog import build_catalog  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402

TOKEN = "bench-token"


def summary(values: list[float]) -> dict:
    ordered = sorted(values)
    return {"n": len(values), "median_ms": round(statistics.median(ordered), 3),
            "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))], 3), "mean_ms": round(statistics.mean(ordered), 3)}


def timed(fn, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    value = fn(*args, **kwargs)
    return (time.perf_counter() - started) * 1000, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", type=Path, default=ROOT / "tests" / "fixtures" / "awm1k" / "sample")
    parser.add_argument("--scenario", default="e_commerce_33")
    parser.add_argument("--task", default="t01")
    parser.add_argument("--read", default="get_cart", help="a read route (tool) and its arguments as JSON")
    parser.add_argument("--read-args", default="{}")
    parser.add_argument("--write", default="add_cart_item")
    parser.add_argument("--write-args", default='{"product_offer_id": 3, "quantity": 1}')
    parser.add_argument("--episodes", type=int, default=30)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "awm1k_http.json")
    args = parser.parse_args()
    read_args, write_args = json.loads(args.read_args), json.loads(args.write_args)

    with tempfile.TemporaryDirectory(prefix="bench-awm1k-http-") as tmp:
        store = ArtifactStore(Path(tmp) / "home")
        started = time.perf_counter()
        (imported,) = import_dataset(store, args.dataset, [args.scenario])
        import_s = time.perf_counter() - started
        if imported.status != "checked":
            raise SystemExit(f"{args.scenario} did not import as checked: {imported.reason}")
        build_catalog(store, store.env_ids())
        env_id = imported.env_id
        with WorkerPool(workers=1) as pool:
            handle = serve_in_thread(RuntimeServer(store, pool, TOKEN, sources=(ImportedEnvironments(store),)))
            try:
                with Client(handle.url, admin_token=TOKEN) as client:
                    first_ms, first = timed(client.reserve, env_id, args.task)
                    first.end()
                    resets, reads, writes, scores, ends = [], [], [], [], []
                    for _ in range(args.episodes):
                        ms, episode = timed(client.reserve, env_id, args.task)
                        resets.append(ms)
                        for _ in range(max(1, args.calls // args.episodes)):
                            ms, (text, failed) = timed(episode.call, args.read, read_args)
                            assert not failed, text
                            reads.append(ms)
                        ms, (text, failed) = timed(episode.call, args.write, write_args)
                        assert not failed, text
                        writes.append(ms)
                        ms, verdict = timed(episode.score)
                        scores.append(ms)
                        ms, _ = timed(episode.end)
                        ends.append(ms)
                    one, two = client.reserve(env_id, args.task), client.reserve(env_id, args.task)
                    alternating = []
                    for n in range(args.calls):
                        ms, (text, failed) = timed((one if n % 2 else two).call, args.read, read_args)
                        assert not failed, text
                        alternating.append(ms)
                    one.end()
                    two.end()
            finally:
                handle.stop()
    report = {"benchmark": "awm1k_http", "scenario": args.scenario, "env_id": env_id, "task": args.task,
              "read": [args.read, read_args], "write": [args.write, write_args],
              "import_s": round(import_s, 3), "first_episode_ms": round(first_ms, 1),
              "reset": summary(resets), "read_call": summary(reads), "write_call": summary(writes),
              "alternating_read_call": summary(alternating), "score": summary(scores), "end": summary(ends),
              "last_verdict": verdict.get("verdict"), "load_average": [round(x, 2) for x in os.getloadavg()],
              "cpus": os.cpu_count()}
    print(f"AWM-1K over streamable HTTP ({env_id}, awm.client on 127.0.0.1; load average "
          f"{report['load_average'][0]} on {report['cpus']} CPUs)")
    print(f"  import {import_s:.2f} s; first episode (host start, app load, reset) {first_ms:.0f} ms")
    for name in ("reset", "read_call", "write_call", "alternating_read_call", "score", "end"):
        s = report[name]
        print(f"  {name:<22} median {s['median_ms']:8.2f} ms   p90 {s['p90_ms']:8.2f} ms   (n={s['n']})")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    temp = args.out.with_suffix(".json.tmp")
    temp.write_text(json.dumps(report, indent=2) + "\n")
    os.replace(temp, args.out)
    print(f"wrote {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
