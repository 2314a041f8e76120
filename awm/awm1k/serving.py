"""Imported AWM-1K environments served by `awm serve` (streamable HTTP), beside ours, with the same sessions,
reservations and scores: awm.client works against them unchanged.

    ImportedEnvironments(store)      the EnvironmentSource given to RuntimeServer (awm/runtime/server.py): the
                                     catalog's awm1k lines, each environment loaded on first use
    ForeignEnvironment               one environment: one ForeignHost (the OS-isolated sandbox) with their app
                                     loaded once; what the server's EnvironmentService needs of an Environment
    ForeignEpisode                   one episode: its own copy of the database in the host; each call one route
                                     through ASGI there; its score is their verifier's verdict on it (and for a
                                     proven task, the outcome diff against its reference's footprint)

Calls of all episodes of one environment go through its one host, one at a time (the host runs one request at
a time; each request runs on its episode's database). A host that dies (a call over its time limit is ended
with it) loses its episodes' databases: their calls answer an error saying so, and the next new episode starts
a new host.
"""

from __future__ import annotations

import itertools
import logging
import tempfile
import threading
from pathlib import Path
from typing import Any

import anyio

from awm import artifacts
from awm.awm1k.importer import STAGE
from awm.awm1k.promotion import outcome, row_diff
from awm.awm1k.runtime import CALL_SECONDS, ForeignCodeError, ForeignHost, Route
from awm.contracts import ForeignTask
from awm.errors import AWMError, CorruptArtifactError, UnprovenArtifactError
from awm.runtime.environment import RewardMapping, answer_text
from awm.runtime.server import ProvenFiles
from awm.runtime.tools import DEFAULT_CALL_MEMORY_MB, tool_error
from awm.store import ArtifactStore
from awm.toolspecs import without_omitted

log = logging.getLogger(__name__)

SERVED_TIERS = ("checked", "proven")
SERVED_FILES = (artifacts.AWM1K_APP.name, artifacts.DATABASE.name, artifacts.TOOLS_JSON.name, artifacts.AWM1K.name)


class ImportedFiles(ProvenFiles):
    """An imported environment's files, checked against what its import recorded (provenance.json, stage
    awm1k_environments) and watched while served; its tasks served are those awm1k.json says are checked or
    proven."""

    recorder = "its import recorded them"
    task_record = "its awm1k.json"
    task_verb = "hold as checked or proven"

    @property
    def rebuild(self) -> str:
        return "import it again (awm import-awm DIR --scenario ...) or restore the files"

    def recorded(self) -> dict[str, str]:
        try:
            record = self.store.provenance(self.env_id).get(STAGE)
        except CorruptArtifactError as exc:
            raise UnprovenArtifactError(f"{self.env_id} is not served: its provenance.json cannot be read") from exc
        if record is None:
            raise UnprovenArtifactError(f"{self.env_id} is not served: no import is recorded for it "
                                        f"(provenance.json has no {STAGE} record)")
        uncovered = [name for name in SERVED_FILES if name not in record.outputs]
        if uncovered:
            raise UnprovenArtifactError(f"{self.env_id} is not served: its import did not write "
                                        f"{', '.join(uncovered)}")
        return {name: record.outputs[name] for name in SERVED_FILES}

    def served_tasks(self) -> set[str]:
        manifest = artifacts.AWM1K.read(self.store, self.env_id)
        if manifest.status != "checked":
            return set()
        return {t.task_id for t in manifest.tasks if t.tier in SERVED_TIERS}


