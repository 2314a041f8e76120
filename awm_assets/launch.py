"""The main job behind `make run`: materialize a corpus through Dagster and summarise it.

    python -m awm_assets.launch            # AWM_DOMAINS, AWM_SLOTS, AWM_HOME, AWM_WORKERS

It registers the requested domains as partitions, splits them into contiguous
partition ranges, runs each range as one in-process Dagster run in its own worker
process (two at a time on two cores), shows progress (environments done out of the
total), then materializes environment_catalog and prints a summary.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from awm.builder.catalogue.seeds import resolve_domains
from awm.registry import STAGE_NAMES
from awm.store import DEFAULT_HOME, ArtifactStore, atomic_write_text

DEFAULT_DOMAIN_COUNT = 100
# Events still go to the run's event log (and the UI); only the console echo is quieted.
QUIET_LOGS = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
PROFILES = {"local": "dagster.local.yaml", "production": "dagster.production.yaml"}
DEPLOY_DIR = Path(__file__).resolve().parent.parent / "deploy"


def prepare_dagster_home(home: Path, profile: str | None = None) -> Path:
    """DAGSTER_HOME defaults to AWM_HOME/dagster, with dagster.yaml from a deploy/ profile written once.

    AWM_DAGSTER_PROFILE picks the profile: local (SQLite under DAGSTER_HOME, the default) or
    production (Postgres at AWM_PG_URL). An existing dagster.yaml is never overwritten.
    """
    profile = profile or os.environ.get("AWM_DAGSTER_PROFILE", "local")
    if profile not in PROFILES:
        raise ValueError(f"AWM_DAGSTER_PROFILE={profile!r}: choose one of {', '.join(PROFILES)}")
    if profile == "production" and not os.environ.get("AWM_PG_URL"):
        raise ValueError("the production profile needs AWM_PG_URL=postgresql+psycopg2://USER:PASSWORD@HOST:PORT/DB")
    dagster_home = Path(os.environ.get("DAGSTER_HOME") or home / "dagster").resolve()
    dagster_home.mkdir(parents=True, exist_ok=True)
    config = dagster_home / "dagster.yaml"
    if not config.exists():
        template = (DEPLOY_DIR / PROFILES[profile]).read_text()
        atomic_write_text(config, template.replace("{base}", str(dagster_home / "storage")))
    os.environ["DAGSTER_HOME"] = str(dagster_home)
    return dagster_home


def contiguous_ranges(ordered: list[str], wanted: list[str], workers: int) -> list[tuple[str, str]]:
    """Split `wanted` into at most ~`workers` ranges of consecutive keys in partition order."""
    chosen = set(wanted)
    segments: list[list[str]] = []
    for key in ordered:
        if key in chosen:
            if segments and segments[-1][-1] == ordered[ordered.index(key) - 1]:
                segments[-1].append(key)
            else:
                segments.append([key])
    target = max(1, -(-len(wanted) // max(1, workers)))
    ranges = []
    for seg in segments:
        for i in range(0, len(seg), target):
            part = seg[i:i + target]
            ranges.append((part[0], part[-1]))
    return ranges


def _quiet() -> None:
    warnings.filterwarnings("ignore", category=Warning, module="dagster")
    import dagster as dg

    warnings.filterwarnings("ignore", category=dg.BetaWarning)
    warnings.filterwarnings("ignore", category=dg.PreviewWarning)


def resolved_corpus_job():
    """The corpus job, importable by name so executors that run steps elsewhere can rebuild it."""
    from awm_assets.constants import CORPUS_JOB
    from awm_assets.definitions import defs

    return defs.resolve_job_def(CORPUS_JOB)


def run_range(start: str, end: str) -> int:
    """Worker: one Dagster run over the partition range start..end of the corpus job."""
    _quiet()
    import dagster as dg

    from awm_assets.executors import selected_executor_name

    tags = {"dagster/asset_partition_range_start": start, "dagster/asset_partition_range_end": end,
            "awm/trigger": "make-run", "awm/pid": str(os.getpid())}
    with dg.DagsterInstance.get() as instance:
        if selected_executor_name() == "in_process":
            result = resolved_corpus_job().execute_in_process(instance=instance, run_config=QUIET_LOGS, tags=tags,
                                                              raise_on_error=False)
        else:  # steps run in other processes (Celery workers), which rebuild the job by reference
            result = dg.execute_job(dg.reconstructable(resolved_corpus_job), instance=instance,
                                    run_config=QUIET_LOGS, tags=tags, raise_on_error=False)
    if not result.success:
        for event in result.all_events:
            if event.is_failure:
                print(f"run {result.run_id} {start}..{end}: {event.message}", file=sys.stderr)
    return 0 if result.success else 1


def publish_catalog() -> dict:
    _quiet()
    import dagster as dg

    from awm_assets.constants import CATALOG_JOB
    from awm_assets.definitions import defs

    with dg.DagsterInstance.get() as instance:
        result = defs.resolve_job_def(CATALOG_JOB).execute_in_process(instance=instance, run_config=QUIET_LOGS,
                                                                       tags={"awm/trigger": "make-run"})
        mats = result.asset_materializations_for_node("environment_catalog")
    return {k: v.value for k, v in mats[0].metadata.items()} if mats else {}


def initialize_storage() -> None:
    """Open the instance once, creating (or migrating) its storage."""
    _quiet()
    import dagster as dg

    with dg.DagsterInstance.get():
        pass


def reap_dead_runs(trigger: str = "make-run") -> list[str]:
    """Runs of an earlier `make run` (or other launcher: `trigger`) whose process was killed stay STARTED and
    keep their pool slots: mark them failed and free the slots, so a killed run never blocks the next one."""
    _quiet()
    import dagster as dg

    reaped = []
    with dg.DagsterInstance.get() as instance:
        runs = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED,
                                                                  dg.DagsterRunStatus.STARTING],
                                                        tags={"awm/trigger": trigger}))
        for run in runs:
            pid = int(run.tags.get("awm/pid", "0"))
            if pid and _alive(pid):
                continue
            instance.report_run_failed(run, f"its process died (killed); marked failed by the next {trigger}")
            instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
            reaped.append(run.run_id)
    return reaped


def _alive(pid: int) -> bool:
    """True if `pid` is a live process (a zombie left by a killed parent counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    fields = _stat(pid)
    return fields is None or fields[0] != "Z"


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, parent, ..., start time at [19]), or None
    where they cannot be read (the process ended)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def register(domains: list[str]) -> list[str]:
    _quiet()
    import dagster as dg

    from awm_assets.constants import DOMAIN_PARTITIONS_NAME

    with dg.DagsterInstance.get() as instance:
        existing = instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
        new = [d for d in domains if d not in existing]
        if new:
            instance.add_dynamic_partitions(DOMAIN_PARTITIONS_NAME, new)
        return list(instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME))


