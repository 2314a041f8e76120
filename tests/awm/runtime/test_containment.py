"""Malicious generated code is rejected at load or stopped cleanly, and every other episode carries on."""

from __future__ import annotations

import os
import signal
import time

import pytest

from awm.contracts import TaskSet, ToolSet, VerifierSet
from awm.errors import UnsafeCodeError
from awm.runtime.environment import Environment
from awm.runtime.pool import WorkerPool

TOOLS = '''
import re


def add_item(db, name):
    new = db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"id": new["lastrowid"], "name": name}


def count_items(db):
    return db.one("SELECT COUNT(*) AS n FROM items")


def add_then_refuse(db, name):
    db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"error": {"code": "invalid_state", "message": "refused after writing"}}


def add_then_raise(db, name):
    db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return [1][5]


def spin(db):
    while True:
        pass


def string_bomb(db):
    return len("x" * 10 ** 10)


def list_bomb(db):
    return len([0] * 10 ** 10)


def creeping_bomb(db):
    chunks = []
    while True:
        chunks.append("y" * 10 ** 6)


def c_level_loop(db):
    return sum(range(10 ** 13))


def big_power(db):
    return 10 ** 10 ** 8 > 1


def backtracking(db):
    return bool(re.match("(a+)+$", "a" * 40 + "b"))


def recursive_query(db):
    return db.one("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) AS n FROM c")


def huge_blob(db):
    return db.one("SELECT length(zeroblob(100000000)) AS n")


def sql(db, statement):
    return db.execute(statement)


def not_json(db):
    return {"items": set([1, 2])}


def deep(db, n=0):
    return deep(db, n + 1)
'''

NAMES = ["add_item", "count_items", "add_then_refuse", "add_then_raise", "spin", "string_bomb", "list_bomb",
         "creeping_bomb", "c_level_loop", "big_power", "backtracking", "recursive_query", "huge_blob", "sql",
         "not_json", "deep"]
STRING_ARGS = {"add_item": "name", "add_then_refuse": "name", "add_then_raise": "name", "sql": "statement"}

VERIFIER = '''
def verify(initial, final, answer):
    before = initial.one("SELECT COUNT(*) AS n FROM items")["n"]
    after = final.one("SELECT COUNT(*) AS n FROM items WHERE name = ?", ["z"])["n"]
    return {"complete": after == 1, "evidence": ["before " + str(before) + ", z rows " + str(after)]}
'''


def toolset() -> ToolSet:
    def schema(name):
        arg = STRING_ARGS.get(name)
        properties = {arg: {"type": "string"}} if arg else {}
        return {"type": "object", "properties": properties, "required": [arg] if arg else [],
                "additionalProperties": False}

    return ToolSet.model_validate({"env_id": "sandbox_test__00", "tools": [
        {"name": n, "description": f"the {n} tool", "inputSchema": schema(n)} for n in NAMES]})


def taskset() -> TaskSet:
    return TaskSet.model_validate({"env_id": "sandbox_test__00", "acting_user": "clerk", "tasks": [{
        "task_id": "t01", "instruction": "Add an item named z to the list.", "kind": "action", "template": "add",
        "reference_solution": [{"tool": "add_item", "arguments": {"name": "z"}}],
        "goals": [{"kind": "rows_created", "table": "items", "count": 1, "expect": {"name": "z"}}]}]})


def verifiers(code: str = VERIFIER) -> VerifierSet:
    return VerifierSet.model_validate({"env_id": "sandbox_test__00", "verifiers": [{"task_id": "t01", "code": code}]})


@pytest.fixture(scope="module")
def one_worker():
    """One worker, so the runaway and its bystanders share a process (the hard case)."""
    with WorkerPool(workers=1, call_seconds=0.5, verify_seconds=1.0, kill_grace=0.5, memory_mb=128) as pool:
        yield pool


@pytest.fixture(scope="module")
def env(database, one_worker):
    environment = Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(), database, pool=one_worker)
    yield environment
    environment.close()


def count(episode) -> int:
    return episode.call("count_items")["n"]


