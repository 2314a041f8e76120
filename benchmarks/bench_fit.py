"""Whether the worlds fit their kind of business: the misfits of awm/quality/fit.py over a corpus's scenarios and
tasks (tasks only, without building the environments), with a few examples of each rule.

Prints a summary and writes benchmarks/results/fit.json (or --out). --kinds FILE reads each domain's item kind from
a JSON file ({slug: kind}) instead of the catalogue, to measure an older checkout whose catalogue has none (copy
awm/builder/catalogue/kinds.py, awm/quality/fit.py and this script into it first):

    python benchmarks/bench_fit.py                              # the `make run` corpus: 100 domains x 10 slots
    python benchmarks/bench_fit.py --dump-kinds kinds.json      # the catalogue's item kinds, for --kinds
    python ../older/benchmarks/bench_fit.py --kinds kinds.json --label before --out benchmarks/results/fit.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.backends.offline import OfflineBackend  # noqa: E402
from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402
from awm.builder.catalogue.seeds import resolve_domains  # noqa: E402
from awm.quality.fit import World, fit_report  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "fit.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, default=100)
    parser.add_argument("--slots", type=int, default=10)
    parser.add_argument("--kinds", type=Path, help="a JSON file {slug: item kind} (default: the catalogue's)")
    parser.add_argument("--dump-kinds", type=Path, help="write the catalogue's item kinds to this file and stop")
    parser.add_argument("--label", default="after", help="the key the report is stored under in --out")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.dump_kinds:
        args.dump_kinds.write_text(json.dumps({s: getattr(d, "item_kind", "") for s, d in DOMAIN_SEEDS.items()}, indent=1) + "\n")
        return
    kinds = json.loads(args.kinds.read_text()) if args.kinds else {}
    backend = OfflineBackend()
    worlds = []
    started = time.perf_counter()
    for domain in resolve_domains(str(args.domains), args.domains):
        for slot in range(args.slots):
            scenario = backend.scenario(domain, slot)
            kind = kinds.get(domain) or getattr(scenario, "item_kind", "") or getattr(DOMAIN_SEEDS[domain], "item_kind", "")
            tasks = backend.tasks(scenario).tasks
            worlds.append(World(scenario.env_id, scenario.category, kind, tuple(scenario.modules),
                                tuple(scenario.price_range), tuple(t.instruction for t in tasks), tuple(scenario.items),
                                getattr(scenario, "party_kind", "person")))
    report = {"seconds": round(time.perf_counter() - started, 1), **fit_report(worlds)}
    stored = json.loads(args.out.read_text()) if args.out.exists() else {}
    stored[args.label] = report
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(stored, indent=2) + "\n")
    tmp.replace(args.out)
    print(json.dumps({k: v for k, v in report.items() if k != "examples"}, indent=2))
    for rule, shown in report["examples"].items():
        print(f"{rule}:", *shown, sep="\n  ")


if __name__ == "__main__":
    main()