STAGE_ORDER = STAGE_NAMES
LAST_STAGE = STAGE_NAMES[-1]


def _progress_line(lines: list[str], total: int, started: float, first_seen: dict[str, float] | None = None,
                   now: float | None = None) -> str:
    """One line: a bar over all stage steps, environments fully done, and the current stage.

    The time left is the current stage's own pace over what it has left, plus the later stages at the pace of
    all steps so far: stages differ tenfold in cost (the proofs of the last one dominate), so one average pace
    over every step would promise seconds while the slowest stage still has minutes to run. `first_seen`
    (kept by the caller between lines) records when each stage's first step was seen."""
    seen: dict[str, dict[str, str]] = {stage: {} for stage in STAGE_ORDER}  # stage -> env -> its latest status
    current = STAGE_ORDER[0]
    for line in lines:
        stage, env_id, status = (line.split() + ["", "", ""])[:3]
        if stage in seen:
            seen[stage][env_id] = status
            current = stage  # the stage reported last is the one running (a retry reports its stage again)
    per_stage = {stage: len(envs) for stage, envs in seen.items()}  # environments, not reports: retries count once
    failed = {env_id for envs in seen.values() for env_id, status in envs.items() if status == "failed"}
    steps = sum(per_stage.values())
    done = per_stage[LAST_STAGE]
    width = 30
    filled = int(width * steps / (total * len(STAGE_ORDER))) if total else width
    now = time.monotonic() if now is None else now
    elapsed = now - started
    first_seen = {} if first_seen is None else first_seen
    for stage, count in per_stage.items():
        if count:
            first_seen.setdefault(stage, now)
    rate = steps / max(elapsed, 1e-6)
    later = total * (len(STAGE_ORDER) - 1 - STAGE_ORDER.index(current))
    own = per_stage[current] / max(now - first_seen.get(current, now), 1e-6)
    if per_stage[current] and now - first_seen[current] >= 5:  # a pace of its own to go by
        eta = (total - per_stage[current]) / own + (later / rate if rate > 0 else 0)
    else:
        eta = (total * len(STAGE_ORDER) - steps) / rate if rate > 0 else 0
    extra = f", {len(failed)} failed" if failed else ""
    return (f"[{'#' * filled}{'.' * (width - filled)}] {done}/{total} environments done{extra} "
            f"| stage {current} {per_stage[current]}/{total} | {elapsed:.0f}s elapsed, ~{eta:.0f}s left")


