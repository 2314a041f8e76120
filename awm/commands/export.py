"""awm export: one JSON line per published task for trainers, or a trainer's own layout of them."""

from __future__ import annotations

from pathlib import Path


def export(args) -> int:
    from awm.export import write_export
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    if args.layout == "awm1k":  # a folder of AWM-1K's files (awm/awm1k/export.py, docs/awm1k.md)
        from awm.awm1k.export import write_layout
        done = write_layout(store, args.out or store.home / "export" / "awm1k", args.domain)
        print(f"wrote {done.tasks} tasks of {done.environments} environments to {done.path} in AWM-1K's format")
        return 0
    suffix = {"awm": "tasks.jsonl", "hf": "hf.parquet", "verl": "verl.parquet"}[args.layout]
    out = args.out or store.home / "export" / suffix
    summary = write_export(store, out, args.base_url, args.domain, args.with_reference, args.tool_format,
                           args.layout, tuple(args.split), args.hold_out_domain, args.answer_mode,
                           tuple(args.reward))
    splits = ", ".join(f"{name} {count}" for name, count in (summary.splits or {}).items())
    print(f"wrote {summary.tasks} tasks of {summary.environments} environments to {summary.path} ({splits})")
    return 0


def register(sub) -> None:
    from awm.export import DEFAULT_BASE_URL, DEFAULT_FRACTIONS, LAYOUTS

    parser = sub.add_parser("export", help="write the published tasks for trainers (JSONL, HF datasets, verl)",
                            description="One row per published task: environment, task, prompt, MCP tool specs, "
                                        "how to reach the environment, split (see docs/runtime.md).")
    parser.add_argument("--out", type=Path, help="output file (default AWM_HOME/export/tasks.jsonl, or hf.parquet / "
                                                 "verl.parquet for those layouts); .parquet writes Parquet; awm1k: a folder "
                                                 "(default AWM_HOME/export/awm1k)")
    parser.add_argument("--layout", choices=LAYOUTS, default="awm",
                        help="awm: the full record per line; hf: Hugging Face datasets rows with a chat-format "
                             "prompt column; verl: verl multi-turn rows; awm1k: AWM-1K's gen_*.jsonl files (default awm)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help=f"where `awm serve` listens, for the concrete MCP URLs (default {DEFAULT_BASE_URL}); "
                             "the templates keep a {base_url} slot")
    parser.add_argument("--domain", action="append", help="only this domain (repeatable)")
    parser.add_argument("--tool-format", choices=("strict", "permissive", "verl", "awm"), default="strict",
                        help="the form of the tool specs, as `awm serve --tool-format` serves them (default strict)")
    parser.add_argument("--answer-mode", choices=("typed", "prose"), default="typed",
                        help="how a task that needs an answer is answered: typed, with the submit_answer tool listed "
                             "among its tools (default), or prose, a final message read strictly (docs/runtime.md)")
    parser.add_argument("--reward", type=float, nargs=3, metavar=("COMPLETE", "PARTIAL", "INCOMPLETE"),
                        default=[1.0, 0.1, 0.0], help="the reward mapping the trainer scores with, as `awm serve "
                        "--reward` serves it; recorded in every row (default 1.0 0.1 0.0; GRPO users often set "
                        "PARTIAL to 0)")
    parser.add_argument("--split", type=float, nargs=3, metavar=("TRAIN", "VALIDATION", "TEST"),
                        default=list(DEFAULT_FRACTIONS), help="fractions of environments per split (default 0.8 0.1 0.1)")
    parser.add_argument("--hold-out-domain", action="append", metavar="DOMAIN",
                        help="put every environment of this domain in the test split (repeatable)")
    parser.add_argument("--with-reference", action="store_true",
                        help="include each task's reference solution and answer (never show them to the agent)")
    parser.set_defaults(handler=export)
