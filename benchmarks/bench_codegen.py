"""How long the offline builder takes to write an environment's code: tools.py and tools.json
(`generate_tools`) and every task's verifier (`verifier_source`), per environment, over the default corpus's
first domains x slots in one process (as a range run builds them). Prints a table and writes
benchmarks/results/codegen.json (one entry per --label, so a run on older code can sit beside it).

    python benchmarks/bench_codegen.py --label after
    AWM_CODE_ROOT=/path/to/older/checkout python benchmarks/bench_codegen.py --label before
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("AWM_CODE_ROOT", str(ROOT)))

from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402
from awm.builder.data import generate_rows  # noqa: E402
from awm.builder.taskgen import generate_tasks  # noqa: E402
from awm.builder.toolgen import generate_tools  # noqa: E402
from awm.builder.verifiergen import verifier_source  # noqa: E402
from awm.builder.world import make_scenario, plan_world  # noqa: E402


def measure(domains: int, slots: int) -> dict:
    plans = [plan_world(make_scenario(d, s)) for d in list(DOMAIN_SEEDS)[:domains] for s in range(slots)]
    tasks = [generate_tasks(p, generate_rows(p), 10) for p in plans]
    tool_ms, verifier_ms = [], []
    for plan, taskset in zip(plans, tasks, strict=True):
        started = time.perf_counter()
        generate_tools(plan)
        tool_ms.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        for task in taskset.tasks:
            verifier_source(plan.scenario.env_id, task)
        verifier_ms.append((time.perf_counter() - started) * 1000)
    return {"environments": len(plans),
            "tools_ms_mean": round(statistics.mean(tool_ms), 2), "tools_ms_first": round(tool_ms[0], 2),
            "tools_ms_p50": round(statistics.median(tool_ms), 2),
            "verifiers_ms_mean": round(statistics.mean(verifier_ms), 2),
            "verifiers_ms_p50": round(statistics.median(verifier_ms), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--label", default="after")
    parser.add_argument("--domains", type=int, default=30)
    parser.add_argument("--slots", type=int, default=10)
    args = parser.parse_args()
    result = measure(args.domains, args.slots)
    for key, value in result.items():
        print(f"{key:20} {value}")
    out = ROOT / "benchmarks" / "results" / "codegen.json"
    previous = json.loads(out.read_text()) if out.exists() else {}
    previous[args.label] = {**result, "code_root": os.environ.get("AWM_CODE_ROOT", "this checkout")}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(previous, indent=2) + "\n")
    tmp.replace(out)


if __name__ == "__main__":
    main()
