"""A sandbox worker process: it holds episodes' databases and runs generated code under call limits.

The parent (awm/runtime/pool.py) starts it as `python -m awm.runtime.worker READ_FD WRITE_FD`
and speaks to it over two pipes in frames: a 4-byte little-endian length, then
JSON. Requests carry an `id` and an `op`; the worker answers each one, in order,
with `{"id", "ok": true, "result"}` or `{"id", "ok": false, "error": {"type", "message"}}`.

    load      {env, program, filename, names, image} an environment's tools (checked and compiled by the
                                                 parent) and its initial database (the file's bytes, base64)
    unload    {env}
    open      {episode, env}                      a fresh copy of the initial state
    call      {episode, tool, arguments, seconds, memory}
    judge     {episode | env + final_image, key, program, name, answer, footprint, seconds, memory}
    replay    {env, calls, seconds, memory, judge?}  calls on a fresh copy made and dropped in this request;
                                                 with judge {key, program, name, judgements, branches?,
                                                 footprint, seconds}, a verdict per [after, answer], and
                                                 per branch [after, calls, answer, require?, group?]
                                                 its results and verdict (null when a call of `require`
                                                 failed, or another branch of its group already changed
                                                 something and was judged):
                                                 {results, verdicts, branches, footprint}

A verdict is the verifier's, joined with the outcome (awm/runtime/outcome.py): the rows that differ
from the initial state, each accounted for by the task's footprint or failing the verdict. A replay whose
footprint is "reference" is the task's reference solution: its own final changes are the footprint, and
the answer carries it back.
    snapshot  {episode}                           the episode's database, base64
    close     {episode}
    shutdown

The worker is deliberately small: it imports no pydantic, no jsonschema, no
Dagster, and trusts its parent (the only writer of its pipe), which sends code
it has checked against the sandbox policy and compiled (marshalled code
objects), so the policy is enforced in one place. Generated code the worker
runs can reach none of this module's names. It opens no files: databases
arrive over the pipe, so an OS-isolated worker sees no artifact root
(awm/runtime/isolation.py).
"""

from __future__ import annotations

import base64
import json
import marshal
import os
import resource
import select
import signal
import sqlite3
import struct
import sys
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

from awm.errors import UnsafeCodeError
from awm.runtime import outcome
from awm.runtime.db import DBHandle, fresh_copy, open_image, readonly_copy
from awm.runtime.sandbox import functions_of, install_call_limits, run_module
from awm.runtime.tools import run_tool
from awm.runtime.verify import load_verifier, run_verifier

HEADER = struct.Struct("<I")
MAX_FRAME_BYTES = 256 * 1024 * 1024
VERIFIER_CACHE = 4096
TIMED_OUT = object()


class RawJSON(str):
    """Text that is already JSON (a tool's encoded result), embedded in the answer as it is."""


# --- frames -------------------------------------------------------------------------


def encode_frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def write_frame(fd: int, payload: bytes) -> None:
    """Write one frame to a blocking descriptor."""
    data = memoryview(encode_frame(payload))
    while data:
        written = os.write(fd, data)
        data = data[written:]


