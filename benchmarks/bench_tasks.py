"""How varied and how proven the tasks are: the measures of the tasks issue, on a corpus and on a 12-domain sample.

Builds the corpus through the core stages (offline builder, two processes), or reads one already built
(`--home`, e.g. the `make run` corpus), then reports for every task the stage produced (published or not)
and for the published ones:
  distinct intents (and how many are specific to a category of business), distinct phrasing skeletons,
  the share of the most frequent skeleton, the non-entity vocabulary, the share of tasks with a
  near-duplicate in another domain (masked word 3-grams, Jaccard >= 0.6; awm/quality/diversity.py),
  shapes (infeasible, chained, conditional, aggregate, paired), steps and distinct tools per task,
  proofs per class (tried, judged wrongly), quarantined tasks, environments publishing all their tasks.
The 12-domain sample is the first built-in domain of 12 categories spread over the catalogue, every slot.
Prints a summary; writes benchmarks/results/tasks.json.

    python benchmarks/bench_tasks.py                         # 100 domains x 10 scenarios, built in a temp dir
    python benchmarks/bench_tasks.py --home .awm             # the corpus `make run` built
    python benchmarks/bench_tasks.py --home /tmp/corpus      # an empty or new dir: build there, and keep it
    python benchmarks/bench_tasks.py --domains 12 --slots 2  # a quick look
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402
from awm.builder.catalogue.seeds import builtin_domains  # noqa: E402
from awm.builder.intents import INTENTS  # noqa: E402
from awm.contracts import (  # noqa: E402
    MUTANT_CLASSES,
    Scenario,
    TaskSet,
    VerificationReport,
    proof_totals,
)
from awm.domains import split_env_id  # noqa: E402
from awm.quality.diversity import Masker, TaskText, corpus_diversity  # noqa: E402
from awm.stages.catalog import DEFAULT_MIN_TASKS, build_catalog  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "tasks.json"
SAMPLE_SIZE = 12


def _build(args: tuple[str, str, int]) -> tuple[str, float]:
    from awm.stages.pipeline import build_environment

    home, domain, slots = args
    started = time.perf_counter()
    store = ArtifactStore(Path(home))
    for slot in range(slots):
        build_environment(store, domain, slot)
    return domain, time.perf_counter() - started


def sample_domains(domains: list[str], size: int = SAMPLE_SIZE) -> list[str]:
    """The first domain of `size` categories spread evenly over the catalogue's categories (among `domains`)."""
    by_category: dict[str, str] = {}
    for domain in domains:
        seed = DOMAIN_SEEDS.get(domain)
        by_category.setdefault(seed.category if seed else "composed", domain)
    categories = sorted(by_category)
    step = max(1, len(categories) / size)
    return [by_category[categories[int(i * step)]] for i in range(min(size, len(categories)))]


def all_task_texts(store: ArtifactStore, env_ids: list[str]) -> tuple[list[TaskText], list[TaskText]]:
    """Every task the tasks stage produced, and the published ones (passed every proof), masked."""
    everything, published = [], []
    for env_id in env_ids:
        if not store.exists(env_id, "report.json"):
            continue
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        passed = {r.task_id for r in store.read_model(env_id, "report.json", VerificationReport).passed}
        masker = Masker.for_environment(scenario.labels, store.database_path(env_id),
                                        scenario.items + scenario.item_categories)
        for t in tasks.tasks:
            text = TaskText(env_id, split_env_id(env_id)[0], t.instruction, tuple(t.template.split("+")), t.steps,
                            t.distinct_tools, masker.mask(t.instruction))
            everything.append(text)
            if t.task_id in passed:
                published.append(text)
    return everything, published


def proofs(store: ArtifactStore, env_ids: list[str]) -> dict:
    reports = [store.read_model(e, "report.json", VerificationReport) for e in env_ids if store.exists(e, "report.json")]
    tasks = [t for r in reports for t in r.tasks]
    totals = proof_totals(tasks)
    quarantined = [{"env_id": r.env_id, "task_id": t.task_id, "check": t.failure_check(),
                    "why": (t.error or "; ".join(t.evidence + t.survivors + t.rejected_alternatives))[:300]}
                   for r in reports for t in r.tasks if not t.publishable]
    return {
        "environments": len(reports),
        "tasks": len(tasks),
        "reference_passed": sum(t.reference_passed for t in tasks),
        "null_passed": sum(t.null_passed for t in tasks),
        "published": len(tasks) - len(quarantined),
        "environments_all_published": sum(all(t.publishable for t in r.tasks) for r in reports),
        "by_class": {name: {"tried": c["tried"], "judged_wrongly": c["tried"] - c["right"],
                            "must_be": "rejected" if name in MUTANT_CLASSES else "accepted"}
                     for name, c in totals.items()},
        "quarantined": quarantined,
        "quarantined_by_intent": dict(Counter(
            t["check"] + " " + next((x.template for x in store.read_model(t["env_id"], "tasks.json", TaskSet).tasks
                                     if x.task_id == t["task_id"]), "?") for t in quarantined).most_common()),
    }


