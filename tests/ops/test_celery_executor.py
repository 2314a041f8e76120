"""The distributed executor for real on loopback: a Redis broker (Debian's redis-server), a Dagster
Celery worker process, and `make run`'s launcher with AWM_EXECUTOR=celery. Every step of the run
executes in the worker, not in the run's process."""

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from awm.store import ArtifactStore
from tests.e2e.conftest import free_port

REDIS = shutil.which("redis-server")
ROOT = Path(__file__).resolve().parents[2]

if not REDIS and os.environ.get("CI"):
    raise RuntimeError("CI must install Debian's redis-server for the Celery executor test")
pytestmark = pytest.mark.skipif(not REDIS, reason="Debian's redis-server is not installed")


@pytest.fixture
def broker(tmp_path):
    port = free_port()
    proc = subprocess.Popen([REDIS, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)


def test_make_run_executes_every_step_on_a_celery_worker(tmp_path, broker):
    home = tmp_path / "home"
    env = {**os.environ, "AWM_HOME": str(home), "AWM_DOMAINS": "airline,llama_farm", "AWM_SLOTS": "1",
           "AWM_EXECUTOR": "celery", "AWM_CELERY_BROKER": broker, "DAGSTER_HOME": str(home / "dagster"),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    prepare = subprocess.run([sys.executable, "-m", "awm_assets.launch", "--prepare"], env=env, cwd=ROOT,
                             capture_output=True, text=True, check=True)
    assert prepare.stdout.strip() == str(home / "dagster")
    worker_log = tmp_path / "worker.log"
    with open(worker_log, "wb") as log:
        worker = subprocess.Popen([str(ROOT / "deploy" / "celery-worker.sh"), "--name", "awm-test-worker"],
                                  env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, cwd=ROOT, capture_output=True,
                             text=True, timeout=600)
        assert out.returncode == 0, out.stderr[-3000:] + worker_log.read_text()[-3000:]
        assert "environments built     2 of 2" in out.stdout
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(30)
    log_text = worker_log.read_text()
    assert "execute_plan" in log_text or "execute_step" in log_text, log_text[-3000:]
    assert "succeeded" in log_text
    store = ArtifactStore(home)
    assert store.exists("airline__00", "report.json") and store.exists("llama_farm__00", "report.json")