class FrameReader:
    """Splits a byte stream into length-prefixed frames; reads a pipe with an optional timeout per wait."""

    def __init__(self, fd: int):
        self.fd = fd
        self._buffer = bytearray()
        self._start = 0  # frames before this offset are consumed (no memmove per frame)

    def feed(self, chunk: bytes) -> None:
        if self._start and self._start == len(self._buffer):
            self._buffer.clear()
            self._start = 0
        elif self._start > (1 << 20):
            del self._buffer[:self._start]
            self._start = 0
        self._buffer += chunk

    def take(self) -> bytes | None:
        """The next complete frame in the buffer, or None."""
        start = self._start
        if len(self._buffer) - start < HEADER.size:
            return None
        (size,) = HEADER.unpack_from(self._buffer, start)
        if size > MAX_FRAME_BYTES:
            raise ValueError(f"frame of {size} bytes exceeds {MAX_FRAME_BYTES}")
        end = start + HEADER.size + size
        if len(self._buffer) < end:
            return None
        self._start = end
        return bytes(self._buffer[start + HEADER.size:end])

    def read(self, timeout: float | None = None) -> bytes | None | object:
        """The next frame; None at end of file; TIMED_OUT if `timeout` seconds pass first."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            frame = self.take()
            if frame is not None:
                return frame
            if deadline is not None:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not select.select([self.fd], [], [], remaining)[0]:
                    return TIMED_OUT
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.feed(chunk)


# --- state ----------------------------------------------------------------------------


@dataclass
class LoadedEnvironment:
    functions: dict[str, Any]
    template: sqlite3.Connection  # the initial state, read-only; episodes are copies of it
    _initial: DBHandle | None = None
    _layout: outcome.Layout | None = None

    @property
    def initial(self) -> DBHandle:
        """What verifiers read of the initial state: a private read-only copy, made once, shared by judgements."""
        if self._initial is None:
            self._initial = DBHandle(readonly_copy(self.template), readonly=True)
        return self._initial

    @property
    def layout(self) -> outcome.Layout:
        """The schema as the outcome diff needs it, and the initial rows it has read so far."""
        if self._layout is None:
            self._layout = outcome.Layout.read(self.template)
        return self._layout

    def changes(self, final: sqlite3.Connection, written: set[str]) -> list[dict]:
        return outcome.diff(self.layout, self.template, final, written)

    def account(self, verdict: dict, changes: list[dict], footprint: dict) -> dict:
        return outcome.judged(verdict, *outcome.account(self.layout, changes, footprint))

    def close(self) -> None:
        if self._initial is not None:
            self._initial._close()
        self.template.close()


@dataclass
class WorkerState:
    environments: dict[str, LoadedEnvironment] = field(default_factory=dict)
    episodes: dict[int, tuple[str, DBHandle]] = field(default_factory=dict)
    verifiers: OrderedDict[str, Any] = field(default_factory=OrderedDict)

    # ops ---------------------------------------------------------------------------

    def load(self, env: str, program: str, filename: str, names: list[str], image: str) -> dict:
        functions = functions_of(run_module(_code(program), filename))
        missing = sorted(set(names) - set(functions))
        if missing:
            raise UnsafeCodeError(f"{filename}: tools specified but not implemented: {', '.join(missing)}")
        previous = self.environments.pop(env, None)
        if previous is not None:
            previous.close()
        self.environments[env] = LoadedEnvironment({n: functions[n] for n in names},
                                                   open_image(base64.b64decode(image)))
        return {"tools": len(names)}

    def unload(self, env: str) -> dict:
        loaded = self.environments.pop(env, None)
        if loaded is not None:
            loaded.close()
        return {}

    def open(self, episode: int, env: str) -> dict:
        if episode in self.episodes:
            raise KeyError(f"episode {episode} is already open")
        self.episodes[episode] = (env, DBHandle(fresh_copy(self._environment(env).template)))
        return {}

    def call(self, episode: int, tool: str, arguments: dict, seconds: float, memory: int | None) -> RawJSON:
        env, handle = self._episode(episode)
        fn = self._environment(env).functions[tool]
        return RawJSON(run_tool(handle, fn, tool, arguments, seconds, memory))

    def judge(self, key: str, program: str, name: str, answer: str | None, footprint: dict, seconds: float,
              memory: int | None, episode: int | None = None, env: str | None = None,
              final_image: str | None = None) -> dict:
        fn = self._verifier(key, program, name)
        judged: DBHandle | None = None
        if episode is not None:
            env, judged = self._episode(episode)
            loaded = self._environment(env)
            final_handle = judged._reader()  # the episode's own database, read-only while the verifier runs
            written = judged._written
        elif env is not None and final_image is not None:
            loaded = self._environment(env)
            saved = open_image(base64.b64decode(final_image))
            try:
                final_handle = DBHandle(readonly_copy(saved), readonly=True)
            finally:
                saved.close()
            written = {outcome.ALL_TABLES}  # a saved state: nothing says which tables changed
        else:
            raise ValueError("judge needs an episode, or an environment and a final database file")
        try:
            verdict = run_verifier(fn, loaded.initial, final_handle, answer, seconds, memory)
            return loaded.account(verdict, loaded.changes(final_handle._conn, written), footprint)
        finally:
            if judged is not None:
                judged._restore()
            else:
                final_handle._close()

    def replay(self, env: str, calls: list[list], seconds: float, memory: int | None,
               judge: dict | None = None) -> RawJSON:
        """A whole trajectory in one request: each call exactly as `call` runs it, on a fresh copy of the
        initial state that lives only for this request. With `judge`, one verdict per [after, answer] in
        judge["judgements"]: the state once `after` calls were made, judged as `judge` judges an episode;
        and per [after, calls, answer] in judge["branches"]: from the state once `after` calls were made,
        those other calls, judged, then undone (a savepoint rolled back), so many trajectories that share
        a beginning cost one replay of it."""
        loaded = self._environment(env)
        handle = DBHandle(fresh_copy(loaded.template))
        try:
            judgements = judge["judgements"] if judge is not None else []
            branches = judge.get("branches", []) if judge is not None else []
            fn = self._verifier(judge["key"], judge["program"], judge["name"]) if judgements or branches else None
            due = sorted(range(len(judgements)), key=lambda i: judgements[i][0])
            forks = sorted(range(len(branches)), key=lambda i: branches[i][0])
            verdicts: list[dict | None] = [None] * len(judgements)
            changes: list[list[dict] | None] = [None] * len(judgements)
            forked: list[tuple[list[str], dict | None, list[dict]] | None] = [None] * len(branches)
            groups_done: set[str] = set()
            results = []
            for made in range(len(calls) + 1):
                if due and judgements[due[0]][0] == made:
                    view = handle._reader()
                    try:
                        state = loaded.changes(view._conn, handle._written)
                        while due and judgements[due[0]][0] == made:
                            i = due.pop(0)
                            verdicts[i] = run_verifier(fn, loaded.initial, view, judgements[i][1], judge["seconds"],
                                                       memory)
                            changes[i] = state
                    finally:
                        handle._restore()
                base = None  # the diff of the state the branches start from, made once for all of them
                while forks and branches[forks[0]][0] == made:
                    i = forks.pop(0)
                    _, more, answer, *extra = branches[i]
                    require, group = (extra + [[], None])[:2]
                    if group is not None and group in groups_done:
                        forked[i] = ([], None, [])  # an alternative of a probe that already counted
                        continue
                    if base is None:
                        base = loaded.changes(handle._conn, handle._written)
                    forked[i] = self._branch(loaded, handle, fn, more, answer, require, base, judge["seconds"],
                                             seconds, memory)
                    if group is not None and forked[i][1] is not None and forked[i][2] != base:
                        groups_done.add(group)  # judged, and it changed something
                if made < len(calls):
                    tool, arguments = calls[made]
                    results.append(run_tool(handle, loaded.functions[tool], tool, arguments, seconds, memory))
            footprint = None
            if judge is not None:
                footprint = judge.get("footprint")
                if footprint == "reference":  # this trajectory is the task's reference solution
                    footprint = outcome.footprint_of(loaded.layout, loaded.changes(handle._conn, handle._written))
                elif not isinstance(footprint, dict):
                    raise ValueError("a judged replay needs a footprint: a dict, or 'reference'")
                verdicts = [loaded.account(v, c, footprint) for v, c in zip(verdicts, changes)]
            branched = ",".join(f'{{"results":[{",".join(r)}],"verdict":'
                                f'{json.dumps(loaded.account(v, c, footprint) if v is not None else None)}}}'
                                for r, v, c in forked)
            return RawJSON(f'{{"results":[{",".join(results)}],"verdicts":{json.dumps(verdicts)},'
                           f'"branches":[{branched}],"footprint":{json.dumps(footprint)}}}')
        finally:
            handle._close()

    @staticmethod
    def _branch(loaded: LoadedEnvironment, handle: DBHandle, fn, calls: list[list], answer: str | None,
                require: list[int], base: list[dict], verify_seconds: float, seconds: float, memory: int | None
                ) -> tuple[list[str], dict | None, list[dict]]:
        """Other calls from the handle's current state (whose diff is `base`), judged, then undone: (results,
        verdict, changes); no verdict (None) when a call of `require` failed (the trajectory is not the one
        it was meant to be). Only the tables the branch writes are compared again."""
        written = handle._written
        handle._written = set()
        handle._begin()
        try:
            results = [run_tool(handle, loaded.functions[tool], tool, arguments, seconds, memory)
                       for tool, arguments in calls]
            if any(results[i].startswith('{"error":') for i in require if i < len(results)):
                return results, None, []
            view = handle._reader()
            try:
                state = outcome.diff_since(loaded.layout, loaded.template, view._conn, base, handle._written)
                verdict = run_verifier(fn, loaded.initial, view, answer, verify_seconds, memory)
            finally:
                handle._restore()
        finally:
            handle._rollback()
            handle._written = written  # what the branch wrote is undone
        return results, verdict, state

    def snapshot(self, episode: int) -> str:
        _, handle = self._episode(episode)
        copy = readonly_copy(handle._conn)  # serialize needs a connection without the sandbox's authorizer
        try:
            return base64.b64encode(copy.serialize()).decode("ascii")
        finally:
            copy.close()

    def close(self, episode: int) -> dict:
        entry = self.episodes.pop(episode, None)
        if entry is not None:
            entry[1]._close()
        return {}

    # lookups -------------------------------------------------------------------------

    def _environment(self, env: str) -> LoadedEnvironment:
        try:
            return self.environments[env]
        except KeyError:
            raise KeyError(f"environment {env} is not loaded in this worker") from None

    def _episode(self, episode: int) -> tuple[str, DBHandle]:
        try:
            return self.episodes[episode]
        except KeyError:
            raise KeyError(f"episode {episode} is not open in this worker") from None

    def _verifier(self, key: str, program: str, name: str):
        fn = self.verifiers.get(key)
        if fn is None:
            fn = self.verifiers[key] = load_verifier(_code(program), name)
            if len(self.verifiers) > VERIFIER_CACHE:
                self.verifiers.popitem(last=False)
        else:
            self.verifiers.move_to_end(key)
        return fn

    # dispatch ------------------------------------------------------------------------

    def handle(self, raw: bytes) -> bytes:
        request = json.loads(raw)
        rid = request.pop("id")
        op = request.pop("op")
        try:
            method = getattr(self, op) if op in _OPS else None
            if method is None:
                raise ValueError(f"unknown op {op!r}")
            result = method(**request)
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the parent, named
            error = {"type": type(exc).__name__, "message": str(exc)[:2000]}
            return json.dumps({"id": rid, "ok": False, "error": error}).encode("utf-8")
        if isinstance(result, RawJSON):
            return f'{{"id":{int(rid)},"ok":true,"result":{result}}}'.encode()
        return json.dumps({"id": rid, "ok": True, "result": result}).encode("utf-8")


_OPS = {"load", "unload", "open", "call", "judge", "replay", "snapshot", "close"}


def _code(program: str) -> CodeType:
    """A module the parent checked against the sandbox policy and compiled (marshalled, base64)."""
    return marshal.loads(base64.b64decode(program))


def _harden() -> None:
    """No core dumps (a worker ended by SIGXCPU would write one); the parent decides when a worker stops.

    A worker outlives its parent only while a call runs: it exits at the end of its
    request pipe, and the call's CPU-time limit ends a runaway one.
    """
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def main(argv: list[str]) -> int:
    read_fd, write_fd = int(argv[0]), int(argv[1])
    _harden()
    install_call_limits()
    state = WorkerState()
    reader = FrameReader(read_fd)
    write_frame(write_fd, json.dumps({"ready": os.getpid()}).encode("utf-8"))
    while True:
        raw = reader.read()
        if raw is None:
            return 0
        if raw == b'{"op":"shutdown"}':
            return 0
        try:
            write_frame(write_fd, state.handle(raw))
        except BrokenPipeError:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