WORKER_GRACE_S = 10.0  # how long a stopped launcher waits for its workers to end before it kills them


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=2, metavar=("START", "END"), help=argparse.SUPPRESS)
    parser.add_argument("--prepare", action="store_true", help="set up DAGSTER_HOME, print its path and exit")
    args = parser.parse_args(argv)
    home = Path(os.environ.get("AWM_HOME", DEFAULT_HOME)).resolve()
    os.environ["AWM_HOME"] = str(home)
    try:
        dagster_home = prepare_dagster_home(home)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.prepare:
        initialize_storage()  # before webservers or workers start: they would race to create it
        print(dagster_home)
        return 0
    if args.worker:
        return run_range(*args.worker)

    try:
        domains = resolve_domains(os.environ.get("AWM_DOMAINS"), DEFAULT_DOMAIN_COUNT)
        slots = int(os.environ.get("AWM_SLOTS", "10"))
        if not 1 <= slots <= 999:
            raise ValueError(f"AWM_SLOTS={slots}: use 1..999")
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    workers = max(1, int(os.environ.get("AWM_WORKERS", str(min(2, os.cpu_count() or 1)))))
    total = len(domains) * slots
    print(f"AWM: building {total} environments ({len(domains)} domains x {slots} scenarios) "
          f"with {builder_description(os.environ)} into {home}")
    reaped = reap_dead_runs()
    if reaped:
        print(f"marked {len(reaped)} run(s) of a killed earlier launch as failed and freed their pool slots")
    ordered = register(domains)
    ranges = contiguous_ranges(ordered, domains, workers)

    home.mkdir(parents=True, exist_ok=True)  # a new AWM_HOME is made, as the stores make theirs
    progress = home / f".progress-{os.getpid()}"
    signal.signal(signal.SIGTERM, _stopped)  # a terminated launcher stops its workers and removes its progress file
    progress.write_text("")
    env = {**os.environ, "AWM_PROGRESS_FILE": str(progress), "AWM_SLOTS": str(slots)}
    started = time.monotonic()
    pending = list(ranges)
    running: list[subprocess.Popen] = []
    failures = 0
    last_print = 0.0
    first_seen: dict[str, float] = {}
    tty = sys.stdout.isatty()
    try:
        while pending or running:
            while pending and len(running) < workers:
                start, end = pending.pop(0)
                with _stop_deferred():  # a worker started is one recorded, to be stopped with the others
                    running.append(subprocess.Popen([sys.executable, "-m", "awm_assets.launch", "--worker", start,
                                                     end], env=env))
            for proc in list(running):
                if proc.poll() is not None:
                    running.remove(proc)
                    failures += proc.returncode != 0
            lines = progress.read_text().splitlines()
            now = time.monotonic()
            if tty or now - last_print >= 5 or not (pending or running):
                line = _progress_line(lines, total, started, first_seen)
                print(("\r" + line) if tty else line, end="" if tty else "\n", flush=True)
                last_print = now
            time.sleep(0.25)
    finally:
        with _stop_deferred():  # a second SIGTERM does not cut the stopping short
            _stop_workers(running)
            progress.unlink(missing_ok=True)
    if tty:
        print()
    catalog = publish_catalog()
    built = print_summary(home, domains, slots, catalog, time.monotonic() - started)
    status, message = exit_status(built, total, failures)
    if message:
        print(message, file=sys.stderr)
    return status


