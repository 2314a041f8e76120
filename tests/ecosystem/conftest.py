"""The agent-side ecosystem runs in its own virtualenv (`make test` builds it: .venv-clients): LangChain's
MCP adapters and `verifiers` pin mcp 1.x, the server needs mcp 2.x. Tests here run client scripts there
against servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx2
import pytest

from awm.runtime import open_environment
from awm.runtime.server import RuntimeServer, serve_in_thread
from tests.awm.runtime.conftest import pool, published  # noqa: F401 - fixtures
from tests.conftest import await_venv, missing_venv
from tests.lanes import PATIENCE_S

TOKEN = "ecosystem-token"
ENV = "retail_banking__00"  # the environment the clients play
ROOT = Path(__file__).resolve().parents[2]
CLIENTS_PYTHON = Path(os.environ.get("AWM_CLIENTS_PYTHON", ROOT / ".venv-clients" / "bin" / "python"))


def run_client(script: str, job: dict) -> dict:
    """Run tests/ecosystem/<script> in the clients' virtualenv with `job`; its JSON output, once it exits
    (PATIENCE_S only against a hang)."""
    await_venv(CLIENTS_PYTHON)
    if not CLIENTS_PYTHON.exists():
        missing_venv(f"no agent-side virtualenv at {CLIENTS_PYTHON} (make test builds it)")
    done = subprocess.run([str(CLIENTS_PYTHON), str(ROOT / "tests" / "ecosystem" / script), json.dumps(job)],
                          capture_output=True, text=True, timeout=PATIENCE_S, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def running(published, pool):  # noqa: F811 - fixtures
    """`awm serve` on 127.0.0.1 over the published corpus, with the admin token TOKEN: (server, base URL)."""
    server = RuntimeServer(published, pool, TOKEN)
    handle = serve_in_thread(server)
    yield server, handle.url
    handle.stop()


def admin(base: str, method: str, path: str, **kwargs) -> httpx2.Response:
    return httpx2.request(method, f"{base}{path}", headers={"Authorization": f"Bearer {TOKEN}"}, **kwargs)


def chosen_tasks(published, pool) -> list:  # noqa: F811 - fixtures passed in
    """ENV's action task with the most steps, and a question task."""
    env = open_environment(ENV, home=published.home, pool=pool)
    try:
        action = max((t for t in env.tasks if t.kind == "action"), key=lambda t: t.steps)
        question = next(t for t in env.tasks if t.kind == "question")
        return [action, question]
    finally:
        env.close()
