"""The real Dagster webserver and daemon (`dagster dev`), started in their own process group; and a
corpus built the way `make run` builds it, through the LLM backend against `awm llm-serve`, with one
environment that fails for good."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from awm_assets.launch import prepare_dagster_home
from tests.lanes import PATIENCE_S, POLL_S
from tests.llm.conftest import API_KEY, start_llm_serve

ROOT = Path(__file__).resolve().parents[2]

# The failed-environment walk: two domains of two environments; the tools stage of one environment gets
# unsafe code from the model at every attempt, so it fails for good while its three siblings publish.
WALK_DOMAINS = ("dental_clinic", "pet_grooming")
WALK_FAILING_ENV = "pet_grooming__01"
WALK_FAILING_STAGE = "tools"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Until `url` answers 200, as long as the process serving it is alive."""
    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"dagster dev exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=10) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(POLL_S)
    raise TimeoutError(f"{url} not up after {PATIENCE_S}s:\n{log.read_text()[-3000:]}")


LOCATIONS = """{ workspaceOrError { ... on Workspace { locationEntries { name loadStatus
  locationOrLoadError { __typename ... on PythonError { message } } } } } }"""


def wait_for_code_location(url: str, proc: subprocess.Popen, log: Path) -> None:
    """Until the webserver has loaded the code location (the UI shows no asset before), or its load failed."""
    from tests.e2e.graphql import graphql

    deadline = time.monotonic() + PATIENCE_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"dagster dev exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        entries = graphql(url, LOCATIONS, {})["workspaceOrError"].get("locationEntries") or []
        for entry in entries:
            if (entry.get("locationOrLoadError") or {}).get("__typename") == "PythonError":
                raise RuntimeError(f"code location {entry['name']} failed to load: "
                                   f"{entry['locationOrLoadError']['message'][-3000:]}")
        if entries and all(e["loadStatus"] == "LOADED" and e.get("locationOrLoadError") for e in entries):
            return
        time.sleep(POLL_S)
    raise TimeoutError(f"the code location of {url} not loaded after {PATIENCE_S}s:\n{log.read_text()[-3000:]}")


def dagster_home_for(awm_home: Path) -> Path:
    """DAGSTER_HOME under awm_home with the local profile, leaving this process's environment as it was."""
    old = os.environ.get("DAGSTER_HOME")
    os.environ.pop("DAGSTER_HOME", None)
    try:
        return prepare_dagster_home(awm_home)
    finally:
        if old is not None:
            os.environ["DAGSTER_HOME"] = old
        else:
            os.environ.pop("DAGSTER_HOME", None)


@contextlib.contextmanager
def running_dagster_dev(env: dict[str, str], log: Path) -> Iterator[str]:
    """`dagster dev` (webserver and daemon) on a free loopback port; yields its URL."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(Path(sys.executable).parent / "dagster"), "dev", "-h", "127.0.0.1", "-p", str(port),
             "-w", str(ROOT / "workspace.yaml")],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for(f"{url}/server_info", proc, log)
        wait_for_code_location(url, proc, log)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)  # dagster dev ignores SIGTERM without job control: signal the group
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="session")
def dagster_dev(tmp_path_factory):
    """Yield (url, awm_home) of a running webserver + daemon on 127.0.0.1."""
    home = tmp_path_factory.mktemp("e2e")
    awm_home = home / "awm"
    awm_home.mkdir()
    dagster_home = dagster_home_for(awm_home)
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home), "AWM_HOME": str(awm_home), "AWM_SLOTS": "1",
           "AWM_REGISTER_BUILTINS": "0", "DAGSTER_DISABLE_TELEMETRY": "1"}
    with running_dagster_dev(env, home / "dagster-dev.log") as url:
        yield url, awm_home


@pytest.fixture(scope="session")
def failed_environment_corpus(tmp_path_factory):
    """Yield (url, awm_home): WALK_DOMAINS built by `python -m awm_assets.launch` (one in-process run over
    the range of both domains, as `make run` does) with the LLM backend against `awm llm-serve`, whose
    fault makes WALK_FAILING_ENV fail WALK_FAILING_STAGE at every attempt; then the UI on that instance."""
    home = tmp_path_factory.mktemp("e2e-walk")
    awm_home = home / "awm"
    awm_home.mkdir()
    dagster_home = dagster_home_for(awm_home)
    serve = start_llm_serve()
    try:
        serve.faults({"fault": "unsafe_code", "stage": WALK_FAILING_STAGE, "times": None, "env_id": WALK_FAILING_ENV})
        env = {**os.environ, "DAGSTER_HOME": str(dagster_home), "AWM_HOME": str(awm_home), "AWM_SLOTS": "2",
               "AWM_DOMAINS": ",".join(WALK_DOMAINS), "AWM_WORKERS": "1", "AWM_REGISTER_BUILTINS": "0",
               "DAGSTER_DISABLE_TELEMETRY": "1", "AWM_LLM_BACKEND": "openai", "OPENAI_BASE_URL": serve.url,
               "OPENAI_API_KEY": API_KEY, "AWM_LLM_MODEL": "awm-offline", "AWM_RETRY_DELAY": "0.05"}
        env.pop("AWM_UI_URL", None)
        built = subprocess.run([sys.executable, "-m", "awm_assets.launch"], cwd=ROOT, env=env, capture_output=True,
                               text=True, timeout=PATIENCE_S)
        assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
        assert "published              3 environments" in built.stdout, built.stdout[-2000:]
        with running_dagster_dev(env, home / "dagster-dev.log") as url:
            yield url, awm_home
    finally:
        serve.stop()

