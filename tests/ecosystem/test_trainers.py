"""verl and TRL with their own code from PyPI (.venv-trainers): verl's tool schema model takes the verl tool
format; the verl agent loop's episodes and TRL's environment replay references to reward 1 and null runs to
0, one episode per rollout, through awm.client against `awm serve` on 127.0.0.1; and, with torch for CPU,
verl's RLHFDataset and AgentLoopWorker running AWMAgentLoop, and TRL's GRPOTrainer taking a step with
AWMEnvironment and awm_reward."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from awm.artifacts import TOOLS_JSON
from awm.export import write_export
from awm.toolspecs import published_spec
from tests.conftest import await_venv, missing_venv
from tests.ecosystem.conftest import ENV, ROOT, TOKEN, admin, chosen_tasks
from tests.lanes import PATIENCE_S

COPIES = 2
TRAINERS_PYTHON = os.environ.get("AWM_TRAINERS_PYTHON", str(ROOT / ".venv-trainers" / "bin" / "python"))
TORCH_WHEEL = "torch-2.13.0+cpu-cp311-cp311-manylinux_2_28_x86_64.whl"  # the Makefile's TORCH_WHEEL, by name


def run_trainers(job: dict, where) -> dict:
    await_venv(TRAINERS_PYTHON)
    if not os.path.exists(TRAINERS_PYTHON):
        missing_venv(f"no trainers' virtualenv at {TRAINERS_PYTHON} (make test builds it)")
    path = where / "job.json"
    path.write_text(json.dumps(job))
    done = subprocess.run([TRAINERS_PYTHON, str(ROOT / "tests" / "ecosystem" / "trainer_rollouts.py"), str(path)],
                          capture_output=True, text=True, timeout=PATIENCE_S, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def openai_tools(specs: list[dict], tool_format: str) -> list[dict]:
    return [{"type": "function", "function": {"name": s["name"], "description": s.get("description", ""),
                                              "parameters": published_spec(s, tool_format)["inputSchema"]}}
            for s in specs]


def test_verl_and_trl_rollouts_score_by_the_server_one_episode_each(running, published, pool, tmp_path):
    server, base = running
    action, question = chosen_tasks(published, pool)
    specs = [spec.mcp() for env_id in published.env_ids() for spec in TOOLS_JSON.read(published, env_id).tools]
    verl_rows = write_export(published, tmp_path / "verl.jsonl", base_url=base, layout="verl",
                             answer_mode="prose", with_reference=True).path
    hf_rows = write_export(published, tmp_path / "hf.jsonl", base_url=base, layout="hf", tool_format="awm").path
    tasks = [{"env_id": ENV, "task_id": t.task_id, "answer": t.reference_answer,
              "solution": [step.model_dump() for step in t.reference_solution]} for t in (action, question)]
    seen = run_trainers({"base_url": base, "token": TOKEN, "copies": COPIES, "tasks": tasks,
                         "verl_rows": str(verl_rows), "hf_rows": str(hf_rows),
                         "config": str(ROOT / "examples" / "verl" / "awm_grpo.yaml"), "specs": specs, "tool_sets": {form: openai_tools(specs, form) for form in ("strict", "permissive", "verl")}},
                        tmp_path)
    steps = {t.task_id: t.steps for t in (action, question)}

    # verl's own schema model (0.9.1, and 0.7.0's stricter one) takes every tool in the verl form, and what
    # it renders still names every nested parameter
    for version, counts in seen["schema_counts"].items():
        assert counts["verl"]["accepted"] == len(specs) and counts["verl"]["refused_count"] == 0, (version, counts)
        assert counts["verl"]["nested_kept"] == counts["verl"]["nested"], (version, counts["verl"])
        print(version, {form: {k: c[k] for k in ("accepted", "refused_count", "nested", "nested_kept")}
                        for form, c in counts.items()})

    assert all(seen["verl_loop_contract"].values()), seen["verl_loop_contract"]  # what AWMAgentLoop relies on
    assert seen["unknown_config_keys"] == []  # the sample config names only keys verl's trainer config has

    # verl: the reference replayed earns 1, nothing done 0; one episode per rollout, keyed by its request id,
    # every call in it, ended and freed
    *rollouts, tail = seen["verl"]
    assert tail == {"live_after": 0}
    assert len(rollouts) == 2 * COPIES * len(tasks)
    for r in rollouts:
        assert r["key_is_request"] and r["tool_errors"] == 0, r
        if r["model"] == "replay":
            assert r["reward"] == 1.0 and r["calls"] == steps[r["task_id"]], r
        else:
            assert r["reward"] == 0.0 and r["calls"] == 0, r
    keys = [r["episode"] for r in rollouts]
    assert len(set(keys)) == len(keys)
    listed = {s["episode"]: s for s in admin(base, "GET", "/admin/sessions").json()["sessions"]}
    assert all(listed[k]["state"] == "ended" and listed[k]["connections"] == 0 for k in keys)

    # TRL: the environment's tools render as TRL renders them (transformers' get_json_schema from the
    # docstrings); reset from the row reserves the episode, awm_reward scores the final completion
    trl = seen["trl"]
    assert set(trl["tools"]) == {"list_tools", "call_tool"}
    assert set(trl["tools"]["call_tool"]["function"]["parameters"]["required"]) == {"tool_name", "arguments"}
    for r in trl["rollouts"]:
        if r["model"] == "replay":
            assert r["reward"] == 1.0 and r["calls"] == steps[r["task_id"]] and r["listed"], r  # list_tools is no call
        else:
            assert r["reward"] == 0.0 and r["calls"] == 0, r
    assert len({r["episode"] for r in trl["rollouts"]}) == len(trl["rollouts"])

    for name, runs in (("verl loop", rollouts), ("TRL environment", trl["rollouts"])):
        latencies = [x for r in runs for x in r["latencies"]]
        print(f"{name}: {len(latencies)} calls, mean {sum(latencies) / len(latencies) * 1000:.1f} ms a call")


# ------------------------------------------------------------------------------------------------------------
# verl's and TRL's training-side classes, executed: torch (CPU) and ray in .venv-trainers (the Makefile installs
# torch from the machine's CPU wheel; see TORCH_WHEEL there). tests/ecosystem/trainer_runs.py says what runs.

def run_trainer_job(job: dict, where) -> dict:
    """tests/ecosystem/trainer_runs.py with `job` in the trainers' virtualenv: its JSON output. Skips where the
    virtualenv has no torch (a machine without the CPU wheel: the Makefile says so), fails so under CI."""
    reason = None
    await_venv(TRAINERS_PYTHON)
    if not os.path.exists(TRAINERS_PYTHON):
        reason = f"no trainers' virtualenv at {TRAINERS_PYTHON} (make test builds it)"
    elif subprocess.run([TRAINERS_PYTHON, "-c", "import torch, ray"], capture_output=True).returncode != 0:
        reason = (f"no torch or ray in {TRAINERS_PYTHON}: the Makefile installs torch only from the CPU wheel "
                  f"{TORCH_WHEEL}, which this machine lacks")
    if reason:
        missing_venv(f"verl's and TRL's training classes are not run: {reason}")
    (where / "work").mkdir()
    path = where / "job.json"
    path.write_text(json.dumps({**job, "workdir": str(where / "work")}))
    done = subprocess.run([TRAINERS_PYTHON, str(ROOT / "tests" / "ecosystem" / "trainer_runs.py"), str(path)],
                          capture_output=True, text=True, timeout=PATIENCE_S, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "CUDA_VISIBLE_DEVICES": ""})
    assert done.returncode == 0, done.stderr[-6000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def reference_tasks(published, pool) -> list[dict]:  # noqa: F811 - fixtures passed in
    return [{"env_id": ENV, "task_id": t.task_id, "instruction": t.instruction, "answer": t.reference_answer,
             "steps": t.steps, "solution": [step.model_dump() for step in t.reference_solution]}
            for t in chosen_tasks(published, pool)]


def episodes_on_server(base: str, prefix: str) -> dict[str, dict]:
    return {s["episode"]: s for s in admin(base, "GET", "/admin/sessions").json()["sessions"]
            if str(s["episode"]).startswith(prefix)}


def test_verl_agent_loop_worker_runs_awm_agent_loop_on_rlhf_dataset_rows(running, published, pool, tmp_path):
    """verl's RLHFDataset reads our verl Parquet with the example config's data keys; verl's AgentLoopWorker
    instantiates AWMAgentLoop from the agent loop config and runs it: a scripted model replaying the reference
    earns 1 in rm_scores, a null one 0; one ended episode per rollout on the server, keyed by its request."""
    server, base = running
    tasks = reference_tasks(published, pool)
    parquet = write_export(published, tmp_path / "verl.parquet", base_url=base, layout="verl",
                           answer_mode="prose", with_reference=True).path
    token_file = tmp_path / "admin-token"
    token_file.write_text(TOKEN)
    before = episodes_on_server(base, "verl-")
    seen = run_trainer_job({"kind": "verl", "base_url": base, "token_file": str(token_file), "env_id": ENV,
                            "tasks": tasks, "copies": COPIES, "parquet": str(parquet),
                            "config": str(ROOT / "examples" / "verl" / "awm_grpo.yaml"),
                            "agent_loop_config": str(ROOT / "examples" / "verl" / "agent_loop.yaml")}, tmp_path)
    print(json.dumps({k: v for k, v in seen.items() if k != "runs"})[:2000])
    steps = {t["task_id"]: t["steps"] for t in tasks}
    assert seen["dataset"]["agent_name"] == "awm_agent" and seen["dataset"]["raw_prompt_roles"][-1] == "user"
    runs = seen["runs"]
    assert len(runs) == 2 * COPIES * len(tasks)
    for r in runs:
        assert r["awm"] is not None and r["awm"]["reward"] == r["reward"], r
        if r["model"] == "replay":
            # verl's count: the prompt, a model turn per call and the answer, a tool turn per call
            assert r["reward"] == 1.0 and r["turns"] == 2 * steps[r["task_id"]] + 2, r
        else:
            assert r["reward"] == 0.0 and r["turns"] == 2, r
    assert seen["live_after"] == 0
    # the loop verl instantiated is the configured one (the server's URL and token file kept)
    assert seen["registry"]["awm_agent"]["_target_"] == "awm.trainers.verl.AWMAgentLoop"
    assert seen["registry"]["awm_agent"]["base_url"] == base
    # the server's own account: one episode per rollout, keyed verl-<request id>, every reference call in
    # it, ended
    episodes = {k: v for k, v in seen["sessions"].items() if k not in before}
    assert sorted(episodes) == sorted("verl-" + request for request in seen["requests"])
    by_key = {r["awm"]["episode"]: r for r in runs}
    assert set(by_key) == set(episodes)
    for key, listed in episodes.items():
        run = by_key[key]
        assert listed["state"] == "ended" and listed["env_id"] == ENV and listed["task_id"] == run["task_id"]
        assert listed["calls"] == (steps[run["task_id"]] if run["model"] == "replay" else 0), (listed, run)
        assert listed["tool_format"] == "verl"


def test_trl_grpo_trainer_steps_with_awm_environment_and_reward(running, published, pool, tmp_path):
    """TRL's GRPOTrainer, one step on CPU with a tiny local Qwen2, environment_factory=AWMEnvironment and
    reward_funcs=[awm_reward]: every rollout reserves its episode and ends it; the rewards TRL logs are the
    server's verdicts; the policy forced to replay the reference through TRL's tool-call loop earns 1, one
    forced to answer without a call 0."""
    server, base = running
    tasks = reference_tasks(published, pool)
    hf_rows = write_export(published, tmp_path / "hf.jsonl", base_url=base, layout="hf", tool_format="awm").path
    token_file = tmp_path / "admin-token"
    token_file.write_text(TOKEN)
    before = episodes_on_server(base, "trl-")
    seen = run_trainer_job({"kind": "trl", "base_url": base, "token_file": str(token_file), "env_id": ENV,
                            "tasks": tasks, "hf_rows": str(hf_rows), "policies": ["null", "replay"],
                            "max_completion_length": 24000}, tmp_path)  # tool results count: 9 calls in bytes
    print(json.dumps({p: {k: v for k, v in seen[p].items() if k in ("logged_rewards", "verdicts", "history")}
                      for p in ("null", "replay")}), seen["timings"])
    steps = {t["task_id"]: t["steps"] for t in tasks}
    assert seen["rows"] == len(tasks)
    for policy, reward in (("null", 0.0), ("replay", 1.0)):
        run = seen[policy]
        # one optimizer step ran (equal rewards in a group give GRPO zero advantages: the loss is 0)
        assert run["global_step"] == 1 and "loss" in run["history"][0], run["history"]
        assert run["tools"] == ["call_tool", "list_tools"]
        # four rollouts (two prompts, two completions each): each its own episode, scored by the server
        assert len(run["verdicts"]) == 4 and len({v["episode"] for v in run["verdicts"]}) == 4, run["verdicts"]
        # (TRL logs rewards as float32)
        assert sorted(run["logged_rewards"]) == pytest.approx(sorted(v["reward"] for v in run["verdicts"]))
        assert run["logged_rewards"] == [reward] * 4, run
        for verdict in run["verdicts"]:  # the server's own list, read right after the step
            listed = run["sessions"][verdict["episode"]]
            assert verdict["episode"] not in before and listed is not None, verdict
            assert listed["state"] == "ended" and listed["tool_format"] == "awm" and listed["env_id"] == ENV
            assert listed["calls"] == (steps[listed["task_id"]] if policy == "replay" else 0), (listed, verdict)
    assert len({v["episode"] for p in ("null", "replay") for v in seen[p]["verdicts"]}) == 8