@pytest.mark.parametrize("source, reason", [
    ("import os\n\ndef add_item(db, name):\n    return os.system(name)\n", "import of 'os'"),
    ("def add_item(db, name):\n    return open(name).read()\n", "name 'open'"),
    ("def add_item(db, name):\n    return __import__('os')\n", "'__import__'"),
    ("def add_item(db, name):\n    return getattr(db, '_conn')\n", "name 'getattr'"),
    ("def add_item(db, name):\n    return db.execute.__self__\n", "attribute '__self__'"),
    ("BOMB = 'x' * 10 ** 10\n\ndef add_item(db, name):\n    return BOMB\n", "BinOp"),
    # evaluated while the timeout passes, `1 // 0` would raise in its place, and `except ZeroDivisionError` catch it
    ("def add_item(db, name):\n    try:\n        return 1\n    except (ValueError, 1 // 0):\n        return 2\n",
     "an except clause names exception classes only"),
    # a rebuilt episode replays its calls later: what a call answers must not depend on when it runs
    ("import datetime\n\ndef add_item(db, name):\n    return str(datetime.datetime.now())\n", "reading the clock"),
    ("from datetime import date\n\ndef add_item(db, name):\n    return str(date.today())\n", "reading the clock"),
])
def test_unsafe_tools_are_rejected_when_the_environment_loads(database, source, reason):
    specs = ToolSet.model_validate({"env_id": "sandbox_test__00", "tools": [toolset().tools[0].mcp()]})
    with pytest.raises(UnsafeCodeError, match=reason):
        Environment("sandbox_test__00", source, specs, taskset(), None, database)


def test_a_spec_without_an_implementation_is_rejected(database):
    with pytest.raises(UnsafeCodeError, match="not implemented: .*count_items"):
        Environment("sandbox_test__00", "def add_item(db, name):\n    return 1\n", toolset(), taskset(), None,
                    database)


@pytest.mark.parametrize("tool, code", [
    ("spin", "timeout"),
    ("backtracking", "timeout"),
    ("big_power", "timeout"),
    ("recursive_query", "timeout"),
    ("string_bomb", "resource_limit"),
    ("list_bomb", "resource_limit"),
    ("huge_blob", "database_error"),
    ("not_json", "tool_failed"),
    ("deep", "tool_failed"),
])
def test_runaway_code_is_stopped_inside_the_worker(env, one_worker, tool, code):
    kills = one_worker.stats()["workers"][0]["kills"]
    with env.reset() as bystander, env.reset() as attacker:
        bystander.call("add_item", {"name": "kept"})
        started = time.monotonic()
        result = attacker.call(tool)
        assert result["error"]["code"] == code, result
        assert time.monotonic() - started < 5
        assert count(bystander) == 3 and count(attacker) == 2
    assert one_worker.stats()["workers"][0]["kills"] == kills  # no process had to die


def test_a_creeping_memory_bomb_is_stopped(env):
    with env.reset() as episode:
        assert episode.call("creeping_bomb")["error"]["code"] in ("resource_limit", "timeout")
        assert count(episode) == 2


def test_code_the_timer_cannot_interrupt_costs_its_worker_but_no_other_episode(env, one_worker):
    before = one_worker.stats()["workers"][0]
    with env.reset("t01") as bystander, env.reset() as attacker:
        bystander.call("add_item", {"name": "z"})
        attacker.call("add_item", {"name": "mine"})
        result = attacker.call("c_level_loop")
        assert result["error"]["code"] == "timeout" and "sandbox process was stopped" in result["error"]["message"]
        after = one_worker.stats()["workers"][0]
        assert after["kills"] == before["kills"] + 1 and after["pid"] != before["pid"]
        # both episodes were rebuilt from their logged calls, without the runaway one
        assert count(bystander) == 3 and count(attacker) == 3
        assert bystander.score()["reward"] == 1.0
        assert attacker.call("add_item", {"name": "after"})["name"] == "after" and count(attacker) == 4


