"""The OS boundary around sandbox workers (awm/runtime/isolation.py).

Generated code cannot reach the OS (the AST policy refuses os, socket and open), so these tests
run a probe inside the very command line a worker gets (`start_python`, through `probe_boundary`)
and try what an escaped worker would: connect to a listener on loopback, write outside its scratch
directory, read the user's files, see other processes. The real workers are then checked from
outside: their user and namespaces.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from awm.cli import main as awm_main
from awm.runtime import is_error, isolation, open_environment
from awm.runtime.isolation import Isolation, IsolationUnavailable, probe_boundary, resolve, start_python
from awm.runtime.pool import SandboxError, WorkerPool
from awm.store import ArtifactStore


@pytest.fixture
def listener():
    with socket.create_server(("127.0.0.1", 0)) as server:
        server.setblocking(False)
        yield server


@pytest.fixture
def unprobed():
    """Forget this process's probe, so a test can change what the machine offers (PATH); probe again after."""
    isolation.forget_probe()
    isolation._warn_fallback.cache_clear()
    yield
    isolation.forget_probe()
    isolation._warn_fallback.cache_clear()


def nobody_knocked(server: socket.socket) -> bool:
    try:
        server.accept()[0].close()
    except BlockingIOError:
        return True
    return False


# --- the boundary, probed from inside --------------------------------------------------------------------


def test_a_sandboxed_process_cannot_reach_a_listener_on_loopback(os_isolated, listener):
    report = probe_boundary(os_isolated, connect=listener.getsockname()[:2])
    assert not report["connect"]["ok"], report["connect"]
    assert nobody_knocked(listener)
    if os_isolated.seccomp is not None:  # refused before any packet: no socket at all
        assert report["socket"] == {"ok": False, "error": "PermissionError: [Errno 1] Operation not permitted"}


def test_the_network_namespace_alone_keeps_loopback_out_of_reach(os_isolated, listener):
    """Without the seccomp filter a socket can be made, but the loopback it sees is its own."""
    report = probe_boundary(dataclasses.replace(os_isolated, seccomp=None), connect=listener.getsockname()[:2])
    assert report["socket"]["ok"]
    assert not report["connect"]["ok"] and "ConnectionRefusedError" in report["connect"]["error"], report
    assert nobody_knocked(listener)


def test_a_sandboxed_process_writes_only_its_scratch_directory(os_isolated, tmp_path):
    outside = tmp_path / "outside.txt"
    in_package = isolation.PACKAGE_DIR / "written-by-the-sandbox.txt"
    at_root = Path("/written-by-the-sandbox.txt")
    try:
        report = probe_boundary(os_isolated, write=[str(outside), str(in_package), str(at_root)])
        assert report["scratch"]["ok"]
        assert not any(attempt["ok"] for attempt in report["write"].values()), report["write"]
        assert "Read-only file system" in report["write"][str(in_package)]["error"]  # seen, never writable
        assert not outside.exists() and not in_package.exists() and not at_root.exists()
    finally:
        for path in (in_package, at_root):
            path.unlink(missing_ok=True)


def test_a_sandboxed_process_reads_none_of_the_users_files(os_isolated, tmp_path, published: ArtifactStore):
    secret = tmp_path / "secret.txt"
    secret.write_text("an API key\n")
    secret.chmod(0o644)
    env_db = published.database_path(published.env_ids()[0])  # not even an environment's own database
    home = Path(os.path.expanduser("~")) / ".profile"
    report = probe_boundary(os_isolated, read=[str(secret), str(env_db), "/etc/passwd", str(home)])
    assert not any(attempt["ok"] for attempt in report["read"].values()), report["read"]


