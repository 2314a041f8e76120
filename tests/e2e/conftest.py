"""The real Dagster webserver and daemon (`dagster dev`), started in their own process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from awm_assets.launch import prepare_dagster_home

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, seconds: float, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"dagster dev exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError(f"{url} not up after {seconds}s:\n{log.read_text()[-3000:]}")


@pytest.fixture(scope="session")
def dagster_dev(tmp_path_factory):
    """Yield (url, awm_home) of a running webserver + daemon on 127.0.0.1."""
    home = tmp_path_factory.mktemp("e2e")
    awm_home = home / "awm"
    awm_home.mkdir()
    old = os.environ.get("DAGSTER_HOME")
    os.environ.pop("DAGSTER_HOME", None)
    dagster_home = prepare_dagster_home(awm_home)
    if old is not None:
        os.environ["DAGSTER_HOME"] = old
    else:
        os.environ.pop("DAGSTER_HOME", None)
    port = free_port()
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home), "AWM_HOME": str(awm_home), "AWM_SLOTS": "1",
           "AWM_REGISTER_BUILTINS": "0", "DAGSTER_DISABLE_TELEMETRY": "1"}
    log = home / "dagster-dev.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "dagster"), "dev", "-h", "127.0.0.1", "-p", str(port),
             "-w", str(ROOT / "workspace.yaml")],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/server_info", 120, proc, log)
        yield url, awm_home
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # dagster dev ignores SIGTERM without job control: signal the group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
