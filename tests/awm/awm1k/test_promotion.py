"""Promotion of imported AWM-1K tasks to `proven`: candidate references (a crafted trajectory file, or rollouts of
the local simulated agent through awm eval's engine) put through the proofs in the foreign runtime; the catalog
and `awm serve`'s scores follow the tier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from awm import artifacts
from awm.awm1k.importer import import_dataset
from awm.awm1k.promotion import TrajectoryError, candidates_from_file
from awm.awm1k.serving import ForeignEnvironment
from awm.cli import main as awm_main
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.conftest import copied_store, needs_os_isolation
from tests.llm.conftest import API_KEY, start_llm_serve

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "awm1k"
ENV = "broken_verifiers__00"  # t01 "Order 3 bolts" (orders of item 1 are [3]); t05: any order, and the clock


@pytest.fixture(scope="module")
def imported(tmp_path_factory) -> ArtifactStore:
    needs_os_isolation()
    store = ArtifactStore(tmp_path_factory.mktemp("awm1k-promotion") / "home")
    import_dataset(store, FIXTURES / "broken", ["broken_verifiers"])
    build_catalog(store, store.env_ids())
    return store


@pytest.fixture
def home(imported, tmp_path) -> ArtifactStore:
    return copied_store(imported, tmp_path)


def order(item_id: int, qty: int) -> dict:
    return {"tool": "create_order", "arguments": {"item_id": item_id, "qty": qty}}


def write_lines(path: Path, *lines: dict) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def rollout_file(path: Path, task_id: str, calls: list[dict], answer: str | None) -> Path:
    """A trajectory in awm eval's rollout format (awm/eval/rollouts.py _write)."""
    messages = [{"type": "message", "role": "user", "content": "..."}]
    for n, call in enumerate(calls):
        messages.append({"type": "message", "role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{n}", "type": "function",
             "function": {"name": call["tool"], "arguments": json.dumps(call["arguments"])}}]})
        messages.append({"type": "message", "role": "tool", "tool_call_id": f"c{n}", "content": "{}"})
    lines = [{"type": "rollout", "version": "1", "env_id": ENV, "task_id": task_id},
             *messages, {"type": "result", "status": "completed", "answer": answer}]
    return write_lines(path, *lines)


def test_candidates_that_pass_the_proofs_promote_their_tasks_and_the_rest_say_why_not(home, tmp_path, capsys):
    crafted = write_lines(tmp_path / "crafted.jsonl",
                          {"env_id": ENV, "task_id": "t01", "calls": [order(1, 2)], "answer": None},  # wrong qty
                          {"env_id": ENV, "task_id": "t01", "calls": [order(1, 3)], "answer": "Ordered."},
                          {"env_id": ENV, "task_id": "t05", "calls": [], "answer": "Nothing to do."})
    rollout = rollout_file(tmp_path / "s000-rollout.jsonl", "t05", [order(1, 5)], None)
    assert awm_main(["--home", str(home.home), "promote-awm1k", "--trajectories", str(crafted),
                     "--trajectories", str(rollout)]) == 0
    out = capsys.readouterr().out
    assert f"{ENV}: 2 promoted to proven (t01, t05)" in out and "catalog: 2 tasks (0 checked, 2 proven)" in out

    tasks = {t.task_id: t for t in artifacts.AWM1K.read(home, ENV).tasks}
    t01, t05 = tasks["t01"], tasks["t05"]
    assert t01.tier == t05.tier == "proven"
    assert [c["result"] for c in t01.candidates] == ["rejected", "proven"]
    assert t01.candidates[0]["reason"] == "their verifier does not accept it (others)"
    assert t01.reference == [order(1, 3)] and t01.reference_answer == "Ordered."
    assert t01.footprint == {"tables": {"orders": {"added": {"[1]": {"id": 1, "item_id": 1, "qty": 3}},
                                                   "removed": {}, "changed": {}}}, "open": {}}
    mutants = t01.proofs["mutants"]
    # their verifier alone rejects each wrong trajectory of t01 ...
    assert mutants["half_change"] == {"tried": 1, "rejected_by_verifier": 1, "rejected_by_outcome": 0, "accepted": []}
    assert mutants["wrong_argument"]["tried"] == 2 and mutants["wrong_argument"]["rejected_by_verifier"] == 2
    assert mutants["collateral_write"]["rejected_by_verifier"] == 1
    assert t01.proofs["null"]["verdict"] == "others"
    # ... while t05's accepts any order: the outcome diff is what rejects the wrong item, quantity and the repeat
    assert [c["reason"] for c in t05.candidates][0] == "their verifier does not accept it (others)"
    wrong = t05.proofs["mutants"]["wrong_argument"]
    assert (wrong["tried"], wrong["rejected_by_verifier"], wrong["rejected_by_outcome"]) == (2, 0, 2)
    assert t05.proofs["mutants"]["collateral_write"]["rejected_by_outcome"] == 1
    catalog = [json.loads(line) for line in home.catalog_path.read_text().splitlines()]
    assert [(e["task_id"], e["tier"]) for e in catalog] == [("t01", "proven"), ("t05", "proven")]
    record = home.provenance(ENV)["awm1k_environments"]
    assert record.outputs["awm1k.json"] == home.hash(ENV, "awm1k.json")  # served as recorded

    # a proven task's episode is judged by their verifier and the outcome diff, as ours are
    env = ForeignEnvironment(home, ENV, ["t01", "t05"])
    try:
        for arguments, expected in (({"item_id": 2, "qty": 5}, (False, "complete", 1)),
                                    ({"item_id": 1, "qty": 5}, (True, "complete", 0))):
            episode = env.reset("t05")
            assert "id" in episode.call("create_order", arguments)
            score = episode.score()
            assert (score["complete"], score["verdict"], score["diff"]["unexpected"]) == expected, score
            episode.close()
    finally:
        env.close()


