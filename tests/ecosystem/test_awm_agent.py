"""AWM's own agent (agent-world-model 0.1.0 from PyPI, in .venv-awm-agent on Python 3.12), unmodified, against
`awm serve` on 127.0.0.1 through the format the docs name for it (permissive): a reference replayed through
its list_tools/call_tool loop earns 1, a null run 0, one episode each."""

from __future__ import annotations

import json
import os
import re
import subprocess

from tests.conftest import await_venv, missing_venv
from tests.ecosystem.conftest import ENV, ROOT, admin, chosen_tasks
from tests.lanes import PATIENCE_S

AGENT_PYTHON = os.environ.get("AWM_AGENT_PYTHON", str(ROOT / ".venv-awm-agent" / "bin" / "python"))


def test_awm_agent_replays_to_one_and_null_runs_to_zero_through_the_permissive_format(running, published, pool,
                                                                                        tmp_path):
    await_venv(AGENT_PYTHON)
    if not os.path.exists(AGENT_PYTHON):
        missing_venv(f"no virtualenv of AWM's agent at {AGENT_PYTHON} (make test builds it where Python 3.12 is)")
    server, base = running
    action, question = chosen_tasks(published, pool)
    runs = []
    for task in (action, question):
        for model, tool_format in (("replay", "permissive"), ("null", "permissive"), ("replay", "strict")):
            key = f"awm-agent-{task.task_id}-{model}-{tool_format}"
            reserved = admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id, "key": key,
                                                                    "tool_format": tool_format})
            assert reserved.status_code == 201, reserved.text
            runs.append({"key": key, "url": reserved.json()["url"], "model": model, "format": tool_format,
                         "instruction": task.instruction, "answer": task.reference_answer, "task_id": task.task_id,
                         "solution": [step.model_dump() for step in task.reference_solution]})
    job = tmp_path / "job.json"
    job.write_text(json.dumps({"runs": runs}))
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # its package is `awm` too
    done = subprocess.run([AGENT_PYTHON, str(ROOT / "tests" / "ecosystem" / "awm_agent_rollouts.py"), str(job)],
                          capture_output=True, text=True, timeout=PATIENCE_S, cwd=tmp_path, env=environment)
    assert done.returncode == 0, done.stderr[-4000:]
    seen = {r["key"]: r for r in json.loads(done.stdout.strip().splitlines()[-1])}
    steps = {action.task_id: action.steps, question.task_id: question.steps}
    for run in runs:
        result = seen[run["key"]]
        verdict = admin(base, "POST", f"/admin/episodes/{run['key']}/score", json={"answer": result["final"], "end": True})
        assert verdict.status_code == 200, verdict.text
        verdict = verdict.json()
        if run["model"] == "null":
            assert verdict["reward"] == 0.0 and verdict["calls"] == 0, verdict
            continue
        # every call ran in the one reserved episode (AWM's client opens an MCP session per call)
        assert verdict["reward"] == 1.0 and verdict["calls"] == steps[run["task_id"]], (run["format"], verdict)
        assert not any(r.startswith("Error") for r in result["results"]), result["results"]
        listing = result["listing"]
        assert listing.startswith("Available MCP Tools") and "mcp_tool_" in listing
        badly = re.findall(r"- \w+: \[.*\] \(|Allowed values: \[.*None\]", listing)
        if run["format"] == "permissive":  # AWM's listing reads it as its models were trained on it
            assert not badly, badly[:5]
        else:  # the strict form's nullable types and enums, as AWM's listing renders them
            assert badly
    mean = sum(seen[r["key"]]["seconds"] / (steps[r["task_id"]] + 2) for r in runs if r["model"] == "replay") / 4
    print(f"AWM agent: {mean * 1000:.0f} ms per step (model turns and its per-call MCP sessions)")
