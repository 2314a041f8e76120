"""Hostile generated code cannot carry anything from one call, episode or environment into another.

Every attack here runs through real sandbox worker processes; the pools have one worker, so attacker and
victim share a process (the hard case).
"""

from __future__ import annotations

import base64
import marshal
import os
import signal
import sqlite3
import time

import pytest

from awm.contracts import TaskSet, ToolSet, VerifierSet
from awm.errors import UnsafeCodeError
from awm.runtime.db import DBHandle, fresh_copy, open_template
from awm.runtime.environment import Environment
from awm.runtime.pool import WorkerPool
from awm.runtime.sandbox import install_call_limits, load_module
from awm.runtime.tools import run_tool
from awm.runtime.verify import run_verifier

TOOLS = '''
import datetime
import re

KEPT = []
COUNTER = [0]


def names(db):
    return [row["name"] for row in db.query("SELECT name FROM items ORDER BY id")]


def add_item(db, name):
    db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"name": name}


def keep(db):
    KEPT.append(db)
    return {"kept": len(KEPT)}


def write_through_kept(db):
    for other in KEPT:
        other.execute("INSERT INTO items(name) VALUES ('PWNED')")
    return {"wrote": len(KEPT)}


def add_numbered(db):
    COUNTER[0] = COUNTER[0] + 1
    name = "call-" + str(COUNTER[0])
    db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"name": name}


def remember_default(db, seen=[]):
    seen.append(1)
    return {"seen": len(seen)}


def dates(db):
    parsed = datetime.datetime.strptime("2025-06-01 09:30", "%Y-%m-%d %H:%M")
    later = parsed + datetime.timedelta(days=3)
    return {"parsed": parsed.isoformat(), "label": later.strftime("%A %d %B %Y"),
            "year": later.timetuple()[0], "day": datetime.date(2025, 6, 1).strftime("%Y/%m/%d")}


def rolled_back(db):
    db.execute("INSERT INTO items(name) VALUES ('before')")
    try:
        db.execute("INSERT OR ROLLBACK INTO items(id, name) VALUES (1, 'duplicate')")
    except Exception:
        pass
    db.execute("INSERT INTO items(name) VALUES ('after the rollback')")
    return {"done": True}


def rolled_back_quietly(db):
    db.execute("INSERT OR ROLLBACK INTO items(id, name) VALUES (1, 'duplicate')")
    return {"done": True}


def surrogate_result(db):
    return {"text": "half a pair: " + chr(55296)}


def surrogate_error(db):
    raise ValueError("half a pair: " + chr(55296))


def swallow_timeout(db):
    while True:
        try:
            while True:
                pass
        except Exception:
            pass
'''

NAMES = ["names", "add_item", "keep", "write_through_kept", "add_numbered", "remember_default", "dates",
         "rolled_back", "rolled_back_quietly", "surrogate_result", "surrogate_error", "swallow_timeout"]
STRING_ARGS = {"add_item": "name"}

VERIFIER = '''
import re


def verify(initial, final, answer):
    numbers = re.findall(r"[0-9]+[.][0-9]+", answer or "")
    return {"complete": numbers == ["1748.99"], "evidence": ["numbers in the answer: " + str(numbers)]}
'''


def toolset(env_id: str, names=NAMES) -> ToolSet:
    def schema(name):
        arg = STRING_ARGS.get(name)
        properties = {arg: {"type": "string"}} if arg else {}
        return {"type": "object", "properties": properties, "required": [arg] if arg else [],
                "additionalProperties": False}

    return ToolSet.model_validate({"env_id": env_id, "tools": [
        {"name": n, "description": f"the {n} tool", "inputSchema": schema(n)} for n in names]})


def taskset(env_id: str) -> TaskSet:
    return TaskSet.model_validate({"env_id": env_id, "acting_user": "clerk", "tasks": [{
        "task_id": "t01", "instruction": "What is the total, to the cent?", "kind": "question", "template": "ask",
        "reference_solution": [{"tool": "names", "arguments": {}}], "reference_answer": "1748.99",
        "goals": [{"kind": "answer", "expect": {"value": "1748.99"}}]}]})


def verifiers(env_id: str, code: str = VERIFIER) -> VerifierSet:
    return VerifierSet.model_validate({"env_id": env_id, "verifiers": [{"task_id": "t01", "code": code}]})


