"""The sandbox worker pool: where episodes live and generated code runs, out of the caller's process.

Each worker (awm/runtime/worker.py) is a process holding the databases of the
episodes placed on it; requests to it are pipelined and answered in order.
Answers are read by a thread per worker, or, while a server's event loop is
attached (`await pool.attach()`), by that loop itself: a busy loop and reader
threads would hand the GIL back and forth for every answer, which caps
throughput once hundreds of sessions call at once. Requests are written without
blocking (an outbox drains as the pipe accepts), so a loop never stalls on a
full pipe.

The reader is also the watchdog: when the request at the head of a worker's
queue runs past its deadline plus a grace period (code the in-worker timer
cannot interrupt, such as a C-level loop), the worker is killed. Whatever the
cause of a worker's death, a successor is started and every episode that lived
there is rebuilt by replaying its logged calls on a fresh copy (tools are
deterministic functions of the database), then the requests that were waiting
are resent. Only the request that was running fails, as a `timeout` or
`sandbox_crashed` tool error; every other episode carries on as if nothing
happened. If the successor cannot be started (too many open files, the memory
of the machine), the worker is down: it takes no work, its episodes are rebuilt
the same way on the other workers, the log says so and `stats()` counts it, and
its restart is tried again with a growing delay until it comes back.

Memory is bounded three ways: each episode's database has a size cap (in the
worker); each episode's log of calls kept for those rebuilds has a cap (here: a
call that would pass it is refused, not run); and each worker has a
resident-memory ceiling: a worker over it is recycled (a successor rebuilds its
episodes, exactly, since generated code keeps no state between calls), unless
its episodes' databases alone fill it, in which case it takes no new episodes
until some close. Under OS isolation, where the machine allows it, the kernel
holds each worker too: a cgroup of its own limits its processes and memory
(awm/runtime/cgroups.py).
"""

from __future__ import annotations

import asyncio
import atexit
import base64
import fcntl
import functools
import hashlib
import itertools
import json
import logging
import marshal
import os
import select
import signal
import subprocess
import threading
import time
import uuid
from collections import OrderedDict
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.errors import AWMError, UnsafeCodeError
from awm.runtime.cgroups import WorkerCgroups, memory_limit
from awm.runtime.db import DEFAULT_EPISODE_DB_MB
from awm.runtime.isolation import SCRATCH_BYTES, Isolation, IsolationUnavailable, process_id, start_python
from awm.runtime.isolation import resolve as resolve_isolation
from awm.runtime.sandbox import SWALLOWED_EXIT, compile_checked
from awm.runtime.tools import DEFAULT_CALL_MEMORY_MB, DEFAULT_CALL_SECONDS, is_error, tool_error
from awm.runtime.verify import VERIFY_SECONDS
from awm.runtime.worker import MAX_FRAME_BYTES, FrameReader, WorkerLimits, encode_frame

log = logging.getLogger(__name__)

KILL_GRACE_SECONDS = 1.0
CPU_STOPS = (-signal.SIGPROF, -signal.SIGXCPU)  # exit codes of a worker the kernel ended for its CPU time
ADMIN_OP_SECONDS = 30.0  # load, open, snapshot, close: our own code, generous
START_SECONDS = 60.0
MAX_IMAGE_BYTES = (MAX_FRAME_BYTES - (1 << 20)) // 4 * 3  # a database file, base64 in one frame with room to spare
WATCH_SECONDS = 0.25  # how often an idle reader looks at the deadline of the request at the head
DEFAULT_WORKER_MEMORY_MB = 1024
DEFAULT_EPISODE_LOG_MB = 8
# Recycling a worker over its ceiling helps only if a fresh one, holding the same databases, would be
# well below it; otherwise the worker is full (it takes no new episodes) rather than recycled in a loop.
RECYCLE_BELOW = 0.75
# Seconds between attempts to restart a worker whose successor failed to start (the last one repeats).
RESTART_BACKOFF_SECONDS = (0.1, 0.5, 2.0, 5.0, 10.0, 30.0)
LAST_WORKER_RETRIES = 3  # the last live worker tries this many more times before its episodes are lost

AnyFuture = Future | asyncio.Future


class SandboxError(AWMError):
    """The sandbox worker could not do what was asked (not a tool's error: those are results)."""


class QuotaExceeded(SandboxError):
    """The unreserved episodes of a worker hold their memory quota: no new one is opened there now."""


class WorkerDown(SandboxError):
    """The worker asked is down (its restart failed): the request was not placed; another worker may take it."""


@dataclass(eq=False)
class EpisodeRecord:
    """The pool's view of one episode: where it lives and how to rebuild it."""

    id: int
    env_key: str
    worker: _Worker
    log: list[tuple[str, str]] = field(default_factory=list)  # calls that succeeded, in order (arguments as JSON)
    log_bytes: int = 0
    log_pending: int = 0  # arguments of calls sent and not yet answered: counted against the log's cap too
    opened: bool = False
    lost: str | None = None
    closed: bool = False
    unreserved: bool = False  # its database counts against the workers' quota for unreserved episodes
    acting: int | None = None  # a party's own episode: the party's id (the tools refuse writes on others' rows)


@dataclass(eq=False)
class _Request:
    id: int
    message: dict
    future: AnyFuture
    limit: float  # seconds the worker may spend on it before it is killed
    episode: EpisodeRecord | None = None
    internal: bool = False  # a load, a restore or a replay: nobody waits on it
    rebuild: bool = False  # part of rebuilding an episode on a successor
    logged: str | None = None  # a call's arguments as JSON, for the episode's log once it succeeds


@dataclass
class _Payload:
    program: str  # the tools module, checked and compiled (marshal, base64)
    filename: str
    names: list[str]
    db: str
    owned: dict[str, list[list[str]]] = field(default_factory=dict)  # tool -> [[argument, owner query]]
    representative: str | None = None  # the query of whom a party names as representative


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _settle(future: AnyFuture, outcome: tuple[bool, Any]) -> None:
    """Resolve a waiter's future from any thread; an asyncio future is resolved on its own loop."""
    if isinstance(future, asyncio.Future):
        loop = future.get_loop()
        if _running_loop() is not loop:
            if not loop.is_closed():
                loop.call_soon_threadsafe(_settle, future, outcome)
            return
    if future.done():  # an asyncio waiter may have been cancelled
        return
    ok, value = outcome
    if ok:
        future.set_result(value)
    else:
        future.set_exception(value)