def measure(store: ArtifactStore, env_ids: list[str]) -> dict:
    shapes = {name: i.shape for name, i in INTENTS.items()}
    specific = {name for name, i in INTENTS.items() if i.specific}
    everything, published = all_task_texts(store, env_ids)
    return {"all_tasks": corpus_diversity(everything, shapes, specific),
            "published_tasks": corpus_diversity(published, shapes, specific),
            "proofs": proofs(store, env_ids)}


def _line(name: str, report: dict) -> str:
    d = report["all_tasks"]
    p = report["proofs"]
    wrong = {k: v["judged_wrongly"] for k, v in p["by_class"].items() if v["judged_wrongly"]}
    shapes = ", ".join(f"{k} {v['share']:.1%} ({v['steps_mean']} calls, {v['distinct_tools_mean']} tools)"
                       for k, v in d["shapes"].items())
    own = d["category_specific"]
    shapes += (f"; the category's own requests {own['share']:.1%} ({own['steps_mean']} calls, "
               f"{own['distinct_tools_mean']} tools)")
    return (f"{name}: {d['tasks']} tasks in {d['domains']} domains | intents {d['distinct_intents']} "
            f"({d['category_specific_intents']} category-specific) | skeletons {d['distinct_skeletons']} "
            f"(top {d['top_skeleton_share']:.2%}), top request sentence {d['top_request_sentence_share']:.2%}, "
            f"top small-talk sentence {d['top_filler_sentence_share']:.2%} | vocabulary {d['vocabulary']} | cross-domain near-duplicates "
            f"{d['cross_domain_near_duplicate_share']:.2%}\n  steps mean {d['steps']['mean']} median "
            f"{d['steps']['median']}, distinct tools mean {d['distinct_tools']['mean']} median "
            f"{d['distinct_tools']['median']} | {shapes}\n  proofs: reference passed {p['reference_passed']}/"
            f"{p['tasks']}, null passed {p['null_passed']}, published {p['published']}, environments with every "
            f"task published {p['environments_all_published']}/{p['environments']}, judged wrongly by class: "
            f"{wrong or 'none'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, help="measure the corpus already built here; when it holds no "
                        "environment, build one there and keep it (else build in a temporary dir)")
    parser.add_argument("--domains", type=int, default=100, help="built-in domains to build (first N)")
    parser.add_argument("--slots", type=int, default=10, help="scenarios per domain")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    build_seconds, load = None, None
    with tempfile.TemporaryDirectory() as tmp:
        home = args.home or Path(tmp)
        store = ArtifactStore(home)
        if not store.env_ids():
            domains = builtin_domains()[:args.domains]
            load_before = os.getloadavg()
            started = time.perf_counter()
            with ProcessPoolExecutor(args.workers) as pool:
                list(pool.map(_build, [(str(home), d, args.slots) for d in domains]))
            build_seconds = round(time.perf_counter() - started, 1)
            load = {"before": [round(x, 2) for x in load_before],
                    "after": [round(x, 2) for x in os.getloadavg()]}  # the machine is shared
        env_ids = [e for d in sorted({split_env_id(e)[0] for e in store.env_ids()}) for e in store.env_ids(d)]
        domains = sorted({split_env_id(e)[0] for e in env_ids})
        sample = sample_domains(domains)
        started = time.perf_counter()
        corpus = measure(store, env_ids)
        measure_seconds = round(time.perf_counter() - started, 1)
        sampled = measure(store, [e for e in env_ids if split_env_id(e)[0] in sample])
        started = time.perf_counter()
        catalog = build_catalog(store, env_ids, DEFAULT_MIN_TASKS)
        catalog_seconds = round(time.perf_counter() - started, 1)
    result = {
        "benchmark": "tasks",
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "corpus": {"environments": len(env_ids), "domains": len(domains), "built_in_seconds": build_seconds,
                   "build_workers": args.workers, "load_average_1_5_15_min": load,
                   "measured_in_seconds": measure_seconds, "catalog_seconds": catalog_seconds},
        "targets": {"vocabulary": ">= 1000", "cross_domain_near_duplicate_share": "<= 0.20",
                    "top_skeleton_share": "<= 0.02", "top_request_sentence_share": "<= 0.02", "published": "10/10 per environment, every proof right"},
        "intents_registered": len(INTENTS),
        "intents_category_specific": sum(i.specific for i in INTENTS.values()),
        "intents_by_shape": dict(Counter(i.shape for i in INTENTS.values())),
        "default_corpus": corpus,
        "sample": {"domains": sample, **sampled},
        "catalog_published_tasks": len(catalog.entries),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"intents registered: {len(INTENTS)} ({result['intents_category_specific']} category-specific); "
          f"by shape {result['intents_by_shape']}")
    print(_line(f"corpus ({len(env_ids)} environments)", corpus))
    print(_line(f"12-domain sample ({', '.join(sample)})", sampled))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
