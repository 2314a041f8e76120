"""How different the worlds are, and how much sense their data makes: on the default corpus (the first
100 built-in domains x 10 scenarios) and on a 12-domain sample from 12 categories, with the offline
builder's plans, rows and tool names (no database, no proofs). Prints a table and writes
benchmarks/results/worlds.json (one entry per --label, so a run on older code can sit beside it).

    python benchmarks/bench_worlds.py --label after
    python benchmarks/bench_worlds.py --label after --prove 2 --prove-extra llama_farm piano_school
    AWM_CODE_ROOT=/path/to/older/checkout python benchmarks/bench_worlds.py --label before

Measures, with domain nouns masked (each role's label in a table, column or tool name becomes <role>):
distinct table patterns (masked name and columns), distinct tool-name patterns (names as served, in each
environment's API style), the mean tool-name Jaccard between environments of different domains, how many
API styles (naming dialects, flat and nested bodies, and the tools per nested environment that take an object
body) the environments speak, the mean table-name Jaccard between sibling
scenarios of one domain, distinct free-text bodies per category (notes, comments, reasons, subjects,
memos), environments where two tables share a code prefix, and items whose name names another
category of their sub-business than the one they are filed under.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, os.environ.get("AWM_CODE_ROOT", str(ROOT)))

from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402
from awm.builder.data import generate_rows  # noqa: E402
from awm.builder.toolgen import tool_defs  # noqa: E402
from awm.builder.world import make_scenario, plan_world  # noqa: E402

# (role, column) holding free text a person wrote or a system composed per row
FREE_TEXT = (("note", "body"), ("ticket_comment", "body"), ("review", "comment"), ("document", "review_comment"),
             ("payment", "refund_reason"), ("loyalty_entry", "reason"), ("notification", "body"),
             ("notification", "subject"), ("ticket", "subject"), ("account_entry", "memo"),
             # the category entities' text (awm/builder/modules/packs)
             ("standing_order", "reference"), ("slot", "block_reason"), ("exception", "resolution"),
             ("room", "out_of_service_reason"), ("charge", "description"), ("payout", "hold_reason"),
             ("policy", "cancel_reason"))
CODE_COLUMNS = ("sku", "code", "number")


def masker(plan):
    """A function replacing every role label (snake, singular or plural) in a name with <role>."""
    names = {}
    for role, entity in plan.entities.items():
        names[entity.plural_name] = f"<{role}s>"
        names[entity.name] = f"<{role}>"
    pattern = re.compile("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    return lambda text: pattern.sub(lambda m: names[m.group(0)], text)


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z]{3,}", text.lower())}


def measure_env(domain: str, slot: int) -> dict:
    scenario = make_scenario(domain, slot)
    plan = plan_world(scenario)
    mask = masker(plan)
    rows = generate_rows(plan)
    tables = {e.table for e in plan.entities.values()}
    table_patterns = {mask(e.table) + "(" + ",".join(sorted(mask(c.name) for c in e.columns)) + ")"
                      for e in plan.entities.values()}
    defs = tool_defs(plan)
    tools = {t.name for t in defs}
    bodies = sum(1 for t in defs if getattr(t, "bodies", ()))  # tools taking an object body (bodies: nested)
    try:  # the API style the tools speak (awm/builder/dialect.py); older code has none
        from awm.builder.dialect import style_for

        style = style_for(scenario.seed).name
    except ImportError:
        style = "none"
    texts = {f"{role}.{col}": {r[col] for r in rows.get(role, []) if r.get(col)} for role, col in FREE_TEXT}
    prefixes = []
    for role, entity in plan.entities.items():
        column = next((c for c in CODE_COLUMNS if entity.has(c)), None)
        values = [r[column] for r in rows.get(role, []) if column and isinstance(r.get(column), str)]
        found = {v.split("-")[0] for v in values if "-" in v}
        if found:
            prefixes.append(sorted(found)[0])
    categories = {r["id"]: r["name"] for r in rows["category"]}
    cat_fk = plan["item"].col(plan["category"].fk).name
    misfiled = 0
    for item in rows["item"]:
        own = _words(categories[item[cat_fk]])
        named = _words(item["name"])
        if not named & own and any(named & _words(c) for c in categories.values()):
            misfiled += 1
    return {"env": scenario.env_id, "domain": domain, "category": scenario.category, "tables": tables,
            "table_patterns": table_patterns, "tools": tools, "tool_patterns": {mask(t) for t in tools},
            "texts": texts, "prefix_clash": len(prefixes) != len(set(prefixes)), "items": len(rows["item"]),
            "misfiled": misfiled, "style": style, "body_tools": bodies}


def jaccard(a: set, b: set) -> float:
    return len(a & b) / len(a | b) if a | b else 1.0


def summarise(envs: list[dict], rng: random.Random, pairs: int = 4000) -> dict:
    by_domain: dict[str, list[dict]] = {}
    for env in envs:
        by_domain.setdefault(env["domain"], []).append(env)
    sibling = [jaccard(a["tables"], b["tables"]) for group in by_domain.values()
               for a, b in itertools.combinations(group, 2)]
    cross_pairs = [(a, b) for a, b in ((rng.choice(envs), rng.choice(envs)) for _ in range(pairs * 3))
                   if a["domain"] != b["domain"]][:pairs]
    cross = [jaccard(a["tool_patterns"], b["tool_patterns"]) for a, b in cross_pairs]
    texts: dict[str, set[str]] = {}
    for env in envs:
        bucket = texts.setdefault(env["category"], set())
        for values in env["texts"].values():
            bucket |= values
    per_category = {c: len(v) for c, v in sorted(texts.items())}
    nested = [e["body_tools"] for e in envs if e["style"].endswith("/nested")]
    return {
        "environments": len(envs),
        "domains": len(by_domain),
        "distinct_table_patterns": len(set().union(*(e["table_patterns"] for e in envs))),
        "distinct_table_names_masked": len({p.split("(")[0] for e in envs for p in e["table_patterns"]}),
        "distinct_tool_patterns": len(set().union(*(e["tool_patterns"] for e in envs))),
        "tools": sum(len(e["tools"]) for e in envs),
        "cross_domain_tool_pattern_jaccard": round(statistics.mean(cross), 3) if cross else None,
        "api_styles": len({e["style"] for e in envs}),
        "api_namings": dict(sorted(Counter(e["style"].split("/")[0] for e in envs).items())),
        "api_bodies": dict(sorted(Counter(e["style"].split("/")[4] for e in envs if e["style"].count("/") == 4).items())),
        "body_tools_per_nested_environment": round(statistics.mean(nested), 2) if nested else None,
        "sibling_table_jaccard": round(statistics.mean(sibling), 3) if sibling else None,
        "free_text_bodies_per_category_min": min(per_category.values()),
        "free_text_bodies_per_category_median": statistics.median(per_category.values()),
        "free_text_bodies_per_category": per_category,
        "envs_with_code_prefix_clash": sum(e["prefix_clash"] for e in envs),
        "items_filed_under_another_named_category": sum(e["misfiled"] for e in envs),
        "items": sum(e["items"] for e in envs),
    }


def sample_domains() -> list[str]:
    """The first domain of 12 categories spread over the catalogue."""
    firsts: dict[str, str] = {}
    for slug, seed in DOMAIN_SEEDS.items():
        firsts.setdefault(seed.category, slug)
    categories = list(firsts)
    step = len(categories) / 12
    return [firsts[categories[int(i * step)]] for i in range(12)]


def build_and_prove(slots: int, extra: list[str]) -> dict:
    """Build `slots` scenarios of every built-in domain (and `extra` slugs) through the core stages, with
    every proof, in a temporary AWM_HOME; count what was published and what the verifiers rejected."""
    import tempfile

    from awm.contracts import MUTANT_CLASSES, VerificationReport, proof_totals
    from awm.domains import env_id_for
    from awm.stages.catalog import build_catalog
    from awm.stages.pipeline import build_environment
    from awm.store import ArtifactStore

    with tempfile.TemporaryDirectory(prefix="awm-worlds-") as home:
        store = ArtifactStore(home)
        built, failed, reports = [], [], []
        for domain in list(DOMAIN_SEEDS) + extra:
            for slot in range(slots):
                env_id = env_id_for(domain, slot)
                outcomes = build_environment(store, domain, slot)
                bad = next((o for o in outcomes if o.status == "failed"), None)
                if bad:
                    failed.append(f"{env_id}: {bad.stage}: {bad.error[:200]}")
                    continue
                built.append(env_id)
                reports += store.read_model(env_id, "report.json", VerificationReport).tasks
        published = len(build_catalog(store, built).entries)
    totals = proof_totals(reports)
    mutants = [totals[c] for c in MUTANT_CLASSES]
    return {"environments_built": len(built), "environments_failed": failed, "tasks": len(reports),
            "tasks_published": published, "mutants_rejected": sum(m["right"] for m in mutants),
            "mutants_tried": sum(m["tried"] for m in mutants), "proof_totals": totals}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--label", default="after")
    parser.add_argument("--slots", type=int, default=10)
    parser.add_argument("--prove", type=int, default=0, metavar="SLOTS",
                        help="also build SLOTS scenarios of every built-in domain with every proof")
    parser.add_argument("--prove-extra", nargs="*", default=[], metavar="SLUG", help="bare slugs to build as well")
    args = parser.parse_args()
    started = time.perf_counter()
    results = {}
    corpora = {"default_corpus": list(DOMAIN_SEEDS)[:100], "sample_12_categories": sample_domains()}
    for name, domains in corpora.items():
        envs = [measure_env(d, s) for d in domains for s in range(args.slots)]
        results[name] = summarise(envs, random.Random(0))
    if args.prove:
        results["proofs"] = build_and_prove(args.prove, args.prove_extra)
    results["seconds"] = round(time.perf_counter() - started, 1)
    results["sample_domains"] = corpora["sample_12_categories"]
    out = ROOT / "benchmarks" / "results" / "worlds.json"
    previous = json.loads(out.read_text()) if out.exists() else {}
    previous[args.label] = results
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(previous, indent=2) + "\n")
    tmp.replace(out)
    keys = [k for k in results["default_corpus"] if k != "free_text_bodies_per_category"]
    print(f"{'measure':48} {'default corpus':>16} {'12-category sample':>20}")
    for key in keys:
        print(f"{key:48} {results['default_corpus'][key]!s:>16} {results['sample_12_categories'][key]!s:>20}")
    if args.prove:
        proofs = results["proofs"]
        print(f"built {proofs['environments_built']} environments ({len(proofs['environments_failed'])} failed), "
              f"published {proofs['tasks_published']} of {proofs['tasks']} tasks, verifiers rejected "
              f"{proofs['mutants_rejected']} of {proofs['mutants_tried']} mutants and shortcuts")
    print(f"({results['seconds']} s; written to {out.relative_to(ROOT)} under {args.label!r})")


if __name__ == "__main__":
    main()
