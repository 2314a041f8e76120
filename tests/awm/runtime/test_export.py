"""awm export, and the worked example that replays an exported task over MCP to reward 1."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from awm.cli import main as awm
from awm.export import write_export
from awm.runtime.server import RuntimeServer, serve_in_thread

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "replay_agent.py"


def read_lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_export_writes_one_self_contained_line_per_published_task(published, tmp_path):
    out = tmp_path / "tasks.jsonl"
    summary = write_export(published, out, base_url="http://trainer-host:9000")
    lines = read_lines(out)
    catalog = list(published.iter_catalog())
    assert summary.tasks == len(lines) == len(catalog) and summary.environments == len({c["env_id"] for c in catalog})
    assert [(r["env_id"], r["task_id"]) for r in lines] == [(c["env_id"], c["task_id"]) for c in catalog]
    first = lines[0]
    assert first["instruction"] and first["acting_user"] and first["kind"] in ("action", "question")
    assert first["tools"] and {"name", "description", "inputSchema"} <= set(first["tools"][0])
    assert first["mcp"] == {"transport": "streamable-http",
                            "url": f"http://trainer-host:9000/envs/{first['env_id']}/mcp?task={first['task_id']}"}
    assert first["stdio"]["args"][-4:] == ["--env", first["env_id"], "--task", first["task_id"]]
    assert "reference" not in first and not {t["name"] for t in first["tools"]} & {"verify", "score", "judge"}
    assert not any("def verify(" in json.dumps(r) for r in lines)


def test_export_cli_with_references_and_a_domain_filter(published, tmp_path, capsys):
    out = tmp_path / "banking.jsonl"
    assert awm(["--home", str(published.home), "export", "--out", str(out), "--domain", "retail_banking",
                "--with-reference"]) == 0
    lines = read_lines(out)
    assert lines and {r["domain"] for r in lines} == {"retail_banking"}
    assert all(r["reference"]["solution"] and "answer" in r["reference"] for r in lines)
    assert f"wrote {len(lines)} tasks" in capsys.readouterr().out
    assert awm(["--home", str(published.home), "export", "--out", str(out), "--domain", "Not A Slug"]) == 2
    assert read_lines(out) == lines  # a failed export leaves the previous file whole


@pytest.fixture(scope="module")
def example():
    spec = importlib.util.spec_from_file_location("replay_agent", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_worked_example_replays_exported_tasks_over_mcp_to_reward_one(published, pool, tmp_path, example, capsys):
    export = tmp_path / "tasks.jsonl"
    write_export(published, export, with_reference=True)
    running = serve_in_thread(RuntimeServer(published, pool, "example-token"))
    try:
        for record in read_lines(export)[:3]:
            assert example.main([str(export), "--env", record["env_id"], "--task", record["task_id"],
                                 "--token", "example-token", "--base-url", running.url]) == 0
            printed = json.loads(capsys.readouterr().out)
            assert printed["reward"] == 1.0 and printed["steps"] == len(record["reference"]["solution"])
        with pytest.raises(Exception, match="401"):
            example.main([str(export), "--token", "wrong", "--base-url", running.url])
    finally:
        running.stop()