@pytest.fixture(scope="module")
def one_worker():
    with WorkerPool(workers=1, call_seconds=0.5, verify_seconds=1.0, kill_grace=0.5, memory_mb=128) as pool:
        yield pool


@pytest.fixture(scope="module")
def env(database, one_worker):
    environment = Environment("isolation__00", TOOLS, toolset("isolation__00"), taskset("isolation__00"),
                              verifiers("isolation__00"), database, pool=one_worker)
    yield environment
    environment.close()


def worker_stats(pool: WorkerPool) -> dict:
    return pool.stats()["workers"][0]


def wait_for_new_worker(pool: WorkerPool, pid: int) -> None:
    deadline = time.monotonic() + 20
    while worker_stats(pool)["pid"] in (pid, None) and time.monotonic() < deadline:
        time.sleep(0.05)


# --- 1. nothing generated outlives its call -------------------------------------------------------


def test_a_handle_kept_in_module_state_cannot_reach_another_episode(env):
    with env.reset() as victim, env.reset() as attacker:
        assert victim.call("keep") == {"kept": 1}
        assert attacker.call("write_through_kept") == {"wrote": 0}
        assert victim.call("names") == ["a", "b"]
        assert attacker.call("names") == ["a", "b"]


def test_module_state_starts_fresh_in_every_call(env):
    with env.reset() as episode:
        assert [episode.call("add_numbered")["name"] for _ in range(3)] == ["call-1"] * 3
        assert [episode.call("remember_default")["seen"] for _ in range(2)] == [1, 1]


def test_an_episode_rebuilt_after_a_worker_crash_is_the_episode_it_was(env, one_worker):
    with env.reset() as earlier:
        earlier.call("add_numbered")
        earlier.call("add_numbered")
    with env.reset() as episode:
        episode.call("add_numbered")
        episode.call("add_item", {"name": "z"})
        before = episode.call("names")
        pid = worker_stats(one_worker)["pid"]
        os.kill(pid, signal.SIGKILL)
        wait_for_new_worker(one_worker, pid)
        assert episode.call("names") == before == ["a", "b", "call-1", "z"]


VERIFIER_STASH = '''
KEPT = []


def verify(initial, final, answer):
    for old in KEPT:
        old.execute("INSERT INTO items(name) VALUES ('VSTASH')")
    KEPT.append(final)
    return {"complete": False, "evidence": ["handles kept: " + str(len(KEPT))]}
'''


def test_a_verifier_cannot_keep_its_handle_for_a_later_judgement(database, one_worker):
    environment = Environment("isolation__01", TOOLS, toolset("isolation__01"), taskset("isolation__01"),
                              verifiers("isolation__01", VERIFIER_STASH), database, pool=one_worker)
    with environment, environment.reset("t01") as first, environment.reset("t01") as second:
        assert first.judge()["evidence"] == ["handles kept: 1"]
        assert second.judge()["evidence"] == ["handles kept: 1"]
        assert first.call("names") == ["a", "b"] and second.call("names") == ["a", "b"]


def test_a_stashed_tool_or_verifier_handle_is_dead_once_its_call_ends(database):
    """Defence in depth: even with a channel to keep it (here the test's own list), a handle outlives
    nothing: using it after its call or judgement raises, and writes nothing."""
    install_call_limits()
    db = DBHandle(fresh_copy(open_template(database)))
    kept = []

    def keeper(db):
        kept.append(db)
        return {"ok": True}

    assert run_tool(db, keeper, "keeper", {}, 2.0, None) == '{"ok":true}'
    with pytest.raises(sqlite3.ProgrammingError, match="its call ended"):
        kept[0].execute("INSERT INTO items(name) VALUES ('late')")
    initial = DBHandle(fresh_copy(open_template(database)), readonly=True)
    final = db._reader()
    try:
        verdict = run_verifier(lambda i, f, a: kept.extend([i, f]) or {"complete": True, "evidence": []}, initial,
                               final, None)
    finally:
        db._restore()
    assert verdict["complete"]
    for handle in kept[1:]:
        with pytest.raises(sqlite3.ProgrammingError, match="its call ended"):
            handle.query("SELECT 1")
    assert [r["name"] for r in db.query("SELECT name FROM items")] == ["a", "b"]


# --- 2. nothing shared is writable --------------------------------------------------------------


