"""awm eval: evaluate an agent model on built domains through Dagster (awm_assets/evaluate.py)."""

from __future__ import annotations

import os
import subprocess
import sys


def evaluate(args) -> int:
    """Run the Dagster launcher in its own process, so the core command line never imports Dagster."""
    argv = [sys.executable, "-m", "awm_assets.evaluate", "--model", args.model, "--domains", args.domains,
            "--k", str(args.k), "--max-steps", str(args.max_steps), "--max-tokens", str(args.max_tokens),
            "--wall-clock-s", str(args.wall_clock_s), "--seed", str(args.seed)]
    for flag, value in (("--base-url", args.base_url), ("--concurrency", args.concurrency),
                        ("--timeout-s", args.timeout_s)):
        if value is not None:
            argv += [flag, str(value)]
    if args.difficulty_to_catalog:
        argv.append("--difficulty-to-catalog")
    env = dict(os.environ)
    if args.home is not None:
        env["AWM_HOME"] = str(args.home)
    return subprocess.call(argv, env=env)


def add_arguments(parser) -> None:
    """The options of `awm eval`, shared with the launcher it runs (awm_assets/evaluate.py)."""
    parser.add_argument("--model", required=True, help="the agent model (also its Dagster partition key)")
    parser.add_argument("--domains", required=True, help="a number (the first N built-in domains) or a comma list")
    parser.add_argument("--k", type=int, default=1, help="rollouts per task (default 1)")
    parser.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint")
    parser.add_argument("--concurrency", type=int, default=None, help="rollouts in flight at once (default 8)")
    parser.add_argument("--max-steps", type=int, default=30, help="model turns per rollout (default 30)")
    parser.add_argument("--max-tokens", type=int, default=200_000, help="tokens per rollout (default 200000)")
    parser.add_argument("--wall-clock-s", type=float, default=300.0, help="seconds per rollout (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of each task's first rollout (default 0)")
    parser.add_argument("--timeout-s", type=float, default=None, help="seconds per model request (default 60)")
    parser.add_argument("--difficulty-to-catalog", action="store_true",
                        help="also write each task's difficulty onto the corpus's catalog line (by default only "
                             "to the evaluation's own report.json under AWM_HOME/evals, which awm export reads)")


def register(sub) -> None:
    parser = sub.add_parser(
        "eval", help="evaluate an agent model on built domains through Dagster (rollouts, pass@k, difficulty)",
        description="Materialize agent_rollouts and evaluation_report for (domain, model) partitions through "
                    "Dagster, with progress and a summary. The model is reached at --base-url (default "
                    "AWM_AGENT_BASE_URL, else OPENAI_BASE_URL) with the key in OPENAI_API_KEY; `awm llm-serve "
                    "--agent` serves offline agents: awm-agent-reference, awm-agent-noisy-0.3, awm-agent-null, "
                    "awm-agent-hacker. See docs/evaluation.md.")
    add_arguments(parser)
    parser.set_defaults(handler=evaluate)
