"""Memory is bounded per episode and per worker, and each cap says what it is when it is reached.

The growth attacks run through real sandbox workers: a tool that fills its episode's database, an agent that
sends large arguments (the pool keeps every successful call's arguments to rebuild the episode after a worker
dies), and code that makes its worker retain memory across calls (distinct large patterns, which `re` keeps
in its module-level cache whatever the generated module does).
"""

from __future__ import annotations

import base64
import marshal
import sqlite3
import time
from pathlib import Path

import pytest

from awm.contracts import TaskSet, ToolSet
from awm.runtime.environment import Environment
from awm.runtime.pool import SandboxError, WorkerPool

TOOLS = '''
import re


def names(db):
    return [row["name"][:20] for row in db.query("SELECT name FROM items ORDER BY id")]


def add_item(db, name):
    db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"length": len(name)}


def fill(db, megabytes):
    for i in range(megabytes):
        db.execute("INSERT INTO blobs(data) VALUES (?)", ["x" * 1000000])
    return {"rows": db.one("SELECT COUNT(*) AS n FROM blobs")["n"]}


def fill_temp(db, megabytes):
    db.execute("CREATE TEMP TABLE IF NOT EXISTS scratch (data TEXT)")
    for i in range(megabytes):
        db.execute("INSERT INTO scratch(data) VALUES (?)", ["x" * 1000000])
    return {"done": True}


def remember_pattern(db, n):
    return {"groups": re.compile("a" * 200000 + str(n)).groups}


HOARD = []


def hoard(db):
    HOARD.append("h" * 100000000)
    return {"hoarded": len(HOARD)}
'''

NAMES = ["names", "add_item", "fill", "fill_temp", "remember_pattern", "hoard"]
ARGS = {"add_item": {"name": {"type": "string"}}, "fill": {"megabytes": {"type": "integer"}},
        "fill_temp": {"megabytes": {"type": "integer"}}, "remember_pattern": {"n": {"type": "integer"}}}


def toolset() -> ToolSet:
    return ToolSet.model_validate({"env_id": "memory__00", "tools": [
        {"name": n, "description": f"the {n} tool", "inputSchema": {
            "type": "object", "properties": ARGS.get(n, {}), "required": sorted(ARGS.get(n, {})),
            "additionalProperties": False}} for n in NAMES]})


def taskset() -> TaskSet:
    return TaskSet.model_validate({"env_id": "memory__00", "acting_user": "clerk", "tasks": [{
        "task_id": "t01", "instruction": "Add an item named z.", "kind": "action", "template": "add",
        "reference_solution": [{"tool": "add_item", "arguments": {"name": "z"}}],
        "goals": [{"kind": "rows_created", "table": "items", "count": 1, "expect": {"name": "z"}}]}]})


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    path = tmp_path_factory.mktemp("memory") / "env.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL)")
    conn.execute("CREATE TABLE blobs (id INTEGER PRIMARY KEY, data TEXT NOT NULL)")
    conn.executemany("INSERT INTO items(name) VALUES (?)", [("a",), ("b",)])
    conn.commit()
    conn.close()
    return path


def environment(database: Path, pool: WorkerPool) -> Environment:
    return Environment("memory__00", TOOLS, toolset(), taskset(), None, database, pool=pool)


def compiled_without_the_policy(source: str) -> str:
    """The module as workers take it, compiled without the load-time policy (a stand-in for a hole in it)."""
    return base64.b64encode(marshal.dumps(compile(source, "leaky/tools.py", "exec"))).decode("ascii")


def resident_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * 4096 / 2 ** 20


def worker(pool: WorkerPool) -> dict:
    return pool.stats()["workers"][0]


def test_what_a_call_keeps_in_its_module_is_freed_when_it_returns(database):
    """A module-level list filled by every call (100 MB each) grew a worker past a gigabyte under a per-call budget
    of 256 MiB: now each call has a module of its own, freed when it returns, not at some later collection."""
    with WorkerPool(workers=1, memory_mb=256, worker_memory_mb=0) as pool, environment(database, pool) as env:
        with env.reset() as episode:
            pid = worker(pool)["pid"]
            before = resident_mb(pid)
            assert [episode.call("hoard")["hoarded"] for _ in range(6)] == [1] * 6
            assert resident_mb(pid) < before + 50
            assert worker(pool)["pid"] == pid


