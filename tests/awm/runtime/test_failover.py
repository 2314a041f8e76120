"""A sandbox worker whose process dies and cannot be restarted takes no more work; its episodes go on elsewhere.

Driven through a real pool: a worker process is killed while starting processes fails as it does when the
parent is out of file descriptors (EMFILE), once or for as long as the test says.
"""

from __future__ import annotations

import errno
import os
import signal
import time

from awm.runtime import pool as pool_module
from awm.runtime.environment import Environment
from awm.runtime.pool import WorkerPool
from tests.awm.runtime.test_containment import TOOLS, taskset, toolset, verifiers


class FailingStarts:
    """Stands in for `start_python`: raises EMFILE `times` times (None: until told to stop), then starts."""

    def __init__(self, times: int | None):
        self.times, self.failed = times, 0
        self.real = pool_module.start_python

    def __call__(self, *args, **kwargs):
        if self.times is None or self.failed < self.times:
            self.failed += 1
            raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))
        return self.real(*args, **kwargs)


def wait_for(predicate, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("the pool did not get there in time")
        time.sleep(0.02)


def count(episode) -> int:
    return episode.call("count_items")["n"]


def test_a_worker_that_cannot_be_restarted_takes_no_work_and_its_episodes_go_on_elsewhere(database, monkeypatch):
    monkeypatch.setattr(pool_module, "RESTART_BACKOFF_SECONDS", (0.2,), raising=False)
    with WorkerPool(workers=2, call_seconds=1.0, kill_grace=0.5) as pool, \
            Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(), database, pool=pool) as env:
        episodes = [env.reset("t01") for _ in range(4)]
        for n, episode in enumerate(episodes):
            episode.call("add_item", {"name": f"kept-{n}"})
        assert [w["episodes"] for w in pool.stats()["workers"]] == [2, 2]
        failing = FailingStarts(None)
        monkeypatch.setattr(pool_module, "start_python", failing)
        os.kill(pool.stats()["workers"][0]["pid"], signal.SIGKILL)
        wait_for(lambda: failing.failed >= 1)
        # every episode of the dead worker is rebuilt on the live one, calls and all
        assert [count(e) for e in episodes] == [3, 3, 3, 3]
        # new episodes, replays and judgements all go to the live worker (the down one is first in line)
        fresh = [env.reset("t01") for _ in range(6)]
        assert [e.call("add_item", {"name": "z"})["name"] for e in fresh] == ["z"] * 6
        assert all(e.score()["complete"] for e in fresh)
        for _ in range(3):
            assert env.send_trajectory([("add_item", {"name": "z"})], "t01").result()
        down = pool.stats()["workers"][0]
        assert down["state"] == "down" and down["episodes"] == 0 and down["pid"] is None and pool.stats()["down"] == 1
        assert pool.stats()["workers"][1]["episodes"] == 10
        wait_for(lambda: failing.failed >= 3)  # its restart is tried again, and again
        assert pool.stats()["workers"][0]["failed_starts"] >= 3
        # the machine recovers: the worker comes back and takes new episodes again
        monkeypatch.setattr(pool_module, "start_python", failing.real)
        wait_for(lambda: pool.stats()["down"] == 0)
        assert pool.stats()["workers"][0]["state"] == "live"
        later = [env.reset("t01") for _ in range(2)]
        assert [w["episodes"] for w in pool.stats()["workers"]][0] == 2
        assert [count(e) for e in later] == [2, 2] and [count(e) for e in episodes] == [3, 3, 3, 3]
        for episode in episodes + fresh + later:
            episode.close()


def test_the_last_worker_tries_its_restart_again_and_its_episodes_keep_their_state(database, monkeypatch):
    monkeypatch.setattr(pool_module, "RESTART_BACKOFF_SECONDS", (0.05,), raising=False)
    with WorkerPool(workers=1, call_seconds=1.0, kill_grace=0.5) as pool, \
            Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(), database, pool=pool) as env:
        with env.reset("t01") as episode:
            episode.call("add_item", {"name": "z"})
            failing = FailingStarts(1)
            monkeypatch.setattr(pool_module, "start_python", failing)
            pid = pool.stats()["workers"][0]["pid"]
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: failing.failed == 1)
            assert count(episode) == 3 and episode.score()["complete"]  # rebuilt on the successor
            worker = pool.stats()["workers"][0]
            assert worker["restarts"] == 1 and worker["failed_starts"] == 1 and pool.stats()["down"] == 0
            assert worker["state"] == "live" and worker["pid"] not in (None, pid)
            with env.reset("t01") as after:
                assert after.call("add_item", {"name": "z"})["name"] == "z" and after.score()["complete"]


def test_with_two_workers_a_restart_that_fails_once_loses_nothing(database, monkeypatch):
    monkeypatch.setattr(pool_module, "RESTART_BACKOFF_SECONDS", (0.05,), raising=False)
    with WorkerPool(workers=2, call_seconds=1.0, kill_grace=0.5) as pool, \
            Environment("sandbox_test__00", TOOLS, toolset(), taskset(), verifiers(), database, pool=pool) as env:
        episodes = [env.reset("t01") for _ in range(4)]
        for episode in episodes:
            episode.call("add_item", {"name": "z"})
        failing = FailingStarts(1)
        monkeypatch.setattr(pool_module, "start_python", failing)
        os.kill(pool.stats()["workers"][1]["pid"], signal.SIGKILL)
        wait_for(lambda: failing.failed == 1)
        assert [count(e) for e in episodes] == [3, 3, 3, 3]
        assert all(e.score()["complete"] for e in episodes)
        wait_for(lambda: pool.stats()["workers"][1]["restarts"] == 1)  # tried again, after its episodes moved
        assert all(w["state"] == "live" for w in pool.stats()["workers"]) and pool.stats()["down"] == 0
        for episode in episodes:
            episode.close()


HASHING = TOOLS + '''

def hashes(db):
    return {"hash": hash("retail banking"), "order": list({"apple", "banana", "cherry", "date", "elderberry"})}
'''


def test_an_episode_rebuilt_on_another_process_hashes_as_it_did(database):
    """Generated code may call hash() or iterate a set of strings: every worker process hashes with the same
    seed, so what a call returned is what it returns after its worker was replaced."""
    from awm.contracts import ToolSet

    specs = ToolSet.model_validate({"env_id": "sandbox_test__00", "tools": [
        *[spec.mcp() for spec in toolset().tools],
        {"name": "hashes", "description": "hashes", "inputSchema": {"type": "object", "properties": {}}}]})
    with WorkerPool(workers=1, call_seconds=1.0, kill_grace=0.5) as pool, \
            Environment("sandbox_test__00", HASHING, specs, taskset(), verifiers(), database, pool=pool) as env:
        with env.reset("t01") as episode:
            before = episode.call("hashes")
            pid = pool.stats()["workers"][0]["pid"]
            os.kill(pid, signal.SIGKILL)
            wait_for(lambda: pool.stats()["workers"][0]["pid"] not in (None, pid))
            assert episode.call("hashes") == before
