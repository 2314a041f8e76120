"""`make run`'s launcher, timed, and its corpus fingerprinted: one code tree, or two compared round by round.

    python benchmarks/bench_launch.py --domains 10 --slots 10                 # this tree
    python benchmarks/bench_launch.py --domains 10 --slots 10 --before DIR    # DIR (another checkout) vs this
                                                                              # tree, alternating, --rounds each

Each run builds a fresh AWM_HOME through `python -m awm_assets.launch`; it records the wall time, the CPU
time of the launcher and its worker processes (less sensitive to other load on a shared machine than the
wall time), and the corpus sha256 of scripts/corpus_digest.py, so a refactor can show the same bytes for
the same seed. Prints a line per run and writes benchmarks/results/launch_<environments>.json.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("corpus_digest", ROOT / "scripts" / "corpus_digest.py")
corpus_digest = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(corpus_digest)


def run_once(code: Path, domains: int, slots: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="awm-bench-launch-") as tmp:
        env = {**os.environ, "AWM_HOME": tmp, "AWM_DOMAINS": str(domains), "AWM_SLOTS": str(slots),
               "PYTHONPATH": str(code)}
        env.pop("DAGSTER_HOME", None)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "awm_assets.launch"], cwd=code, env=env,
                              capture_output=True, text=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"the launcher in {code} failed ({done.returncode}): {done.stderr[-2000:]}")
        digest = corpus_digest.digest(Path(tmp))
    return {"wall_s": round(wall, 2), "cpu_s": round(after.ru_utime - before.ru_utime + after.ru_stime
                                                     - before.ru_stime, 2),
            "files": digest["files"], "corpus_sha256": digest["corpus_sha256"],
            "load_1m": round(os.getloadavg()[0], 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domains", type=int, default=10)
    parser.add_argument("--slots", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--before", type=Path, help="another checkout to compare with this one")
    args = parser.parse_args()
    trees = {"before": args.before.resolve(), "after": ROOT} if args.before else {"this": ROOT}
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for n in range(args.rounds):
        order = list(trees) if n % 2 == 0 else list(reversed(trees))  # alternate who goes first
        for label in order:
            run = run_once(trees[label], args.domains, args.slots)
            runs[label].append(run)
            print(f"{label:>6} round {n + 1}: {run['wall_s']:7.1f} s wall, {run['cpu_s']:6.1f} s CPU, "
                  f"load {run['load_1m']}, corpus {run['corpus_sha256'][:16]} ({run['files']} files)")
    summary = {label: {"median_wall_s": median(r["wall_s"] for r in rs), "median_cpu_s": median(r["cpu_s"] for r in rs),
                       "corpus_sha256": sorted({r["corpus_sha256"] for r in rs})} for label, rs in runs.items()}
    identical = len({sha for s in summary.values() for sha in s["corpus_sha256"]}) == 1
    for label, s in summary.items():
        print(f"{label:>6}: median {s['median_wall_s']:.1f} s wall, {s['median_cpu_s']:.1f} s CPU")
    print(f"corpora identical across every run: {identical}")
    out = ROOT / "benchmarks" / "results" / f"launch_{args.domains * args.slots}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"benchmark": "launch", "environments": args.domains * args.slots,
                               "domains": args.domains, "slots": args.slots, "corpora_identical": identical,
                               "summary": summary, "runs": runs,
                               "machine": {"cpus": os.cpu_count(), "python": platform.python_version()}},
                              indent=2) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
