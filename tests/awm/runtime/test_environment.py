"""The Python API: open_environment, reset, call, score, on the published test corpus."""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import ThreadPoolExecutor

import pytest

from awm.builder.dialect import PAGE_ITEMS
from awm.errors import UnknownEnvironmentError
from awm.runtime import RewardMapping, is_error, open_environment
from awm.store import ArtifactStore
from tests.conftest import dialect_of


@pytest.fixture(scope="module")
def env(published: ArtifactStore, pool):
    environment = open_environment("retail_banking__00", home=published.home, pool=pool)
    yield environment
    environment.close()


def write_task(env):
    return next(t for t in env.tasks if t.kind == "action")


def test_every_published_task_replays_to_reward_one_and_the_null_trajectory_scores_zero(env):
    assert env.tasks, "the environment publishes tasks"
    for task in env.tasks:
        with env.reset(task.task_id) as episode:
            for step in task.reference_solution:
                assert not is_error(episode.call(step.tool, step.arguments)), (task.task_id, step.tool)
            score = episode.score(task.reference_answer)
        assert {k: score[k] for k in ("reward", "complete", "evidence")} == {
            "reward": 1.0, "complete": True, "evidence": ["every goal is met"]}, task.task_id
        assert score["diff"]["unexpected"] == 0 and score["diff"]["expected"] == score["diff"]["changed"]
        assert score["calls"] == task.steps and score["tool_errors"] == 0
        with env.reset(task.task_id) as episode:
            null = episode.score(None)
        assert null["reward"] == 0.0 and not null["complete"] and null["evidence"], task.task_id


def test_tools_and_tasks_are_exposed_but_no_verifier(env):
    names = {t["name"] for t in env.tools}
    assert len(names) == len(env.tools) >= 10
    assert all({"name", "description", "inputSchema"} <= set(t) for t in env.tools)
    assert not names & {"verify", "score", "judge"}
    task = env.tasks[0]
    assert env.task(task.task_id).reference_solution and isinstance(task.reference_solution[0].arguments, dict)
    with pytest.raises(KeyError, match="no task 't99'"):
        env.task("t99")


def test_two_episodes_do_not_see_each_others_writes(env):
    task = write_task(env)
    first, second = env.reset(task.task_id), env.reset(task.task_id)
    try:
        for step in task.reference_solution:
            first.call(step.tool, step.arguments)
        assert first.score(task.reference_answer)["complete"]
        assert not second.score(task.reference_answer)["complete"]
        fresh = env.reset(task.task_id)
        assert not fresh.score(task.reference_answer)["complete"]
        fresh.close()
        assert sqlite3.connect(env.db_path).execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        first.close()
        second.close()


def test_bad_calls_come_back_as_structured_errors(env):
    dialect = dialect_of(env.env_id)
    get, search = dialect.name("get_customer"), dialect.name("search_customers")
    with env.reset() as episode:
        unknown = episode.call("drop_everything", {})
        assert unknown["error"]["code"] == "unknown_tool" and search in unknown["error"]["available"]
        assert episode.call(get, {"customer_id": "three"})["error"]["code"] == "invalid_arguments"
        assert episode.call(get, {"customer_id": 1, "extra": 1})["error"]["code"] == "invalid_arguments"
        assert episode.call(get, [1])["error"]["code"] == "invalid_arguments"
        missing = episode.call(get, {"customer_id": 999999})
        assert is_error(missing) and missing["error"]["code"].lower() == "not_found"
        assert episode.calls == 5
        with pytest.raises(ValueError, match="without a task"):
            episode.score()


def test_sql_injection_arguments_are_just_values(env):
    dialect = dialect_of(env.env_id)
    rows = PAGE_ITEMS[dialect.style.paging]
    with env.reset() as episode:
        before = episode.call(*dialect.call("search_customers", {"limit": 100}))[rows]
        for attack in ("' OR 1=1 --", "x'; DROP TABLE customers; --", "%' UNION SELECT * FROM customers --"):
            found = episode.call(*dialect.call("search_customers", {"query": attack}))
            assert found[rows] == [], attack
        assert episode.call(*dialect.call("search_customers", {"limit": 100}))[rows] == before != []
        snapshot = episode.snapshot()
    assert snapshot.startswith(b"SQLite format 3\x00")


def test_partial_progress_earns_the_partial_reward(published, pool):
    mapping = RewardMapping(complete=1.0, partial=0.25, incomplete=-1.0)
    env = open_environment("retail_banking__00", home=published.home, reward=mapping, pool=pool)
    try:
        task = next(t for t in env.tasks if len(t.goals) > 1 and t.kind == "action")
        with env.reset(task.task_id) as episode:
            assert episode.score()["reward"] == -1.0
            for step in task.reference_solution[:-1]:
                episode.call(step.tool, step.arguments)
            verdict = episode.judge()
            score = episode.score()
        assert not verdict["complete"]
        assert score["reward"] == (0.25 if verdict["partial"] else -1.0)
    finally:
        env.close()


def test_episodes_run_concurrently_from_threads_and_event_loops(env):
    task = write_task(env)

    def rollout(_: int) -> float:
        with env.reset(task.task_id) as episode:
            for step in task.reference_solution:
                episode.call(step.tool, step.arguments)
            return episode.score(task.reference_answer)["reward"]

    with ThreadPoolExecutor(8) as threads:
        assert list(threads.map(rollout, range(16))) == [1.0] * 16

    async def arollout() -> float:
        episode = await env.areset(task.task_id)
        try:
            for step in task.reference_solution:
                await episode.acall(step.tool, step.arguments)
            return (await episode.ascore(task.reference_answer))["reward"]
        finally:
            episode.close()

    async def many() -> list[float]:
        return await asyncio.gather(*(arollout() for _ in range(16)))

    assert asyncio.run(many()) == [1.0] * 16


def test_only_published_environments_open(published, tmp_path):
    with pytest.raises(UnknownEnvironmentError, match="publishes no task"):
        open_environment("retail_banking__42", home=published.home)
    with pytest.raises(UnknownEnvironmentError, match="no catalog"):
        open_environment("retail_banking__00", home=tmp_path)