class ForeignEpisode:
    """One episode of an imported environment (the surface of awm.runtime.environment.Episode the server
    uses): calls run on its own database copy in the host; `ascore` is their verifier's verdict."""

    def __init__(self, env: ForeignEnvironment, task: ForeignTask | None, name: str, generation: int):
        self.env, self.task, self.name, self.generation = env, task, name, generation
        self.calls = 0
        self.tool_errors = 0
        self.closed = False

    def _counted(self, result: Any) -> Any:
        if isinstance(result, dict) and set(result) == {"error"}:
            self.tool_errors += 1
        return result

    def call(self, tool: str, arguments: dict | None = None) -> Any:
        """One route: its JSON answer, or a structured error (an HTTP status of 400 and up, an unknown tool or
        argument, a host that died)."""
        self.calls += 1
        return self._counted(self.env.call(self, tool, arguments or {}))

    async def acall(self, tool: str, arguments: dict | None = None) -> Any:
        return await anyio.to_thread.run_sync(self.call, tool, arguments)

    def score(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        """{"reward", "complete", "verdict", "evidence", "error", "diff", "calls", "tool_errors"}: their
        verify_task_completion on read-only copies of the initial database and this episode's, with `answer`
        as final_answer. No outcome diff exists for their tasks: `diff` is None."""
        task = self.env.task(task_id) if task_id is not None else self.task
        if task is None:
            raise ValueError("this episode was opened without a task; name the task to judge against")
        verdict = self.env.verify(self, task, answer_text(answer))
        complete = verdict.get("verdict") == "complete"
        evidence = list(verdict.get("evidence") or [f"their verifier: {verdict.get('verdict') or verdict.get('error')}"])
        diff = None
        if task.tier == "proven" and task.footprint is not None:  # the outcome diff, as for our proven tasks
            diff = self.env.outcome(self, task.footprint)
            if not diff["matches"]:
                complete = False
                evidence.append(f"outcome: {diff['unexpected']} row change(s) the reference does not make, "
                                f"{diff['missing']} of its changes missing")
        judged = {"complete": complete, "evidence": evidence}
        return {"reward": self.env.reward.reward(judged), "complete": complete, "verdict": verdict.get("verdict"),
                "evidence": evidence, "error": verdict.get("error"), "diff": diff, "calls": self.calls,
                "tool_errors": self.tool_errors}

    async def ascore(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        return await anyio.to_thread.run_sync(self.score, answer, task_id)

    def snapshot(self) -> bytes:
        return self.env.snapshot(self)

    async def asnapshot(self) -> bytes:
        return await anyio.to_thread.run_sync(self.snapshot)

    def close(self) -> None:
        """Free the episode's database in the host (without waiting for a call in flight: later, if need be)."""
        if not self.closed:
            self.closed = True
            self.env.forget(self)


class ForeignEnvironment:
    """An imported environment served from one ForeignHost: their app loaded once, an episode per database."""

    foreign = True  # its tools are published as their app describes them where they have no strict form

    def __init__(self, store: ArtifactStore, env_id: str, task_ids: list[str], reward: RewardMapping | None = None,
                 isolation: str | None = None, memory_mb: float | None = DEFAULT_CALL_MEMORY_MB,
                 call_seconds: float = CALL_SECONDS):
        """`call_seconds`: the deadline of one call or verifier run; past it the host is ended (and with it the
        databases of the environment's open episodes)."""
        self.env_id = env_id
        self.call_seconds = call_seconds
        manifest = artifacts.AWM1K.read(store, env_id)
        self._tasks = {t.task_id: t for t in manifest.tasks if t.task_id in task_ids}
        self.code = artifacts.AWM1K_APP.read(store, env_id)
        self.db_path = artifacts.DATABASE.path(store, env_id)
        self.reward = reward or RewardMapping()
        self.isolation, self.memory_mb = isolation, memory_mb
        self._lock = threading.Lock()  # one request at a time to the host
        self._host: ForeignHost | None = None
        self._generation = 0
        self._names = itertools.count(1)
        self._closing: list[str] = []  # episodes closed while a request was in flight
        self._routes: dict[str, Route] = {}
        self._specs: list[dict] = []
        self._closed = False
        with self._lock:
            self._start()

    def _start(self) -> ForeignHost:
        """A new host with the app loaded (under the lock)."""
        if self._closed:
            raise AWMError(f"{self.env_id}: the environment was closed")
        if self._host is not None:
            self._host.close()
        self._host = None
        host = ForeignHost.start(self.isolation, memory_mb=self.memory_mb)
        try:
            routes = host.load(self.code, self.db_path)
        except BaseException:
            host.close()
            raise
        self._routes = {r.tool: r for r in routes}
        self._specs = [r.spec() for r in routes]
        self._generation += 1
        self._closing.clear()
        self._host = host
        return host

    # what EnvironmentService reads ------------------------------------------------------------------------
    @property
    def tasks(self) -> list[ForeignTask]:
        return list(self._tasks.values())

    def task(self, task_id: str) -> ForeignTask:
        task = self._tasks.get(task_id)
        if task is None:
            raise KeyError(f"{self.env_id} serves no task {task_id!r}; served: {', '.join(self._tasks)}")
        return task

    def tools_for(self, task_id: str | None) -> list[dict]:
        return self._specs

    def reset(self, task_id: str | None = None) -> ForeignEpisode:
        """A new episode on a fresh copy of the initial database (a new host first if the last one died)."""
        task = self.task(task_id) if task_id is not None else None
        name = f"e{next(self._names)}"
        with self._lock:
            host = self._host if self._host is not None and self._host.process.poll() is None else self._start()
            self._flush(host)
            host.open_episode(name)
            return ForeignEpisode(self, task, name, self._generation)

    async def areset(self, task_id: str | None = None, unreserved: bool = False) -> ForeignEpisode:
        return await anyio.to_thread.run_sync(self.reset, task_id)

    # requests of an episode --------------------------------------------------------------------------------
    def _live_host(self, episode: ForeignEpisode) -> ForeignHost:
        """The host holding the episode's database (under the lock), or ForeignCodeError."""
        if episode.closed:
            raise ForeignCodeError(f"episode {episode.name} is closed")
        host = self._host
        if host is None or episode.generation != self._generation or host.process.poll() is not None:
            raise ForeignCodeError("the environment's sandboxed host ended (a call over its time limit ends it) and "
                                   "this episode's database with it; reserve another episode")
        self._flush(host)
        return host

    def _flush(self, host: ForeignHost) -> None:
        while self._closing:
            host.close_episode(self._closing.pop())

    def call(self, episode: ForeignEpisode, tool: str, arguments: dict) -> Any:
        route = self._routes.get(tool)
        if route is None:
            return tool_error("unknown_tool", f"no tool {tool!r}; the tools are {', '.join(sorted(self._routes))}")
        if not isinstance(arguments, dict):
            return tool_error("invalid_arguments", "the arguments must be an object")
        arguments = without_omitted(route.input_schema, arguments)  # a strict client's nulls: not given
        with self._lock:
            try:
                answer = self._live_host(episode).call_tool(tool, arguments, self.call_seconds, episode.name)
            except ForeignCodeError as exc:
                return tool_error("call_failed", str(exc)[:1000])
        status, body = int(answer["status"]), answer.get("body")
        if status >= 400:
            detail = body.get("detail", body.get("error")) if isinstance(body, dict) else body
            message = detail if isinstance(detail, str) else f"HTTP {status}"
            return tool_error(f"http_{status}", message[:1000], status=status, body=body)
        return body

    def verify(self, episode: ForeignEpisode, task: ForeignTask, answer: str | None) -> dict:
        if not task.verifier:
            raise AWMError(f"{self.env_id} {task.task_id} has no verifier")
        with self._lock:
            return self._live_host(episode).verify(task.verifier, answer=answer, seconds=self.call_seconds,
                                                   episode=episode.name)

    def snapshot(self, episode: ForeignEpisode) -> bytes:
        with self._lock:
            return self._live_host(episode).snapshot(episode=episode.name)

    def outcome(self, episode: ForeignEpisode, footprint: dict) -> dict:
        """The episode's rows changed, against a proven task's footprint (read here: SQLite files only)."""
        with tempfile.TemporaryDirectory(prefix="awm1k-outcome-") as scratch:
            final = Path(scratch) / "final.db"
            final.write_bytes(self.snapshot(episode))
            return outcome(row_diff(self.db_path, final), footprint)

    def forget(self, episode: ForeignEpisode) -> None:
        if episode.generation != self._generation:
            return
        if self._lock.acquire(blocking=False):
            try:
                host = self._host
                if host is not None and host.process.poll() is None:
                    self._flush(host)
                    host.close_episode(episode.name)
            except ForeignCodeError as exc:
                log.warning("%s: closing episode %s: %s", self.env_id, episode.name, exc)
            finally:
                self._lock.release()
        else:
            self._closing.append(episode.name)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._host is not None:
                self._host.close()
                self._host = None


class ImportedEnvironments:
    """The EnvironmentSource of imported AWM-1K environments (awm/runtime/server.py): the catalog's lines of
    origin awm1k with a served tier, each environment loaded in its own ForeignHost on first use."""

    def __init__(self, store: ArtifactStore, isolation: str | None = None,
                 memory_mb: float | None = DEFAULT_CALL_MEMORY_MB, call_seconds: float = CALL_SECONDS):
        self.store, self.isolation, self.memory_mb, self.call_seconds = store, isolation, memory_mb, call_seconds
        self.loaded: list[ForeignEnvironment] = []

    def catalog(self) -> dict[str, list[str]]:
        catalog: dict[str, list[str]] = {}
        if not self.store.catalog_path.exists():
            return catalog
        for entry in self.store.iter_catalog(torn=[]):
            if entry.get("origin") == "awm1k" and entry.get("tier") in SERVED_TIERS and \
                    isinstance(entry.get("env_id"), str) and isinstance(entry.get("task_id"), str):
                catalog.setdefault(entry["env_id"], []).append(entry["task_id"])
        return catalog

    def load(self, env_id: str, task_ids: list[str], reward: RewardMapping | None) -> tuple[ForeignEnvironment,
                                                                                             ImportedFiles]:
        files = ImportedFiles(self.store, env_id, task_ids)
        env = ForeignEnvironment(self.store, env_id, task_ids, reward, self.isolation, self.memory_mb,
                                 self.call_seconds)
        self.loaded.append(env)
        return env, files

    def close(self) -> None:
        for env in self.loaded:
            env.close()
        self.loaded.clear()
