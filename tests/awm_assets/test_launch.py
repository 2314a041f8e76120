"""`make run`'s main job, as a user runs it: a subprocess with the knobs in the environment."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from awm_assets.launch import contiguous_ranges


def test_contiguous_ranges_follow_partition_order():
    ordered = ["a1", "b2", "c3", "d4", "e5", "f6"]
    assert contiguous_ranges(ordered, ["a1", "b2", "c3", "d4"], 2) == [("a1", "b2"), ("c3", "d4")]
    assert contiguous_ranges(ordered, ["a1", "c3", "d4"], 2) == [("a1", "a1"), ("c3", "d4")]


@pytest.mark.slow
def test_main_job_builds_publishes_and_summarises(tmp_path):
    env = {**os.environ, "AWM_HOME": str(tmp_path / "home"), "AWM_DOMAINS": "airline,llama_farm", "AWM_SLOTS": "2"}
    env.pop("DAGSTER_HOME", None)
    out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "4/4 environments done" in out.stdout
    assert "environments built     4 of 4" in out.stdout
    assert "published              4 environments, 40 tasks" in out.stdout
    variety = out.stdout.split("task variety")[1].split("published")[0]
    assert re.search(r"\d+ intents, vocabulary \d+ words, top request sentence in \d+\.\d% of tasks", variety)
    assert "steps per task mean" in variety, variety
    catalog = (tmp_path / "home" / "catalog.jsonl").read_text().splitlines()
    assert len(catalog) == 40
    assert {json.loads(line)["domain"] for line in catalog} == {"airline", "llama_farm"}
    assert (tmp_path / "home" / "dagster" / "dagster.yaml").exists()


def test_bad_knobs_are_clear_errors(tmp_path):
    env = {**os.environ, "AWM_HOME": str(tmp_path), "AWM_DOMAINS": "airline,Bad Slug"}
    out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, capture_output=True, text=True)
    assert out.returncode == 2
    assert "invalid domain slug 'Bad Slug'" in out.stderr


def test_time_left_follows_the_pace_of_the_stage_that_is_running():
    """Five quick stages in 50 s, then the proofs at 100 environments a minute: 900 left is about nine minutes,
    not the seconds that one pace over every step would promise."""
    from awm_assets.launch import STAGE_ORDER, _progress_line

    total, first_seen = 1000, {}
    quick = [f"{stage} e{i} ok" for stage in STAGE_ORDER[:-1] for i in range(total)]
    slow = [f"{STAGE_ORDER[-1]} e{i} ok" for i in range(100)]
    _progress_line(quick + slow[:1], total, started=0.0, first_seen=first_seen, now=50.0)  # the proofs begin
    line = _progress_line(quick + slow, total, started=0.0, first_seen=first_seen, now=110.0)
    left = int(line.rsplit("~", 1)[1].split("s")[0])
    assert 500 <= left <= 560, line
    assert "100/1000 environments done" in line and f"stage {STAGE_ORDER[-1]} 100/1000" in line


def test_a_launch_that_built_nothing_does_not_exit_0():
    from awm_assets.launch import exit_status

    assert exit_status(4, 4, 0) == (0, None)
    status, message = exit_status(0, 2, 0)  # every environment failed inside runs that themselves succeeded
    assert status == 1 and "none of the 2 environments was built" in message
    assert exit_status(3, 4, 1)[0] == 1


def test_the_banner_names_what_writes_the_environments():
    from awm_assets.launch import builder_description

    assert builder_description({}) == "the offline world builder"
    assert builder_description({"AWM_TASK_PHRASING": "model"}).endswith("tasks phrased by the configured model")
    assert builder_description({"AWM_LLM_BACKEND": "openai", "AWM_LLM_MODEL": "qwen", "OPENAI_BASE_URL": "http://h/v1"}
                               ) == "the model qwen at http://h/v1"


def test_a_terminated_launcher_stops_its_workers_and_leaves_no_progress_file(tmp_path):
    import signal
    import time

    home = tmp_path / "new" / "home"  # not there yet, and the Dagster instance elsewhere (it used to crash)
    env = {**os.environ, "AWM_HOME": str(home), "AWM_DOMAINS": "bakery", "AWM_SLOTS": "1",
           "DAGSTER_HOME": str(tmp_path / "dagster")}
    (tmp_path / "dagster").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "awm_assets.launch"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not list(home.glob(".progress-*")) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(home.glob(".progress-*")), "the launcher never started its workers"
    progress = str(next(home.glob(".progress-*")))
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert not list(home.glob(".progress-*"))
    left = {pid: _command(pid) for pid in _workers_reporting_to(progress)}
    assert not left, f"processes of a worker outlived its stopped launcher: {left}"


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return "(ended)"


def _workers_reporting_to(progress: str) -> list[int]:
    """The live processes whose environment names `progress` as their progress file: a launcher's workers."""
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            environ = (proc / "environ").read_bytes().split(b"\0")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if f"AWM_PROGRESS_FILE={progress}".encode() in environ and state != "Z":
            found.append(int(proc.name))
    return found


