"""The MCP server: every published environment over streamable HTTP, or one over stdio.

Built on the official `mcp` SDK's low-level server. Over HTTP one process serves
every environment of the catalog at

    http://HOST:PORT/envs/<env_id>/mcp[?task=<task_id>][&episode=<key>]

and each MCP session is its own episode, with its own copy of the database,
created when the session opens and freed when it ends (the client closes it, or
it idles out), after a grace period in which a trainer can still score it. The
agent sees the environment's tools and nothing else: no verify or score tool
exists. The trainer scores a session through the admin endpoints, which need the
token given at server start:

    GET    /admin/sessions                   live and recently ended sessions
    POST   /admin/sessions/<ref>/score       {"answer": str | {slot: value} | null, "task_id": str | null}
    DELETE /admin/sessions/<ref>             free the episode now

where <ref> is the `episode` key the trainer put in the URL, or the MCP session id.
Sessions speak the handshake era of the protocol (2025-11-25 and earlier): a
session is what makes an episode, and the 2026-07-28 era has none, so its
requests are answered with the versions this server supports and clients fall
back to the handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from awm.errors import AWMError
from awm.runtime.environment import Environment, Episode, RewardMapping
from awm.runtime.pool import WorkerPool
from awm.runtime.tools import is_error
from awm.store import ArtifactStore, atomic_write_bytes

log = logging.getLogger(__name__)

DEFAULT_SCORE_GRACE_SECONDS = 60.0
DEFAULT_IDLE_TIMEOUT_SECONDS = 30 * 60.0
DEFAULT_MAX_SESSIONS = 10_000
EPISODE_KEY = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_SESSION_STATE = "awm.session"


# --- sessions --------------------------------------------------------------------------


@dataclass(eq=False)
class Session:
    """One MCP session: one episode of one environment."""

    session_id: str
    env_id: str
    task_id: str | None
    episode: Episode
    key: str | None = None
    opened: float = field(default_factory=time.time)
    last_active: float = field(default_factory=time.time)
    ended: float | None = None

    def describe(self) -> dict:
        return {"session": self.session_id, "episode": self.key, "env_id": self.env_id, "task_id": self.task_id,
                "calls": self.episode.calls, "opened": self.opened, "last_active": self.last_active,
                "ended": self.ended, "state": "ended" if self.ended else "live"}


class SessionConflict(AWMError):
    """An episode key is already held by a live session."""


class SessionRegistry:
    """Sessions by MCP session id and by the trainer's episode key; frees ended ones after a grace period."""

    def __init__(self, score_grace: float = DEFAULT_SCORE_GRACE_SECONDS):
        self.score_grace = score_grace
        self._by_id: dict[str, Session] = {}
        self._by_key: dict[str, Session] = {}

    def __len__(self) -> int:
        return len(self._by_id)

    def live(self) -> int:
        return sum(1 for s in self._by_id.values() if s.ended is None)

    def key_problem(self, key: str) -> str | None:
        if not EPISODE_KEY.match(key):
            return f"episode key {key!r} must be 1-128 characters of letters, digits, '_', '.', ':' or '-'"
        holder = self._by_key.get(key)
        if holder is not None and holder.ended is None:
            return f"episode key {key!r} belongs to a live session; end it or choose another key"
        return None

    def add(self, session: Session) -> None:
        if session.key is not None:
            problem = self.key_problem(session.key)
            if problem:
                raise SessionConflict(problem)
            previous = self._by_key.get(session.key)
            if previous is not None:
                self.free(previous)
            self._by_key[session.key] = session
        self._by_id[session.session_id] = session

    def find(self, ref: str) -> Session | None:
        return self._by_key.get(ref) or self._by_id.get(ref)

    def end(self, session: Session) -> None:
        """The MCP session is over: keep the episode `score_grace` seconds for scoring, then free it."""
        if session.ended is not None:
            return
        session.ended = time.time()
        if self.score_grace <= 0:
            self.free(session)
            return
        asyncio.get_running_loop().call_later(self.score_grace, self.free, session)

    def free(self, session: Session) -> None:
        if self._by_id.get(session.session_id) is session:
            del self._by_id[session.session_id]
        if session.key is not None and self._by_key.get(session.key) is session:
            del self._by_key[session.key]
        session.episode.close()

    def describe(self) -> list[dict]:
        return [s.describe() for s in self._by_id.values()]

    def free_all(self) -> None:
        for session in list(self._by_id.values()):
            self.free(session)