class _Worker:
    def __init__(self, pool: WorkerPool, index: int):
        self.pool = pool
        self.index = index
        self.lock = threading.Lock()
        self.pending: OrderedDict[int, _Request] = OrderedDict()
        self.loaded: set[str] = set()
        self.episodes: dict[int, EpisodeRecord] = {}
        self.head_started = 0.0
        self.restarts = 0
        self.kills = 0
        self.recycles = 0
        self.full = False  # over its memory ceiling with the episodes it holds: it takes no new ones
        self.down = False  # its process died and no successor could be started: it takes no work at all
        self.restarting = False  # its process died and a successor is being started
        self.failed_starts = 0
        self._wake = threading.Event()  # set by close: a worker waiting to try a restart again stops waiting
        self._evacuated = threading.Event()  # down, its episodes have moved to other workers
        self._evacuated.set()
        self._recycling: dict | None = None  # the memory notice it is being recycled for
        self._last_was_rebuild = False  # the last answer was to a request rebuilding an episode
        self.proc: subprocess.Popen | None = None
        self.write_fd = -1
        self.reader: FrameReader | None = None
        self._outbox = bytearray()
        self._killed: int | None = None
        self._closing = False
        self._started = threading.Event()
        self._start_error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, name=f"awm-sandbox-{index}", daemon=True)
        # while an event loop reads for this worker, the thread waits
        self._loop: asyncio.AbstractEventLoop | None = None
        self._parked = threading.Event()
        self._resume = threading.Event()
        self._watch_handle: asyncio.TimerHandle | None = None
        self._writer_registered = False

    # process ------------------------------------------------------------------------

    def _spawn(self) -> None:
        """Start a worker process and wait for its greeting."""
        self._install(*self._start_process())

    def _start_process(self) -> tuple[subprocess.Popen, int, FrameReader]:
        """A new worker process, greeted: (process, request pipe, answer reader). Touches no worker state."""
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        limits = json.dumps(vars(self.pool.limits))
        isolation = self.pool.isolation_for_start()
        try:
            proc = start_python(isolation,
                                ["-m", "awm.runtime.worker", str(request_r), str(answer_w), limits],
                                pass_fds=(request_r, answer_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        finally:
            os.close(request_r)
            os.close(answer_w)
        reader = FrameReader(answer_r)
        hello = reader.read(timeout=START_SECONDS)
        if not isinstance(hello, bytes):
            proc.kill()
            proc.wait()
            os.close(answer_r)
            os.close(request_w)
            raise SandboxError(f"sandbox worker {self.index} did not start (exit code {proc.poll()})")
        if isolation.mode == "os":
            self._enter_cgroup(proc)
        os.set_blocking(request_w, False)  # writes go through the outbox and never block a caller
        fcntl.fcntl(request_w, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
        fcntl.fcntl(answer_r, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
        return proc, request_w, reader

    def _enter_cgroup(self, proc: subprocess.Popen) -> None:
        """Put the worker (greeted: it runs) into its slot's cgroup; any failure leaves it running without."""
        try:
            pid = process_id(proc)
            if pid == proc.pid:
                self.pool.cgroups.refuse(self.index, "its pid inside bubblewrap was not found")
            else:
                self.pool.cgroups.attach(self.index, pid)
        except Exception as exc:  # noqa: BLE001 - the limits are a layer more, never a reason not to start
            self.pool.cgroups.refuse(self.index, f"{type(exc).__name__}: {exc}")

    def _install(self, proc: subprocess.Popen, write_fd: int, reader: FrameReader) -> None:
        self.proc, self.write_fd, self.reader = proc, write_fd, reader
        self.loaded = set()
        self._killed = None
        self._recycling = None
        self._last_was_rebuild = False
        self.full = False

    def _discard_process(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
        for fd in (self.write_fd, self.reader.fd if self.reader else -1):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.proc, self.reader, self.write_fd = None, None, -1
        self._outbox.clear()

    # writing (callers hold self.lock) ---------------------------------------------------

    def _send(self, request: _Request) -> None:
        if not self.pending:
            self.head_started = time.monotonic()
        self.pending[request.id] = request
        self._outbox += encode_frame(json.dumps({"id": request.id, **request.message}).encode("utf-8"))
        self._flush()

    def _flush(self) -> None:
        if self.write_fd < 0:  # no process (being restarted): what is pending is resent to its successor
            self._outbox.clear()
            return
        while self._outbox:
            try:
                written = os.write(self.write_fd, self._outbox)
            except BlockingIOError:
                break
            except OSError:  # the worker died; its successor gets what is pending
                self._outbox.clear()
                return
            del self._outbox[:written]
        if self._outbox and self._loop is not None and not self._writer_registered:
            self._writer_registered = True
            self._loop.call_soon_threadsafe(self._watch_writes)

    def _ensure_loaded(self, env_key: str) -> None:
        if env_key in self.loaded:
            return
        payload = self.pool.payload(env_key)
        message = {"op": "load", "env": env_key, "program": payload.program, "filename": payload.filename,
                   "names": payload.names, "image": database_image(payload.db), "owned": payload.owned,
                   "representative": payload.representative}
        self._send(_Request(self.pool.next_id(), message, Future(), ADMIN_OP_SECONDS, internal=True))
        self.loaded.add(env_key)

    def _try_load(self, env_key: str) -> bool:
        try:
            self._ensure_loaded(env_key)
        except SandboxError:
            return False
        return True

    def submit(self, message: dict, limit: float, episode: EpisodeRecord | None = None,
               loop: asyncio.AbstractEventLoop | None = None, logged: str | None = None) -> AnyFuture:
        future: AnyFuture = loop.create_future() if loop is not None else Future()
        with self.lock:
            if self._closing:
                raise SandboxError("the sandbox pool is closed")
            moved = episode.worker if episode is not None and episode.worker is not self else None
            moving = self.down and moved is None and episode is not None and not self._evacuated.is_set()
            if self.down and moved is None and not moving:
                raise WorkerDown(f"sandbox worker {self.index} is down")
            if moved is None and not moving:
                env_key = message.get("env") or (episode.env_key if episode else None)
                if env_key is not None:
                    self._ensure_loaded(env_key)
                self._send(_Request(self.pool.next_id(), message, future, limit, episode, logged=logged))
                return future
        if moving:  # its episodes are being moved to other workers: this one's new place is known in a moment
            self._evacuated.wait(ADMIN_OP_SECONDS)
            if episode.worker is self:
                raise WorkerDown(f"sandbox worker {self.index} is down and episode {episode.id} found no other")
            moved = episode.worker
        return moved.submit(message, limit, episode, loop, logged)  # the episode was rebuilt there meanwhile

    # reading: shared -------------------------------------------------------------------

    def _check_deadline(self) -> float:
        """Kill the worker if the request at the head ran too long; seconds until the next look (lock held)."""
        if not self.pending or self._killed is not None or self.proc is None:
            return WATCH_SECONDS
        head = next(iter(self.pending.values()))
        remaining = self.head_started + head.limit - time.monotonic()
        if remaining > 0:
            return min(WATCH_SECONDS, remaining)
        self._killed = head.id
        self.kills += 1
        log.warning("sandbox worker %d: %s ran past %.1f s; stopping the worker", self.index, head.message.get("op"),
                    head.limit)
        self.proc.send_signal(signal.SIGKILL)
        return WATCH_SECONDS

    def _take_frames(self, chunk: bytes) -> None:
        self.reader.feed(chunk)
        while (frame := self.reader.take()) is not None:
            try:
                self._on_answer(json.loads(frame))
            except (ValueError, KeyError, TypeError):
                log.exception("sandbox worker %d sent an unreadable answer; replacing it", self.index)
                self.proc.kill()

    def _on_answer(self, answer: dict) -> None:
        if "memory" in answer:
            self._on_memory_notice(answer)
            return
        with self.lock:
            request = self.pending.pop(answer["id"], None)
            self.head_started = time.monotonic()
            if request is None:
                return
            self._last_was_rebuild = request.rebuild
            outcome = self._record(request, answer)
        _settle(request.future, outcome)

    def _on_memory_notice(self, notice: dict) -> None:
        """The worker is over its ceiling ("over") or back under it ("ok"): recycle it, or mark it full.

        Recycling drops what a successor does not rebuild: memory kept for episodes since closed,
        judgements, replays, fragments. If the worker went over while rebuilding its episodes, or its
        databases alone fill it, a successor would be over too: it is marked full instead, and takes
        no new episodes until it reports being under again or something it held was closed.
        """
        ceiling = self.pool.worker_memory_mb
        with self.lock:
            if notice["memory"] != "over":
                self.full = False
                return
            rss, held = notice["rss"] / 2 ** 20, notice["held"] / 2 ** 20
            rebuilding = self._last_was_rebuild or any(r.rebuild for r in self.pending.values())
            if self._recycling is None and not rebuilding and held < ceiling * RECYCLE_BELOW:
                log.warning("sandbox worker %d holds %.0f MiB, over its ceiling of %g MiB (its databases: about "
                            "%.0f MiB); recycling it", self.index, rss, ceiling, held)
                self._recycling = notice
                self._outbox += encode_frame(b'{"op":"recycle"}')  # what is sent after it goes to the successor
                self._flush()
                return
            self.full = True
            why = "its episodes' calls regrew it while they were rebuilt" if rebuilding else \
                f"about {held:.0f} MiB of it is what it needs to hold its {notice['episodes']} episode(s)"
            log.warning("sandbox worker %d holds %.0f MiB, over its ceiling of %g MiB, and %s: it takes no new "
                        "episodes until some close", self.index, rss, ceiling, why)

    def _record(self, request: _Request, answer: dict) -> tuple[bool, Any]:
        """Update episode state from an answer (under the lock); return (ok, result or exception)."""
        op, episode = request.message["op"], request.episode
        self.pool._release_log(request)
        if not answer["ok"]:
            error = answer["error"]
            exc_type = {"UnsafeCodeError": UnsafeCodeError, "QuotaError": QuotaExceeded}.get(error["type"],
                                                                                            SandboxError)
            if request.internal:
                log.warning("sandbox worker %d: internal %s failed: %s: %s", self.index, op, error["type"],
                            error["message"])
                if episode is not None:
                    episode.lost = f"could not be rebuilt: {error['message']}"
            if op == "open" and episode is not None:
                self.episodes.pop(episode.id, None)
            return False, exc_type(error["message"] if exc_type is not SandboxError
                                   else f"{op} failed in the sandbox: {error['type']}: {error['message']}")
        result = answer["result"]
        if episode is not None:
            if op == "open":
                episode.opened = True
            elif op == "call" and not request.internal and not is_error(result):
                episode.log.append((request.message["tool"], request.logged))
                episode.log_bytes += len(request.logged)
        return True, result

    def _on_death(self) -> None:
        """Start a successor, rebuild the episodes that lived here, resend what was waiting. If no successor
        starts, the worker is down: its episodes are rebuilt on the other workers, what waited goes there,
        and the restart is tried again with a growing delay (this thread waits for it)."""
        code = self.proc.wait() if self.proc is not None else None
        with self.lock:
            waiting = list(self.pending.values())
            self.pending.clear()
            # asked to, it exited before reading what is waiting (if it died otherwise, the head is the culprit)
            recycled = self._recycling is not None and code == 0
            culprit = waiting.pop(0) if waiting and not recycled else None
            # stopped at its deadline: by us (SIGKILL), by the kernel at the end of its CPU-time budget (SIGPROF;
            # SIGXCPU, were a CPU-time limit set), or by itself because the code ran on after its deadline, having
            # caught the timeout (SWALLOWED_EXIT)
            swallowed = culprit is not None and code == SWALLOWED_EXIT
            killed = culprit is not None and (self._killed == culprit.id or code in CPU_STOPS or swallowed)
            self._discard_process()
            self.loaded = set()
            self.restarting = True
        if culprit is not None and culprit.internal and culprit.episode is not None:
            culprit.episode.lost = "its sandbox process died while rebuilding it"
        started, error = self._restart()
        settled: list[tuple[AnyFuture, tuple[bool, Any]]] = []
        evacuated: list[EpisodeRecord] | None = None
        with self.lock:
            self.restarting = False
            waiting += list(self.pending.values())  # sent while it was being restarted
            self.pending.clear()
            if self._closing:
                if started is not None:
                    self._install(*started)
                    self._discard_process()
                settled = [(r.future, (False, SandboxError("the sandbox pool was closed"))) for r in waiting]
            elif started is not None:
                self._install(*started)
                self.restarts += 1
                if recycled:
                    self.recycles += 1
                    log.warning("sandbox worker %d recycled; rebuilding %d episode(s)", self.index, len(self.episodes))
                else:
                    log.warning("sandbox worker %d %s (exit code %s) while running %s; restarted, rebuilding %d "
                                "episode(s)", self.index, "was stopped" if killed else "died", code,
                                culprit.message.get("op") if culprit else "nothing", len(self.episodes))
                for episode in list(self.episodes.values()):
                    self._rebuild(episode)
                settled = self._resend(waiting)
            else:
                self.down = True
                self.failed_starts += 1
                self._evacuated.clear()
                evacuated = list(self.episodes.values())
                self.episodes.clear()
                log.error("sandbox worker %d %s (exit code %s) and could not be restarted: %s; it takes no work, "
                          "its %d episode(s) are rebuilt on the other workers, and its restart is tried again",
                          self.index, "was stopped" if killed else "died", code, error, len(evacuated))
        if evacuated is not None:
            try:
                settled = self.pool._evacuate(self, evacuated, waiting, error)
            finally:
                self._evacuated.set()
        for future, outcome in settled:
            _settle(future, outcome)
        if culprit is not None:
            self.pool._release_log(culprit)
            _settle(culprit.future, _culprit_outcome(culprit, killed, swallowed))
        if self.down:
            self._revive()

    def _restart(self) -> tuple[tuple | None, BaseException | None]:
        """A successor process, or the error that kept it from starting. Outside the lock: requests for its
        episodes queue meanwhile, and go to whoever holds them next. While another worker is live a failure
        is final here (the episodes move there at once); the last live worker tries again a few times first."""
        error: BaseException | None = None
        for attempt in range(1 + len(RESTART_BACKOFF_SECONDS[:LAST_WORKER_RETRIES])):
            if attempt:
                if any(not w.down and w is not self for w in self.pool._workers):
                    break
                self.failed_starts += 1
                delay = RESTART_BACKOFF_SECONDS[attempt - 1]
                log.warning("sandbox worker %d could not be restarted (%s); trying again in %g s", self.index, error,
                            delay)
                if self._wake.wait(delay):
                    break
            if self._closing:
                break
            try:
                return self._start_process(), None
            except (SandboxError, OSError) as exc:
                error = exc
        return None, error

    def _rebuild(self, episode: EpisodeRecord) -> None:
        """Queue what makes `episode` here again: a fresh copy, then every call of its log (lock held)."""
        if not episode.opened or episode.lost or episode.closed:
            return
        if not self._try_load(episode.env_key):
            episode.lost = "its environment was closed"
            return
        message = {"op": "open", "episode": episode.id, "env": episode.env_key, "acting": episode.acting}
        if episode.unreserved:
            message.update(unreserved=True, rebuild=True)  # it held its place in the quota already
        self._send(_Request(self.pool.next_id(), message, Future(), ADMIN_OP_SECONDS, episode, internal=True,
                            rebuild=True))
        for tool, arguments in episode.log:
            message = {"op": "call", "episode": episode.id, "tool": tool, "arguments": json.loads(arguments),
                       "seconds": self.pool.call_seconds, "memory": self.pool.memory_bytes}
            self._send(_Request(self.pool.next_id(), message, Future(), self.pool.call_limit, episode,
                                internal=True, rebuild=True))

    def _resend(self, requests: list[_Request]) -> list[tuple[AnyFuture, tuple[bool, Any]]]:
        """Send again what waited on a dead process, after its episodes were rebuilt here (lock held); the
        futures to settle instead (episodes lost, environments closed). A load is redone as needed, and a
        step of a rebuild was already redone by `_rebuild`."""
        settled = []
        for request in requests:
            if request.message["op"] == "load" or request.rebuild:
                continue
            if _is_lost(request):
                settled.append((request.future, (True, _episode_lost(request))))
                continue
            env_key = request.message.get("env") or (request.episode.env_key if request.episode else None)
            if env_key is not None and not self._try_load(env_key):
                settled.append((request.future, (False, SandboxError(f"environment {env_key} was closed"))))
                continue
            self._send(request)
        return settled

    def _revive(self) -> None:
        """Try to start the down worker again, waiting longer after each failure, until it starts or the pool
        closes; started, it takes new work (the episodes it held live elsewhere now)."""
        for attempt in itertools.count():
            delay = RESTART_BACKOFF_SECONDS[min(attempt, len(RESTART_BACKOFF_SECONDS) - 1)]
            if self._wake.wait(delay) or self._closing:
                return
            try:
                started = self._start_process()
            except (SandboxError, OSError) as exc:
                self.failed_starts += 1
                log.error("sandbox worker %d is still down: its restart failed again (%s); next try in %g s",
                          self.index, exc, RESTART_BACKOFF_SECONDS[min(attempt + 1, len(RESTART_BACKOFF_SECONDS) - 1)])
                continue
            with self.lock:
                self._install(*started)
                if self._closing:
                    self._discard_process()
                    return
                self.down = False
                self.restarts += 1
            log.warning("sandbox worker %d restarted after %d failed attempt(s); it takes work again", self.index,
                        attempt + 1)
            return

    # reading: the thread -----------------------------------------------------------------

    def _run(self) -> None:
        try:
            self._spawn()
        except BaseException as exc:  # noqa: BLE001 - reported to the thread that started the pool
            self._start_error = exc
            self._started.set()
            return
        self._started.set()
        while True:
            if self._loop is not None and not self._closing:  # an event loop reads for us: wait until it lets go
                self._parked.set()
                self._resume.wait()
                self._resume.clear()
                self._parked.clear()
                continue
            reader = self.reader
            if reader is None:  # down, and restarted by the thread that found it dead (attached to a loop)
                if self._wake.wait(WATCH_SECONDS) or self._closing:
                    return
                continue
            with self.lock:
                if self._closing:
                    return
                timeout = self._check_deadline()
                writes = [self.write_fd] if self._outbox else []
            try:
                readable, writable, _ = select.select([reader.fd], writes, [], timeout)
            except (OSError, ValueError):  # its process was discarded meanwhile
                continue
            if writable:
                with self.lock:
                    self._flush()
            if not readable:
                continue
            try:
                chunk = os.read(self.reader.fd, 1 << 16)
            except OSError:
                chunk = b""  # closed under us by `close`
            if chunk:
                self._take_frames(chunk)
            elif self._closing:
                return
            else:
                self._on_death()

    # reading: an event loop ----------------------------------------------------------------

    def _attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """In the loop's thread, after the reader thread parked."""
        loop.add_reader(self.reader.fd, self._on_readable)
        self._watch_handle = loop.call_later(WATCH_SECONDS, self._watch)
        with self.lock:
            if self._outbox and not self._writer_registered:
                self._writer_registered = True
                loop.add_writer(self.write_fd, self._on_writable)

    def _detach(self) -> None:
        loop = self._loop
        if loop is None:
            return
        if self.reader is not None:
            loop.remove_reader(self.reader.fd)
        if self._writer_registered and self.write_fd >= 0:
            loop.remove_writer(self.write_fd)
        self._writer_registered = False
        if self._watch_handle is not None:
            self._watch_handle.cancel()
        self._loop = None
        self._resume.set()

    def _on_readable(self) -> None:
        try:
            chunk = os.read(self.reader.fd, 1 << 16)
        except BlockingIOError:
            return
        if chunk:
            self._take_frames(chunk)
            return
        loop = self._loop
        loop.remove_reader(self.reader.fd)
        if self._writer_registered:
            loop.remove_writer(self.write_fd)
            self._writer_registered = False
        if not self._closing:  # starting a successor blocks (a down worker waits to retry): keep it off the loop
            threading.Thread(target=self._die_then_resume, args=(loop,), name=f"awm-sandbox-{self.index}-restart",
                             daemon=True).start()

    def _die_then_resume(self, loop: asyncio.AbstractEventLoop) -> None:
        self._on_death()
        if not self._closing and not loop.is_closed():
            loop.call_soon_threadsafe(self._resume_on_loop, loop)

    def _resume_on_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._loop is loop and not self._closing and self.reader is not None:
            loop.add_reader(self.reader.fd, self._on_readable)
            self._watch_writes()

    def _watch(self) -> None:
        with self.lock:
            delay = self._check_deadline()
        if self._loop is not None:
            self._watch_handle = self._loop.call_later(delay, self._watch)

    def _watch_writes(self) -> None:
        with self.lock:
            if self._loop is None or not self._outbox:
                self._writer_registered = False
                return
            self._writer_registered = True
            self._loop.add_writer(self.write_fd, self._on_writable)

    def _on_writable(self) -> None:
        with self.lock:
            self._flush()
            if not self._outbox and self._writer_registered:
                self._loop.remove_writer(self.write_fd)
                self._writer_registered = False

    def close(self) -> None:
        self._wake.set()
        with self.lock:
            self._closing = True
            waiting = list(self.pending.values())
            self.pending.clear()
            self._outbox += encode_frame(b'{"op":"shutdown"}')
            self._flush()
        self._resume.set()
        for request in waiting:
            _settle(request.future, (False, SandboxError("the sandbox pool was closed")))
        if self.proc is not None:
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
        self.thread.join(timeout=2)
        self._discard_process()


def database_image(path: str | Path) -> str:
    """A database file as a worker receives it (base64): workers open no files, so under OS isolation they
    see none of the artifact root (awm/runtime/isolation.py)."""
    try:
        with open(path, "rb") as file:
            image = file.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise SandboxError(f"cannot read the database {path} for the sandbox: {exc}") from exc
    if len(image) > MAX_IMAGE_BYTES:
        raise SandboxError(f"the database {path} is larger than the {MAX_IMAGE_BYTES >> 20} MiB a sandbox worker "
                           "takes")
    return base64.b64encode(image).decode("ascii")


def _is_lost(request: _Request) -> bool:
    return request.episode is not None and request.episode.lost is not None


def _episode_lost(request: _Request) -> Any:
    reason = f"episode {request.episode.id} is lost: {request.episode.lost}"
    if request.message["op"] == "call":
        return tool_error("episode_lost", reason)
    return SandboxError(reason)


def _culprit_outcome(request: _Request, killed: bool, swallowed: bool = False) -> tuple[bool, Any]:
    op = request.message["op"]
    caught = " and caught the timeout" if swallowed else ""
    if op == "call":
        tool = request.message["tool"]
        if killed:
            return True, tool_error("timeout", f"{tool} ran longer than {request.message['seconds']:g} s{caught}; "
                                               "its sandbox process was stopped and the episode rebuilt without it")
        return True, tool_error("sandbox_crashed", f"{tool} crashed its sandbox process; the episode was rebuilt "
                                                   "without the call")
    if op == "judge":
        what = f"ran too long{caught}" if killed else "crashed its sandbox process"
        return True, {"complete": False, "evidence": [f"verifier {what}"], "error": "timeout" if killed else "crash"}
    if op == "replay":  # which call or judgement it was is unknown: every part is reported as stopped
        what = f"ran too long{caught} and its sandbox process was stopped" if killed else \
            "crashed its sandbox process"
        code = "timeout" if killed else "sandbox_crashed"
        results = [tool_error(code, f"the trajectory {what}; nothing of it was kept")
                   for _ in request.message["calls"]]
        stopped = {"complete": False, "evidence": [f"the trajectory {what}"], "error": "timeout" if killed else "crash"}
        verdicts = [dict(stopped) for _ in (request.message.get("judge") or {}).get("judgements", [])]
        return True, {"results": results, "verdicts": verdicts}
    return False, SandboxError(f"the sandbox process {'was stopped' if killed else 'died'} during {op}")


class WorkerPool:
    """Sandbox worker processes; environments are registered once and loaded where needed.

    Every request method returns a future: a `concurrent.futures.Future`, or an
    asyncio future of `loop` when one is given (what the async API passes).
    """

    def __init__(self, workers: int | None = None, call_seconds: float = DEFAULT_CALL_SECONDS,
                 memory_mb: int = DEFAULT_CALL_MEMORY_MB, verify_seconds: float = VERIFY_SECONDS,
                 kill_grace: float = KILL_GRACE_SECONDS, isolation: str | None = None,
                 worker_memory_mb: float = DEFAULT_WORKER_MEMORY_MB, episode_db_mb: float = DEFAULT_EPISODE_DB_MB,
                 episode_log_mb: float = DEFAULT_EPISODE_LOG_MB, unreserved_memory_mb: float | None = None):
        """`memory_mb` is one call's budget above what its worker holds; `worker_memory_mb` each worker's
        resident-memory ceiling; `episode_db_mb` each episode database's size cap; `episode_log_mb` the
        arguments of successful calls kept per episode to rebuild it after a worker dies;
        `unreserved_memory_mb` what the databases of a worker's unreserved episodes may hold together
        (default: half its ceiling), so they never take what reserved ones need. 0 means no cap."""
        if unreserved_memory_mb is None:
            unreserved_memory_mb = worker_memory_mb / 2
        count = workers if workers is not None else (os.cpu_count() or 1)
        if count < 1:
            raise ValueError(f"a sandbox pool needs at least one worker, not {count}")
        if call_seconds <= 0 or verify_seconds <= 0:
            raise ValueError("call and verify deadlines must be positive seconds")
        caps = {"worker_memory_mb": worker_memory_mb, "episode_db_mb": episode_db_mb, "episode_log_mb": episode_log_mb,
                "unreserved_memory_mb": unreserved_memory_mb}
        for name, value in caps.items():
            if value < 0:
                raise ValueError(f"{name} must be 0 (no cap) or positive MiB, not {value}")
        self.call_seconds = call_seconds
        self.verify_seconds = verify_seconds
        self.memory_bytes = memory_mb * 1024 * 1024 if memory_mb else None
        self.kill_grace = kill_grace
        self._requested_isolation = isolation  # "os", "process", or None: $AWM_SANDBOX_ISOLATION, else auto
        self.isolation = resolve_isolation(isolation)
        self.limits = WorkerLimits(memory_bytes=int(worker_memory_mb * 2 ** 20),
                                   episode_db_bytes=int(episode_db_mb * 2 ** 20),
                                   unreserved_bytes=int(unreserved_memory_mb * 2 ** 20))
        self.worker_memory_mb, self.episode_log_mb = worker_memory_mb, episode_log_mb  # as given, for messages
        self.episode_log_bytes = int(episode_log_mb * 2 ** 20)
        self._ids = itertools.count(1)
        self._log_lock = threading.Lock()
        self._payloads: dict[str, _Payload] = {}
        self._workers = [_Worker(self, i) for i in range(count)]
        self._lock = threading.Lock()
        self._started = False
        self._closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self.pid = os.getpid()
        # under OS isolation each worker also runs in a cgroup of its own (awm/runtime/cgroups.py)
        self.cgroups = WorkerCgroups(self.pid, memory_limit(worker_memory_mb, self.memory_bytes, SCRATCH_BYTES))

    def isolation_for_start(self) -> Isolation:
        """The isolation the next worker starts with. Without OS isolation, auto is resolved again (the probe
        that failed may have failed for a moment); once found, it is kept, never given up for less."""
        if self.isolation.mode != "os":
            try:
                found = resolve_isolation(self._requested_isolation)
            except IsolationUnavailable as exc:  # e.g. refused as root: this start fails, the pool says why
                raise SandboxError(str(exc)) from exc
            if found.mode != self.isolation.mode:
                log.warning("sandbox workers now start with %s isolation (%s)", found.mode, found.detail)
            self.isolation = found
        return self.isolation

    @property
    def call_limit(self) -> float:
        return self.call_seconds + self.kill_grace

    def next_id(self) -> int:
        return next(self._ids)

    def payload(self, env_key: str) -> _Payload:
        try:
            return self._payloads[env_key]
        except KeyError:
            raise SandboxError(f"environment {env_key} is not registered with the sandbox pool") from None

    def start(self) -> WorkerPool:
        with self._lock:
            if self._closed:
                raise SandboxError("the sandbox pool is closed")
            if self._started:
                return self
            for worker in self._workers:
                worker.thread.start()
            for worker in self._workers:
                worker._started.wait()
            errors = [w._start_error for w in self._workers if w._start_error is not None]
            self._started = True
        if errors:
            self.close()
            raise SandboxError(f"sandbox workers failed to start: {errors[0]}") from errors[0]
        return self

    async def attach(self) -> bool:
        """Read answers on the running event loop (a server's) instead of reader threads, until `detach`.

        False if another loop already reads for the pool: requests from this one still work (their
        futures are resolved thread-safely), and this loop must not detach it.
        """
        loop = asyncio.get_running_loop()
        await asyncio.to_thread(self.start)
        if self._loop is not None:
            return False
        self._loop = loop
        for worker in self._workers:
            worker._loop = loop
        await asyncio.to_thread(lambda: [w._parked.wait(START_SECONDS) for w in self._workers])
        for worker in self._workers:
            if not worker._parked.is_set():
                raise SandboxError(f"sandbox worker {worker.index} did not hand over its answers")
            worker._attach(loop)
        return True

    def detach(self) -> None:
        """Hand reading back to the reader threads (call on the attached loop)."""
        for worker in self._workers:
            worker._detach()
        self._loop = None

    # environments ---------------------------------------------------------------------

    def register(self, env_id: str, program: str, names: list[str], db: Path,
                 filename: str = artifacts.TOOLS_PY.name, owned: dict[str, list[list[str]]] | None = None,
                 representative: str | None = None) -> str:
        """Make an environment loadable by the workers: its tools module as `compiled_program` gives it; `owned`
        and `representative`, the ownership rules of a party's own episodes (LoadedEnvironment.refusal)."""
        key = f"{env_id}:{uuid.uuid4().hex[:12]}"
        self._payloads[key] = _Payload(program, f"{env_id}/{filename}", list(names), str(Path(db).resolve()),
                                       dict(owned or {}), representative)
        return key

    def unregister(self, env_key: str) -> None:
        if self._payloads.pop(env_key, None) is None or not self._started or self._closed:
            return
        for worker in self._workers:
            with worker.lock:
                if env_key in worker.loaded and not worker._closing and not worker.down:
                    worker.loaded.discard(env_key)
                    worker._send(_Request(self.next_id(), {"op": "unload", "env": env_key}, Future(),
                                          ADMIN_OP_SECONDS, internal=True))

    # episodes ------------------------------------------------------------------------

    def open_episode(self, env_key: str, loop: asyncio.AbstractEventLoop | None = None, unreserved: bool = False,
                     acting: int | None = None) -> tuple[EpisodeRecord, AnyFuture]:
        """Place a new episode on the least loaded worker that is not full; the future resolves when its copy
        exists. SandboxError if every worker is full (over its memory ceiling with the episodes it holds).
        An `unreserved` episode's database counts against the worker's quota for them (unreserved_memory_mb):
        its future fails with QuotaExceeded when they hold it, and the episode cannot grow past it. `acting`: a
        party's own episode, their id (the worker refuses their writes on other parties' rows)."""
        self.start()
        for _ in self._workers:  # a worker that goes down meanwhile refuses it: the next one is tried
            live = self._live()
            open_to_new = [w for w in live if not w.full]
            if not open_to_new:
                held = sum(len(w.episodes) for w in live)
                raise SandboxError(f"every sandbox worker is at its memory ceiling ({self.worker_memory_mb:g} MiB) "
                                   f"with the {held} episodes they hold; close episodes, or raise worker_memory_mb")
            worker = min(open_to_new, key=lambda w: (w.restarting, len(w.episodes)))
            episode = EpisodeRecord(self.next_id(), env_key, worker, unreserved=unreserved, acting=acting)
            with worker.lock:
                worker.episodes[episode.id] = episode
            message = {"op": "open", "episode": episode.id, "env": env_key, "acting": acting}
            if unreserved:
                message["unreserved"] = True
            try:
                future = worker.submit(message, ADMIN_OP_SECONDS, episode, loop)
            except SandboxError as exc:
                with worker.lock:
                    worker.episodes.pop(episode.id, None)
                if isinstance(exc, WorkerDown):
                    continue
                raise
            return episode, future
        raise self._all_down()

    def _live(self) -> list[_Worker]:
        """The workers that take work: all but those down (a worker being restarted queues what it is sent)."""
        live = [w for w in self._workers if not w.down]
        if not live:
            raise self._all_down()
        return live

    def _all_down(self) -> SandboxError:
        return SandboxError(f"every sandbox worker is down ({len(self._workers)}): their processes died and could "
                            "not be restarted (the log says why); they are tried again with a growing delay")

    def _least_busy(self, message: dict, limit: float, loop: asyncio.AbstractEventLoop | None) -> AnyFuture:
        """Send a request about no episode to the live worker with the fewest waiting requests."""
        self.start()
        for _ in self._workers:
            worker = min(self._live(), key=lambda w: (w.restarting, len(w.pending)))
            try:
                return worker.submit(message, limit, loop=loop)
            except WorkerDown:
                continue
        raise self._all_down()

    def _evacuate(self, down: _Worker, episodes: list[EpisodeRecord], waiting: list[_Request],
                  error: BaseException | None) -> list[tuple[AnyFuture, tuple[bool, Any]]]:
        """A worker is down: rebuild its episodes on the live workers (each on the one with the fewest
        episodes), then send there what waited for it. The futures to settle instead (episodes lost)."""
        for episode in episodes:
            if episode.closed or episode.lost is not None:
                continue
            live = [w for w in self._workers if not w.down and not w._closing]
            if not live:
                episode.lost = f"its sandbox worker died and none could take it over: {error}"
                continue
            target = min(live, key=lambda w: (w.full, w.restarting, len(w.episodes)))
            with target.lock:
                episode.worker = target
                target.episodes[episode.id] = episode
                target._rebuild(episode)
        settled: list[tuple[AnyFuture, tuple[bool, Any]]] = []
        moving: dict[_Worker, list[_Request]] = {}
        for request in waiting:
            if request.message["op"] in ("load", "unload", "close") or request.rebuild:
                continue
            if _is_lost(request):
                settled.append((request.future, (True, _episode_lost(request))))
                continue
            target = request.episode.worker if request.episode is not None else None
            if target is None or target is down:
                live = [w for w in self._workers if not w.down and not w._closing]
                if not live:
                    settled.append((request.future, (False, SandboxError(
                        f"the sandbox worker died and none could take its request over: {error}"))))
                    continue
                target = min(live, key=lambda w: len(w.pending))
            moving.setdefault(target, []).append(request)
        for target, requests in moving.items():
            with target.lock:
                settled += target._resend(requests)
        return settled

    def call(self, episode: EpisodeRecord, tool: str, arguments: dict,
             loop: asyncio.AbstractEventLoop | None = None) -> AnyFuture:
        """Run a tool in the episode. A call whose arguments would take the episode's log past its cap
        (episode_log_mb) is refused (`resource_limit`) without running: the log is how the episode is
        rebuilt after its worker dies, so nothing may change the episode without being kept there."""
        refusal = None
        logged = json.dumps(arguments, separators=(",", ":"))
        if episode.lost is not None or episode.closed:
            state = f"lost: {episode.lost}" if episode.lost else "closed"
            refusal = tool_error("episode_lost", f"episode {episode.id} is {state}")
        else:
            with self._log_lock:  # calls in flight count: many sent at once cannot pass the cap together
                kept = episode.log_bytes + episode.log_pending
                over = self.episode_log_bytes and kept + len(logged) > self.episode_log_bytes
                if not over:
                    episode.log_pending += len(logged)
            if over:
                refusal = tool_error(
                    "resource_limit", f"{tool}: episode {episode.id} keeps {kept / 2 ** 20:.2f} MiB of call arguments "
                    f"to rebuild it if its sandbox process dies, and this call's {len(logged) / 2 ** 20:.2f} MiB would "
                    f"pass the cap of {self.episode_log_mb:g} MiB; the call was not run (start a new episode, or "
                    "raise episode_log_mb)")
        if refusal is not None:
            future: AnyFuture = loop.create_future() if loop is not None else Future()
            future.set_result(refusal)
            return future
        message = {"op": "call", "episode": episode.id, "tool": tool, "arguments": arguments,
                   "seconds": self.call_seconds, "memory": self.memory_bytes}
        try:
            return episode.worker.submit(message, self.call_limit, episode, loop, logged)
        except BaseException:
            with self._log_lock:
                episode.log_pending -= len(logged)
            raise

    def _release_log(self, request: _Request) -> None:
        """A call's arguments are no longer in flight (answered, or the call died with its worker)."""
        if request.logged is not None and request.episode is not None and not request.internal:
            with self._log_lock:
                request.episode.log_pending -= len(request.logged)

    def judge(self, verifier: tuple[str, str], name: str, answer: str | None, footprint: dict,
              episode: EpisodeRecord | None = None, env_key: str | None = None, final: Path | None = None,
              loop: asyncio.AbstractEventLoop | None = None) -> AnyFuture:
        """Run a verifier, (key, program) as `compiled_program` gives it, on an episode or a saved final state;
        the verdict also fails any change that `footprint` (awm.contracts.Footprint, as a dict) does not list."""
        key, program = verifier
        message: dict[str, Any] = {"op": "judge", "key": key, "program": program, "name": name, "answer": answer,
                                   "footprint": footprint, "seconds": self.verify_seconds,
                                   "memory": self.memory_bytes}
        limit = self.verify_seconds + self.kill_grace + ADMIN_OP_SECONDS
        if episode is not None:
            if episode.lost is not None or episode.closed:
                raise SandboxError(f"episode {episode.id} is {'lost: ' + episode.lost if episode.lost else 'closed'}")
            message["episode"] = episode.id
            return episode.worker.submit(message, limit, episode, loop)
        if env_key is None or final is None:
            raise ValueError("judge needs an episode, or an environment and a final database file")
        self.start()
        message.update(env=env_key, final_image=database_image(final))
        return self._least_busy(message, limit, loop)

    def replay(self, env_key: str, calls: list[tuple[str, dict]], verifier: tuple[str, str] | None = None,
               name: str = "", judgements: list[tuple[int, str | None]] = (), footprint: dict | str | None = None,
               branches: list[tuple] = (), instruction: str | None = None,
               loop: asyncio.AbstractEventLoop | None = None, acting: int | None = None) -> AnyFuture:
        """A trajectory in one request on the least busy worker: `calls` on a fresh copy of the initial
        state; with `verifier` ((key, program) as `compiled_program` gives it), a verdict per (after, answer)
        judgement on the state once `after` of the calls were made, each also failing any change `footprint`
        does not list ("reference": these calls are the task's reference solution, and what they change is
        the footprint, its inserted rows' open columns found from the task's `instruction`). Each (after, calls, answer) of `branches` runs those calls from the state once `after`
        calls were made, is judged (unless a call of its optional fourth item, indices of calls that must
        succeed, failed, or a branch with the same optional fifth item, a group name, already changed
        something and was judged: then its verdict is None), and is undone. Resolves to {"results": [...], "verdicts": [...],
        "branches": [{"results", "verdict"}], "footprint": ...}, verdicts in the order of `judgements`;
        nothing outlives the request. `acting`: as for open_episode, a party's own trajectory."""
        message: dict[str, Any] = {"op": "replay", "env": env_key, "calls": [[tool, args] for tool, args in calls],
                                   "seconds": self.call_seconds, "memory": self.memory_bytes, "acting": acting}
        limit = len(calls) * self.call_limit + ADMIN_OP_SECONDS
        if verifier is not None and (judgements or branches or footprint == "reference"):
            key, program = verifier
            message["judge"] = {"key": key, "program": program, "name": name, "seconds": self.verify_seconds,
                                "footprint": footprint, "instruction": instruction,
                                "judgements": [[int(after), answer] for after, answer in judgements],
                                "branches": [[int(after), [[t, a] for t, a in more], answer, *rest]
                                             for after, more, answer, *rest in branches]}
            limit += (len(judgements) + len(branches)) * (self.verify_seconds + self.kill_grace)
            limit += sum(len(branch[1]) for branch in branches) * self.call_limit
        return self._least_busy(message, limit, loop)

    def snapshot(self, episode: EpisodeRecord, loop: asyncio.AbstractEventLoop | None = None) -> AnyFuture:
        return episode.worker.submit({"op": "snapshot", "episode": episode.id}, ADMIN_OP_SECONDS, episode, loop)

    def close_episode(self, episode: EpisodeRecord) -> None:
        """Free the episode's database; nobody needs to wait for it."""
        if episode.closed:
            return
        worker = episode.worker
        with worker.lock:
            episode.closed = True
            worker.episodes.pop(episode.id, None)
            if worker._closing or worker.down or self._closed or episode.lost is not None:
                return
            worker._send(_Request(self.next_id(), {"op": "close", "episode": episode.id}, Future(),
                                  ADMIN_OP_SECONDS, internal=True))

    # the pool --------------------------------------------------------------------------

    def stats(self) -> dict:
        workers = []
        for worker in self._workers:
            with worker.lock:
                state = "down" if worker.down else "restarting" if worker.restarting else "live"
                workers.append({"pid": process_id(worker.proc) if worker.proc else None, "state": state,
                                "episodes": len(worker.episodes), "pending": len(worker.pending),
                                "restarts": worker.restarts, "failed_starts": worker.failed_starts,
                                "kills": worker.kills, "recycles": worker.recycles, "full": worker.full})
        return {"workers": workers, "down": sum(w["state"] == "down" for w in workers),
                "environments": len(self._payloads), "attached": self._loop is not None,
                "isolation": {**self.isolation.describe(), "cgroups": self.cgroup_report()}}

    def cgroup_report(self) -> dict:
        """Whether this pool's workers are held by cgroup limits (processes, memory), which, or why not."""
        if self.isolation.mode != "os":
            return {"applied": False, "reason": "cgroup limits are set under OS isolation only"}
        return self.cgroups.describe()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            started = self._started
        if started:
            for worker in self._workers:
                worker.close()
        self.cgroups.close()

    def __enter__(self) -> WorkerPool:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


@functools.lru_cache(maxsize=32)
def compiled_program(source: str, filename: str) -> tuple[str, str]:
    """(key, program): generated code checked against the sandbox policy and compiled, as workers take it.

    Raises UnsafeCodeError: code that breaks the policy never reaches a worker. Cached (a pure function of
    its arguments): the tools gate, the verification stage and the checks load the same module in turn.
    """
    code = compile_checked(source, filename)
    key = hashlib.sha256(f"{filename}\0{source}".encode()).hexdigest()
    return key, base64.b64encode(marshal.dumps(code)).decode("ascii")


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool_report() -> dict | None:
    """How the process-wide pool runs generated code, if this process made one: its isolation, workers, those
    down and restarts (what a build's metadata records). Makes no pool."""
    pool = _default
    if pool is None or pool.pid != os.getpid():
        return None
    stats = pool.stats()
    return {"isolation": stats["isolation"], "workers": len(stats["workers"]), "down": stats["down"],
            "restarts": sum(w["restarts"] for w in stats["workers"]),
            "failed_starts": sum(w["failed_starts"] for w in stats["workers"])}


def default_pool() -> WorkerPool:
    """The process-wide pool environments use unless given one (started on first use, closed at exit)."""
    global _default
    with _default_lock:
        if _default is None or _default.pid != os.getpid() or _default._closed:
            _default = WorkerPool()
            atexit.register(_default.close)
        return _default
