"""awm export: one JSON line per published task, for trainers."""

from __future__ import annotations

from pathlib import Path


def export(args) -> int:
    from awm.export import write_export
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    out = args.out or store.home / "export" / "tasks.jsonl"
    summary = write_export(store, out, args.base_url, args.domain, args.with_reference)
    print(f"wrote {summary.tasks} tasks of {summary.environments} environments to {summary.path}")
    return 0


def register(sub) -> None:
    from awm.export import DEFAULT_BASE_URL

    parser = sub.add_parser("export", help="write the published tasks as JSONL for trainers",
                            description="One line per published task: environment, task, instruction, MCP tool "
                                        "specs, and how to reach the environment (see docs/runtime.md).")
    parser.add_argument("--out", type=Path, help="output file (default AWM_HOME/export/tasks.jsonl)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help=f"where `awm serve` listens, for the MCP URLs (default {DEFAULT_BASE_URL})")
    parser.add_argument("--domain", action="append", help="only this domain (repeatable)")
    parser.add_argument("--with-reference", action="store_true",
                        help="include each task's reference solution and answer (never show them to the agent)")
    parser.set_defaults(handler=export)
