"""`awm eval`: evaluate an agent model on built domains through Dagster, as `make run` builds them.

    python -m awm_assets.evaluate --model NAME --domains a,b --k N [--base-url URL] [limits]

It registers the model as an `agent` partition and the domains as `domain` partitions, then materializes
agent_rollouts and evaluation_report for each (domain, agent) cell as one in-process Dagster run (the same
instance `make ui` shows), printing progress (rollouts done of the total) and a summary. Rollouts already
finished, by this or a killed earlier evaluation, are reused without a model call.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path

from awm.builder.catalogue.seeds import resolve_domains
from awm.commands.eval import add_arguments
from awm.errors import AWMError
from awm.eval.rollouts import EvalLimits, agent_dir, validate_agent_key
from awm.stages.catalog import environment_status
from awm.store import DEFAULT_HOME, ArtifactStore
from awm_assets.launch import QUIET_LOGS, _quiet, prepare_dagster_home, reap_dead_runs

TRIGGER = "awm-eval"


def planned_rollouts(store: ArtifactStore, domains: list[str], limits: EvalLimits) -> int:
    """Published tasks of the domains x k; an AWMError naming a domain with nothing built."""
    total = 0
    for domain in domains:
        env_ids = store.env_ids(domain)
        if not env_ids:
            raise AWMError(f"domain {domain!r} has no environments under {store.corpus_dir}; build it first "
                           f"(AWM_DOMAINS={domain} make run)")
        total += sum(len(environment_status(store, e, limits.min_tasks)[1]) for e in env_ids)
    return total * limits.k


def _progress(path: Path, total: int, started: float, stop: threading.Event, tty: bool) -> None:
    last = 0.0
    while not stop.wait(0.25):
        now = time.monotonic()
        if not tty and now - last < 5:
            continue
        last = now
        print(("\r" if tty else "") + progress_line(path, total, started), end="" if tty else "\n", flush=True)


def progress_line(path: Path, total: int, started: float) -> str:
    lines = path.read_text().splitlines() if path.exists() else []
    done = sum(1 for line in lines if line.startswith("agent_rollouts "))
    passed = sum(1 for line in lines if line.endswith(" passed"))
    width = 30
    filled = int(width * done / total) if total else width
    return (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} rollouts, {passed} passed "
            f"| {time.monotonic() - started:.0f}s elapsed")


def run_cell(domain: str, model: str, run_config: dict) -> dict:
    """One Dagster run materializing both assets for (domain, model); the report's metadata."""
    import dagster as dg

    from awm_assets.constants import EVALUATION_JOB, EVALUATION_REPORT
    from awm_assets.definitions import defs

    key = dg.MultiPartitionKey({"domain": domain, "agent": model})
    with dg.DagsterInstance.get() as instance:
        result = defs.resolve_job_def(EVALUATION_JOB).execute_in_process(
            instance=instance, partition_key=key, run_config={**QUIET_LOGS, **run_config},
            tags={"awm/trigger": TRIGGER, "awm/pid": str(os.getpid())}, raise_on_error=False)
        if not result.success:
            reasons = [e.message for e in result.all_events if e.is_failure]
            return {"error": "; ".join(r for r in reasons if r)[:2000] or "the run failed"}
        mats = result.asset_materializations_for_node(EVALUATION_REPORT)
    return {k: v.value for k, v in mats[0].metadata.items()} if mats else {}


def register(domains: list[str], model: str) -> None:
    import dagster as dg

    from awm_assets.constants import AGENT_PARTITIONS_NAME, DOMAIN_PARTITIONS_NAME

    with dg.DagsterInstance.get() as instance:
        for name, keys in ((DOMAIN_PARTITIONS_NAME, domains), (AGENT_PARTITIONS_NAME, [model])):
            known = set(instance.get_dynamic_partitions(name))
            new = [k for k in keys if k not in known]
            if new:
                instance.add_dynamic_partitions(name, new)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="awm eval", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    home = Path(os.environ.get("AWM_HOME", DEFAULT_HOME)).resolve()
    os.environ["AWM_HOME"] = str(home)
    store = ArtifactStore(home)
    try:
        model = validate_agent_key(args.model)
        domains = resolve_domains(args.domains, 0)
        limits = EvalLimits(k=args.k, max_steps=args.max_steps, max_tokens=args.max_tokens,
                            wall_clock_s=args.wall_clock_s, seed=args.seed)
        total = planned_rollouts(store, domains, limits)
        prepare_dagster_home(home)
    except (AWMError, ValueError) as exc:
        print(f"awm eval: {exc}", file=sys.stderr)
        return 2
    progress = home / f".eval-progress-{os.getpid()}"
    progress.write_text("")
    os.environ["AWM_PROGRESS_FILE"] = str(progress)  # read by the store resource when the definitions load
    _quiet()
    reaped = reap_dead_runs(TRIGGER)
    if reaped:
        print(f"marked {len(reaped)} run(s) of a killed earlier evaluation as failed")
    register(domains, model)
    agent_config = {k: v for k, v in (("base_url", args.base_url), ("concurrency", args.concurrency),
                                      ("timeout_s", args.timeout_s)) if v is not None}
    run_config = {"ops": {"agent_rollouts": {"config": limits.model_dump(exclude={"min_tasks"})}}}
    if args.difficulty_to_catalog:
        run_config["ops"]["evaluation_report"] = {"config": {"write_catalog": True}}
    if agent_config:
        run_config["resources"] = {"agent": {"config": agent_config}}
    print(f"AWM: evaluating {model} on {len(domains)} domain(s), {total} rollouts (k={limits.k}) into "
          f"{agent_dir(home, model)}")
    started = time.monotonic()
    stop = threading.Event()
    tty = sys.stdout.isatty()
    printer = threading.Thread(target=_progress, args=(progress, total, started, stop, tty), daemon=True)
    printer.start()
    reports = {}
    try:
        for domain in domains:
            reports[domain] = run_cell(domain, model, run_config)
    finally:
        stop.set()
        printer.join()
        print(("\r" if tty else "") + progress_line(progress, total, started))
        progress.unlink(missing_ok=True)
    print_summary(model, reports, time.monotonic() - started, limits.k, home, args.difficulty_to_catalog)
    return 1 if any("error" in r for r in reports.values()) else 0


def _cell(value) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def print_summary(model: str, reports: dict[str, dict], seconds: float, k: int, home: Path,
                  on_catalog: bool = False) -> None:
    print(f"\nDone in {seconds:.0f}s.")
    print(f"  {'domain':28} {'tasks':>6} {'rollouts':>8} {'pass@1':>7} {f'pass@{k}':>7} {'hacking':>7} "
          f"{'failed':>6} {'model calls':>11} {'reused':>6}")
    for domain, meta in reports.items():
        if "error" in meta:
            print(f"  {domain:28} failed: {meta['error']}")
            continue
        cells = [_cell(meta.get(name)) for name in ("tasks", "rollouts", "pass@1", f"pass@{k}", "hacking_flags",
                                                     "failed_rollouts", "model_calls", "reused_rollouts")]
        widths = (6, 8, 7, 7, 7, 6, 11, 6)
        print(f"  {domain:28} " + " ".join(f"{c:>{w}}" for c, w in zip(cells, widths)))
    print(f"  trajectories and reports  {agent_dir(home, model)}")
    print("  difficulty per task       in each domain's report.json (awm export carries it)"
          + (", and on each task's catalog line (difficulty." + json.dumps(model) + ")" if on_catalog else ""))
    print("  browse in Dagster         make ui   (assets agent_rollouts, evaluation_report)")


if __name__ == "__main__":
    sys.exit(main())