def test_memory_returns_when_its_episodes_close(database):
    with WorkerPool(workers=1, memory_mb=128, worker_memory_mb=0) as pool, environment(database, pool) as env:
        pid = worker(pool)["pid"]
        before = resident_mb(pid)
        episodes = [env.reset() for _ in range(3)]
        for episode in episodes:
            assert episode.call("fill", {"megabytes": 20}) == {"rows": 20}
        assert resident_mb(pid) > before + 50
        for episode in episodes:
            episode.close()
        with env.reset() as fresh:  # answered after the closes
            assert fresh.call("names") == ["a", "b"]
        assert resident_mb(pid) < before + 15


def test_an_episode_database_stops_at_its_size_cap(database):
    with WorkerPool(workers=1, episode_db_mb=4, memory_mb=128) as pool, environment(database, pool) as env:
        with env.reset() as episode:
            assert episode.call("fill", {"megabytes": 2}) == {"rows": 2}
            for tool, megabytes in (("fill", 3), ("fill_temp", 5)):  # temp tables have a cap of their own
                result = episode.call(tool, {"megabytes": megabytes})
                assert result["error"]["code"] == "resource_limit", result
                assert "database reached its size cap (4 MiB)" in result["error"]["message"], result
            assert episode.call("fill", {"megabytes": 1}) == {"rows": 3}  # the refused calls left nothing
            assert episode.call("add_item", {"name": "still writable"}) == {"length": 14}
        with env.reset() as other:
            assert other.call("fill", {"megabytes": 3}) == {"rows": 3}  # the cap is per episode


def test_an_episode_log_stops_at_its_cap_and_a_refused_call_does_not_run(database):
    with WorkerPool(workers=1, episode_log_mb=0.1) as pool, environment(database, pool) as env:
        with env.reset() as episode:
            big = "y" * 40_000
            assert episode.call("add_item", {"name": big}) == {"length": 40_000}
            assert episode.call("add_item", {"name": big}) == {"length": 40_000}
            result = episode.call("add_item", {"name": big})
            assert result["error"]["code"] == "resource_limit", result
            assert "would pass the cap of 0.1 MiB" in result["error"]["message"]
            assert "the call was not run" in result["error"]["message"]
            assert episode.call("names") == ["a", "b", "y" * 20, "y" * 20]
            assert episode.call("add_item", {"name": "small"}) == {"length": 5}  # what still fits runs
        with env.reset() as fresh:
            assert fresh.call("add_item", {"name": big}) == {"length": 40_000}


def test_calls_sent_at_once_cannot_pass_the_log_cap_together(database):
    """The log's cap counts the calls in flight: 20 calls of 40 KB sent together under a 0.1 MiB cap used to
    all run (and all be kept), the log ending at 0.8 MB."""
    with WorkerPool(workers=1, episode_log_mb=0.1) as pool, environment(database, pool) as env:
        with env.reset() as episode:
            futures = [pool.call(episode.record, "add_item", {"name": "y" * 40_000}) for _ in range(20)]
            results = [future.result() for future in futures]
            assert sum("error" not in r for r in results) == 2, results
            assert all(r["error"]["code"] == "resource_limit" for r in results if "error" in r)
            assert episode.record.log_bytes <= 0.1 * 2 ** 20 and episode.record.log_pending == 0
            assert len(episode.call("names")) == 4


@pytest.mark.slow
def test_patterns_kept_by_re_do_not_grow_a_worker_past_its_ceiling(database):
    """Distinct large patterns stay in `re`'s module-level cache, whatever the generated module keeps: a worker
    over its ceiling drops its caches first, and needs neither a recycle nor a full stop."""
    with WorkerPool(workers=1, worker_memory_mb=64, memory_mb=256, call_seconds=5.0) as pool, \
            environment(database, pool) as env, env.reset() as attacker:
        for n in range(30):  # ~3.6 MiB each, 110 MiB in all
            assert attacker.call("remember_pattern", {"n": n}) == {"groups": 0}
        stats = worker(pool)
        # The worker checks its memory after it has sent the answer: give it a moment to drop its caches.
        deadline = time.monotonic() + 10
        while resident_mb(stats["pid"]) >= 64 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert resident_mb(stats["pid"]) < 64
        stats = worker(pool)
        assert stats["restarts"] == 0 and not stats["full"], stats


