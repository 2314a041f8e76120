"""awm export, and the worked example that replays an exported task over MCP to reward 1."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from awm.cli import main as awm
from awm.errors import AWMError
from awm.export import write_export
from awm.runtime.server import RuntimeServer, serve_in_thread
from awm.toolspecs import strict_problems

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
    assert first["mcp"]["url"] == f"http://trainer-host:9000/envs/{first['env_id']}/mcp?task={first['task_id']}"
    assert first["mcp"]["url_template"] == ("{base_url}/envs/" + first["env_id"] + "/mcp?task=" + first["task_id"]
                                            + "&episode={episode}")
    assert first["mcp"]["reserve"]["body"] == {"env_id": first["env_id"], "task_id": first["task_id"],
                                               "key": "{episode}", "tool_format": "strict"}
    assert first["stdio"]["args"][-6:] == ["--transport", "stdio", "--env", first["env_id"], "--task", first["task_id"]]
    assert Path(first["stdio"]["command"]).is_absolute() and "--home" in first["stdio"]["args"]
    assert first["split"] in ("train", "validation", "test")
    system, user = first["prompt"]
    assert system["role"] == "system" and first["scenario"] in system["content"] and first["acting_user"] in system["content"]
    assert user == {"role": "user", "content": first["instruction"]}
    question = next(r for r in lines if r["kind"] == "question")
    assert all(f'"{slot}"' in question["prompt"][0]["content"] for slot in question["answer_slots"])
    assert all(not strict_problems(t["inputSchema"]) for r in lines for t in r["tools"])  # strict form by default
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


def test_splits_keep_environments_whole_and_hold_out_whole_domains(published, tmp_path):
    out = tmp_path / "split.jsonl"
    summary = write_export(published, out, fractions=(0.5, 0.25, 0.25), held_out=["pet_grooming"])
    lines = read_lines(out)
    by_env: dict[str, set[str]] = {}
    for r in lines:
        by_env.setdefault(r["env_id"], set()).add(r["split"])
    assert all(len(splits) == 1 for splits in by_env.values())
    assert {r["split"] for r in lines if r["domain"] == "pet_grooming"} == {"test"}
    assert sum(summary.splits.values()) == len(lines)
    assert read_lines(out) == read_lines(write_export(published, out, fractions=(0.5, 0.25, 0.25),
                                                      held_out=["pet_grooming"]).path)  # stable


def test_hf_and_verl_layouts_as_parquet(published, tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    hf = pq.read_table(write_export(published, tmp_path / "hf.parquet", layout="hf", with_reference=True).path)
    rows = hf.to_pylist()
    assert rows and rows[0]["prompt"][0]["role"] == "system" and rows[0]["prompt"][1]["role"] == "user"
    assert json.loads(rows[0]["tools"])[0]["inputSchema"]["type"] == "object"
    assert json.loads(rows[0]["reference"])["solution"]
    verl_table = pq.read_table(write_export(published, tmp_path / "verl.parquet", layout="verl").path)
    # a small fixed extra_info, the same on every row whatever the environments' tools (no per-tool columns)
    assert sorted(verl_table.schema.field("extra_info").type.field(i).name
                  for i in range(verl_table.schema.field("extra_info").type.num_fields)) == sorted(
        ["index", "split", "domain", "env_id", "task_id", "answer_mode", "need_tools_kwargs", "interaction_kwargs"])
    assert len(verl_table.schema.field("extra_info").type.field("interaction_kwargs").type) == 3
    verl = verl_table.to_pylist()
    row = verl[0]
    assert row["agent_name"] == "awm_agent" and row["prompt"] == rows[0]["prompt"]
    assert not row["extra_info"]["need_tools_kwargs"] and row["extra_info"]["index"] == 0
    assert row["extra_info"]["interaction_kwargs"] == {"name": "awm", "env_id": row["extra_info"]["env_id"],
                                                       "task_id": row["extra_info"]["task_id"]}
    assert row["extra_info"]["split"] in ("train", "validation", "test")
    assert row["reward_model"]["style"] == "rule"
    jsonl = read_lines(write_export(published, tmp_path / "verl.jsonl", layout="verl").path)
    assert jsonl[0]["extra_info"]["env_id"] == row["extra_info"]["env_id"]


def test_the_exported_stdio_entry_runs_as_given_under_the_official_client_with_a_bare_environment(published, tmp_path):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    record = next(r for r in read_lines(write_export(published, tmp_path / "t.jsonl", with_reference=True).path)
                  if r["kind"] == "action")
    entry = record["stdio"]
    # the client passes only `env` (plus a few safe variables of its own): no AWM_HOME, no PATH of ours
    params = StdioServerParameters(command=entry["command"], args=entry["args"], env=entry["env"], cwd=str(tmp_path))

    async def go():
        async with Client(params) as agent:
            tools = (await agent.list_tools()).tools
            assert [t.name for t in tools] == [t["name"] for t in record["tools"]]
            for step in record["reference"]["solution"]:
                assert not (await agent.call_tool(step["tool"], step["arguments"])).is_error

    import asyncio

    asyncio.run(go())


def test_typed_exports_list_submit_answer_with_the_answer_schema_and_record_the_reward_mapping(published, tmp_path):
    typed = read_lines(write_export(published, tmp_path / "typed.jsonl", reward=(1.0, 0.0, 0.0)).path)
    prose = read_lines(write_export(published, tmp_path / "prose.jsonl", answer_mode="prose").path)
    asking = [r for r in typed if r["answer_schema"]]
    assert asking and all(r["answer_mode"] == "typed" for r in typed)
    for record in asking:
        submit = next(t for t in record["tools"] if t["name"] == "submit_answer")
        assert set(submit["inputSchema"]["properties"]) == {s["name"] for s in record["answer_schema"]}
        assert "submit_answer" in record["prompt"][0]["content"]
    assert all("submit_answer" not in {t["name"] for t in r["tools"]} for r in typed if not r["answer_schema"])
    assert all("submit_answer" not in {t["name"] for t in r["tools"]} for r in prose)
    assert typed[0]["reward_mapping"] == {"complete": 1.0, "partial": 0.0, "incomplete": 0.0}
    with pytest.raises(AWMError, match="answer mode must be one of typed, prose"):
        write_export(published, tmp_path / "bad.jsonl", answer_mode="free")
