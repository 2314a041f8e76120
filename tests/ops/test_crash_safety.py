"""SIGKILL `make run`'s processes mid-materialization; a re-run completes and nothing is half-written."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from awm.contracts import Scenario, SchemaSpec, TaskSet, ToolSet, VerificationReport
from awm.store import ArtifactStore

MODELS = {"scenario.json": Scenario, "tasks.json": TaskSet, "schema.json": SchemaSpec, "tools.json": ToolSet,
          "report.json": VerificationReport}


def launch(home: Path, **popen) -> subprocess.Popen:
    env = {**os.environ, "AWM_HOME": str(home), "AWM_DOMAINS": "airline,dental_clinic,k12_school,llama_farm",
           "AWM_SLOTS": "3"}
    env.pop("DAGSTER_HOME", None)
    return subprocess.Popen([sys.executable, "-m", "awm_assets.launch"], env=env, text=True, **popen)


def assert_every_artifact_whole(store: ArtifactStore) -> int:
    checked = 0
    for env_id in store.env_ids():
        for name, model in MODELS.items():
            if store.exists(env_id, name):
                store.read_model(env_id, name, model)
                checked += 1
        if store.exists(env_id, "env.db"):
            store.database_path(env_id)
            checked += 1
    return checked


def test_killed_run_resumes_without_half_written_artifacts(tmp_path):
    home = tmp_path / "home"
    proc = launch(home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list(home.glob("corpus/*/*/env.db"))) < 3:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the launcher and its run processes, mid-materialization
    proc.wait()
    store = ArtifactStore(home)
    assert list(home.glob("corpus/*/*/env.db")), "the run was killed before it built anything"
    assert not store.catalog_path.exists() or store.catalog_path.read_text() == "", "killed before publishing"
    assert_every_artifact_whole(store)

    rerun = launch(home, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = rerun.communicate(timeout=600)
    assert rerun.returncode == 0, err[-3000:]
    assert "environments built     12 of 12" in out
    assert "of a killed earlier launch as failed and freed their pool slots" in out
    assert assert_every_artifact_whole(store) >= 12 * 6
    assert not list(home.glob("corpus/**/.*.tmp")), "temporary files of the killed run were swept"
    lines = store.catalog_path.read_text().splitlines()
    assert len(lines) == 120 and all(json.loads(line)["task_id"] for line in lines)
    for db in home.rglob("*.sqlite"):  # caches and ledgers, whatever backends keep there
        assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok", db
