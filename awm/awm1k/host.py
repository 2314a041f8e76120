"""The sandboxed side of the foreign runtime: `python -m awm.awm1k.host`, started by awm/awm1k/runtime.py under
the OS isolation of awm/runtime/isolation.py (bubblewrap: no network, read-only, unprivileged, private /tmp).

Foreign code (an AWM-1K environment: FastAPI + SQLAlchemy, importing os and sqlite3; their verifiers) cannot
pass the template sandbox's AST policy, so it runs here with ordinary builtins: the process boundary and the
OS isolation are its whole containment (docs/security.md, "Foreign code"). Nothing of it runs in the caller.

One request per line on stdin, one answer per line on stdout (JSON; databases as base64, since the sandbox
sees no artifact root):

  load    {code, db}             the app over a copy of db in /tmp; answers its OpenAPI document
  reset   {}                     the working database back to the initial one (SQLite backup, engines disposed)
  call    {method, path, query, body}   one HTTP request through ASGI in-process (no socket): status and body
  verify  {code, final, answer, initial?}  verify_task_completion on read-only copies of the initial database and
                                 of `final` ("work": the episode's database, "initial": the unchanged one)
  quit    {}
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import shutil
import sqlite3
import sys
import time
import traceback
import types
from urllib.parse import urlencode

SCRATCH = os.environ.get("TMPDIR", "/tmp")
INITIAL = os.path.join(SCRATCH, "awm1k-initial.db")
WORK = os.path.join(SCRATCH, "awm1k-work.db")
OPS = {"load", "reset", "call", "verify", "snapshot"}


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


def digest(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


class Host:
    def __init__(self) -> None:
        self.loop = PipeLoop()
        asyncio.set_event_loop(self.loop)
        self.namespace: dict | None = None
        self.app = None

    # --- the app ------------------------------------------------------------------------------------------
    def load(self, code: str, db: str) -> dict:
        with open(INITIAL, "wb") as fh:
            fh.write(base64.b64decode(db))
        shutil.copyfile(INITIAL, WORK)
        # a module of its own in sys.modules, as when their server runs the file: pydantic and FastAPI resolve
        # the app's type annotations through it
        module = types.ModuleType("awm1k_environment")
        module.__file__ = os.path.join(SCRATCH, "awm1k_app.py")
        sys.modules[module.__name__] = module
        namespace = module.__dict__
        exec(compile(patched_code(code, WORK), module.__file__, "exec"), namespace)
        app = namespace.get("app")
        if app is None or not callable(app):
            raise RuntimeError("the environment code defines no `app` (a FastAPI application)")
        self.namespace, self.app = namespace, app
        return {"openapi": app.openapi() if hasattr(app, "openapi") else None}

    def _engines(self) -> list:
        try:
            from sqlalchemy.engine import Engine
        except ImportError:
            return []
        return [v for v in (self.namespace or {}).values() if isinstance(v, Engine)]

    def reset(self) -> dict:
        started = time.perf_counter()
        for engine in self._engines():
            engine.dispose()
        source, target = sqlite3.connect(INITIAL), sqlite3.connect(WORK)
        try:
            source.backup(target)
        finally:
            source.close()
            target.close()
        return {"ms": (time.perf_counter() - started) * 1000}

    def call(self, method: str, path: str, query: dict | None = None, body=None) -> dict:
        if self.app is None:
            raise RuntimeError("no environment loaded")
        started = time.perf_counter()
        status, payload = self.loop.run_until_complete(self._asgi(method.upper(), path, query or {}, body))
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
        except Exception as exc:  # an unhandled error of a route: the 500 Starlette sent, and the error
            return 500, json.dumps({"error": f"{type(exc).__name__}: {exc}"[:2000]}).encode()
        return status, b"".join(chunks)

    # --- verifiers ----------------------------------------------------------------------------------------
    def verify(self, code: str, final: str = "work", answer: str | None = None, initial: str | None = None) -> dict:
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
            self._copy_work(last)
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
            result = verify(initial_db_path=first, final_db_path=last, final_answer=answer)
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

    def _copy_work(self, target: str) -> None:
        source, copy = sqlite3.connect(WORK), sqlite3.connect(target)
        try:
            source.backup(copy)
        finally:
            source.close()
            copy.close()

    def snapshot(self) -> dict:
        path = os.path.join(SCRATCH, "snapshot.db")
        self._copy_work(path)
        with open(path, "rb") as fh:
            data = fh.read()
        os.unlink(path)
        return {"db": base64.b64encode(data).decode()}


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what their code prints goes to stderr, never into the answers
    sys.stdout = sys.stderr
    host = Host()
    for line in sys.stdin:
        request = json.loads(line)
        op = request.pop("op", None)
        if op == "quit":
            break
        try:
            if op not in OPS:
                raise ValueError(f"unknown request {op!r}: one of {', '.join(sorted(OPS))}")
            answer = {"ok": True, **getattr(host, op)(**request)}
        except Exception as exc:
            answer = {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:2000],
                      "trace": traceback.format_exc()[-2000:]}
        answers.write(json.dumps(answer, default=str) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