def test_a_worker_that_dies_unexpectedly_is_replaced_and_episodes_rebuilt(env, one_worker):
    with env.reset("t01") as episode:
        episode.call("add_item", {"name": "z"})
        pid = one_worker.stats()["workers"][0]["pid"]
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while one_worker.stats()["workers"][0]["pid"] == pid and time.monotonic() < deadline:
            time.sleep(0.05)
        assert count(episode) == 3 and episode.score()["complete"]


@pytest.mark.parametrize("statement", [
    "ATTACH DATABASE '/tmp/awm-evil.db' AS evil",
    "VACUUM INTO '/tmp/awm-evil.db'",
    "PRAGMA writable_schema = ON",
    "COMMIT",
    "BEGIN",
    "SAVEPOINT mine",
    "SELECT load_extension('/tmp/evil.so')",
])
def test_sql_that_escapes_the_episode_is_denied(env, statement):
    with env.reset() as episode:
        result = episode.call("sql", {"statement": statement})
        assert result["error"]["code"] == "database_error", result
        assert count(episode) == 2
    assert not os.path.exists("/tmp/awm-evil.db")


def test_a_refused_or_failed_call_undoes_its_writes(env):
    with env.reset() as episode:
        assert episode.call("add_then_refuse", {"name": "ghost"})["error"]["code"] == "invalid_state"
        assert episode.call("add_then_raise", {"name": "ghost"})["error"]["code"] == "tool_failed"
        assert count(episode) == 2


def test_verifiers_are_sandboxed_and_read_only(env, database, one_worker):
    with env.reset("t01") as episode:
        episode.call("add_item", {"name": "z"})
        assert episode.score()["complete"]
        writer = "def verify(initial, final, answer):\n    final.execute(\"DELETE FROM items\")\n    return {'complete': True}\n"
        env.with_verifiers(verifiers(writer))
        verdict = episode.judge()
        assert not verdict["complete"] and verdict["error"] == "crash" and "DatabaseError" in verdict["evidence"][0]
        env.with_verifiers(verifiers("def verify(initial, final, answer):\n    while True:\n        pass\n"))
        verdict = episode.judge()
        assert verdict["error"] == "timeout"
        env.with_verifiers(verifiers("import os\n\ndef verify(initial, final, answer):\n    return {}\n"))
        with pytest.raises(UnsafeCodeError, match="import of 'os'"):
            episode.judge()
        env.with_verifiers(verifiers())
        assert count(episode) == 3 and episode.score()["complete"]


def test_a_judged_episode_stays_writable_and_the_shared_initial_state_stays_intact(env, one_worker):
    """Verifiers read the episode in place and share one initial copy: neither may be changed through them."""
    spoilers = ["def verify(initial, final, answer):\n    initial.execute(\"DELETE FROM items\")\n    return {}\n",
                "def verify(initial, final, answer):\n    final.execute(\"UPDATE items SET name = 'x'\")\n    return {}\n",
                "def verify(initial, final, answer):\n    final.execute(\"CREATE TEMP TABLE t(x)\")\n    return {}\n",
                "def verify(initial, final, answer):\n    final.execute(\"PRAGMA query_only = OFF\")\n    return {}\n"]
    with env.reset("t01") as episode:
        episode.call("add_item", {"name": "z"})
        for spoiler in spoilers:
            env.with_verifiers(verifiers(spoiler))
            verdict = episode.judge()
            assert verdict["error"] == "crash" and "DatabaseError" in verdict["evidence"][0], (spoiler, verdict)
        env.with_verifiers(verifiers())
        assert episode.score()["complete"] and count(episode) == 3
        assert episode.call("add_item", {"name": "after judging"})["name"] == "after judging"
        assert count(episode) == 4
    with env.reset("t01") as fresh:
        assert count(fresh) == 2 and not fresh.score()["complete"]


