"""awm export: one JSON line per published task for trainers, or a trainer's own layout of them."""

from __future__ import annotations

from pathlib import Path


def export(args) -> int:
    import sys

    from awm.errors import AWMError
    from awm.export import DEFAULT_FRACTIONS, SPLITS, write_export
    from awm.store import ArtifactStore

    store = ArtifactStore(args.home)
    if args.layout == "awm1k":  # a folder of AWM-1K's files (awm/awm1k/export.py, docs/awm1k.md)
        from awm.awm1k.export import write_layout
        if args.tier and "proven" not in args.tier:
            raise AWMError("--layout awm1k exports the environments built here, every task of them proven: "
                           f"--tier {' '.join(args.tier)} keeps none of them")
        done = write_layout(store, args.out or store.home / "export" / "awm1k", args.domain)
        print(f"wrote {done.tasks} tasks of {done.environments} environments to {done.path} in AWM-1K's format")
        _warn_left_out(done.left_out)
        return 0
    numbers, names = [], []
    for value in args.split or ():  # split names select; three numbers are the fractions (the older spelling)
        try:
            numbers.append(float(value))
        except ValueError:
            names.append(value)
    if numbers and (len(numbers) != 3 or names or args.fractions):
        raise AWMError(f"--split takes split names ({', '.join(SPLITS)}) or three fractions, not "
                       f"{' '.join(args.split)}; give the fractions with --fractions")
    fractions = tuple(numbers or args.fractions or DEFAULT_FRACTIONS)
    progress = None if args.quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    if args.from_eval and not args.sft:
        raise AWMError("--from-eval selects the trajectories of an SFT export: give --sft with it")
    if args.sft:
        from awm.sft import write_sft

        out = args.out or store.home / "export" / "sft"
        summary = write_sft(store, out, domains=args.domain, env_ids=args.env, splits=names or None,
                            fractions=fractions, held_out=args.hold_out_domain, tool_format=args.tool_format,
                            answer_mode=args.answer_mode, from_eval=args.from_eval, progress=progress,
                            tiers=args.tier)
        _warn_empty(summary.empty)
        _warn_left_out(summary.left_out)
        print(f"wrote {summary.tasks} {'passing' if args.from_eval else 'reference'} trajectories of {summary.environments} environments to "
              f"{summary.path} ({_counts(summary.splits)})")
        return 0
    out = args.out or store.home / "export" / args.layout
    summary = write_export(store, out, args.base_url, args.domain, args.with_reference, args.tool_format,
                           args.layout, fractions, args.hold_out_domain, args.answer_mode,
                           tuple(args.reward), env_ids=args.env, splits=names or None, file_format=args.format,
                           license=args.license, progress=progress, tiers=args.tier)
    print(f"wrote {summary.tasks} tasks of {summary.environments} environments to {summary.path} "
          f"({_counts(summary.splits)}; by tier: {_counts(summary.tiers)})")
    _warn_empty(summary.empty)
    _warn_left_out(summary.left_out)
    return 0


def _warn_empty(empty: list[str]) -> None:
    import sys

    if empty:
        print(f"warning: the corpus has too few environments for the {' and '.join(empty)} split"
              f"{'s' if len(empty) > 1 else ''} (an environment's tasks stay in one split): they are empty. Build "
              "more environments, or give them a fraction of 0 (--fractions 0.9 0.1 0)", file=sys.stderr)


def _warn_left_out(left_out: dict[str, str]) -> None:
    """Imported environments a layout cannot carry: named, with why, never dropped silently."""
    import sys

    for reason in dict.fromkeys(left_out.values()):
        envs = sorted(env for env, why in left_out.items() if why == reason)
        print(f"note: left out {len(envs)} imported AWM-1K environment{'s' if len(envs) > 1 else ''} "
              f"({', '.join(envs)}): {reason}", file=sys.stderr)


def _counts(splits: dict[str, int] | None) -> str:
    return ", ".join(f"{name} {count}" for name, count in (splits or {}).items())