@pytest.mark.parametrize("source", [
    "import re\n\ndef f(db):\n    re.findall = len\n    return 1\n",
    "import json\n\ndef f(db):\n    json.dumps.cache = []\n    return 1\n",
    "def f(db):\n    f.calls = 1\n    return 1\n",
    "import math\n\ndef f(db):\n    for math.pi in [3]:\n        pass\n    return 1\n",
    "import re\n\ndef f(db):\n    re.I += 1\n    return 1\n",
])
def test_assigning_an_attribute_is_refused_by_the_policy(source):
    with pytest.raises(UnsafeCodeError, match="assigning attributes is not allowed"):
        load_module(source, "tools.py")


HOSTILE = '''
import datetime
import json
import math
import re


def poison(db):
    results = []
    for target in [re, json, math, datetime]:
        try:
            target.findall = lambda *args, **kwargs: ["1748.99"]
            results.append("assigned")
        except Exception as exc:
            results.append("refused: " + str(exc))
    try:
        re.findall.cache = []
        results.append("assigned")
    except Exception as exc:
        results.append("refused: " + str(exc))
    return results
'''


def _without_the_policy(source: str) -> str:
    """The module compiled as a worker takes it, but without the load-time policy (a stand-in for a hole in it)."""
    return base64.b64encode(marshal.dumps(compile(source, "hostile/tools.py", "exec"))).decode("ascii")


def test_facades_cannot_be_changed_at_runtime_so_other_environments_verdicts_hold(database, one_worker, env):
    """Even if a policy hole let `re.findall = ...` through, the runtime refuses it: the victim environment's
    verifier (which reads numbers with re.findall), judging a wrong answer in the same worker, says incomplete."""
    wrong = "the total is 17.50"
    assert env.judge_trajectories("t01", [([], wrong)])[0]["complete"] is False
    hostile = one_worker.register("hostile__00", _without_the_policy(HOSTILE), ["poison"], database)
    record, ready = one_worker.open_episode(hostile)
    ready.result()
    try:
        results = one_worker.call(record, "poison", {}).result()
    finally:
        one_worker.close_episode(record)
        one_worker.unregister(hostile)
    assert len(results) == 5 and all(r.startswith("refused: ") for r in results), results
    with env.reset("t01") as episode:
        episode.call("names", {})  # (an answer given with no call earns nothing whatever it says)
        assert episode.judge(wrong)["complete"] is False
        assert episode.judge("it came to 1748.99")["complete"] is True
    _, verdicts = env.send_trajectory([("names", {})], "t01", [wrong, "1748.99"]).result()
    assert [v["complete"] for v in verdicts] == [False, True]


# --- smaller escapes ------------------------------------------------------------------------------


def test_a_deeply_nested_expression_is_a_policy_rejection_not_a_crash():
    source = "def f(db):\n    return " + " + ".join(["1"] * 1000) + "\n"
    with pytest.raises(UnsafeCodeError, match="nests too deeply"):
        load_module(source, "tools.py")


def test_strptime_and_strftime_work_in_generated_code(env):
    with env.reset() as episode:
        assert episode.call("dates") == {"parsed": "2025-06-01T09:30:00", "label": "Wednesday 04 June 2025",
                                         "year": 2025, "day": "2025/06/01"}


def test_a_transaction_rolled_back_by_sqlite_is_an_error_result_and_nothing_leaks(env, one_worker):
    """ON CONFLICT ROLLBACK ends the runtime's savepoint with the whole transaction: the call still returns
    (never raises), names no savepoint, and writes nothing afterwards, even when the tool carries on."""
    with env.reset() as episode:
        episode.call("add_item", {"name": "kept"})
        for tool in ("rolled_back", "rolled_back_quietly"):
            result = episode.call(tool)
            assert result["error"]["code"] == "database_error", result
            assert "awm_" not in result["error"]["message"] and "savepoint" not in result["error"]["message"]
        assert episode.call("names") == ["a", "b", "kept"]
        assert episode.call("add_item", {"name": "after"}) == {"name": "after"}
        assert episode.call("names") == ["a", "b", "kept", "after"]


def test_a_lone_surrogate_is_a_tool_error_and_the_worker_lives(env, one_worker):
    before = worker_stats(one_worker)
    with env.reset() as episode:
        result = episode.call("surrogate_result")
        assert result["error"]["code"] == "tool_failed" and "surrogate" in result["error"]["message"], result
        result = episode.call("surrogate_error")
        assert result["error"]["code"] == "tool_failed", result
        result["error"]["message"].encode("utf-8")  # valid text
        assert episode.call("names") == ["a", "b"]
    after = worker_stats(one_worker)
    assert (after["pid"], after["restarts"]) == (before["pid"], before["restarts"])