def test_a_candidate_that_fails_its_proofs_leaves_the_task_checked_with_the_reason(home, tmp_path, capsys):
    crafted = write_lines(tmp_path / "t.jsonl",
                          {"env_id": ENV, "task_id": "t01", "calls": [order(1, 3), order(2, 1)], "answer": None},
                          {"env_id": ENV, "task_id": "t02", "calls": [order(1, 1)], "answer": None})
    assert awm_main(["--home", str(home.home), "promote-awm1k", "--trajectories", str(crafted)]) == 0
    out = capsys.readouterr().out
    assert "t01 stays checked: checked, not proven: no candidate reference passed the proofs; last: " in out
    assert "t02 stays checked: not promoted: the task is failed" in out
    t01 = artifacts.AWM1K.read(home, ENV).tasks[0]
    assert t01.tier == "checked" and t01.footprint is None
    # the extra order of item 2 is a change the verifier does not ask for: no reference makes it
    assert t01.candidates[0]["reason"].startswith("not minimal: their verifier accepts it without call 2 "
                                                  "(create_order)")
    catalog = [json.loads(line) for line in home.catalog_path.read_text().splitlines()]
    assert {e["tier"] for e in catalog} == {"checked"}


def test_trajectory_files_not_in_the_format_are_named(tmp_path):
    with pytest.raises(TrajectoryError, match=r"t.jsonl line 2: a trajectory needs env_id and task_id"):
        candidates_from_file(write_lines(tmp_path / "t.jsonl", {"env_id": ENV, "task_id": "t01", "calls": []},
                                         {"task_id": "t01"}))
    with pytest.raises(TrajectoryError, match=r"line 1: each call is \{\"tool\": str"):
        candidates_from_file(write_lines(tmp_path / "u.jsonl", {"env_id": ENV, "task_id": "t01", "calls": [3]}))
    with pytest.raises(TrajectoryError, match="needs \"calls\""):
        candidates_from_file(write_lines(tmp_path / "v.jsonl", {"env_id": ENV, "task_id": "t01"}))


# --- with an agent endpoint: the local simulated agent ---------------------------------------------------------

OURS = "dental_clinic__00"