def register(sub) -> None:
    from awm.export import DEFAULT_BASE_URL, DEFAULT_FRACTIONS, LAYOUTS, TIERS

    parser = sub.add_parser("export", help="write the published tasks for trainers (JSONL, HF datasets, verl)",
                            description="One row per published task: environment, task, prompt, MCP tool specs, "
                                        "how to reach the environment, split (see docs/runtime.md).")
    parser.add_argument("--out", type=Path, help="a directory with one file per split and a dataset card, which "
                        "datasets.load_dataset reads as a DatasetDict (default AWM_HOME/export/<layout>); or one "
                        "file, when it ends in .jsonl or .parquet (every split, with a split column); awm1k: a folder of "
                        "AWM-1K's files (default AWM_HOME/export/awm1k)")
    parser.add_argument("--format", choices=("jsonl", "parquet"),
                        help="the files of a directory export (default jsonl for the awm layout, parquet for hf and "
                             "verl)")
    parser.add_argument("--layout", choices=LAYOUTS, default="awm",
                        help="awm: the full record per line; hf: Hugging Face datasets rows with a chat-format "
                             "prompt column; verl: verl multi-turn rows; awm1k: AWM-1K's gen_*.jsonl files (default awm)")
    parser.add_argument("--base-url", default=DEFAULT_BASE_URL,
                        help=f"where `awm serve` listens, for the concrete MCP URLs (default {DEFAULT_BASE_URL}); "
                             "the templates keep a {base_url} slot")
    parser.add_argument("--domain", action="append", help="only this domain (repeatable)")
    parser.add_argument("--env", action="append", metavar="ENV_ID", help="only this environment (repeatable)")
    parser.add_argument("--tool-format", choices=("strict", "permissive", "verl", "awm"), default="strict",
                        help="the form of the tool specs, as `awm serve --tool-format` serves them (default strict)")
    parser.add_argument("--answer-mode", choices=("typed", "prose"), default="typed",
                        help="how a task that needs an answer is answered: typed, with the submit_answer tool listed "
                             "among its tools (default), or prose, a final message read strictly (docs/runtime.md)")
    parser.add_argument("--reward", type=float, nargs=3, metavar=("COMPLETE", "PARTIAL", "INCOMPLETE"),
                        default=[1.0, 0.1, 0.0], help="the reward mapping the trainer scores with, as `awm serve "
                        "--reward` serves it; recorded in every row (default 1.0 0.1 0.0; GRPO users often set "
                        "PARTIAL to 0)")
    parser.add_argument("--split", nargs="+", metavar="SPLIT",
                        help="only these splits (train, validation, test); three numbers are read as --fractions")
    parser.add_argument("--fractions", type=float, nargs=3, metavar=("TRAIN", "VALIDATION", "TEST"),
                        help="fractions of environments per split, over the whole corpus (default "
                             f"{' '.join(map(str, DEFAULT_FRACTIONS))}); a split the hash leaves empty gets one "
                             "environment; with too few environments they fill train, then validation, then test, with a warning")
    parser.add_argument("--hold-out-domain", action="append", metavar="DOMAIN",
                        help="put every environment of this domain in the test split (repeatable)")
    parser.add_argument("--tier", action="append", choices=TIERS,
                        help="only tasks of this tier (repeatable): proven (a reference solution passed the proofs: "
                             "every task built here, and imported AWM-1K tasks promoted by `awm promote-awm1k`) or "
                             "checked (imported tasks whose verifier passed the checks, without a reference); "
                             "every row says its tier (default both)")
    parser.add_argument("--with-reference", action="store_true",
                        help="include each task's reference solution and answer (never show them to the agent)")
    parser.add_argument("--license", metavar="SPDX", help="the licence the dataset card declares (default other, "
                        "with the card saying where the data comes from)")
    parser.add_argument("--sft", action="store_true",
                        help="write supervised fine-tuning data instead: each task's reference solution replayed "
                             "through the runtime (real tool outputs) and its answer, as OpenAI chat messages with "
                             "the tools in the OpenAI function shape (default out AWM_HOME/export/sft)")
    parser.add_argument("--from-eval", metavar="AGENT",
                        help="with --sft: the trajectories `awm eval` wrote for this agent that scored reward 1 "
                             "(rejection sampling), instead of the replayed references")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.set_defaults(handler=export)
