"""The foreign runtime: an AWM-1K environment's own FastAPI app, run inside the OS-isolated sandbox and called
route by route, each route an MCP tool.

    with ForeignHost.start() as host:                 # python -m awm.awm1k.host under bubblewrap
        env = host.load(app_code, db_path)             # their app over a copy of the database, in the sandbox
        env.call_tool("add_cart_item", {...})          # one route, in-process through ASGI: no socket anywhere
        host.reset()                                   # the episode's database back to the initial one
        host.verify(verifier_code)                     # their verifier on read-only copies

The host is started by the same command line builder as the template sandbox's workers
(awm.runtime.isolation.start_python), with the installed packages their code imports (fastapi, sqlalchemy,
pydantic) shown read-only. Foreign code needs os and sqlite3, which the template sandbox's AST policy refuses,
so it relies on the OS isolation alone: under isolation "process" (no bubblewrap) it is refused unless
`allow_unisolated` is given (tests of the protocol on machines without bubblewrap).
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import subprocess
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.errors import AWMError
from awm.runtime import isolation as iso
from awm.runtime.tools import DEFAULT_CALL_MEMORY_MB

CALL_SECONDS = 30.0
LOAD_SECONDS = 120.0


class ForeignCodeError(AWMError):
    """The foreign host failed a request, or did not answer in time."""


def site_paths() -> tuple[str, ...]:
    """The directories of installed packages the foreign code imports (this interpreter's site-packages)."""
    paths = {sysconfig.get_paths()[key] for key in ("purelib", "platlib")}
    return tuple(sorted(p for p in paths if os.path.isdir(p)))


@dataclass
class Route:
    """One route of their app as an MCP tool: where each argument goes."""

    tool: str
    method: str
    path: str
    description: str
    input_schema: dict[str, Any]
    path_params: list[str] = field(default_factory=list)
    query_params: list[str] = field(default_factory=list)
    body_params: list[str] = field(default_factory=list)
    body_whole: str | None = None  # the body is one argument (not an object of named fields)

    def spec(self) -> dict[str, Any]:
        return {"name": self.tool, "description": self.description, "inputSchema": self.input_schema,
                "annotations": {"readOnlyHint": self.method == "GET", "route": f"{self.method} {self.path}"}}

    def request(self, arguments: dict[str, Any]) -> tuple[str, dict, Any]:
        unknown = sorted(set(arguments) - set(self.path_params) - set(self.query_params) - set(self.body_params)
                         - ({self.body_whole} if self.body_whole else set()))
        if unknown:
            raise ForeignCodeError(f"tool {self.tool}: unknown arguments {unknown}")
        path = self.path
        for name in self.path_params:
            if name not in arguments:
                raise ForeignCodeError(f"tool {self.tool}: missing path argument {name!r}")
            path = path.replace("{" + name + "}", str(arguments[name]))
        query = {k: arguments[k] for k in self.query_params if k in arguments and arguments[k] is not None}
        body = None
        if self.body_whole:
            body = arguments.get(self.body_whole)
        elif self.body_params:
            body = {k: arguments[k] for k in self.body_params if k in arguments}
        return path, query, body


def _tool_name(raw: str, taken: set[str]) -> str:
    name = re.sub(r"[^a-z0-9_]+", "_", raw.lower()).strip("_") or "route"
    if not name[0].isalpha():
        name = f"r_{name}"
    name = name[:63]
    base, n = name, 2
    while name in taken:
        suffix = f"_{n}"
        name, n = base[:63 - len(suffix)] + suffix, n + 1
    taken.add(name)
    return name


def _resolve(schema: Any, components: dict) -> Any:
    """`schema` with its local $refs replaced (one level of components at a time, cycles cut)."""
    def walk(node: Any, seen: frozenset) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
                name = ref.rsplit("/", 1)[1]
                if name in seen:
                    return {"type": "object"}
                return walk(components.get(name, {"type": "object"}), seen | {name})
            return {k: walk(v, seen) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v, seen) for v in node]
        return node
    return walk(schema, frozenset())


def routes_of(openapi: dict) -> list[Route]:
    """Each operation of the app's OpenAPI document as a tool, named by its operationId (as fastapi_mcp names
    them), its arguments the path and query parameters and the body's fields."""
    components = (openapi.get("components") or {}).get("schemas") or {}
    routes, taken = [], set()
    for path, operations in sorted((openapi.get("paths") or {}).items()):
        for method, op in operations.items():
            if method.lower() not in ("get", "post", "put", "patch", "delete") or not isinstance(op, dict):
                continue
            props: dict[str, Any] = {}
            required: list[str] = []
            route = Route(tool=_tool_name(op.get("operationId") or f"{method}_{path}", taken), method=method.upper(),
                          path=path, description=(op.get("summary") or op.get("description") or
                                                  f"{method.upper()} {path}").strip()[:1024], input_schema={})
            for param in op.get("parameters") or []:
                where, name = param.get("in"), param.get("name")
                if where not in ("path", "query") or not name:
                    continue
                props[name] = _resolve(param.get("schema") or {}, components)
                if param.get("description"):
                    props[name] = {**props[name], "description": param["description"]}
                (route.path_params if where == "path" else route.query_params).append(name)
                if param.get("required") or where == "path":
                    required.append(name)
            body = ((op.get("requestBody") or {}).get("content") or {}).get("application/json")
            if body:
                schema = _resolve(body.get("schema") or {}, components)
                if schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
                    for name, sub in schema["properties"].items():
                        props[name] = sub
                        route.body_params.append(name)
                    required += [n for n in schema.get("required", []) if n in schema["properties"]]
                else:
                    route.body_whole = "body"
                    props["body"] = schema
                    if (op.get("requestBody") or {}).get("required"):
                        required.append("body")
            route.input_schema = {"type": "object", "properties": props, "required": sorted(set(required))}
            routes.append(route)
    return routes


