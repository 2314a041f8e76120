"""A sandbox worker process: it holds episodes' databases and runs generated code under call limits.

The parent (awm/runtime/pool.py) starts it as `python -m awm.runtime.worker READ_FD WRITE_FD LIMITS`
(LIMITS: JSON of WorkerLimits) and speaks to it over two pipes in frames: a 4-byte
little-endian length, then JSON. Requests carry an `id` and an `op`; the worker answers
each one, in order, with `{"id", "ok": true, "result"}` or `{"id", "ok": false, "error":
{"type", "message"}}`. After an answer it may send a notice about its memory ceiling,
`{"memory": "over" | "ok", "rss", "held", "episodes"}` (see WorkerState.memory_notice); the parent may
then send `{"op": "recycle"}`, on which the worker exits without reading another request.

    load      {env, program, filename, names, image} an environment's tools (checked and compiled by the
                                                 parent) and its initial database (the file's bytes, base64)
    unload    {env}
    open      {episode, env, unreserved?, rebuild?}  a fresh copy of the initial state; an unreserved episode's
                                                 database counts against the worker's quota for them
    call      {episode, tool, arguments, seconds, memory}
    judge     {episode | env + final_image, key, program, name, answer, footprint, seconds, memory}
    replay    {env, calls, seconds, memory, judge?}  calls on a fresh copy made and dropped in this request;
                                                 with judge {key, program, name, judgements, branches?,
                                                 footprint, instruction?, seconds}, a verdict per [after, answer], and
                                                 per branch [after, calls, answer, require?, group?]
                                                 its results, verdict (null when a call of `require`
                                                 failed, or another branch of its group already changed
                                                 something and was judged), whether it changed the
                                                 state it began from, and a fingerprint of its final
                                                 state (`state`, as the trajectory's own when judged):
                                                 {results, verdicts, branches, footprint, state}

A verdict is the verifier's, joined with the outcome (awm/runtime/outcome.py): the rows that differ
from the initial state, each accounted for by the task's footprint or failing the verdict. A replay whose
footprint is "reference" is the task's reference solution: its own final changes are the footprint, and
the answer carries it back.
    snapshot  {episode}                           the episode's database, base64
    close     {episode}
    shutdown, recycle                             (no id) exit; after recycle the parent resends what follows

The worker is deliberately small: it imports no pydantic, no jsonschema, no
Dagster, and trusts its parent (the only writer of its pipe), which sends code
it has checked against the sandbox policy and compiled (marshalled code
objects), so the policy is enforced in one place. Generated code the worker
runs can reach none of this module's names, and keeps nothing between calls:
each call and judgement runs a new instance of its module. It opens no files:
databases arrive over the pipe, so an OS-isolated worker sees no artifact root
(awm/runtime/isolation.py).
"""

from __future__ import annotations

import _strptime
import base64
import hashlib
import json
import marshal
import os
import re
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
from awm.runtime.sandbox import FreshInstance, functions_of, install_call_limits, resident_bytes, run_module
from awm.runtime.tools import encode_result, run_tool, tool_error
from awm.runtime.verify import load_verifier, run_verifier

HEADER = struct.Struct("<I")
MAX_FRAME_BYTES = 256 * 1024 * 1024
VERIFIER_CACHE = 4096
TIMED_OUT = object()
TRIM_AFTER_GROWTH_BYTES = 1 << 20  # closing an episode that grew this much hands its memory back to the system


@dataclass(frozen=True)
class WorkerLimits:
    """What a worker may hold: `memory_bytes`, its resident-memory ceiling (0: none), `episode_db_bytes`,
    the size cap of each episode's database (0: none), and `unreserved_bytes`, what the databases of its
    unreserved episodes may hold together (0: no quota of their own), so that they never take the memory
    reserved episodes need."""

    memory_bytes: int = 0
    episode_db_bytes: int = 0
    unreserved_bytes: int = 0