class _Stop:
    """The launcher's SIGTERM while a worker is being started or the workers are being stopped: held until that is
    done (raised inside `subprocess.Popen`, it left the worker just started running after the launcher ended)."""
    deferring = False
    pending: int | None = None


def _stopped(signum, frame) -> None:
    if _Stop.deferring:
        _Stop.pending = signum
        return
    raise SystemExit(128 + signum)


@contextmanager
def _stop_deferred() -> Iterator[None]:
    """Run the block whole even if SIGTERM comes meanwhile, and stop (SystemExit) right after it if it came."""
    _Stop.deferring = True
    try:
        yield
    finally:
        _Stop.deferring = False
    if _Stop.pending is not None:
        signum, _Stop.pending = _Stop.pending, None
        raise SystemExit(128 + signum)


def _stop_workers(running: list[subprocess.Popen], grace_s: float = WORKER_GRACE_S) -> None:
    """Ask each worker to stop (SIGTERM) and kill those still running after `grace_s`: Dagster takes a SIGTERM as an
    interrupt it raises only at its next checkpoint, which a stage over a large range reaches minutes later. A killed
    worker's run is marked failed by the next launch (reap_dead_runs) and every artifact write is atomic, so the next
    `make run` resumes where it stopped."""
    below = [p for proc in running for p in _descendants(proc.pid)]  # before they are orphaned
    for proc in running:
        proc.terminate()
    deadline = time.monotonic() + grace_s
    for proc in running:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _kill_all(below)