def connection_of(ctx: ServerRequestContext) -> Connection:
    """The MCP connection a request arrived on: its `state` and `exit_stack` scope an episode.

    The SDK's low-level request context does not expose the connection yet (its
    Context rework is pending), so this reads it off the request's session.
    """
    connection = getattr(ctx.session, "_connection", None)
    if not isinstance(connection, Connection):
        raise RuntimeError("this version of the mcp SDK does not expose the connection on ServerSession; "
                           "awm.runtime.server needs mcp 2.3")
    return connection


def call_result(result: Any) -> types.CallToolResult:
    """A tool's result (or structured error) as an MCP CallToolResult: JSON text plus structured content."""
    structured = result if isinstance(result, dict) else {"result": result}
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured,
                                is_error=is_error(result))


# --- one environment ------------------------------------------------------------------------


class EnvironmentService:
    """One environment as an MCP server: its tools, and an episode per session."""

    def __init__(self, env: Environment, registry: SessionRegistry, instructions: str | None = None,
                 host: str = "127.0.0.1", idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT_SECONDS,
                 max_sessions: int = DEFAULT_MAX_SESSIONS):
        self.env = env
        self.registry = registry
        self.max_sessions = max_sessions
        self.published = {t.task_id for t in env.tasks}
        self._tools = types.ListToolsResult(tools=[types.Tool.model_validate(spec) for spec in env.tools])
        self._fixed: Session | None = None  # stdio: the process's one episode
        self.server: Server = Server(f"awm:{env.env_id}", version=_version(), instructions=instructions,
                                     on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        # The SDK's default middleware opens an OpenTelemetry span per message (~10% of a call's CPU here);
        # the runtime exports no traces, so it keeps only its own.
        self.server.middleware = [self._open_episode_on_initialize]
        self.manager = StreamableHTTPSessionManager(
            app=self.server, json_response=True, security_settings=_transport_security(host),
            session_idle_timeout=idle_timeout, max_sessions=max_sessions)
        self._stop = anyio.Event()

    # MCP handlers -----------------------------------------------------------------

    async def _list_tools(self, ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
        return self._tools

    async def _call_tool(self, ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        session = await self._session(ctx)
        session.last_active = time.time()
        result = await session.episode.acall(params.name, params.arguments or {})
        return call_result(result)

    async def _open_episode_on_initialize(self, ctx: ServerRequestContext, call_next) -> Any:
        """The session's episode exists, and is registered, before the client learns the session id."""
        if ctx.method == "initialize" and self._fixed is None:
            connection = connection_of(ctx)
            if _SESSION_STATE not in connection.state:
                connection.state[_SESSION_STATE] = await self._open(ctx, connection)
        return await call_next(ctx)

    async def _session(self, ctx: ServerRequestContext) -> Session:
        if self._fixed is not None:
            return self._fixed
        session = connection_of(ctx).state.get(_SESSION_STATE)
        if session is None:
            raise MCPError(INVALID_REQUEST, "this connection has no episode; open it with the initialize handshake")
        return session

    async def _open(self, ctx: ServerRequestContext, connection: Connection) -> Session:
        query = ctx.request.query_params if isinstance(ctx.request, Request) else {}
        task_id = query.get("task") or None
        episode = await self.env.areset(task_id)
        session = Session(connection.session_id or secrets.token_hex(16), self.env.env_id, task_id, episode,
                          key=query.get("episode") or None)
        try:
            self.registry.add(session)
        except SessionConflict as exc:
            episode.close()
            raise MCPError(INVALID_PARAMS, str(exc)) from exc
        connection.exit_stack.callback(self.registry.end, session)
        return session

    # HTTP ---------------------------------------------------------------------------

    def opening_problem(self, request: Request) -> tuple[int, str] | None:
        """Why a request that would open a session must be refused, as (HTTP status, message)."""
        task_id = request.query_params.get("task")
        if task_id and task_id not in self.published:
            return 400, (f"{self.env.env_id} publishes no task {task_id!r}; published: "
                         f"{', '.join(sorted(self.published))}")
        key = request.query_params.get("episode")
        if key:
            problem = self.registry.key_problem(key)
            if problem:
                return 409, problem
        if self.registry.live() >= self.max_sessions:
            return 503, f"the server holds {self.max_sessions} sessions already; end some first"
        return None

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        version = request.headers.get("mcp-protocol-version")
        if version in MODERN_PROTOCOL_VERSIONS:
            # No session, no episode: ask the client for the handshake era instead.
            data = {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": version}
            await _rpc_error(400, UNSUPPORTED_PROTOCOL_VERSION, "this server serves sessions; use the "
                             "initialize handshake", data)(scope, receive, send)
            return
        if request.method == "POST" and "mcp-session-id" not in request.headers:
            problem = self.opening_problem(request)
            if problem:
                status, message = problem
                await _rpc_error(status, INVALID_PARAMS, message)(scope, receive, send)
                return
        await self.manager.handle_request(scope, receive, send)

    async def run(self, *, task_status=anyio.TASK_STATUS_IGNORED) -> None:
        async with self.manager.run():
            task_status.started()
            await self._stop.wait()

    def stop(self) -> None:
        self._stop.set()

    # stdio ---------------------------------------------------------------------------

    async def serve_stdio(self, task_id: str | None, final_db: Path | None = None) -> None:
        """Serve one episode over this process's stdin/stdout until the client leaves."""
        from mcp.server.stdio import stdio_server

        episode = await self.env.areset(task_id)
        self._fixed = Session("stdio", self.env.env_id, task_id, episode)
        try:
            async with stdio_server() as (read_stream, write_stream):
                await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
        finally:
            if final_db is not None:
                atomic_write_bytes(Path(final_db), await episode.asnapshot())
            episode.close()


def _version() -> str:
    from awm import __version__

    return __version__


def _transport_security(host: str) -> TransportSecuritySettings | None:
    """DNS-rebinding protection when bound to loopback, as the SDK does for its own apps."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        return None
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
        allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"])


def _rpc_error(status: int, code: int, message: str, data: Any = None) -> Response:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, status_code=status)


# --- the whole catalog ---------------------------------------------------------------------------


class RuntimeServer:
    """Every published environment of a store, loaded on first use, behind one ASGI app."""

    def __init__(self, store: ArtifactStore, pool: WorkerPool, admin_token: str, host: str = "127.0.0.1",
                 env_ids: list[str] | None = None, reward: RewardMapping | None = None,
                 score_grace: float = DEFAULT_SCORE_GRACE_SECONDS,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT_SECONDS, max_sessions: int = DEFAULT_MAX_SESSIONS):
        if not admin_token:
            raise ValueError("the admin token must not be empty")
        self.store = store
        self.pool = pool
        self.host = host
        self.reward = reward
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self._token = admin_token.encode("utf-8")
        self.catalog = published_catalog(store)
        if env_ids:
            unknown = sorted(set(env_ids) - set(self.catalog))
            if unknown:
                raise AWMError(f"not published in {store.catalog_path}: {', '.join(unknown)}")
            self.catalog = {e: self.catalog[e] for e in env_ids}
        self.registry = SessionRegistry(score_grace)
        self.services: dict[str, EnvironmentService] = {}
        self._loading = asyncio.Lock()
        self._task_group: anyio.abc.TaskGroup | None = None

    def session(self, ref: str) -> Session:
        """A session by episode key or MCP session id, for trainers embedding the server in-process:
        `server.session("run-1").episode.score(answer)`."""
        session = self.registry.find(ref)
        if session is None:
            raise KeyError(f"no session {ref!r} (episode key or MCP session id)")
        return session

    async def service(self, env_id: str) -> EnvironmentService:
        service = self.services.get(env_id)
        if service is not None:
            return service
        async with self._loading:
            service = self.services.get(env_id)
            if service is None:
                env = await anyio.to_thread.run_sync(self._load, env_id)
                service = EnvironmentService(env, self.registry, self._instructions(env_id), self.host,
                                             self.idle_timeout, self.max_sessions)
                await self._task_group.start(service.run)
                self.services[env_id] = service
        return service

    def _load(self, env_id: str) -> Environment:
        return Environment.from_store(self.store, env_id, self.reward, self.pool, task_ids=self.catalog[env_id])

    def _instructions(self, env_id: str) -> str | None:
        from awm.contracts import Scenario

        try:
            scenario = self.store.read_model(env_id, "scenario.json", Scenario)
        except AWMError:
            return None
        return f"{scenario.name}: {scenario.description}"

    # ASGI ---------------------------------------------------------------------------

    async def _mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        env_id = scope["path_params"]["env_id"]
        if env_id not in self.catalog:
            await _rpc_error(404, INVALID_REQUEST, f"no published environment {env_id!r}; GET /envs lists them")(
                scope, receive, send)
            return
        try:
            service = await self.service(env_id)
        except AWMError as exc:
            await _rpc_error(500, INVALID_REQUEST, f"{env_id} cannot be served: {exc}")(scope, receive, send)
            return
        await service.handle(scope, receive, send)

    async def _envs(self, request: Request) -> JSONResponse:
        base = str(request.base_url).rstrip("/")
        return JSONResponse({"environments": [
            {"env_id": env_id, "url": f"{base}/envs/{env_id}/mcp", "tasks": tasks}
            for env_id, tasks in sorted(self.catalog.items())]})

    async def _health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "ok", "environments": len(self.catalog), "loaded": len(self.services),
                             "sessions": self.registry.live(), "held": len(self.registry), "pool": self.pool.stats()})

    def _authorized(self, request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(token.strip().encode("utf-8"), self._token)

    async def _admin_sessions(self, request: Request) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        return JSONResponse({"sessions": self.registry.describe()})

    async def _admin_session(self, request: Request) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        session = self.registry.find(request.path_params["ref"])
        if session is None:
            return _not_found(request.path_params["ref"])
        self.registry.free(session)
        return JSONResponse({"freed": session.describe()})

    async def _admin_score(self, request: Request) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        session = self.registry.find(request.path_params["ref"])
        if session is None:
            return _not_found(request.path_params["ref"])
        body = await _json_body(request)
        if isinstance(body, JSONResponse):
            return body
        answer, task_id = body.get("answer"), body.get("task_id") or session.task_id
        if answer is not None and not isinstance(answer, (str, dict)):
            return JSONResponse({"error": "answer must be a string, an object keyed by the task's answer slots, "
                                          "or null"}, status_code=400)
        if task_id is None:
            return JSONResponse({"error": "this session was opened without ?task=; give task_id"}, status_code=400)
        if not isinstance(task_id, str) or task_id not in self.catalog[session.env_id]:
            return JSONResponse({"error": f"{session.env_id} publishes no task {task_id!r}"}, status_code=400)
        score = await session.episode.ascore(answer, task_id)
        return JSONResponse({**score, "env_id": session.env_id, "task_id": task_id, "session": session.session_id,
                             "episode": session.key})

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
        attached = await self.pool.attach()  # answers from the sandbox are read on this loop
        try:
            async with anyio.create_task_group() as task_group:
                self._task_group = task_group
                try:
                    yield
                finally:
                    for service in self.services.values():
                        service.stop()
                    self.registry.free_all()
        finally:
            if attached:
                self.pool.detach()

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/envs", self._envs, methods=["GET"]),
            Route("/envs/{env_id}/mcp", _ASGIEndpoint(self._mcp), methods=["GET", "POST", "DELETE"]),
            Route("/healthz", self._health, methods=["GET"]),
            Route("/admin/sessions", self._admin_sessions, methods=["GET"]),
            Route("/admin/sessions/{ref}", self._admin_session, methods=["DELETE"]),
            Route("/admin/sessions/{ref}/score", self._admin_score, methods=["POST"]),
        ], lifespan=self.lifespan)


class _ASGIEndpoint:
    """Marks a coroutine as a raw ASGI app for Starlette's router (which wraps plain functions)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


def published_catalog(store: ArtifactStore) -> dict[str, list[str]]:
    """env_id -> its published task ids, from catalog.jsonl."""
    if not store.catalog_path.exists():
        raise AWMError(f"no catalog at {store.catalog_path}; build the corpus first (make run)")
    catalog: dict[str, list[str]] = {}
    for entry in store.iter_catalog():
        catalog.setdefault(entry["env_id"], []).append(entry["task_id"])
    return catalog


async def _json_body(request: Request) -> dict | JSONResponse:
    raw = await request.body()
    if not raw:
        return {}
    try:
        body = json.loads(raw)
    except json.JSONDecodeError as exc:
        return JSONResponse({"error": f"the body is not JSON: {exc}"}, status_code=400)
    if not isinstance(body, dict):
        return JSONResponse({"error": "the body must be a JSON object"}, status_code=400)
    return body


def _unauthorized() -> JSONResponse:
    return JSONResponse({"error": "admin endpoints need 'Authorization: Bearer <token>' with the server's token"},
                        status_code=401, headers={"WWW-Authenticate": "Bearer"})


def _not_found(ref: str) -> JSONResponse:
    return JSONResponse({"error": f"no session {ref!r} (episode key or MCP session id); GET /admin/sessions"},
                        status_code=404)


# --- running -------------------------------------------------------------------------------------


def run_http(server: RuntimeServer, port: int, ready: Any = None) -> None:
    """Serve until interrupted (uvicorn; uvloop and httptools when installed). `ready()` is called once listening."""
    import uvicorn

    config = uvicorn.Config(server.app(), host=server.host, port=port, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=5)
    http = uvicorn.Server(config)
    if ready is not None:
        original = http.startup

        async def startup(sockets=None):
            await original(sockets=sockets)
            ready(http)

        http.startup = startup
    http.run()


@dataclass
class RunningServer:
    """A server started by `serve_in_thread`."""

    url: str
    thread: Any
    http: Any

    def stop(self, timeout: float = 10.0) -> None:
        self.http.should_exit = True
        self.thread.join(timeout)


def serve_in_thread(server: RuntimeServer, port: int = 0, timeout: float = 30.0) -> RunningServer:
    """Serve over HTTP from a background thread (for embedding in a trainer, and for tests)."""
    import threading

    started = threading.Event()
    state: dict[str, Any] = {}

    def ready(http) -> None:
        state["http"] = http
        started.set()

    def target() -> None:
        try:
            run_http(server, port, ready)
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that waits for the start
            state["error"] = exc
            started.set()

    thread = threading.Thread(target=target, name="awm-serve", daemon=True)
    thread.start()
    if not started.wait(timeout) or "error" in state:
        raise AWMError(f"the MCP server did not start: {state.get('error', 'timed out')}")
    http = state["http"]
    bound = http.servers[0].sockets[0].getsockname()[1]
    host = f"[{server.host}]" if ":" in server.host else server.host
    return RunningServer(f"http://{host}:{bound}", thread, http)


def run_stdio(store: ArtifactStore, env_id: str, task_id: str | None, pool: WorkerPool,
              final_db: Path | None = None, reward: RewardMapping | None = None) -> None:
    """Serve one published environment, one episode, over stdin/stdout."""
    catalog = published_catalog(store)
    if env_id not in catalog:
        raise AWMError(f"{env_id} publishes no task in {store.catalog_path}")
    if task_id is not None and task_id not in catalog[env_id]:
        raise AWMError(f"{env_id} publishes no task {task_id!r}; published: {', '.join(catalog[env_id])}")
    env = Environment.from_store(store, env_id, reward, pool, task_ids=catalog[env_id])
    service = EnvironmentService(env, SessionRegistry(0))
    anyio.run(service.serve_stdio, task_id, final_db)
