"""Dagster overhead: materialize N environments through Dagster as a user would (`make run`'s launcher,
fresh AWM_HOME: six stage assets, their asset checks, the catalog), against the same work done by the
core library directly (the six stages, then the checks' functions per domain) with the same number of
worker processes. Prints a table and writes benchmarks/results/pipeline.json.

    python benchmarks/bench_pipeline.py                 # N = 10 and 100
    python benchmarks/bench_pipeline.py --sizes 10 100 1000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from multiprocessing import get_context
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402


def _build_domains(args: tuple[str, list[str], int]) -> int:
    """The same work as a Dagster run: the six stages (with their gates and proofs), then what the asset
    checks run on each domain partition (bench_checks.asset_checks calls the checks' own functions)."""
    home, domains, slots = args
    from bench_checks import asset_checks

    from awm.stages.pipeline import build_environment
    from awm.store import ArtifactStore

    store = ArtifactStore(home)
    ok = 0
    for domain in domains:
        for slot in range(slots):
            ok += all(o.ok for o in build_environment(store, domain, slot))
        asset_checks(store, [domain], slots)
    return ok


def core_direct(domains: list[str], slots: int, workers: int) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as home:
        chunks = [domains[i::workers] for i in range(workers)]
        started = time.perf_counter()
        with get_context("spawn").Pool(workers) as pool:
            ok = sum(pool.map(_build_domains, [(home, chunk, slots) for chunk in chunks if chunk]))
        return time.perf_counter() - started, ok


def through_dagster(domains: list[str], slots: int, workers: int) -> tuple[float, str]:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "AWM_HOME": home, "AWM_DOMAINS": ",".join(domains), "AWM_SLOTS": str(slots),
               "AWM_WORKERS": str(workers)}
        env.pop("DAGSTER_HOME", None)
        started = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, cwd=ROOT, capture_output=True,
                             text=True)
        elapsed = time.perf_counter() - started
        if out.returncode != 0:
            raise SystemExit(f"launcher failed:\n{out.stderr[-2000:]}")
        built = next(line for line in out.stdout.splitlines() if "environments built" in line).split()[2]
        return elapsed, built


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 100])
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    all_domains = list(DOMAIN_SEEDS)
    results = []
    for n in args.sizes:
        slots = 10 if n >= 10 else n
        domains = all_domains[: max(1, n // slots)]
        core_s, core_ok = core_direct(domains, slots, args.workers)
        dag_s, dag_built = through_dagster(domains, slots, args.workers)
        row = {"environments": len(domains) * slots, "domains": len(domains), "slots": slots,
               "workers": args.workers, "core_seconds": round(core_s, 2), "dagster_seconds": round(dag_s, 2),
               "overhead_ratio": round(dag_s / core_s, 3), "core_envs_ok": core_ok, "dagster_envs_built": int(dag_built),
               "dagster_envs_per_second": round(len(domains) * slots / dag_s, 2)}
        results.append(row)
        print(f"{row['environments']:>5} envs: core {core_s:7.1f}s   dagster {dag_s:7.1f}s   "
              f"ratio {row['overhead_ratio']:.2f}   ({row['dagster_envs_per_second']} envs/s through Dagster)")
    out = ROOT / "benchmarks" / "results" / "pipeline.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "pipeline", "machine": {"cpus": os.cpu_count(),
                                                                     "python": platform.python_version()},
                               "results": results}, indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