SWALLOWING_VERIFIER = '''
def verify(initial, final, answer):
    while True:
        try:
            while True:
                pass
        except Exception:
            pass
'''


def test_generated_code_cannot_swallow_its_timeout(database, one_worker, env):
    """The timeout is delivered inside the worker even to code that catches every Exception: the worker is
    neither stopped by the pool nor by the kernel's CPU limit."""
    before = worker_stats(one_worker)
    with env.reset() as episode:
        result = episode.call("swallow_timeout")
        assert result["error"]["code"] == "timeout" and "sandbox process" not in result["error"]["message"], result
    environment = Environment("isolation__02", TOOLS, toolset("isolation__02"), taskset("isolation__02"),
                              verifiers("isolation__02", SWALLOWING_VERIFIER), database, pool=one_worker)
    with environment, environment.reset("t01") as episode:
        started = time.monotonic()
        verdict = episode.judge()
        assert verdict["error"] == "timeout" and verdict["evidence"] == ["verifier ran longer than 1 s"], verdict
        assert time.monotonic() - started < 30
    after = worker_stats(one_worker)
    assert (after["pid"], after["restarts"], after["kills"]) == (before["pid"], before["restarts"], before["kills"])


@pytest.mark.parametrize("source, reason", [
    ("def f(db):\n    try:\n        return 1\n    except:\n        return 2\n", "bare except"),
    ("def f(db):\n    for i in [1]:\n        try:\n            pass\n        finally:\n            continue\n", "finally"),
    ("def f(db):\n    try:\n        pass\n    finally:\n        return 1\n", "finally"),
])
def test_handlers_that_would_swallow_the_timeout_are_refused(source, reason):
    with pytest.raises(UnsafeCodeError, match=reason):
        load_module(source, "tools.py")


RE_QUESTION_VERIFIER = '''
import re


def verify(initial, final, answer):
    names = re.findall("ada lovelace|mary shelley|emily bronte", str(answer).lower() if answer is not None else "")
    ok = len(names) > 0 and set(names) == set(["ada lovelace"])
    return {"complete": ok, "evidence": [] if ok else ["the answer names " + str(names)]}
'''

POISON = '''
import re


def poison(db):
    try:
        re.findall = lambda *args, **kwargs: ["ada lovelace"]
        return "assigned"
    except Exception as exc:
        return "refused: " + str(exc)
'''


def test_a_hostile_environment_leaves_other_environments_proofs_unchanged_in_the_same_workers(store):
    """The verification stage's proofs of an environment (prove_task, on the process's default pool), with every
    worker of that pool first given a hostile module that tries to replace re.findall, which the environment's
    question verifier uses: every proof comes out as it did without it."""
    from awm.contracts import SchemaSpec
    from awm.quality.mutations import Mutator
    from awm.quality.proofs import prove_task
    from awm.runtime.pool import default_pool
    from tests.awm.quality.conftest import ENV_ID, HONEST_VERIFIER, TASKS_JSON, write_library

    write_library(store, {"t01": HONEST_VERIFIER, "t02": RE_QUESTION_VERIFIER})
    tasks = TaskSet.model_validate(TASKS_JSON).tasks
    mutator = Mutator(store.read_model(ENV_ID, "tools.json", ToolSet), store.read_model(ENV_ID, "schema.json", SchemaSpec),
                      store.path(ENV_ID, "env.db"), tasks)

    def proofs() -> dict:
        with Environment.from_store(store, ENV_ID) as environment:  # on the default pool, as the stage runs
            return {task.task_id: prove_task(environment, task, mutator)[0].model_dump() for task in tasks}

    before = proofs()
    assert before["t02"]["reference_passed"] and before["t02"]["proofs"]["wrong_answer"]["right"] >= 1
    pool = default_pool()
    hostile = pool.register("hostile__01", _without_the_policy(POISON), ["poison"], store.path(ENV_ID, "env.db"))
    records = [pool.open_episode(hostile)[0] for _ in pool.stats()["workers"]]
    try:
        assert len({record.worker.index for record in records}) == len(records)  # one in every worker
        outcomes = [pool.call(record, "poison", {}).result() for record in records]
    finally:
        for record in records:
            pool.close_episode(record)
        pool.unregister(hostile)
    assert all(outcome.startswith("refused: ") for outcome in outcomes), outcomes
    assert proofs() == before
