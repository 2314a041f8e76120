"""Environments and episodes: the Python API trainers use.

    env = open_environment("banking__03")
    episode = env.reset("t01")
    episode.call("search_customers", {"query": "ann"})
    episode.score(answer=None)  # {"reward", "complete", "evidence"}
    episode.close()

An episode's database is an in-memory copy of the environment's initial state
(SQLite backup API), so episodes never see each other's writes.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm.contracts import Task, TaskSet, ToolSet, VerifierSet
from awm.errors import MissingArtifactError
from awm.runtime.db import DBHandle, fresh_copy, open_template
from awm.runtime.tools import ToolRuntime
from awm.runtime.verify import load_verifier, run_verifier
from awm.store import ArtifactStore


@dataclass(frozen=True)
class RewardMapping:
    """Paper default: complete 1.0, partial 0.1 (some goals met), otherwise 0."""

    complete: float = 1.0
    partial: float = 0.1
    incomplete: float = 0.0


class Environment:
    def __init__(self, env_id: str, tools_source: str, toolset: ToolSet, tasks: TaskSet,
                 verifiers: VerifierSet | None, db_path: Path, reward: RewardMapping | None = None):
        self.env_id = env_id
        self.runtime = ToolRuntime(tools_source, toolset)
        self.toolset = toolset
        self.taskset = tasks
        self._tasks = {t.task_id: t for t in tasks.tasks}
        self._verifier_code = {v.task_id: v.code for v in verifiers.verifiers} if verifiers else {}
        self._verifiers: dict[str, Any] = {}
        self.db_path = Path(db_path)
        self._template = open_template(self.db_path)
        self._lock = threading.Lock()
        self.reward = reward or RewardMapping()

    @classmethod
    def from_store(cls, store: ArtifactStore, env_id: str, reward: RewardMapping | None = None) -> Environment:
        verifiers = None
        if store.exists(env_id, "verifiers.json"):
            verifiers = store.read_model(env_id, "verifiers.json", VerifierSet)
        return cls(
            env_id,
            store.read_text(env_id, "tools.py"),
            store.read_model(env_id, "tools.json", ToolSet),
            store.read_model(env_id, "tasks.json", TaskSet),
            verifiers,
            store.database_path(env_id),
            reward,
        )

    @property
    def tools(self) -> list[dict]:
        return [spec.mcp() for spec in self.toolset.tools]

    @property
    def tasks(self) -> list[Task]:
        return list(self.taskset.tasks)

    def task(self, task_id: str) -> Task:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise KeyError(f"{self.env_id} has no task {task_id!r}; tasks: {', '.join(self._tasks)}") from None

    def verifier(self, task_id: str):
        if task_id not in self._verifiers:
            if task_id not in self._verifier_code:
                raise MissingArtifactError(f"{self.env_id}: no verifier for task {task_id} (verifiers.json)")
            self._verifiers[task_id] = load_verifier(self._verifier_code[task_id], f"{self.env_id}/{task_id}")
        return self._verifiers[task_id]

    def with_verifiers(self, verifiers: VerifierSet) -> Environment:
        self._verifier_code = {v.task_id: v.code for v in verifiers.verifiers}
        self._verifiers.clear()
        return self

    def fresh_connection(self) -> sqlite3.Connection:
        with self._lock:
            return fresh_copy(self._template)

    def reset(self, task_id: str | None = None) -> Episode:
        task = self.task(task_id) if task_id is not None else None
        return Episode(self, task, self.fresh_connection())

    def close(self) -> None:
        self._template.close()


class Episode:
    def __init__(self, env: Environment, task: Task | None, conn: sqlite3.Connection):
        self.env = env
        self.task = task
        self._conn = conn
        self.db = DBHandle(conn)
        self.calls = 0

    def call(self, tool: str, arguments: dict | None = None) -> Any:
        self.calls += 1
        return self.env.runtime.call(self.db, tool, arguments)

    def score(self, answer: str | None = None) -> dict:
        if self.task is None:
            raise ValueError("this episode was reset without a task; nothing to score")
        verdict = self.judge(answer)
        if verdict["complete"]:
            reward = self.env.reward.complete
        elif verdict.get("partial"):
            reward = self.env.reward.partial
        else:
            reward = self.env.reward.incomplete
        return {"reward": reward, "complete": verdict["complete"], "evidence": verdict["evidence"]}

    def judge(self, answer: str | None) -> dict:
        """Run the task's verifier on (initial DB, this episode's DB, answer), both read-only."""
        fn = self.env.verifier(self.task.task_id)
        initial = DBHandle(open_template(self.env.db_path), readonly=True)
        self.db.release()
        final = DBHandle(self._conn, readonly=True)
        try:
            verdict = run_verifier(fn, initial, final, answer)
        finally:
            final.release()
            initial.release().close()
            self.db = DBHandle(self._conn)
        goals = len(self.task.goals)
        failed = len([e for e in verdict["evidence"] if e != "every goal is met"])
        verdict["partial"] = not verdict["complete"] and "error" not in verdict and failed < goals
        return verdict

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_environment(env_id: str, home: str | Path | None = None, reward: RewardMapping | None = None) -> Environment:
    return Environment.from_store(ArtifactStore(home), env_id, reward)
