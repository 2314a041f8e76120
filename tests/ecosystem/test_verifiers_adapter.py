"""The verifiers adapter (awm.adapters.verifiers) with the real package: verifiers' own loader and rollout
machinery, a scripted OpenAI-compatible model, against `awm serve` on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json

from awm.export import write_export
from tests.ecosystem.conftest import ENV, TOKEN, admin, chosen_tasks, run_client

COPIES = 2
MODELS = ("replay", "null", "garbled")



def test_rollouts_through_verifiers_score_by_the_server_one_episode_each(running, published, pool, tmp_path):
    server, base = running
    export = write_export(published, tmp_path / "tasks.jsonl", base_url=base).path
    bad_export = tmp_path / "bad.jsonl"
    bad_export.write_text(export.read_text().splitlines()[0] + "\n{not json\n")
    awm_export = write_export(published, tmp_path / "awm-format.jsonl", base_url=base, tool_format="awm").path
    hf_export = write_export(published, tmp_path / "hf.jsonl", base_url=base, layout="hf").path
    stale_export = tmp_path / "stale.jsonl"
    stale = {**json.loads(export.read_text().splitlines()[0]), "task_id": "t99"}
    stale_export.write_text(json.dumps(stale) + "\n")
    tasks = chosen_tasks(published, pool)
    seen = run_client("verifiers_rollouts.py", {
        "export": str(export), "base_url": base, "token": TOKEN, "copies": COPIES, "models": list(MODELS),
        "tasks": [{"env_id": ENV, "task_id": t.task_id, "instruction": t.instruction, "answer": t.reference_answer,
                   "solution": [step.model_dump() for step in t.reference_solution]} for t in tasks],
        "stale_export": str(stale_export), "awm_export": str(awm_export),
        "refused": {"bad_line": {"export": str(bad_export), "admin_token": TOKEN},
                    "hf_layout": {"export": str(hf_export), "admin_token": TOKEN},
                    "no_token_file": {"export": str(export), "admin_token_file": str(tmp_path / "absent")}}})
    steps = {t.task_id: t.steps for t in tasks}
    published_tasks = sum(1 for _ in published.iter_catalog())
    assert seen["rows"] == published_tasks  # train_split="all": every exported task is a row

    for model in MODELS:
        rollouts = seen["rollouts"][model]
        assert len(rollouts) == COPIES * len(tasks) and all(r["error"] is None for r in rollouts), rollouts
    # the reference replayed through the model's tool calls earns 1 from the server; nothing done earns 0
    for r in seen["rollouts"]["replay"]:
        assert r["reward"] == 1.0 and r["metrics"]["awm_complete"] == 1.0, r
        assert r["metrics"]["awm_tool_calls"] == steps[r["task_id"]] == r["tool_messages"], r
        assert r["verdict"]["calls"] == steps[r["task_id"]] and r["verdict"]["tool_errors"] == 0, r
    for r in seen["rollouts"]["null"]:
        assert r["reward"] == 0.0 and r["metrics"]["awm_complete"] == 0.0 and r["verdict"]["calls"] == 0, r
        assert r["stop_condition"] == "answered", r
    # arguments that are not JSON never reach the server: a format error, counted
    for r in seen["rollouts"]["garbled"]:
        assert r["reward"] == 0.0 and r["format_errors"] == 1 and r["metrics"]["awm_format_errors"] == 1.0, r
        assert r["verdict"]["calls"] == 0, r

    # one episode per rollout: rollouts of the same task ran at once (a group of COPIES per policy, three
    # policies together), each under its own key, and none saw another's writes (a shared episode would have
    # replayed the reference twice, or made the null rollout complete)
    keys = [r["episode"] for rollouts in seen["rollouts"].values() for r in rollouts]
    assert len(set(keys)) == len(keys) == COPIES * len(tasks) * len(MODELS)
    listed = {s["episode"]: s for s in admin(base, "GET", "/admin/sessions").json()["sessions"]}
    for model, rollouts in seen["rollouts"].items():
        for r in rollouts:
            assert listed[r["episode"]]["state"] == "ended" and listed[r["episode"]]["connections"] == 0, model
            assert listed[r["episode"]]["calls"] == (steps[r["task_id"]] if model == "replay" else 0), model

    # each task's model was offered what that task's reserved URL serves (a staff member's request every tool, a
    # customer's their own), in the strict form, as strict functions, submit_answer included where it is served
    async def served_names(url: str) -> list[str]:
        from mcp import Client

        async with Client(url) as agent:
            return [t.name for t in (await agent.list_tools()).tools]

    for i, task in enumerate(tasks):
        reserved = admin(base, "POST", "/admin/sessions", json={"env_id": ENV, "task_id": task.task_id,
                                                                 "key": f"offered-{i}"})
        assert reserved.status_code == 201, reserved.text
        served = asyncio.run(served_names(reserved.json()["url"]))
        assert admin(base, "DELETE", f"/admin/sessions/offered-{i}").status_code == 200
        assert seen["offered"]["replay"][task.instruction] == dict.fromkeys(served, True), task.task_id

    # bad input is refused with the reason
    assert "bad.jsonl:2 is not JSON" in seen["refused"]["bad_line"], seen["refused"]
    assert "cannot read the admin token file" in seen["refused"]["no_token_file"], seen["refused"]
    assert "hf.jsonl:1 is not a record of `awm export --layout awm`" in seen["refused"]["hf_layout"], seen["refused"]
    # a rollout whose reservation the server refuses fails with the server's reason, and scores nothing
    assert len(seen["stale"]) == 1 and seen["stale"][0]["verdict"] is None, seen["stale"]
    reason = f"{stale['env_id']} t99 was refused (HTTP 400): {stale['env_id']} publishes no task"
    assert reason in seen["stale"][0]["error"], seen["stale"]
    # exported in the AWM agent format, the same replay goes through list_tools/call_tool and earns 1 too
    assert [r["reward"] for r in seen["awm_format"]] == [1.0] * len(tasks), seen["awm_format"]
    assert all(r["verdict"]["calls"] == steps[r["verdict"]["task_id"]] for r in seen["awm_format"])
    assert all(sorted(r["tools"]) == ["call_tool", "list_tools"] for r in seen["awm_format"]), seen["awm_format"]
