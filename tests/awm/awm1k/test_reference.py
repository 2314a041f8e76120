"""Our export loaded by their own code: `agent-world-model` 0.1.0 from PyPI, in an interpreter of its own
(it needs Python 3.12 and pins what our environment cannot hold, e.g. mcp<2 for its mcp_agent).

The interpreter is AWM1K_REFERENCE_PYTHON, else the virtualenv of AWM's agent that `make test` builds
(.venv-awm-agent: agent-world-model with its fastapi-mcp, tests/ecosystem/awm-agent-requirements.txt). Where
neither exists the test skips, and under CI fails (docs/awm1k.md, "Their code on our export").
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import textwrap
from pathlib import Path

import pytest

from awm import artifacts
from awm.cli import main as awm_main
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.conftest import await_venv, missing_venv
from tests.llm.conftest import API_KEY, start_llm_serve

ROOT = Path(__file__).resolve().parents[3]
REFERENCE = os.environ.get("AWM1K_REFERENCE_PYTHON") or str(ROOT / ".venv-awm-agent" / "bin" / "python")
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def reference() -> str:
    """The interpreter holding agent-world-model; a skip where there is none, a failure under CI."""
    await_venv(REFERENCE)
    if not os.path.exists(REFERENCE):
        why = (f"no agent-world-model interpreter at {REFERENCE} (make test builds .venv-awm-agent where Python 3.12 "
               "is found; AWM1K_REFERENCE_PYTHON names another)")
        missing_venv(why)
    return REFERENCE


def their_environment() -> dict[str, str]:
    """The environment for their interpreter: without PYTHONPATH, as their package is named `awm` too."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}

THEIRS = textwrap.dedent("""
    import json, os, sys
    from awm.core.reset import reset_all_databases
    from awm.core.verifier import VerificationMode, execute_verification_code
    from awm.tools import tools_jsonl_load
    folder, name, out = sys.argv[1], sys.argv[2], sys.argv[3]
    reset_all_databases(os.path.join(folder, "gen_db.jsonl"), os.path.join(folder, "gen_sample.jsonl"), out, {name})
    db = os.path.join(out, name + ".db")
    verdicts = [execute_verification_code(item["verification"]["code"], "verify_task_completion", db,
                                          mode=VerificationMode.code)
                for item in tools_jsonl_load(os.path.join(folder, "gen_verifier.pure_code.jsonl"))]
    print(json.dumps({"db": db, "verdicts": verdicts}))
""")


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> tuple[ArtifactStore, object]:
    """dental_clinic__00 built here, and `awm export --layout awm1k` of it: (store, export folder)."""
    root = tmp_path_factory.mktemp("awm1k_reference")
    store = ArtifactStore(root / "ours")
    assert all(o.ok for o in build_environment(store, "dental_clinic", 0))
    build_catalog(store, store.env_ids())
    out = root / "export"
    assert awm_main(["--home", str(store.home), "export", "--layout", "awm1k", "--out", str(out)]) == 0
    return store, out


def test_their_reset_and_verifier_runner_load_our_export(reference, exported, tmp_path):
    store, out = exported
    done = subprocess.run([reference, "-c", THEIRS, str(out), "dental_clinic_00", str(tmp_path / "dbs")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600, env=their_environment())
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    ours, theirs = sqlite3.connect(artifacts.DATABASE.read(store, "dental_clinic__00")), sqlite3.connect(found["db"])
    for (table,) in ours.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"):
        assert theirs.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall() == \
            ours.execute(f'SELECT * FROM "{table}" ORDER BY rowid').fetchall(), table
    published = list(store.iter_catalog())
    # their runner's own test of a verifier (final = initial, a placeholder answer): each runs, none is complete
    assert [(v["execution_status"], v["result"]["result"]) for v in found["verdicts"]] == \
        [("success", "others")] * len(published)


def test_their_agent_solves_our_tasks_on_their_server(reference, exported, tmp_path):
    """Their agent (awm.core.agent.run_agent), their server and their reset, unmodified, on our export; the model
    is `awm llm-serve --agent` on 127.0.0.1 (its reference and null policies, in their agent's <tool_call> text
    protocol); the exported verifier judges with their signature: the reference complete, the null run not."""
    store, out = exported
    tiers = [json.loads(line) for line in (out / "awm_tiers.jsonl").read_text().splitlines()]
    tasks = {t.task_id: t for t in artifacts.TASKS.read(store, "dental_clinic__00").tasks}
    action = max((t for t in tasks.values() if t.kind == "action"), key=lambda t: t.steps)
    # a task answered in words: a question where the set has one, else a request whose goals include an answer
    question = min((t for t in tasks.values() if t is not action and any(g.kind == "answer" for g in t.goals)),
                   key=lambda t: (t.kind != "question", t.steps))
    index = {row["task_id"]: row["task_idx"] for row in tiers}
    runs = [{"key": f"{task.task_id}-{policy}", "task_idx": index[task.task_id], "instruction": task.instruction,
             "model": f"awm-agent-{policy}", "max_iterations": task.steps + 3}
            for task in (action, question) for policy in ("reference", "null")]
    serve = start_llm_serve("--agent", "--api-key", API_KEY, home=store.home)
    try:
        job = tmp_path / "job.json"
        job.write_text(json.dumps({"folder": str(out), "scenario": "dental_clinic_00", "work": str(tmp_path),
                                   "base_url": serve.url, "runs": runs}))
        done = subprocess.run([reference, str(Path(__file__).with_name("their_agent_rollouts.py")), str(job)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=900,
                              env={**their_environment(), "OPENAI_API_KEY": API_KEY})
        requests = serve.requests()
    finally:
        serve.stop()
    assert done.returncode == 0, done.stderr[-4000:]
    seen = {r["key"]: r for r in json.loads(done.stdout.strip().splitlines()[-1])}
    # every request of their agent was answered in agent mode, the task found from the conversation
    assert requests and all(r["stage"] == "agent" and r.get("status", 200) == 200 for r in requests), requests
    assert {r["task_id"] for r in requests} >= {action.task_id, question.task_id}
    for task in (action, question):
        replayed, null = seen[f"{task.task_id}-reference"], seen[f"{task.task_id}-null"]
        assert replayed["verdict"]["result"] == "complete", (task.task_id, replayed)
        assert null["verdict"]["result"] == "others", (task.task_id, null)
        # the reference went through their agent's list_tools/call_tool loop, call for call, without an error
        assert [c.split("(", 1)[0] for c in replayed["calls"]] == \
            ["list_tools"] + ["call_tool"] * task.steps, replayed["calls"]
        # their agent names a tool as mcp_agent lists it: <server>_<tool>, its server being "mcp_server"
        assert [re.match(r"call_tool\(mcp_server_(\w+),", c).group(1) for c in replayed["calls"][1:]] == \
            [step.tool for step in task.reference_solution]
        assert not any(": Error" in r for r in replayed["responses"]), replayed["responses"]
        assert null["calls"] == [] and null["final"]
    # the action's reference changed rows of their server's database
    def rows(path: str) -> dict:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        names = [n for (n,) in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return {n: db.execute(f'SELECT * FROM "{n}" ORDER BY rowid').fetchall() for n in names}
    changed = seen[f"{action.task_id}-reference"]["databases"]
    assert rows(changed["initial"]) != rows(changed["final"])
    print(f"their agent on our export: reference {seen[f'{action.task_id}-reference']['seconds']} s "
          f"({action.steps} calls), {seen[f'{question.task_id}-reference']['seconds']} s ({question.steps} calls)")