def test_a_sandboxed_process_runs_unprivileged_alone_and_without_our_secrets(os_isolated, monkeypatch):
    monkeypatch.setenv("AWM_ADMIN_TOKEN", "s3cret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    report = probe_boundary(os_isolated)
    assert report["uid"] != 0 and report["euid"] != 0
    assert not report["user_namespace"]["ok"], report["user_namespace"]  # no way back to capabilities
    if os.geteuid() == 0:
        assert (report["uid"], report["gid"], report["groups"]) == (isolation.SANDBOX_UID, isolation.SANDBOX_GID, [])
    assert len(report["processes"]) <= 2, report["processes"]  # itself and bubblewrap's init
    assert not {"AWM_ADMIN_TOKEN", "OPENAI_API_KEY"} & set(report["environ"]), report["environ"]


def test_the_probe_sees_through_process_isolation(tmp_path, listener):
    """The probe is not blind: without the OS boundary it reaches what the tests above say is out of reach."""
    outside = tmp_path / "outside.txt"
    report = probe_boundary(resolve("process"), connect=listener.getsockname()[:2], write=[str(outside)])
    assert report["connect"]["ok"] and report["write"][str(outside)]["ok"] and outside.exists()


def test_a_worker_sees_its_python_and_awm_but_never_the_whole_filesystem(monkeypatch):
    monkeypatch.setattr(sys, "base_prefix", "/")  # however odd the installation, "/" is never bound
    monkeypatch.setattr(sys, "base_exec_prefix", "/opt/py")
    monkeypatch.setattr(isolation, "PACKAGE_DIR", Path("/opt/py/lib/python3/site-packages/awm"))
    localtime = ["/etc/localtime"] if os.path.exists("/etc/localtime") else []
    assert isolation._visible_paths("/opt/py/bin/python3") == [*localtime, "/opt/py"]
    monkeypatch.setattr(isolation, "PACKAGE_DIR", Path("/usr/lib/python3/dist-packages/awm"))  # under /usr already
    assert isolation._visible_paths("/usr/bin/python3") == [*localtime, "/opt/py"]


def test_a_checkout_under_tmp_is_visible_above_the_private_scratch(os_isolated, tmp_path, monkeypatch):
    """A clone in /tmp (as a CI machine may make it): the worker's private /tmp must not hide the awm package."""
    copy = tmp_path / "checkout" / "awm"
    copy.mkdir(parents=True)
    (copy / "__init__.py").write_text('WHERE = "the checkout under /tmp"\n')
    copy.chmod(0o755)
    for parent in (copy.parent, tmp_path):
        parent.chmod(0o755)
    monkeypatch.setattr(isolation, "PACKAGE_DIR", copy)
    script = "import awm, sys; sys.stdout.write(awm.WHERE)"
    process = start_python(os_isolated, ["-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err.decode()
    assert out.decode() == "the checkout under /tmp"


# --- the wrapper's process ---------------------------------------------------------------------------------


def test_a_sandboxed_process_outlives_the_thread_that_started_it(os_isolated):
    """bwrap --die-with-parent follows the starting thread; the pool starts workers from threads that end."""
    started: list[subprocess.Popen] = []
    thread = threading.Thread(target=lambda: started.append(
        start_python(os_isolated, ["-c", "import time; time.sleep(60)"], stdin=subprocess.DEVNULL)))
    thread.start()
    thread.join()
    (process,) = started
    try:
        time.sleep(0.5)
        assert process.poll() is None
    finally:
        process.kill()
        process.wait()


def test_a_sandboxed_process_reports_its_exit_like_a_plain_child(os_isolated):
    """A death by signal shows as -N, as for a plain child: the pool tells a SIGPROF stop from a crash so."""
    crashed = start_python(os_isolated, ["-c", "import os, signal; os.kill(os.getpid(), signal.SIGPROF)"],
                           stdin=subprocess.DEVNULL)
    assert crashed.wait(timeout=30) == -signal.SIGPROF
    exited = start_python(os_isolated, ["-c", "raise SystemExit(3)"], stdin=subprocess.DEVNULL)
    assert exited.wait(timeout=30) == 3


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, frontier = [], [pid]
    while frontier:
        for child in children.get(frontier.pop(), []):
            found.append(child)
            frontier.append(child)
    return found


def worker_process(pool: WorkerPool) -> int:
    """The worker's host pid, found from the process the pool started; the pool's stats must name the same."""
    outer = pool._workers[0].proc.pid
    found = [pid for pid in descendants(outer)
             if Path(Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode()).name != "bwrap"]
    assert len(found) == 1 and b"awm.runtime.worker" in Path(f"/proc/{found[0]}/cmdline").read_bytes(), found
    assert pool.stats()["workers"][0]["pid"] == found[0]  # what memory and CPU are read from
    return found[0]


def test_pool_workers_run_inside_the_boundary_and_end_with_the_pool(os_isolated, published):
    with WorkerPool(workers=1, isolation="os") as pool:
        assert pool.stats()["isolation"]["mode"] == "os"
        worker = worker_process(pool)
        for namespace in ("net", "pid", "mnt", "ipc"):
            assert os.readlink(f"/proc/{worker}/ns/{namespace}") != os.readlink(f"/proc/self/ns/{namespace}")
        uids = next(line for line in Path(f"/proc/{worker}/status").read_text().splitlines()
                    if line.startswith("Uid:")).split()[1:]
        if os.geteuid() == 0:
            assert uids == [str(isolation.SANDBOX_UID)] * 4
        env = open_environment(published.env_ids()[0], home=published.home, pool=pool)
        task = env.tasks[0]
        with env.reset(task.task_id) as episode:  # the database reached the worker, which sees no artifact root
            for step in task.reference_solution:
                assert not is_error(episode.call(step.tool, step.arguments)), step
            assert episode.score(task.reference_answer)["complete"]
        env.close()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{worker}").exists()


def test_the_runtime_tests_run_their_workers_inside_the_boundary(pool):
    """The shared pool of every runtime test uses the setting (default auto): os wherever this machine allows it."""
    available = isinstance(isolation.os_isolation(), Isolation)
    expected = "os" if available and os.environ.get(isolation.ISOLATION_ENV, "auto") != "process" else "process"
    assert pool.stats()["isolation"]["mode"] == expected


def test_a_database_the_parent_cannot_read_is_a_sandbox_error(published, pool, tmp_path):
    env = open_environment(published.env_ids()[0], home=published.home, pool=pool)
    with pytest.raises(SandboxError, match="cannot read the database .*missing.db"):
        env.score_database(env.tasks[0].task_id, tmp_path / "missing.db")


# --- choosing ------------------------------------------------------------------------------------------------


def test_an_unknown_setting_is_refused_with_its_name(monkeypatch):
    monkeypatch.setenv(isolation.ISOLATION_ENV, "container")
    with pytest.raises(ValueError, match="AWM_SANDBOX_ISOLATION='container' is not one of auto, os, process"):
        resolve()


def test_process_isolation_on_request_probes_nothing_and_says_so(monkeypatch, unprobed, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap: not even looked for
    chosen = resolve("process")
    assert chosen.mode == "process" and "AWM_SANDBOX_ISOLATION=process" in chosen.detail
    assert isolation._probed is None


def test_without_bubblewrap_auto_falls_back_loudly_and_os_refuses(monkeypatch, unprobed, tmp_path, caplog):
    monkeypatch.setenv("PATH", str(tmp_path))
    with caplog.at_level(logging.WARNING, logger="awm.runtime.isolation"):
        chosen = resolve("auto")
    assert chosen.mode == "process" and "bwrap (bubblewrap) is not installed" in chosen.detail
    (warning,) = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert "WITHOUT OS-LEVEL ISOLATION" in warning.message and "apt-get install bubblewrap" in warning.message
    with pytest.raises(IsolationUnavailable, match="AWM_SANDBOX_ISOLATION=os, but .* bwrap .* not installed"):
        WorkerPool(workers=1, isolation="os")


def test_awm_sandbox_reports_and_proves_the_boundary(capsys):
    expected = 0 if isinstance(isolation.os_isolation(), Isolation) else 1
    assert awm_main(["sandbox", "--isolation", "auto"]) == expected
    out = capsys.readouterr().out
    assert ("every OS boundary holds" in out) == (expected == 0)
    assert awm_main(["sandbox", "--isolation", "process"]) == 1
    assert "OPEN" in capsys.readouterr().out


def fake_path(tmp_path: Path, bwrap: str | None = None) -> str:
    """A PATH with setpriv (as root, OS isolation needs it) and, if given, a `bwrap` script."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    setpriv = shutil.which("setpriv")
    if setpriv:
        (bin_dir / "setpriv").symlink_to(setpriv)
    if bwrap is not None:
        (bin_dir / "bwrap").write_text(bwrap)
        (bin_dir / "bwrap").chmod(0o755)
    return str(bin_dir)


def test_auto_probes_again_before_each_worker_start_after_a_failure(monkeypatch, unprobed, tmp_path):
    """One failed probe (a moment without file descriptors) no longer leaves the process without OS isolation:
    each worker start of an auto pool that has none probes again."""
    tries = tmp_path / "tries"
    monkeypatch.setenv("PATH", fake_path(tmp_path, f"#!/bin/sh\necho x >> {tries}\necho 'bwrap: transient' >&2\n"
                                                   "exit 1\n"))
    monkeypatch.delenv(isolation.ISOLATION_ENV, raising=False)
    with WorkerPool(workers=1) as pool:
        assert pool.stats()["isolation"]["mode"] == "process"
        first = len(tries.read_text().split())
        assert first >= 2  # when the pool was made, and again when its worker started
        os.kill(pool.stats()["workers"][0]["pid"], signal.SIGKILL)
        deadline = time.monotonic() + 20
        while pool.stats()["workers"][0]["restarts"] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(tries.read_text().split()) > first  # and before its successor started


@pytest.mark.skipif(os.geteuid() != 0, reason="the refusal is for root")
def test_generated_code_never_runs_as_root_without_os_isolation_unless_allowed(monkeypatch, unprobed, tmp_path):
    monkeypatch.setenv("PATH", fake_path(tmp_path))  # no bubblewrap
    monkeypatch.delenv(isolation.ALLOW_ROOT_ENV, raising=False)
    for requested in (None, "auto", "process"):
        with pytest.raises(IsolationUnavailable, match="as root without OS-level isolation.*AWM_SANDBOX_ALLOW_ROOT=1"):
            WorkerPool(workers=1, isolation=requested)
    monkeypatch.setenv(isolation.ALLOW_ROOT_ENV, "1")
    with WorkerPool(workers=1, isolation="auto") as pool:
        assert "as root (AWM_SANDBOX_ALLOW_ROOT=1)" in pool.stats()["isolation"]["detail"]


def test_a_process_isolated_worker_inherits_none_of_our_secrets(monkeypatch):
    monkeypatch.setenv("AWM_ADMIN_TOKEN", "s3cret")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", "https://user:pass@llm.example/v1")
    report = probe_boundary(resolve("process"))
    assert not {"AWM_ADMIN_TOKEN", "OPENAI_API_KEY", "OPENAI_BASE_URL"} & set(report["environ"]), report["environ"]
