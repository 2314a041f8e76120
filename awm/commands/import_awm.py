"""awm import-awm DIR: AWM-1K environments (their gen_*.jsonl files) into the artifact store (docs/awm1k.md)."""

from __future__ import annotations

import json
from pathlib import Path


def import_awm(args) -> int:
    from awm.awm1k.importer import import_dataset
    from awm.stages.catalog import build_catalog
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    results = import_dataset(store, args.dir, args.scenario, args.isolation)
    for r in results:
        tiers = ", ".join(f"{n} {tier}" for tier, n in sorted(r.tasks.items())) or "no tasks"
        line = f"{r.env_id or r.scenario}: {r.status} ({tiers}) in {r.seconds:.2f} s"
        print(line + (f"\n    {r.reason[:300]}" if r.reason else ""))
    if args.json:
        print(json.dumps([r.__dict__ for r in results], indent=2))
    if not args.no_catalog:
        summary = build_catalog(store, store.env_ids())
        print(f"catalog: {len(summary.entries)} tasks ({sum(e.tier == 'checked' for e in summary.entries)} checked, "
              f"{sum(e.tier == 'proven' for e in summary.entries)} proven)")
    return 0 if any(r.status == "checked" for r in results) or not results else 1


def register(sub) -> None:
    parser = sub.add_parser("import-awm", help="import AWM-1K environments (gen_*.jsonl files) and check them",
                            description="Each scenario of DIR becomes the environment <scenario>__00: schema, initial "
                                        "database, their app and verifiers, checked in the OS-isolated foreign "
                                        "runtime; tasks are published as `checked` (docs/awm1k.md).")
    parser.add_argument("dir", type=Path, help="the folder of gen_scenario.jsonl, gen_tasks.jsonl, gen_db.jsonl, ...")
    parser.add_argument("--scenario", action="append", help="only this scenario (their name; repeatable)")
    parser.add_argument("--isolation", choices=("os",), default="os",
                        help="foreign code runs only under OS isolation (bubblewrap)")
    parser.add_argument("--no-catalog", action="store_true", help="do not rebuild catalog.jsonl afterwards")
    parser.add_argument("--json", action="store_true", help="also print the results as JSON")
    parser.set_defaults(handler=import_awm)
