"""The sandboxed side of the foreign runtime: `python -m awm.awm1k.host`, started by awm/awm1k/runtime.py under
the OS isolation of awm/runtime/isolation.py (bubblewrap: no network, read-only, unprivileged, private /tmp).

Foreign code (an AWM-1K environment: FastAPI + SQLAlchemy, importing os and sqlite3; their verifiers) cannot
pass the template sandbox's AST policy, so it runs here with ordinary builtins: the process boundary and the
OS isolation are its whole containment (docs/security.md, "Foreign code"). Nothing of it runs in the caller.

One request per line on stdin, one answer per line on stdout (JSON; databases as base64, since the sandbox
sees no artifact root):

  load    {code, db}             the app over a copy of db in /tmp; answers its OpenAPI document
  open    {episode}              a new episode: its own copy of the initial database in /tmp
  close   {episode}              the episode's database deleted
  reset   {episode?}             the episode's database back to the initial one (SQLite backup)
  call    {method, path, query, body, episode?}   one HTTP request through ASGI in-process (no socket), on the
                                 episode's database: status and body
  verify  {code, final, answer, initial?, episode?}  verify_task_completion on read-only copies of the initial
                                 database and of `final` ("work": the episode's database, "initial": the unchanged
                                 one)
  snapshot {episode?}            the episode's database
  quit    {}

Without `episode`, a request is for the one the host starts with ("work"). Their app is loaded once, on one
working database (its `create_engine(...)` line rewritten as their server rewrites it), and one loaded app
serves every episode: each episode's database is a file of its own, and a request for another episode than
the last one first saves the working database to the last one's file and puts its own in place (SQLite
backup), whatever the app does with the path (SQLAlchemy sessions, sqlite3 on engine.url.database). A call and a verifier run under an address-space budget (`--memory-mb`, RLIMIT_AS, the budget our
sandbox gives a call): an allocation beyond it raises MemoryError in their code, the request answers a 500
naming the budget, and the host carries on. Threads start outside the budget (guard_thread_starts).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import inspect
import json
import os
import re
import resource
import shutil
import sqlite3
import sys
import threading
import time
import traceback
import types
from urllib.parse import urlencode

SCRATCH = os.environ.get("TMPDIR", "/tmp")
INITIAL = os.path.join(SCRATCH, "awm1k-initial.db")
WORK = os.path.join(SCRATCH, "awm1k-work.db")
OPS = {"load", "open", "close", "reset", "call", "verify", "snapshot"}
DEFAULT_EPISODE = "work"
EPISODE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_PAGE = os.sysconf("SC_PAGE_SIZE")


class PipeLoop(asyncio.SelectorEventLoop):
    """An event loop whose wake-up channel is a pipe, not socketpair(2): the sandbox's seccomp filter refuses
    every socket, and an ASGI app needs a loop (anyio runs sync endpoints on threads that wake it)."""

    def _make_self_pipe(self):
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._internal_fds += 1
        self._add_reader(self._wake_r, self._read_from_self)

    def _close_self_pipe(self):
        self._remove_reader(self._wake_r)
        os.close(self._wake_r)
        os.close(self._wake_w)
        self._internal_fds -= 1

    def _read_from_self(self):
        while True:
            try:
                data = os.read(self._wake_r, 4096)
            except InterruptedError:
                continue
            except BlockingIOError:
                break
            if not data:
                break
            self._process_self_data(data)

    def _write_to_self(self):
        try:
            os.write(self._wake_w, b"\0")
        except OSError:
            pass


def patched_code(code: str, db_path: str) -> str:
    """Their code with every `create_engine(...)` pointed at `db_path`, as their own server does
    (awm/core/server.py of the reference code rewrites the line the same way)."""
    lines = []
    for line in code.split("\n"):
        if "create_engine(" in line:
            left = line.split("create_engine(")[0]
            line = f"{left}create_engine('sqlite:///{db_path}', connect_args={{'check_same_thread': False}})"
        lines.append(line)
    return "\n".join(lines)


def address_space_bytes() -> int:
    """This process's virtual size (what RLIMIT_AS limits), as awm/runtime/sandbox.py reads it."""
    with open("/proc/self/statm", "rb") as fh:
        return int(fh.read().split()[0]) * _PAGE