class QuotaError(Exception):
    """The unreserved episodes of this worker hold their quota (WorkerLimits.unreserved_bytes)."""


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
    code: CodeType  # the tools module, run afresh for every call
    filename: str
    names: frozenset[str]  # its tools
    template: sqlite3.Connection  # the initial state, read-only; episodes are copies of it
    template_bytes: int
    # per tool, the arguments naming rows a party owns and the query of each one's owner (ToolSpec.owned), and
    # the query of whom a party names as representative: a party's own episode writes only on their rows
    owned: dict[str, list[list[str]]] = field(default_factory=dict)
    representative: str | None = None
    _initial: DBHandle | None = None
    _layout: outcome.Layout | None = None

    def tool(self, name: str) -> FreshInstance:
        """Tool `name`, each call run in a new instance of the module: nothing an earlier call left there."""
        if name not in self.names:
            raise KeyError(f"no tool {name!r} in {self.filename}")
        return FreshInstance(self.code, self.filename, name)

    def held_bytes(self) -> int:
        return self.template_bytes + (self._initial._footprint_bytes() if self._initial is not None else 0)

    def refusal(self, handle: DBHandle, tool: str, arguments: dict, acting: int | None) -> RawJSON | None:
        """The call refused (`not_permitted`), when the party `acting` (a party's own episode; None: the staff's)
        names a row of another party who does not name them as representative; None when it may run. A row
        that does not exist is left to the tool to report."""
        if acting is None:
            return None
        for argument, sql in self.owned.get(tool, ()):
            value = arguments.get(argument) if isinstance(arguments, dict) else None
            if not isinstance(value, int) or isinstance(value, bool):
                continue
            row = handle.one(sql, (value,))
            if row is None or row["owner"] == acting:
                continue
            if row["owner"] is not None and self.representative is not None:
                holder = handle.one(self.representative, (row["owner"],))
                if holder is not None and holder["representative"] == acting:
                    continue
            return RawJSON(encode_result(tool_error("not_permitted", (
                f"{tool}: {argument} {value} is another customer's; a customer acts only on their own records, "
                "or on those of someone whose record names them as representative"))))
        return None

    def run(self, handle: DBHandle, tool: str, arguments: dict, seconds: float, memory: int | None,
            acting: int | None) -> str:
        """One call, as run_tool runs it, after the ownership check of a party's own episode (refusal)."""
        fn = self.tool(tool)
        refused = self.refusal(handle, tool, arguments, acting)
        return refused if refused is not None else run_tool(handle, fn, tool, arguments, seconds, memory)

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
    limits: WorkerLimits = field(default_factory=WorkerLimits)
    environments: dict[str, LoadedEnvironment] = field(default_factory=dict)
    episodes: dict[int, tuple[str, DBHandle]] = field(default_factory=dict)
    acting: dict[int, int] = field(default_factory=dict)  # a party's own episode -> the party's id
    uncapped: set[int] = field(default_factory=set)  # episodes whose size cap waits for their first call
    unreserved: dict[int, int] = field(default_factory=dict)  # unreserved episode -> bytes its database holds
    unreserved_bytes: int = 0  # their sum, counted against limits.unreserved_bytes
    unreserved_caps: dict[int, int] = field(default_factory=dict)  # the size cap last set on each
    verifiers: OrderedDict[str, CodeType] = field(default_factory=OrderedDict)
    baseline_bytes: int = 0  # resident memory once started, before holding anything
    over: bool = False  # over the ceiling, and the parent was told
    freed: bool = False  # something was closed since the parent was told

    # ops ---------------------------------------------------------------------------

    def load(self, env: str, program: str, filename: str, names: list[str], image: str,
             owned: dict[str, list[list[str]]] | None = None, representative: str | None = None) -> dict:
        code = _code(program)
        namespace = run_module(code, filename)
        missing = sorted(set(names) - set(functions_of(namespace)))
        namespace.clear()  # calls run instances of their own (LoadedEnvironment.tool)
        if missing:
            raise UnsafeCodeError(f"{filename}: tools specified but not implemented: {', '.join(missing)}")
        previous = self.environments.pop(env, None)
        if previous is not None:
            previous.close()
        template = base64.b64decode(image)
        self.environments[env] = LoadedEnvironment(code, filename, frozenset(names), open_image(template),
                                                   len(template), dict(owned or {}), representative)
        return {"tools": len(names)}

    def unload(self, env: str) -> dict:
        loaded = self.environments.pop(env, None)
        if loaded is not None:
            loaded.close()
            self.freed = True
        return {}

    def open(self, episode: int, env: str, unreserved: bool = False, rebuild: bool = False,
             acting: int | None = None) -> dict:
        if episode in self.episodes:
            raise KeyError(f"episode {episode} is already open")
        loaded = self._environment(env)
        quota = self.limits.unreserved_bytes if unreserved else 0
        if quota and not rebuild and self.unreserved_bytes + loaded.template_bytes > quota:
            raise QuotaError(f"the unreserved episodes of this sandbox worker hold {self.unreserved_bytes / 2 ** 20:.1f} "
                             f"MiB of the {quota / 2 ** 20:g} MiB they may (the rest is kept for reserved episodes)")
        self.episodes[episode] = (env, DBHandle(fresh_copy(loaded.template)))
        if acting is not None:
            self.acting[episode] = int(acting)
        if quota:
            self.unreserved[episode] = loaded.template_bytes
            self.unreserved_bytes += loaded.template_bytes
        elif self.limits.episode_db_bytes:
            self.uncapped.add(episode)
        return {}

    def call(self, episode: int, tool: str, arguments: dict, seconds: float, memory: int | None) -> RawJSON:
        env, handle = self._episode(episode)
        if episode in self.unreserved:
            return self._unreserved_call(episode, handle, env, tool, arguments, seconds, memory)
        if episode in self.uncapped:  # at its first call, which parses the schema anyway, as the cap does
            self.uncapped.discard(episode)
            handle._cap_size(self.limits.episode_db_bytes)
        return RawJSON(self._environment(env).run(handle, tool, arguments, seconds, memory, self.acting.get(episode)))

    def _unreserved_call(self, episode: int, handle: DBHandle, env: str, tool: str, arguments: dict, seconds: float,
                         memory: int | None) -> RawJSON:
        """A call of an unreserved episode: its database may grow only into what the worker's unreserved
        episodes have left of their quota (and its own cap), so a write past it fails as at the size cap."""
        held = self.unreserved[episode]
        room = self.limits.unreserved_bytes - (self.unreserved_bytes - held)
        own = self.limits.episode_db_bytes
        cap = max(0, min(room, own) if own else room)
        if self.unreserved_caps.get(episode) != cap:  # the pragma parses the schema: only when the cap moved
            handle._cap_size(cap)
            self.unreserved_caps[episode] = cap
        changes = handle._conn.total_changes
        result = self._environment(env).run(handle, tool, arguments, seconds, memory, self.acting.get(episode))
        if handle._conn.total_changes != changes:  # it wrote: measure what its database holds now
            now = handle._footprint_bytes()
            self.unreserved_bytes += now - held
            self.unreserved[episode] = now
        if (not own or room < own) and result.startswith('{"error":{"code":"resource_limit"') \
                and "reached its size cap" in result:
            return RawJSON(encode_result(tool_error("resource_limit", (
                f"{tool}: the unreserved episodes of this sandbox worker hold the "
                f"{self.limits.unreserved_bytes / 2 ** 20:g} MiB they may (the rest is kept for reserved "
                "episodes); the call's writes were undone"))))
        return RawJSON(result)

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
               judge: dict | None = None, acting: int | None = None) -> RawJSON:
        """A whole trajectory in one request: each call exactly as `call` runs it, on a fresh copy of the
        initial state that lives only for this request. With `judge`, one verdict per [after, answer] in
        judge["judgements"]: the state once `after` calls were made, judged as `judge` judges an episode;
        and per [after, calls, answer] in judge["branches"]: from the state once `after` calls were made,
        those other calls, judged, then undone (a savepoint rolled back), so many trajectories that share
        a beginning cost one replay of it."""
        loaded = self._environment(env)
        handle = DBHandle(fresh_copy(loaded.template))
        try:
            if self.limits.episode_db_bytes:
                handle._cap_size(self.limits.episode_db_bytes)
            judgements = judge["judgements"] if judge is not None else []
            branches = judge.get("branches", []) if judge is not None else []
            fn = self._verifier(judge["key"], judge["program"], judge["name"]) if judgements or branches else None
            due = sorted(range(len(judgements)), key=lambda i: judgements[i][0])
            forks = sorted(range(len(branches)), key=lambda i: branches[i][0])
            verdicts: list[dict | None] = [None] * len(judgements)
            changes: list[list[dict] | None] = [None] * len(judgements)
            forked: list[tuple[list[str], dict | None, list[dict]] | None] = [None] * len(branches)
            changed = [False] * len(branches)  # per branch: its final state differs from where it began
            final: list[dict] | None = None  # the diff of the trajectory's final state, where it was made
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
                        if made == len(calls):
                            final = state
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
                                             seconds, memory, acting)
                    changed[i] = forked[i][1] is not None and _ordered(forked[i][2]) != _ordered(base)
                    if group is not None and changed[i]:
                        groups_done.add(group)  # judged, and it changed something
                if made < len(calls):
                    tool, arguments = calls[made]
                    results.append(loaded.run(handle, tool, arguments, seconds, memory, acting))
            footprint = None
            if judge is not None:
                footprint = judge.get("footprint")
                if footprint == "reference":  # this trajectory is the task's reference solution
                    if final is None:
                        final = loaded.changes(handle._conn, handle._written)
                    footprint = outcome.footprint_of(loaded.layout, final, loaded.template, judge.get("instruction"))
                elif not isinstance(footprint, dict):
                    raise ValueError("a judged replay needs a footprint: a dict, or 'reference'")
                verdicts = [loaded.account(v, c, footprint) for v, c in zip(verdicts, changes)]
            branched = ",".join(f'{{"results":[{",".join(r)}],"verdict":'
                                f'{json.dumps(loaded.account(v, c, footprint) if v is not None else None)},'
                                f'"changed":{json.dumps(moved)},"state":{json.dumps(_digest(c) if v else None)}}}'
                                for (r, v, c), moved in zip(forked, changed))
            return RawJSON(f'{{"results":[{",".join(results)}],"verdicts":{json.dumps(verdicts)},'
                           f'"branches":[{branched}],"footprint":{json.dumps(footprint)},'
                           f'"state":{json.dumps(_digest(final) if final is not None else None)}}}')
        finally:
            handle._close()

    @staticmethod
    def _branch(loaded: LoadedEnvironment, handle: DBHandle, fn, calls: list[list], answer: str | None,
                require: list[int], base: list[dict], verify_seconds: float, seconds: float, memory: int | None,
                acting: int | None = None) -> tuple[list[str], dict | None, list[dict]]:
        """Other calls from the handle's current state (whose diff is `base`), judged, then undone: (results,
        verdict, changes); no verdict (None) when a call of `require` failed (the trajectory is not the one
        it was meant to be). Only the tables the branch writes are compared again."""
        written = handle._written
        handle._written = set()
        handle._begin()
        try:
            results = [loaded.run(handle, tool, arguments, seconds, memory, acting) for tool, arguments in calls]
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
        self.acting.pop(episode, None)
        self.uncapped.discard(episode)
        self.unreserved_bytes -= self.unreserved.pop(episode, 0)
        self.unreserved_caps.pop(episode, None)
        if entry is not None:
            env, handle = entry
            loaded = self.environments.get(env)
            grew = bool(handle._written) and loaded is not None and \
                handle._footprint_bytes() - loaded.template_bytes >= TRIM_AFTER_GROWTH_BYTES
            handle._close()
            self.freed = True
            if grew:  # without this the allocator keeps the closed episode's pages: its memory would not return
                _trim_heap()
        return {}

    # memory ------------------------------------------------------------------------

    def held_bytes(self) -> int:
        """What a fresh worker holding the same environments and episodes would hold, about."""
        return (self.baseline_bytes + sum(loaded.held_bytes() for loaded in self.environments.values())
                + sum(handle._footprint_bytes() for _, handle in self.episodes.values()))

    def memory_notice(self) -> dict | None:
        """After each request: the notice to send the parent about the memory ceiling, if any.

        Over the ceiling, the worker first drops what it can rebuild (the regular-expression and
        strptime caches, which generated code can fill with large patterns, and its verifier
        cache) and hands freed memory back to the system; still over, it tells the parent
        ("over", with `held`: about what a fresh worker holding the same databases would hold),
        which recycles it or stops placing episodes on it (pool.py). Told once, and again after
        something was closed; "ok" once it is back under.
        """
        ceiling = self.limits.memory_bytes
        if not ceiling:
            return None
        rss = resident_bytes()
        if rss > ceiling and (not self.over or self.freed):
            self._drop_caches()
            rss = resident_bytes()
        if rss <= ceiling:
            if not self.over:
                return None
            self.over = False
            return {"memory": "ok", "rss": rss}
        if self.over and not self.freed:
            return None
        self.over, self.freed = True, False
        return {"memory": "over", "rss": rss, "held": self.held_bytes(), "episodes": len(self.episodes)}

    def _drop_caches(self) -> None:
        re.purge()
        _strptime._regex_cache.clear()
        self.verifiers.clear()
        _trim_heap()

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

    def _verifier(self, key: str, program: str, name: str) -> FreshInstance:
        """The verifier's verify function, each judgement run in a new instance of its module (code cached)."""
        code = self.verifiers.get(key)
        if code is None:
            code = _code(program)
            load_verifier(code, name).__globals__.clear()  # it must define verify (UnsafeCodeError); cycle broken
            self.verifiers[key] = code
            if len(self.verifiers) > VERIFIER_CACHE:
                self.verifiers.popitem(last=False)
        else:
            self.verifiers.move_to_end(key)
        return FreshInstance(code, name, "verify")

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
        if isinstance(result, RawJSON):  # valid Unicode already (run_tool); "replace" only as a last resort
            return f'{{"id":{int(rid)},"ok":true,"result":{result}}}'.encode("utf-8", "replace")
        return json.dumps({"id": rid, "ok": True, "result": result}).encode("utf-8")


