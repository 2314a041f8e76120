"""Whether the tasks read like a real user's requests: the realism measures (awm/quality/realism.py) and the task
variety measures (awm/quality/diversity.py) of the tasks the offline builder writes for a corpus, without building
the environments (tasks only, so the default 1,000-environment corpus takes minutes, not an hour).

Prints a summary and writes benchmarks/results/realism.json (or --out), and --sample N instructions to read.

    python benchmarks/bench_realism.py                          # the `make run` corpus: 100 domains x 10 slots
    python benchmarks/bench_realism.py --domains 12 --slots 2   # a quick look
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.backends.offline import OfflineBackend  # noqa: E402
from awm.builder.catalogue.seeds import resolve_domains  # noqa: E402
from awm.builder.intents import INTENTS  # noqa: E402
from awm.builder.tools import generate_tools  # noqa: E402
from awm.quality.diversity import Masker, TaskText, corpus_diversity  # noqa: E402
from awm.quality.realism import RealismText, needs_staff_tool, realism  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "realism.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domains", type=int, default=100)
    parser.add_argument("--slots", type=int, default=10)
    parser.add_argument("--sample", type=int, default=30, help="instructions to print, drawn at random")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    backend = OfflineBackend()
    shapes = {name: i.shape for name, i in INTENTS.items()}
    specific = {name for name, i in INTENTS.items() if i.specific}
    texts, measured = [], []
    started = time.perf_counter()
    for domain in resolve_domains(str(args.domains), args.domains):
        for slot in range(args.slots):
            scenario = backend.scenario(domain, slot)
            masker = Masker.for_environment(scenario.labels, None, scenario.items + scenario.item_categories)
            staff_only = {s.name for s in generate_tools(backend.plan(scenario))[1].tools if s.staff_only}
            for t in backend.tasks(scenario).tasks:
                intents = tuple(t.template.split("+"))
                texts.append(TaskText(scenario.env_id, domain, t.instruction, intents, t.steps, t.distinct_tools,
                                      masker.mask(t.instruction), t.task_id))
                measured.append(RealismText(t.instruction, intents, all(shapes.get(i) == "infeasible"
                                                                        for i in intents),
                                            needs_staff_tool(t, staff_only)))
    seconds = time.perf_counter() - started
    report = {"environments": args.domains * args.slots, "seconds": round(seconds, 1),
              "realism": realism(measured), "diversity": corpus_diversity(texts, shapes, specific)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    tmp = args.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(report, indent=2) + "\n")
    tmp.replace(args.out)
    r, d = report["realism"], report["diversity"]
    print(f"{len(texts)} tasks of {report['environments']} environments in {seconds:.0f}s")
    print(f"multi-request {r['multi_request_share']:.1%} | top sentence {r['top_sentence_share']:.2%} "
          f"({r['top_sentence']!r}) | user goals {r['user_goal_share']:.1%} | proxy {r['proxy_share']:.1%} | "
          f"authority requests {r['authority_requests']} ({r['authority_refusals']} refused) | "
          f"voice violations {r['voice_violations']}")
    print(f"steps mean {d['steps']['mean']}, distinct tools mean {d['distinct_tools']['mean']} | vocabulary "
          f"{d['vocabulary']} | cross-domain near-duplicates {d['cross_domain_near_duplicate_share']:.2%} | "
          f"top small-talk sentence {d['top_filler_sentence_share']:.2%} ({d['top_filler_sentence']!r})")
    for example in r["voice_violation_examples"]:
        print("  violation:", example)
    for text in random.Random(0).sample(texts, min(args.sample, len(texts))):
        print(f"- [{'+'.join(text.intents)}] {text.instruction}")


if __name__ == "__main__":
    main()