def example_value(schema: dict[str, Any]) -> Any:
    """A plausible value for a smoke call: the schema's example or default, else one of its type."""
    for key in ("example", "default"):
        if key in schema and schema[key] is not None:
            return schema[key]
    if schema.get("examples"):
        return schema["examples"][0]
    if schema.get("enum"):
        return schema["enum"][0]
    for option in schema.get("anyOf") or schema.get("oneOf") or []:
        if option.get("type") != "null":
            return example_value(option)
    kind = schema.get("type")
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return {n: example_value(s) for n, s in (schema.get("properties") or {}).items()
                if n in (schema.get("required") or [])}
    fmt = schema.get("format")
    return "2025-01-01T00:00:00" if fmt == "date-time" else "2025-01-01" if fmt == "date" else "test"


def smoke_arguments(route: Route) -> dict[str, Any]:
    props = route.input_schema.get("properties", {})
    return {name: example_value(props[name]) for name in route.input_schema.get("required", [])}


class ForeignHost:
    """One sandboxed host process (awm/awm1k/host.py) and the JSON-lines conversation with it."""

    def __init__(self, process: subprocess.Popen, isolation: iso.Isolation):
        self.process = process
        self.isolation = isolation
        self.routes: dict[str, Route] = {}
        self._buffer = b""

    @classmethod
    def start(cls, isolation: str | None = None, allow_unisolated: bool = False,
              memory_mb: float | None = DEFAULT_CALL_MEMORY_MB) -> ForeignHost:
        """A new host process. `memory_mb`: the address-space budget of one call or verifier run (the budget our
        sandbox gives a tool call, `awm serve --memory-mb`); None or 0 for none."""
        found = iso.resolve(isolation)
        if found.mode != "os" and not allow_unisolated:
            raise iso.IsolationUnavailable(
                "foreign AWM-1K code (FastAPI apps and verifiers importing os and sqlite3) runs only under OS "
                f"isolation (bubblewrap), which is not in force here: {found.detail}. To fix: {iso.INSTALL_HINT}")
        args = ["-m", "awm.awm1k.host"] + (["--memory-mb", f"{float(memory_mb):g}"] if memory_mb else [])
        process = iso.start_python(found, args, site_paths=site_paths(),
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return cls(process, found)

    def __enter__(self) -> ForeignHost:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self.process.poll() is None:
            try:
                self.process.stdin.write(b'{"op": "quit"}\n')
                self.process.stdin.flush()
                self.process.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream:
                stream.close()

    def request(self, op: str, seconds: float = CALL_SECONDS, **payload: Any) -> dict:
        if self.process.poll() is not None:
            raise ForeignCodeError(f"the foreign host has exited (code {self.process.returncode})")
        self.process.stdin.write((json.dumps({"op": op, **payload}) + "\n").encode())
        self.process.stdin.flush()
        deadline = time.monotonic() + seconds
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([fd], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                self.process.kill()
                self.process.wait()
                raise ForeignCodeError(f"the foreign host did not answer {op} within {seconds:g} s; it was ended")
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise ForeignCodeError(f"the foreign host ended during {op} (code {self.process.wait()})")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        answer = json.loads(line)
        if not answer.pop("ok"):
            raise ForeignCodeError(f"{op}: {answer.get('error')}")
        return answer

    # --- the environment ------------------------------------------------------------------------------------
    def load(self, code: str, db_path: Path) -> list[Route]:
        answer = self.request("load", LOAD_SECONDS, code=code,
                              db=base64.b64encode(Path(db_path).read_bytes()).decode())
        if not isinstance(answer.get("openapi"), dict):
            raise ForeignCodeError("the environment's app has no OpenAPI document")
        routes = routes_of(answer["openapi"])
        self.routes = {r.tool: r for r in routes}
        return routes

    # Every request below is for `episode` (opened with open_episode), or without one for the host's own.
    def open_episode(self, episode: str) -> float:
        """A new episode in the host: its own copy of the initial database (ms to make it)."""
        return self.request("open", episode=episode)["ms"]

    def close_episode(self, episode: str) -> None:
        self.request("close", episode=episode)

    def reset(self, episode: str | None = None) -> float:
        return self.request("reset", episode=episode)["ms"]

    def call(self, method: str, path: str, query: dict | None = None, body: Any = None,
             seconds: float = CALL_SECONDS, episode: str | None = None) -> dict:
        return self.request("call", seconds, method=method, path=path, query=query or {}, body=body, episode=episode)

    def call_tool(self, name: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS,
                  episode: str | None = None) -> dict:
        """One tool call: {"status": HTTP status, "body": the JSON answer, "ms": time inside the sandbox}."""
        route = self.routes.get(name)
        if route is None:
            raise ForeignCodeError(f"unknown tool {name!r}; known: {', '.join(sorted(self.routes))}")
        path, query, body = route.request(arguments)
        return self.call(route.method, path, query, body, seconds, episode)

    def verify(self, code: str, final: str | bytes = "work", answer: str | None = None,
               initial: bytes | None = None, seconds: float = CALL_SECONDS, episode: str | None = None) -> dict:
        """{"verdict": "complete" | "others" | ..., "error": ..., "wrote": whether a database changed}."""
        payload: dict[str, Any] = {"code": code, "answer": answer, "episode": episode,
                                   "final": final if isinstance(final, str) else base64.b64encode(final).decode()}
        if initial is not None:
            payload["initial"] = base64.b64encode(initial).decode()
        return self.request("verify", seconds, **payload)

    def snapshot(self, episode: str | None = None) -> bytes:
        return base64.b64decode(self.request("snapshot", episode=episode)["db"])