class MemoryBudget:
    """An address-space budget over a request: RLIMIT_AS at the current size plus `budget` bytes while it
    runs (the limit our sandbox puts on a call, awm/runtime/sandbox.py call_limits), lifted after."""

    def __init__(self, budget: int | None):
        self.budget = budget
        self.limit: int | None = None  # the limit in force, during a request only

    def __enter__(self) -> None:
        self.saved = resource.getrlimit(resource.RLIMIT_AS)
        if self.budget:
            self._limit(address_space_bytes() + self.budget)

    def __exit__(self, *exc) -> None:
        if self.budget:
            resource.setrlimit(resource.RLIMIT_AS, self.saved)
            self.limit = None

    def _limit(self, limit: int) -> None:
        hard = self.saved[1]
        self.limit = limit if hard == resource.RLIM_INFINITY else min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (self.limit, hard))

    def start_thread(self, start, thread) -> None:
        """`Thread.start` outside the budget: a new thread's stack and first allocations (a malloc arena) may need
        more address space than the request has left, and a thread that fails before it signals that it started
        leaves `start` waiting forever (a MemoryError in its bootstrap, printed and ignored). What the start took
        is added to the limit: the request's budget is what it was."""
        if self.limit is None:
            start(thread)
            return
        before = address_space_bytes()
        resource.setrlimit(resource.RLIMIT_AS, self.saved)
        try:
            start(thread)
        finally:
            self._limit(self.limit + max(0, address_space_bytes() - before))

    def message(self) -> str:
        return (f"MemoryError: the call went over its memory budget ({self.budget // (1 << 20)} MiB of address "
                "space); the environment carries on")


async def _start_thread_pool() -> None:
    """The thread a FastAPI app runs its sync routes on (anyio's worker), started now, outside any call's budget,
    to be reused by every call (Host.serve). Without anyio there is none to start."""
    try:
        import anyio.to_thread
    except ImportError:
        return
    await anyio.to_thread.run_sync(int)


def guard_thread_starts(budget: MemoryBudget) -> None:
    """Every thread this process starts (their code's, anyio's, SQLAlchemy's) is started outside the request's
    budget (MemoryBudget.start_thread): the host only, never the caller's process."""
    start = threading.Thread.start

    def guarded(thread: threading.Thread) -> None:
        budget.start_thread(start, thread)

    threading.Thread.start = guarded


def digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