@pytest.fixture(scope="module")
def round_trip(tmp_path_factory):
    """One of our environments exported in their format and imported back beside it: its tasks are `checked`
    (nothing of ours comes with it), and the simulated agent knows their instructions from ours."""
    needs_os_isolation()
    store = ArtifactStore(tmp_path_factory.mktemp("awm1k-round-trip"))
    assert all(o.ok for o in build_environment(store, "dental_clinic", 0))
    build_catalog(store, [OURS])
    out = tmp_path_factory.mktemp("awm1k-export")
    assert awm_main(["--home", str(store.home), "export", "--layout", "awm1k", "--out", str(out)]) == 0
    (result,) = import_dataset(store, out)
    assert result.status == "checked"
    build_catalog(store, store.env_ids())
    server = start_llm_serve("--agent", "--api-key", API_KEY, home=store.home)
    yield store, result.env_id, server.url
    server.stop()


@pytest.mark.slow
def test_rollouts_of_an_agent_endpoint_become_candidates_and_promote(round_trip, monkeypatch, capsys):
    store, env_id, url = round_trip
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    home = ["--home", str(store.home)]
    checked = [e["task_id"] for e in store.iter_catalog() if e["env_id"] == env_id]
    assert awm_main([*home, "promote-awm1k", "--env", env_id, "--model", "awm-agent-null", "--base-url", url]) == 0
    out = capsys.readouterr().out
    assert f"rollouts: {len(checked)} (0 judged complete by their verifiers)" in out
    assert f"{env_id}: 0 promoted to proven" in out and "their verifier does not accept it (others)" in out

    assert awm_main([*home, "promote-awm1k", "--env", env_id, "--model", "awm-agent-reference",
                     "--base-url", url]) == 0
    out = capsys.readouterr().out
    manifest = artifacts.AWM1K.read(store, env_id)
    proven = [t for t in manifest.tasks if t.tier == "proven"]
    assert len(proven) == len(checked), out  # every task: questions by their answer, actions by their rows
    assert f"{env_id}: {len(checked)} promoted to proven" in out
    for task in proven:
        assert task.candidates[-1]["source"].startswith("evals/awm-agent-reference/")
        assert sum(k["tried"] for k in task.proofs["mutants"].values()) >= 1
    tiers = {e["task_id"]: e["tier"] for e in store.iter_catalog() if e["env_id"] == env_id}
    assert {t.task_id for t in proven} == {t for t, tier in tiers.items() if tier == "proven"}


@pytest.mark.slow
def test_a_promoted_task_is_served_over_http_and_judged_with_its_outcome(round_trip, monkeypatch):
    from awm.awm1k.serving import ImportedEnvironments
    from awm.client import Client
    from awm.runtime.pool import WorkerPool
    from awm.runtime.server import RuntimeServer, serve_in_thread

    store, env_id, url = round_trip
    manifest = artifacts.AWM1K.read(store, env_id)
    if not any(t.tier == "proven" for t in manifest.tasks):  # run alone: promote with the reference agent first
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        assert awm_main(["--home", str(store.home), "promote-awm1k", "--env", env_id, "--model",
                         "awm-agent-reference", "--base-url", url]) == 0
        manifest = artifacts.AWM1K.read(store, env_id)
    def creates(t) -> list[dict]:  # its calls that add a row: made once more, they add another
        return [c for c in t.reference if "create" in c["tool"].lower() or c["tool"].lower().startswith("add")]

    task = max((t for t in manifest.tasks if t.tier == "proven" and t.footprint["tables"] and creates(t)),
               key=lambda t: len(t.reference))
    with WorkerPool(workers=1) as pool:
        handle = serve_in_thread(RuntimeServer(store, pool, "promo-token", sources=(ImportedEnvironments(store),)))
        try:
            with Client(handle.url, admin_token="promo-token") as client:
                episode = client.reserve(env_id, task.task_id)  # strict tool listing: their free-form objects as is
                assert {c["tool"] for c in task.reference} <= {t["name"] for t in episode.tools}
                for call in task.reference:
                    text, failed = episode.call(call["tool"], call["arguments"])
                    assert not failed, text
                verdict = episode.end(task.reference_answer)
                assert (verdict["reward"], verdict["diff"]["matches"]) == (1.0, True), verdict
                # the reference and one more write: their verifier may not mind, the outcome diff does
                episode = client.reserve(env_id, task.task_id)
                for call in task.reference + creates(task)[-1:]:
                    episode.call(call["tool"], call["arguments"])
                verdict = episode.end(task.reference_answer)
                assert verdict["reward"] == 0.0 and not verdict["diff"]["matches"], verdict
        finally:
            handle.stop()