def test_progress_during_a_retry_names_the_stage_being_retried_and_counts_each_environment_once():
    from awm_assets.launch import STAGE_ORDER, _progress_line

    first, second = STAGE_ORDER[0], STAGE_ORDER[1]
    lines = [f"{first} a__00 built", f"{first} a__01 built", f"{second} a__00 failed", f"{second} a__01 built",
             f"{second} a__00 failed"]  # the retry of a__00 reports the same stage again
    line = _progress_line(lines, 2, started=0.0, now=10.0)
    assert f"stage {second} 2/2" in line and "1 failed" in line and "0/2 environments done" in line
    line = _progress_line(lines + [f"{second} a__00 built"], 2, started=0.0, now=11.0)
    assert "failed" not in line  # its retry succeeded


def test_stopping_a_worker_also_ends_the_processes_it_started():
    """A worker killed after the grace period leaves its children (Dagster's step processes and their watchers)
    orphaned: the launcher ends them too, so nothing it started outlives it."""
    import time

    from awm_assets.launch import _descendants, _still_runs, _stop_workers

    # a worker that ignores SIGTERM (as a Dagster run between checkpoints does) and has started a child of its own
    code = ("import signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); time.sleep(120)")
    worker = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60  # until the child is there (readiness), never a fixed wait
        while not _descendants(worker.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        below = _descendants(worker.pid)
        assert len(below) == 1, below
        _stop_workers([worker], grace_s=0.5)
        assert worker.returncode == -9  # killed after the grace period
        assert not any(_still_runs(*p) for p in below), "the worker's child outlived it"
    finally:
        if worker.poll() is None:  # an assertion failed before the stop: nothing left behind
            _stop_workers([worker], grace_s=0)


def test_a_sigterm_while_a_worker_starts_stops_the_launcher_once_the_worker_is_recorded():
    """SIGTERM raised inside `subprocess.Popen` lost the worker just started (it was never added to those the
    launcher stops, and outlived it): while a worker starts, the signal waits until the worker is recorded."""
    import signal

    from awm_assets.launch import _stop_deferred, _stopped

    previous = signal.signal(signal.SIGTERM, _stopped)
    recorded = []
    try:
        with pytest.raises(SystemExit) as stopped:
            with _stop_deferred():
                os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, at once, and holds the stop
                recorded.append("worker")
        assert stopped.value.code == 128 + signal.SIGTERM and recorded == ["worker"]
        with pytest.raises(SystemExit):  # outside a start, the signal stops at once, as before
            os.kill(os.getpid(), signal.SIGTERM)
            recorded.append("never")
        assert recorded == ["worker"]
    finally:
        signal.signal(signal.SIGTERM, previous)