_OPS = {"load", "unload", "open", "call", "judge", "replay", "snapshot", "close"}


def _code(program: str) -> CodeType:
    """A module the parent checked against the sandbox policy and compiled (marshalled, base64)."""
    return marshal.loads(base64.b64decode(program))


def _ordered(changes: list[dict]) -> list[dict]:
    """A diff in one order, whichever tables were compared again."""
    return sorted(changes, key=lambda c: (c["table"], str(c["key"]), c["op"]))


def _digest(changes: list[dict]) -> str:
    """A fingerprint of a state: of its diff from the initial state (two trajectories that end alike share it)."""
    return hashlib.sha256(json.dumps(_ordered(changes), sort_keys=True, default=repr).encode()).hexdigest()[:16]


def _trim_heap() -> None:
    """Give the allocator's free pages back to the system (glibc malloc_trim; a no-op elsewhere)."""
    global _malloc_trim
    if _malloc_trim is None:
        import ctypes

        _malloc_trim = getattr(ctypes.CDLL(None), "malloc_trim", False)
    if _malloc_trim:
        _malloc_trim(0)


_malloc_trim: Any = None


def _harden() -> None:
    """No core dumps; the parent decides when a worker stops.

    A worker outlives its parent only while a call runs: it exits at the end of its
    request pipe, and the call's CPU-time budget (SIGPROF) ends a runaway one.
    """
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def main(argv: list[str]) -> int:
    read_fd, write_fd = int(argv[0]), int(argv[1])
    limits = WorkerLimits(**json.loads(argv[2])) if len(argv) > 2 else WorkerLimits()
    _harden()
    install_call_limits()
    state = WorkerState(limits, baseline_bytes=resident_bytes())
    reader = FrameReader(read_fd)
    write_frame(write_fd, json.dumps({"ready": os.getpid()}).encode("utf-8"))
    while True:
        raw = reader.read()
        if raw is None:
            return 0
        if raw in (b'{"op":"shutdown"}', b'{"op":"recycle"}'):
            return 0
        try:
            write_frame(write_fd, state.handle(raw))
            notice = state.memory_notice()
            if notice is not None:
                write_frame(write_fd, json.dumps(notice).encode("utf-8"))
        except BrokenPipeError:
            return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