class Host:
    def __init__(self, memory_bytes: int | None = None) -> None:
        self.loop = PipeLoop()
        asyncio.set_event_loop(self.loop)
        self.namespace: dict | None = None
        self.app = None
        self.budget = MemoryBudget(memory_bytes)
        # Their app works on WORK, whatever it does with the path (an engine, a cached connection, sqlite3 on
        # engine.url.database). Each episode keeps its database in a file of its own; the live one is in WORK,
        # copied back (SQLite backup) when a request for another episode takes its place.
        self.episodes: dict[str, str] = {DEFAULT_EPISODE: os.path.join(SCRATCH, f"episode-{DEFAULT_EPISODE}.db")}
        self.live: str | None = DEFAULT_EPISODE  # the episode whose database is in WORK
        self.switches = 0

    def _episode(self, episode: str | None) -> str:
        name = episode or DEFAULT_EPISODE
        if name not in self.episodes:
            raise KeyError(f"no episode {name!r} is open in this host")
        return name

    def _current(self, name: str) -> str:
        """The file holding the episode's database now."""
        return WORK if name == self.live else self.episodes[name]

    def _switch(self, name: str) -> None:
        """Make `name` the live episode: the live one's database saved to its file, `name`'s put in WORK."""
        if name == self.live:
            return
        self._dispose()
        if self.live is not None:
            _backup(WORK, self.episodes[self.live])
        _backup(self.episodes[name], WORK)
        self.live = name
        self.switches += 1

    def open(self, episode: str) -> dict:
        if not isinstance(episode, str) or not EPISODE_NAME.fullmatch(episode):
            raise ValueError(f"an episode name is 1-64 letters, digits, '_' or '-', not {episode!r}")
        if episode in self.episodes:
            raise ValueError(f"episode {episode!r} is already open")
        started = time.perf_counter()
        path = os.path.join(SCRATCH, f"episode-{episode}.db")
        shutil.copyfile(INITIAL, path)
        self.episodes[episode] = path
        return {"ms": (time.perf_counter() - started) * 1000}

    def close(self, episode: str) -> dict:
        if episode == DEFAULT_EPISODE:
            raise ValueError("the host's own episode is not closed")
        path = self.episodes.pop(episode, None)
        if self.live == episode:
            self.live = None
        if path is not None:
            for suffix in ("", "-journal", "-wal", "-shm"):
                try:
                    os.unlink(path + suffix)
                except FileNotFoundError:
                    pass
        return {"closed": path is not None}

    # --- the app ------------------------------------------------------------------------------------------
    async def load(self, code: str, db: str) -> dict:
        with open(INITIAL, "wb") as fh:
            fh.write(base64.b64decode(db))
        shutil.copyfile(INITIAL, WORK)
        # a module of its own in sys.modules, as when their server runs the file: pydantic and FastAPI resolve
        # the app's type annotations through it
        module = types.ModuleType("awm1k_environment")
        module.__file__ = os.path.join(SCRATCH, "awm1k_app.py")
        sys.modules[module.__name__] = module
        namespace = module.__dict__
        self.live = DEFAULT_EPISODE
        exec(compile(patched_code(code, WORK), module.__file__, "exec"), namespace)
        app = namespace.get("app")
        if app is None or not callable(app):
            raise RuntimeError("the environment code defines no `app` (a FastAPI application)")
        self.namespace, self.app = namespace, app
        await _start_thread_pool()
        return {"openapi": app.openapi() if hasattr(app, "openapi") else None}

    def _engines(self) -> list:
        try:
            from sqlalchemy.engine import Engine
        except ImportError:
            return []
        return [v for v in (self.namespace or {}).values() if isinstance(v, Engine)]

    def _dispose(self) -> None:
        for engine in self._engines():
            engine.dispose()

    def reset(self, episode: str | None = None) -> dict:
        started = time.perf_counter()
        name = self._episode(episode)
        if name == self.live:
            self._dispose()
        _backup(INITIAL, self._current(name))
        return {"ms": (time.perf_counter() - started) * 1000}

    async def call(self, method: str, path: str, query: dict | None = None, body=None,
                   episode: str | None = None) -> dict:
        if self.app is None:
            raise RuntimeError("no environment loaded")
        started = time.perf_counter()
        self._switch(self._episode(episode))
        with self.budget:
            status, payload = await self._asgi(method.upper(), path, query or {}, body)
        text = payload.decode("utf-8", "replace")
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text
        return {"status": status, "body": parsed, "ms": (time.perf_counter() - started) * 1000}

    async def _asgi(self, method: str, path: str, query: dict, body) -> tuple[int, bytes]:
        payload = b"" if body is None else json.dumps(body).encode()
        headers = [(b"host", b"awm1k"), (b"content-length", str(len(payload)).encode())]
        if body is not None:
            headers.append((b"content-type", b"application/json"))
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
                 "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
                 "query_string": urlencode(query, doseq=True).encode(), "headers": headers,
                 "client": ("sandbox", 0), "server": ("awm1k", 80)}
        delivered = False

        async def receive():
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": payload, "more_body": False}
            return {"type": "http.disconnect"}

        status, chunks = 500, []

        async def send(message):
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        try:
            await self.app(scope, receive, send)
        except MemoryError:  # over the budget (MemoryBudget): their code's allocation failed, the host is fine
            return 500, json.dumps({"error": self.budget.message()}).encode()
        except Exception as exc:  # an unhandled error of a route: the 500 Starlette sent, and the error
            return 500, json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]}).encode()
        return status, b"".join(chunks)

    async def serve(self, lines, answers) -> None:
        """The whole conversation, in one task of the loop: the task anyio takes for the root of everything the
        app runs, so the thread it runs sync routes on (started at load, outside any budget) serves every call. A
        root task per call would end that thread after each call and start a new one inside the next call's
        budget, where a new thread's first allocation can fail before `Thread.start` learns it started: the
        start then waits forever. Reading a request blocks the loop, and nothing else runs on it between two."""
        for line in lines:
            request = json.loads(line)
            op = request.pop("op", None)
            if op == "quit":
                break
            try:
                if op not in OPS:
                    raise ValueError(f"unknown request {op!r}: one of {', '.join(sorted(OPS))}")
                answer = getattr(self, op)(**request)
                answer = {"ok": True, **(await answer if inspect.isawaitable(answer) else answer)}
            except Exception as exc:
                answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000],
                          "trace": traceback.format_exc()[-2000:]}
            answers.write(json.dumps(answer, default=str) + "\n")
            answers.flush()

    # --- verifiers ----------------------------------------------------------------------------------------
    def verify(self, code: str, final: str = "work", answer: str | None = None, initial: str | None = None,
               episode: str | None = None) -> dict:
        """Their verify_task_completion on read-only copies: the files are mode 0444 in a directory of their
        own, and their digests before and after say whether anything was written all the same."""
        folder = os.path.join(SCRATCH, f"verify-{time.monotonic_ns()}")
        os.mkdir(folder)
        first, last = os.path.join(folder, "initial.db"), os.path.join(folder, "final.db")
        if initial is not None:
            with open(first, "wb") as fh:
                fh.write(base64.b64decode(initial))
        else:
            shutil.copyfile(INITIAL, first)
        if final == "initial":
            shutil.copyfile(first, last)
        elif final == "work":
            self._copy_work(last, episode)
        else:
            with open(last, "wb") as fh:
                fh.write(base64.b64decode(final))
        for path in (first, last):
            os.chmod(path, 0o444)
        before = (digest(first), digest(last))
        namespace: dict = {"__name__": "awm1k_verifier"}
        result, error = None, None
        try:
            exec(compile(code, "awm1k_verifier.py", "exec"), namespace)
            verify = namespace.get("verify_task_completion")
            if not callable(verify):
                raise RuntimeError("the verifier code defines no verify_task_completion")
            with self.budget:
                result = verify(initial_db_path=first, final_db_path=last, final_answer=answer)
        except MemoryError:
            error = self.budget.message()
        except Exception as exc:
            error = f"{type(exc).__name__}: {exc}"[:2000]
        after = (digest(first), digest(last))
        shutil.rmtree(folder, ignore_errors=True)
        verdict = None
        if isinstance(result, dict) and isinstance(result.get("result"), str):
            verdict = result["result"].strip().lower()
        elif error is None:
            error = f"verify_task_completion returned {type(result).__name__}, not a dict with a 'result'"
        evidence = result.get("evidence") if isinstance(result, dict) else None
        answer = {"verdict": verdict, "error": error, "wrote": before != after}
        if isinstance(evidence, list) and evidence:
            answer["evidence"] = [str(e)[:500] for e in evidence[:10]]
        return answer

    def _copy_work(self, target: str, episode: str | None = None) -> None:
        _backup(self._current(self._episode(episode)), target)

    def snapshot(self, episode: str | None = None) -> dict:
        path = os.path.join(SCRATCH, "snapshot.db")
        self._copy_work(path, episode)
        with open(path, "rb") as fh:
            data = fh.read()
        os.unlink(path)
        return {"db": base64.b64encode(data).decode()}


def _backup(source: str, target: str) -> None:
    """`target` made a copy of the SQLite database `source` (the backup API: safe with connections open)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what their code prints goes to stderr, never into the answers
    sys.stdout = sys.stderr
    memory_mb = float(sys.argv[sys.argv.index("--memory-mb") + 1]) if "--memory-mb" in sys.argv else 0
    host = Host(int(memory_mb * (1 << 20)) or None)
    guard_thread_starts(host.budget)
    host.loop.run_until_complete(host.serve(sys.stdin, answers))
    return 0


if __name__ == "__main__":
    sys.exit(main())