LEAK = """
import json


def leak(db, megabytes):
    kept = json.loads.__self__.__dict__.setdefault("kept", [])
    for i in range(megabytes):
        kept.append("x" * 1000000 + str(i))
    return len(kept)
"""


def test_a_worker_over_its_memory_ceiling_is_recycled_and_its_episodes_rebuilt(database):
    """Memory kept where nothing of the runtime drops it (here through a hole in the policy, in a replay that
    nothing rebuilds): the worker is recycled, and the episodes it held are rebuilt as they were."""
    with WorkerPool(workers=1, worker_memory_mb=96, memory_mb=256) as pool, environment(database, pool) as env:
        leaky = pool.register("leaky__00", compiled_without_the_policy(LEAK), ["leak"], database)
        with env.reset() as bystander:
            bystander.call("add_item", {"name": "kept"})
            first = worker(pool)["pid"]
            outcome = pool.replay(leaky, [("leak", {"megabytes": 40}), ("leak", {"megabytes": 40})]).result()
            assert outcome["results"] == [40, 80]
            deadline = time.monotonic() + 30  # the recycle follows the answer
            while not worker(pool)["recycles"] and time.monotonic() < deadline:
                time.sleep(0.05)
            assert bystander.call("names") == ["a", "b", "kept"]
            stats = worker(pool)
            assert stats["recycles"] == 1 and stats["kills"] == 0 and stats["pid"] != first, stats
            assert resident_mb(stats["pid"]) < 96 and not stats["full"]
            assert bystander.call("add_item", {"name": "after"}) == {"length": 5}
            assert bystander.call("names") == ["a", "b", "kept", "after"]


def test_a_worker_its_episodes_fill_takes_no_new_ones_until_they_close(database):
    with WorkerPool(workers=1, worker_memory_mb=72, episode_db_mb=32, memory_mb=128) as pool, \
            environment(database, pool) as env:
        held = []
        for _ in range(6):
            episode = env.reset()
            held.append(episode)
            assert episode.call("fill", {"megabytes": 12}) == {"rows": 12}
            if worker(pool)["full"]:
                break
        assert worker(pool)["full"] and worker(pool)["recycles"] == 0
        with pytest.raises(SandboxError, match=r"every sandbox worker is at its memory ceiling \(72 MiB\)"):
            env.reset()
        for episode in held[1:]:
            episode.close()
        assert held[0].call("fill", {"megabytes": 1}) == {"rows": 13}  # the next answer reports the room made
        deadline = time.monotonic() + 20
        while worker(pool)["full"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not worker(pool)["full"]
        with env.reset() as fresh:
            assert fresh.call("names") == ["a", "b"]
        assert held[0].call("names") == ["a", "b"]
        held[0].close()


@pytest.mark.parametrize("caps", [{"worker_memory_mb": -1}, {"episode_db_mb": -5}, {"episode_log_mb": -0.5}])
def test_a_negative_cap_is_refused_with_its_name(caps):
    with pytest.raises(ValueError, match=next(iter(caps))):
        WorkerPool(workers=1, **caps)


def scratch_files(pid: int) -> list[str]:
    """The temp files SQLite holds open in the process (deleted files named etilqs_*)."""
    found = []
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink()
        except OSError:
            continue
        if "etilqs_" in str(target):
            found.append(str(target))
    return found


def test_temp_tables_live_in_their_episodes_memory_not_in_a_scratch_file_the_worker_shares(database):
    """A temp table used to spill to a file in the worker's temp directory (under OS isolation a 64 MiB
    tmpfs all its episodes share): one episode's 60 MB denied every other. Now each episode's temp tables
    are its own memory, under its own cap."""
    with WorkerPool(workers=1, worker_memory_mb=0, episode_db_mb=48) as pool, environment(database, pool) as env:
        with env.reset() as first, env.reset() as second:
            assert first.call("fill_temp", {"megabytes": 40}) == {"done": True}
            assert scratch_files(worker(pool)["pid"]) == []
            assert second.call("fill_temp", {"megabytes": 40}) == {"done": True}
            refused = first.call("fill_temp", {"megabytes": 20})  # its own cap still holds
            assert refused["error"]["code"] == "resource_limit", refused