@pytest.mark.slow
def test_the_kernel_cpu_limit_ends_a_runaway_worker_without_the_parent(database):
    """With the parent's kill far away, the call's CPU-time budget (SIGPROF from the kernel) still stops a
    C-level loop."""
    with WorkerPool(workers=1, call_seconds=0.5, kill_grace=60) as pool:
        environment = Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(), database, pool=pool)
        with environment.reset("t01") as bystander, environment.reset() as attacker:
            bystander.call("add_item", {"name": "z"})
            started = time.monotonic()
            result = attacker.call("c_level_loop")
            assert result["error"]["code"] == "timeout", result
            assert time.monotonic() - started < 30
            assert pool.stats()["workers"][0]["kills"] == 0 and pool.stats()["workers"][0]["restarts"] == 1
            assert bystander.score()["complete"]


def test_a_replay_runs_a_whole_trajectory_in_one_request_as_successive_calls_would(env):
    calls = [("add_item", {"name": "z"}), ("add_item", {}), ("add_then_refuse", {"name": "ghost"}),
             ("count_items", None), ("no_such_tool", {})]
    replayed = env.replay(calls)
    with env.reset() as episode:
        assert replayed == [episode.call(tool, arguments) for tool, arguments in calls]
    assert replayed[1]["error"]["code"] == "invalid_arguments" and replayed[3] == {"n": 3}
    assert replayed[4]["error"]["code"] == "unknown_tool"
    verdicts = env.judge_trajectories("t01", [(calls[:1], None), ([], None), ([("add_item", {"name": "y"})], None)])
    assert [v["complete"] for v in verdicts] == [True, False, False]
    with env.reset() as episode:
        assert count(episode) == 2  # nothing a replay did outlives it


@pytest.mark.slow
def test_a_replay_that_stops_its_worker_reports_every_part_stopped_and_the_pool_carries_on(env, one_worker):
    restarts = one_worker.stats()["workers"][0]["restarts"]
    (verdict,) = env.judge_trajectories("t01", [([("add_item", {"name": "z"}), ("c_level_loop", None)], None)])
    assert not verdict["complete"] and verdict["error"] == "timeout", verdict
    results = env.replay([("add_item", {"name": "z"}), ("c_level_loop", None)])
    assert [r["error"]["code"] for r in results] == ["timeout", "timeout"], results
    assert one_worker.stats()["workers"][0]["restarts"] >= restarts + 2
    assert env.judge_trajectories("t01", [([("add_item", {"name": "z"})], None)])[0]["complete"]


def test_checkpoints_judge_the_states_a_trajectory_passes_through(env):
    calls = [("add_item", {}), ("add_item", {"name": "z"}), ("add_item", {"name": "y"})]
    results, verdicts = env.send_trajectory(calls, "t01", [None], [(0, None), (1, None), (2, None), (3, None)]).result()
    assert results[0]["error"]["code"] == "invalid_arguments" and results[1]["name"] == "z"
    # the end, then each checkpoint: only the state with z and nothing else is complete (y is not the task's)
    assert [v["complete"] for v in verdicts] == [False, False, False, True, False]
    assert verdicts[0]["diff"]["unexpected"] == 1 and verdicts[3]["diff"]["unexpected"] == 0
    with pytest.raises(ValueError, match="checkpoint after 4 calls"):
        env.send_trajectory(calls, "t01", [], [(4, None)])


SWALLOWING = """
def verify(initial, final, answer):
    while True:
        try:
            try:
                while True:
                    pass
            finally:
                [][0]
        except IndexError:
            pass
"""


def test_a_verifier_that_catches_its_timeout_is_stopped_and_the_other_episodes_carry_on(database, one_worker):
    """An exception raised in a `finally` block replaces the timeout passing through it, and an `except` catches
    that: the worker ends itself soon after the deadline (the pool's watchdog allows a verdict much longer)."""
    env = Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(SWALLOWING), database,
                      pool=one_worker)
    try:
        with env.reset("t01") as bystander, env.reset("t01") as judged:
            bystander.call("add_item", {"name": "z"})
            verdict = judged.score()
            assert not verdict["complete"] and "ran too long and caught the timeout" in str(verdict), verdict
            assert count(bystander) == 3 and count(judged) == 2  # rebuilt on the successor
    finally:
        env.close()
