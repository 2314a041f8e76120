"""awm export, and the worked example that replays an exported task over MCP to reward 1."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from awm.cli import main as awm
from awm.contracts import Scenario
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
    assert system["role"] == "system" and first["scenario"] in system["content"]
    # a staff request names the acting staff member, a customer's own names none (test_the_prompt_says_who_writes_the_request)
    assert (first["acting_user"] in system["content"]) == (first["requester"] == "staff"), first["requester"]
    assert user == {"role": "user", "content": first["instruction"]}
    question = next(r for r in lines if r["kind"] == "question")
    assert all(f'"{slot}"' in question["prompt"][0]["content"] for slot in question["answer_slots"])
    assert all(not strict_problems(t["inputSchema"]) for r in lines for t in r["tools"])  # strict form by default
    assert "reference" not in first and not {t["name"] for t in first["tools"]} & {"verify", "score", "judge"}
    assert not any("def verify(" in json.dumps(r) for r in lines)


def test_the_prompt_says_who_writes_the_request(published, tmp_path):
    """A customer's own request (requester `party`) is not presented as the acting staff member's: the prompt says
    the agent acts for a customer of the business, who says in the request who they are, and for another
    customer only as their recorded representative; a staff request names the acting staff member."""
    out = tmp_path / "tasks.jsonl"
    write_export(published, out)
    rows = read_lines(out)
    by = {kind: [r for r in rows if r["requester"] == kind] for kind in ("staff", "party")}
    assert by["staff"] and by["party"], {k: len(v) for k, v in by.items()}
    for row in by["party"]:
        system = row["prompt"][0]["content"]
        party = published.read_model(row["env_id"], "scenario.json", Scenario).labels["party"]
        assert row["acting_user"] not in system and "on behalf of" not in system, system
        assert f"You act for a {party} of {row['scenario']}, who writes to you" in system
        assert "representative" in system
    for row in by["staff"]:
        assert f"You act on behalf of {row['acting_user']}, who gives you one request." in row["prompt"][0]["content"]


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
    import httpx2

    export = tmp_path / "tasks.jsonl"
    write_export(published, export, with_reference=True)
    folder = write_export(published, tmp_path / "export", with_reference=True).path  # a directory export too
    token_file = tmp_path / "token"
    token_file.write_text("example-token\n")
    running = serve_in_thread(RuntimeServer(published, pool, "example-token"))
    try:
        for n, record in enumerate(read_lines(export)[:3]):
            source = [str(folder), "--token-file", str(token_file)] if n else [str(export), "--token", "example-token"]
            assert example.main([*source, "--env", record["env_id"], "--task", record["task_id"],
                                 "--base-url", running.url]) == 0
            printed = json.loads(capsys.readouterr().out)
            assert printed["reward"] == 1.0 and printed["steps"] == len(record["reference"]["solution"])
            sessions = httpx2.get(f"{running.url}/admin/sessions",
                                  headers={"Authorization": "Bearer example-token"}).json()["sessions"]
            assert sessions == []  # the example ended its episode
        with pytest.raises(Exception, match="401"):
            example.main([str(export), "--token", "wrong", "--base-url", running.url])
    finally:
        running.stop()
    with pytest.raises(SystemExit, match="has no task nowhere__00"):
        example.pick_task(folder, "nowhere__00", None)


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
        ["index", "split", "domain", "env_id", "task_id", "answer_mode", "tier", "origin", "need_tools_kwargs",
         "interaction_kwargs"])
    origins = {e["env_id"]: e["origin"] for e in published.iter_catalog()}
    assert all((row["extra_info"]["tier"], row["extra_info"]["origin"]) == ("proven", origins[row["extra_info"]["env_id"]])
               for row in verl_table.to_pylist())
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


def test_a_directory_export_loads_as_a_dataset_dict_with_a_card_and_the_tools_once_per_environment(published, tmp_path):
    datasets = pytest.importorskip("datasets")
    from awm.export import read_tools_table, task_tools_of

    seen: list[str] = []
    summary = write_export(published, tmp_path / "awm", reward=(1.0, 0.0, 0.0), progress=seen.append)
    whole = read_lines(write_export(published, tmp_path / "whole.jsonl", reward=(1.0, 0.0, 0.0)).path)
    loaded = datasets.load_dataset(str(tmp_path / "awm"), cache_dir=str(tmp_path / "cache"))
    assert isinstance(loaded, datasets.DatasetDict) and set(loaded) == {"train", "validation", "test"}
    assert {name: len(rows) for name, rows in loaded.items()} == summary.splits
    assert all(set(rows["split"]) == {name} for name, rows in loaded.items())
    train = datasets.load_dataset(str(tmp_path / "awm"), cache_dir=str(tmp_path / "cache"), split="train")
    assert len(train) == summary.splits["train"] < len(whole)
    table = read_tools_table(tmp_path / "awm" / "tools.jsonl")
    assert len(table) == summary.environments
    by_task = {(r["env_id"], r["task_id"]): r for r in whole}
    for row in (row for rows in loaded.values() for row in rows):
        record = by_task[(row["env_id"], row["task_id"])]
        assert task_tools_of(row, table) == record["tools"]  # nothing a trainer needs is lost
        # a customer's own request is not offered the staff-only tools: the table keeps them for the others
        assert bool(json.loads(row["withheld_tools"])) == (record["requester"] == "party")
        assert {k: v for k, v in row.items() if k not in ("task_tools", "withheld_tools", "tools_table")} == \
            {k: v for k, v in record.items() if k != "tools"}
    assert (tmp_path / "awm" / "train.jsonl").stat().st_size * 3 < sum(
        len(json.dumps(r)) for r in whole if r["split"] == "train")
    tools = datasets.load_dataset(str(tmp_path / "awm"), "tools", split="train", cache_dir=str(tmp_path / "cache"))
    assert sorted(tools["env_id"]) == sorted(table)
    card = (tmp_path / "awm" / "README.md").read_text()
    assert f"| train | {summary.splits['train']:,} |" in card and "## Licence" in card
    assert "complete, 0 when partial" in card and "| wrong_row |" in card
    assert seen[-1].startswith(f"exported {summary.tasks:,} of {summary.tasks:,} tasks")


def test_hf_and_verl_directory_exports_are_parquet_per_split_and_load(published, tmp_path):
    datasets = pytest.importorskip("datasets")
    pytest.importorskip("pyarrow")
    for layout in ("hf", "verl"):
        summary = write_export(published, tmp_path / layout, layout=layout, with_reference=True)
        assert sorted(p.name for p in (tmp_path / layout).iterdir()) == \
            ["README.md", "test.parquet", "train.parquet", "validation.parquet"]
        loaded = datasets.load_dataset(str(tmp_path / layout), cache_dir=str(tmp_path / "cache"))
        assert {name: len(rows) for name, rows in loaded.items()} == summary.splits
    rows = loaded["train"]
    assert rows[0]["prompt"][0]["role"] == "system"


def test_filters_select_environments_domains_and_splits_and_keep_the_whole_corpus_split(published, tmp_path, capsys):
    whole = read_lines(write_export(published, tmp_path / "whole.jsonl").path)
    env = whole[-1]["env_id"]
    home = ["--home", str(published.home), "export", "--quiet"]
    assert awm([*home, "--out", str(tmp_path / "one.jsonl"), "--env", env]) == 0
    one = read_lines(tmp_path / "one.jsonl")
    assert one == [r for r in whole if r["env_id"] == env]  # its split as in the whole export
    assert awm([*home, "--out", str(tmp_path / "val.jsonl"), "--split", "validation"]) == 0
    assert read_lines(tmp_path / "val.jsonl") == [r for r in whole if r["split"] == "validation"]
    assert awm([*home, "--out", str(tmp_path / "val"), "--split", "validation", "test"]) == 0
    assert sorted(p.name for p in (tmp_path / "val").iterdir()) == ["README.md", "test.jsonl", "tools.jsonl",
                                                                    "validation.jsonl"]
    capsys.readouterr()
    assert awm([*home, "--out", str(tmp_path / "x.jsonl"), "--env", "nowhere__00"]) == 2
    assert awm([*home, "--out", str(tmp_path / "x.jsonl"), "--split", "dev"]) == 2
    assert awm([*home, "--out", str(tmp_path / "x.jsonl"), "--domain", "pet_grooming", "--domain", "zoo_keeping"]) == 2
    err = capsys.readouterr().err
    assert "no environment nowhere__00" in err and "unknown split 'dev'" in err and "domain zoo_keeping" in err
    assert awm([*home, "--out", str(tmp_path / "f.jsonl"), "--split", "0.5", "0.25", "0.25"]) == 0  # older spelling
    assert not (tmp_path / "x.jsonl").exists()


def test_small_corpora_still_get_every_split_or_a_clear_warning(published, tmp_path, capsys):
    from awm.export import assign_splits, split_of

    envs = [f"pet_grooming__{i:02d}" for i in range(4)]
    hashed = {split_of(e) for e in envs}
    assigned = assign_splits(envs)
    assert hashed != set(assigned.values()) == {"train", "validation", "test"}  # the hash alone leaves one out
    assert assign_splits(envs) == assigned and list(assigned.values()).count("train") >= 1
    assert set(assign_splits(envs[:2], (0.5, 0.0, 0.5)).values()) == {"train", "test"}
    empty: list[str] = []
    assert sorted(assign_splits(envs[:2], empty=empty).values()) == ["train", "validation"]  # train first
    assert empty == ["test"] and list(assign_splits(envs[:1]).values()) == ["train"]
    big = [f"pet_grooming__{i:02d}" for i in range(60)]
    assert assign_splits(big) == {e: split_of(e) for e in big}  # a corpus the hash fills is left as it was
    one = next(published.iter_catalog())["env_id"]
    small = tmp_path / "small"
    small.mkdir()
    (small / "catalog.jsonl").write_text("".join(line + "\n" for line in published.catalog_path.read_text().splitlines()
                                                 if json.loads(line)["env_id"] == one))
    (small / "corpus").symlink_to(published.home / "corpus")
    assert awm(["--home", str(small), "export", "--quiet", "--out", str(tmp_path / "one.jsonl")]) == 0
    assert {r["split"] for r in read_lines(tmp_path / "one.jsonl")} == {"train"}
    assert "too few environments for the validation and test splits" in capsys.readouterr().err


@pytest.mark.parametrize("umask, file_mode, dir_mode", [(0o022, 0o644, 0o755), (0o077, 0o600, 0o700)])
def test_export_files_are_readable_per_the_umask(published, tmp_path, umask, file_mode, dir_mode):
    import os

    old = os.umask(umask)
    try:
        write_export(published, tmp_path / "dir", layout="hf")
        write_export(published, tmp_path / "dir", layout="hf")  # replaced whole
        single = write_export(published, tmp_path / "one.jsonl").path
    finally:
        os.umask(old)
    assert oct((tmp_path / "dir").stat().st_mode & 0o777) == oct(dir_mode)
    files = [single, *(tmp_path / "dir").iterdir()]
    assert {oct(p.stat().st_mode & 0o777) for p in files} == {oct(file_mode)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "one.jsonl"]  # no temporary left


def test_parquet_is_streamed_with_the_schema_of_every_batch(tmp_path, monkeypatch):
    pq = pytest.importorskip("pyarrow.parquet")
    from awm.export import ParquetSink

    monkeypatch.setattr(ParquetSink, "BATCH", 2)
    sink = ParquetSink(tmp_path)
    rows = [{"a": 1, "ref": None}, {"a": 2, "ref": None}, {"a": 3, "ref": "x", "extra": {"k": [1]}}]
    for row in rows:
        sink.add(row)
    with open(tmp_path / "t.parquet", "wb") as fh:
        sink.finish(fh)
    sink.discard()
    assert pq.read_table(tmp_path / "t.parquet").to_pylist() == [
        {"a": 1, "ref": None, "extra": None}, {"a": 2, "ref": None, "extra": None},
        {"a": 3, "ref": "x", "extra": {"k": [1]}}]
    assert [p.name for p in tmp_path.iterdir()] == ["t.parquet"]