def _descendants(pid: int) -> list[tuple[int, str]]:
    """The processes below `pid` (its children, theirs, ...) as (pid, start time), from /proc: a worker's Dagster
    step processes and the watchers Dagster starts beside them, which a killed worker would leave running."""
    children: dict[int, list[tuple[int, str]]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        fields = _stat(entry.name)
        if fields is not None:  # else it ended meanwhile
            children.setdefault(int(fields[1]), []).append((int(entry.name), fields[19]))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def _still_runs(pid: int, started: str) -> bool:
    """Whether the process `pid` that started at `started` (not a later one given the same id) still runs."""
    fields = _stat(pid)
    return fields is not None and fields[19] == started and fields[0] != "Z"


def _kill_all(processes: list[tuple[int, str]], wait_s: float = 5.0) -> None:
    """Kill each of `processes` still running and wait (up to `wait_s`) until none runs: nothing a stopped launcher
    started outlives it."""
    for pid, started in processes:
        if _still_runs(pid, started):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:  # ended meanwhile, or no longer ours to signal
                pass
    deadline = time.monotonic() + wait_s
    while any(_still_runs(*p) for p in processes) and time.monotonic() < deadline:
        time.sleep(0.02)


def builder_description(env) -> str:
    """What writes the environments, as the banner names it."""
    if env.get("AWM_LLM_BACKEND", "offline") == "openai":
        return f"the model {env.get('AWM_LLM_MODEL') or 'gpt-4o-mini'} at {env.get('OPENAI_BASE_URL') or 'OpenAI'}"
    if env.get("AWM_TASK_PHRASING") == "model":
        return "the offline world builder, tasks phrased by the configured model"
    return "the offline world builder"


def exit_status(built: int, total: int, failed_runs: int) -> tuple[int, str | None]:
    """The launcher's exit status and what it says: non-zero when a Dagster run failed or nothing was built."""
    if failed_runs:
        return 1, f"{failed_runs} Dagster run(s) failed; open the UI (make ui) to see why."
    if built == 0 and total > 0:
        return 1, (f"none of the {total} environments was built (every one failed or was quarantined); open the UI "
                   "(make ui) or .venv/bin/awm inspect to see why.")
    return 0, None


def print_summary(home: Path, domains: list[str], slots: int, catalog: dict, seconds: float) -> int:
    """Print what the launch built; returns the number of environments built."""
    from awm import artifacts
    from awm.domains import env_id_for
    from awm.quality.verification_reports import VerificationTotals

    store = ArtifactStore(home)
    envs = tools = 0
    reports = []
    for domain in domains:
        for slot in range(slots):
            env_id = env_id_for(domain, slot)
            if not artifacts.REPORT.exists(store, env_id) or store.failure(env_id):
                continue
            envs += 1
            reports += artifacts.REPORT.read(store, env_id).tasks
            tools += len(artifacts.TOOLS_JSON.read(store, env_id).tools)
    totals = VerificationTotals.of(reports)
    tasks, ref_ok, null_ok, proven = totals.tasks, totals.reference_passed, totals.null_rejected, totals.publishable
    tried, killed = totals.mutations_tried, totals.mutations_killed
    accepted, alternatives = totals.alternatives()
    diversity = catalog.get("task_diversity_json") or {}
    shapes = ", ".join(f"{k} {v['share']:.0%}" for k, v in diversity.get("shapes", {}).items()
                       if k in ("chained", "conditional", "aggregate", "infeasible"))
    variety = (f"{diversity.get('distinct_intents', 0)} intents, vocabulary {diversity.get('vocabulary', 0)} words, "
               f"top request sentence in {diversity.get('top_request_sentence_share', 0):.1%} of tasks,\n"
               f"                         near-duplicate in another domain "
               f"{diversity.get('cross_domain_near_duplicate_share', 0):.1%}, steps per task mean "
               f"{diversity.get('steps', {}).get('mean', 0)},\n                         {shapes}")
    real = diversity.get("realism") or {}
    realism_line = (f"{real.get('multi_request_share', 0):.1%} of tasks join two requests, most frequent sentence in "
                    f"{real.get('top_sentence_share', 0):.1%} of tasks,\n                         first-person user "
                    f"goals {real.get('user_goal_share', 0):.1%}, requests for another person "
                    f"{real.get('authority_requests', 0)} ({real.get('authority_refusals', 0)} refused), voice "
                    f"violations {real.get('voice_violations', 0)}")
    by_class = "\n                         ".join(
        ", ".join(f"{name} {c['right']}/{c['tried']}" for name, c in list(totals.proofs.items())[i:i + 3])
        for i in range(0, len(totals.proofs), 3))
    print(f"""
Done in {seconds:.0f}s.
  environments built     {envs} of {len(domains) * slots}
  tasks                  {tasks}  (reference solution passes: {ref_ok}, null trajectory rejected: {null_ok})
  tools                  {tools}
  checks passed          {proven} of {tasks} tasks proven (solvable, null rejected, verifier deterministic and
                         read-only); verifiers rejected {killed} of {tried} wrong final states and shortcuts
                         (mutations) and accepted {accepted} of {alternatives} valid alternatives
  proofs by class        {by_class}
  task variety           {variety}
  realism                {realism_line}
  published              {catalog.get('published_environments', 0)} environments, {catalog.get('published_tasks', 0)} tasks \
(quarantined {catalog.get('quarantined_environments', 0)}, failed {catalog.get('failed_environments', 0)})
  artifacts              {store.corpus_dir}
  catalog                {store.catalog_path}
  inspect one            .venv/bin/awm inspect {env_id_for(domains[0], 0)}
  browse in Dagster      make ui   (DAGSTER_HOME={os.environ.get('DAGSTER_HOME')})""")
    return envs


if __name__ == "__main__":
    sys.exit(main())
