"""The MCP server: every published environment over streamable HTTP, or one over stdio.

Built on the official `mcp` SDK's low-level server. Over HTTP one process serves
every environment of the catalog at

    http://HOST:PORT/envs/<env_id>/mcp[?task=<task_id>][&episode=<key>]

and each MCP session is its own episode, with its own copy of the database,
created when the session opens and freed when it ends (the client closes it, or
it idles out), after a grace period in which a trainer can still score it. The
agent sees the environment's tools and nothing else: no verify or score tool
exists. The trainer reserves episodes and scores them through the admin
endpoints, which need the token given at server start:

    POST   /admin/sessions                   {"env_id", "task_id", "key"?}: reserve an episode; its URL
    GET    /admin/sessions                   reserved, live and recently ended sessions
    POST   /admin/episodes/<key>/score       {"answer": str | {slot: value} | null, "task_id": str | null}
    DELETE /admin/episodes/<key>             free the episode now
    POST   /admin/mcp-sessions/<id>/score, DELETE /admin/mcp-sessions/<id>: the same, by MCP session id

(/admin/sessions/<ref>[/score] still answers where <ref> names one episode only). A reserved episode's URL,
/episodes/<secret>/mcp, is what the trainer hands the agent: its environment and
task are fixed by the reservation, it opens one session once, and its key cannot
be claimed by anyone else. The server serves an environment only as proven: its
files must be those the verification stage recorded in provenance.json (an imported
AWM-1K environment, served through an EnvironmentSource, awm/awm1k/serving.py: those
its import recorded, and its checked or proven tasks).
Sessions speak the handshake era of the protocol (2025-11-25 and earlier): a
session is what makes an episode, and the 2026-07-28 era has none, so its
requests are answered with the versions this server supports and clients fall
back to the handshake.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.connection import Connection
from mcp.server.context import ServerRequestContext
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from awm import artifacts
from awm.domains import split_env_id
from awm.errors import AWMError, CorruptArtifactError, UnprovenArtifactError
from awm.runtime.agent_format import LIST_TOOLS, META_TOOLS, tool_listing, unwrap_call
from awm.runtime.environment import Environment, Episode, RewardMapping
from awm.runtime.pool import QuotaExceeded, WorkerPool
from awm.runtime.tools import is_error, tool_error
from awm.store import ArtifactStore, atomic_write_bytes
from awm.toolspecs import TOOL_FORMATS, foreign_spec, published_spec

log = logging.getLogger(__name__)

DEFAULT_SCORE_GRACE_SECONDS = 60.0
DEFAULT_IDLE_TIMEOUT_SECONDS = 30 * 60.0
DEFAULT_MAX_SESSIONS = 10_000
DEFAULT_MAX_CONNECTIONS = 8  # MCP sessions open at once on one reserved episode
DEFAULT_MAX_REQUEST_BYTES = 64 * 1024  # one JSON-RPC message, so one tool call's arguments
EPISODE_KEY = re.compile(r"[A-Za-z0-9_.:-]{1,128}")  # fullmatch: `$` would let a trailing newline through
LOAD_RETRY_SECONDS = 5.0  # an environment that failed to load is not tried again sooner
PROOF_STAGE = "verification_reports"  # its provenance records the files the proofs ran on
SERVED_FILES = tuple(a.name for a in (artifacts.TASKS, artifacts.TOOLS_PY, artifacts.TOOLS_JSON, artifacts.VERIFIERS,
                                      artifacts.DATABASE, artifacts.REPORT))
SERVED_TOOL_FORMATS = (*TOOL_FORMATS, "awm")  # how an episode's agent sees the tools (awm: agent_format)
_SESSION_STATE = "awm.session"
_RESERVATION = "awm.reservation"  # ASGI scope key: the reservation a request opens


# --- sessions --------------------------------------------------------------------------


@dataclass(eq=False)
class Session:
    """One episode of one environment: reserved by a trainer, opened by MCP sessions, or both.

    A reservation has no session id and no episode until its URL is first opened; from then on every MCP
    session opened at its URL continues the same episode (`connections` are the open ones), until the
    trainer ends or frees it or it idles out. An open session made without a reservation is its own
    episode, from its opening to its end."""

    session_id: str | None
    env_id: str
    task_id: str | None
    episode: Episode | None
    key: str | None = None
    claim: str | None = None  # the secret in a reservation's URL
    url: str | None = None  # a reservation's URL, the one to hand to the agent
    reserved: float | None = None
    opened: float | None = field(default_factory=time.time)
    last_active: float = field(default_factory=time.time)
    ended: float | None = None
    tool_format: str = "strict"  # how the agent sees the tools: strict, permissive, verl or awm
    connections: set[str] = field(default_factory=set)  # the MCP sessions open on this episode now
    opening: asyncio.Future | None = None  # a reservation's episode being created by its first session

    @property
    def state(self) -> str:
        if self.ended is not None:
            return "ended"
        return "reserved" if self.session_id is None else "live"

    def describe(self) -> dict:
        described = {"session": self.session_id, "episode": self.key, "env_id": self.env_id, "task_id": self.task_id,
                     "calls": self.episode.calls if self.episode is not None else 0, "reserved": self.reserved,
                     "opened": self.opened, "last_active": self.last_active, "ended": self.ended, "state": self.state,
                     "connections": len(self.connections), "tool_format": self.tool_format}
        if self.url is not None:
            described["url"] = self.url
        return described


class SessionConflict(AWMError):
    """An episode key or a reservation is already taken (HTTP 409)."""


class ServerFull(AWMError):
    """The server holds as many episodes as it may (HTTP 503)."""


class TooManyConnections(AWMError):
    """A reservation has as many MCP sessions open as one episode may (HTTP 429)."""


class AmbiguousRef(AWMError):
    """A reference names an episode key and another episode's MCP session id (HTTP 409)."""


REF_KINDS = ("key", "session")  # what an admin path names: an episode key, or an MCP session id


class SessionRegistry:
    """Every episode the server holds (reserved, live, or ended and kept for scoring), by MCP session id, by
    episode key and by reservation secret; frees ended ones after a grace period.

    Three namespaces that never meet: the trainer's keys (its reservations), the keys unreserved sessions
    chose (`?episode=`), and MCP session ids. An agent can neither take nor probe a trainer's key, and a key
    equal to some session id does not make that session's episode answer for it.

    What counts against `max_held`: every episode held, once per MCP session open on it (at least once).
    Unreserved episodes may take at most `max_unreserved` of it, so reservations always have
    `max_held - max_unreserved`; a reservation's URL opens at most `max_connections` MCP sessions at once."""

    def __init__(self, score_grace: float = DEFAULT_SCORE_GRACE_SECONDS, max_held: int | None = None,
                 reservation_ttl: float | None = None, max_unreserved: int | None = None,
                 max_connections: int = DEFAULT_MAX_CONNECTIONS, reserved_only: bool = False):
        self.score_grace = score_grace
        self.reserved_only = reserved_only
        self.max_held = max_held
        self.max_unreserved = max_unreserved
        self.max_connections = max_connections
        self.reservation_ttl = reservation_ttl
        self._held: dict[Session, None] = {}  # insertion-ordered set
        self._by_id: dict[str, Session] = {}
        self._by_key: dict[str, Session] = {}  # reservations
        self._by_open_key: dict[str, Session] = {}  # unreserved episodes
        self._by_claim: dict[str, Session] = {}
        self.slots = 0  # what counts against max_held (see the class)
        self.unreserved = 0  # unreserved episodes held

    def __len__(self) -> int:
        return len(self._held)

    def counts(self) -> dict[str, int]:
        counts = {"reserved": 0, "live": 0, "ended": 0}
        for session in self._held:
            counts[session.state] += 1
        return counts

    def live(self) -> int:
        return self.counts()["live"]

    def holds(self, session: Session) -> bool:
        return session in self._held

    def key_problem(self, key: str, reserved: bool = True) -> str | None:
        """Why `key` cannot name a new episode: malformed, or held in any state (an ended episode's key stays
        its own until it is freed, so the trainer scores what it ran). A reservation's key is checked among
        reservations, with their state (the trainer asks); an unreserved one among unreserved episodes only,
        and the answer says no more than that it is taken (anyone may ask)."""
        if not EPISODE_KEY.fullmatch(key):
            return f"episode key {key!r} must be 1-128 characters of letters, digits, '_', '.', ':' or '-'"
        if not reserved:
            if key in self._by_open_key:
                return f"episode key {key!r} is taken by another unreserved episode; choose another key"
            return None
        holder = self._by_key.get(key)
        if holder is None:
            return None
        if holder.state == "reserved":
            return f"episode key {key!r} is reserved: connect through the URL its reservation returned"
        if holder.state == "live":
            return f"episode key {key!r} belongs to a live session; end it or choose another key"
        return (f"episode key {key!r} belongs to an ended session kept for scoring; free it "
                f"(DELETE /admin/episodes/{key}) or choose another key")

    def room_problem(self, reserved: bool = True, extra: int = 1) -> str | None:
        """Why `extra` more slots cannot be taken, for a reservation or an unreserved session; or None."""
        if not reserved and self.reserved_only:
            return ("this server serves reserved episodes only (--reserved-only): ask the trainer for the URL of "
                    "a reserved episode")
        if self.max_held is None:
            return None
        if self.slots + extra > self.max_held:
            counts, held = self.counts(), len(self)
            return (f"the server holds {held} episode{'s' if held != 1 else ''} ({counts['live']} live, "
                    f"{counts['ended']} ended and kept for scoring, {counts['reserved']} reserved) and "
                    f"{self.slots - held} more open MCP session(s) on reserved episodes, as many as --max-sessions "
                    "allows; score and free ended ones (DELETE /admin/episodes/<key>) or wait for their "
                    "--score-grace to pass")
        if not reserved and self.max_unreserved is not None and self.unreserved + extra > self.max_unreserved:
            return (f"unreserved sessions hold {self.unreserved} episodes, as many as --max-unreserved allows (the "
                    "rest is kept for reserved episodes); try again later")
        return None

    def connection_problem(self, session: Session) -> tuple[int, str] | None:
        """Why another MCP session cannot open on reservation `session` now, as (HTTP status, message)."""
        if len(session.connections) >= self.max_connections:
            return 429, (f"episode {session.key!r} has {len(session.connections)} MCP sessions open, as many as "
                         "one episode may (--max-connections); close one first")
        if session.connections:  # the first one is the episode's own slot
            problem = self.room_problem()
            if problem:
                return 503, problem
        return None

    def _admit(self, key: str | None, reserved: bool) -> None:
        problem = self.key_problem(key, reserved) if key is not None else None
        if problem:
            raise SessionConflict(problem)
        problem = self.room_problem(reserved)
        if problem:
            raise ServerFull(problem)

    def _connect(self, session: Session, session_id: str) -> None:
        before = max(1, len(session.connections))
        session.connections.add(session_id)
        self.slots += max(1, len(session.connections)) - before

    def add(self, session: Session) -> None:
        """Hold an open, unreserved session (SessionConflict, ServerFull if it cannot be)."""
        self._admit(session.key, reserved=False)
        self._held[session] = None
        self.slots += 1
        self.unreserved += 1
        if session.key is not None:
            self._by_open_key[session.key] = session
        if session.session_id is not None:
            self._by_id[session.session_id] = session
            self._connect(session, session.session_id)

    def reserve(self, env_id: str, task_id: str, key: str | None = None, tool_format: str = "strict") -> Session:
        """A reserved episode for `task_id` of `env_id`, under `key` (or a generated one); its secret `claim`
        is what opens it. Unopened, it expires after `reservation_ttl` seconds."""
        key = key if key is not None else f"ep-{secrets.token_hex(8)}"
        self._admit(key, reserved=True)
        session = Session(None, env_id, task_id, None, key=key, claim=secrets.token_urlsafe(24), reserved=time.time(),
                          opened=None, tool_format=tool_format)
        self._held[session] = None
        self.slots += 1
        self._by_key[key] = session
        self._by_claim[session.claim] = session
        if self.reservation_ttl:
            asyncio.get_running_loop().call_later(self.reservation_ttl, self._expire, session)
        return session

    def by_claim(self, claim: str) -> Session | None:
        return self._by_claim.get(claim)

    def claim(self, session: Session, session_id: str) -> None:
        """MCP session `session_id` opens the reservation's URL: the first one makes the episode live, every
        later one continues it (a client that opens a session per call keeps one episode), up to
        `max_connections` at once, each counted against `max_held`."""
        if not self.holds(session):
            raise SessionConflict(f"episode {session.key!r} was freed; the trainer must reserve another")
        if session.state == "ended":
            raise SessionConflict(_reopen_problem(session))
        problem = self.connection_problem(session)
        if problem:
            raise (TooManyConnections if problem[0] == 429 else ServerFull)(problem[1])
        if session.session_id is None:
            session.session_id, session.opened = session_id, time.time()
        self._connect(session, session_id)
        session.last_active = time.time()
        self._by_id[session_id] = session

    def detach(self, session: Session, session_id: str) -> None:
        """MCP session `session_id` is over. An unreserved episode ends with its session; a reserved one
        lives on for the next session at its URL, and ends after `reservation_ttl` seconds without any."""
        if session_id in session.connections:
            before = max(1, len(session.connections))
            session.connections.discard(session_id)
            if self.holds(session):
                self.slots -= before - max(1, len(session.connections))
        if session.claim is None:
            self.end(session)
            return
        if self._by_id.get(session_id) is session and session_id != session.session_id:
            del self._by_id[session_id]
        if not session.connections and self.reservation_ttl and session.ended is None:
            asyncio.get_running_loop().call_later(self.reservation_ttl, self._idle, session)

    def _idle(self, session: Session) -> None:
        if session.ended is not None or session.connections or not self.holds(session):
            return
        left = session.last_active + self.reservation_ttl - time.time()
        if left > 0:
            asyncio.get_running_loop().call_later(left, self._idle, session)
            return
        self.end(session)

    def _expire(self, session: Session) -> None:
        if session.state == "reserved":
            self.free(session)

    def by_key(self, key: str) -> Session | None:
        """The episode under `key`: a reservation's, else an unreserved one's (an agent's key never hides a
        trainer's)."""
        return self._by_key.get(key) or self._by_open_key.get(key)

    def by_session_id(self, session_id: str) -> Session | None:
        return self._by_id.get(session_id)

    def find(self, ref: str, kind: str | None = None) -> Session | None:
        """The episode `ref` names, as `kind` says ("key" or "session"); without a kind, only if `ref` names
        one episode in every namespace (AmbiguousRef otherwise)."""
        if kind == "key":
            return self.by_key(ref)
        if kind == "session":
            return self.by_session_id(ref)
        if kind is not None:
            raise ValueError(f"a reference is one of {', '.join(REF_KINDS)}, not {kind!r}")
        named = {s for s in (self._by_key.get(ref), self._by_open_key.get(ref), self._by_id.get(ref)) if s}
        if len(named) > 1:
            raise AmbiguousRef(f"{ref!r} names more than one episode (an episode key and an MCP session id, or a "
                               f"reservation's key and an unreserved one's); use /admin/episodes/{ref} for the key "
                               f"or /admin/mcp-sessions/{ref} for the MCP session")
        return named.pop() if named else None

    def end(self, session: Session) -> None:
        """The episode is over (its MCP session closed, or the trainer ended it, or it idled out): keep it
        `score_grace` seconds for scoring, then free it. No call reaches it any more."""
        if session.ended is not None:
            return
        session.ended = time.time()
        if self.score_grace <= 0:
            self.free(session)
            return
        asyncio.get_running_loop().call_later(self.score_grace, self.free, session)

    def free(self, session: Session) -> None:
        if session in self._held:
            del self._held[session]
            self.slots -= max(1, len(session.connections))
            if session.claim is None:
                self.unreserved -= 1
        for session_id in {session.session_id, *session.connections} - {None}:
            if self._by_id.get(session_id) is session:
                del self._by_id[session_id]
        if session.key is not None:
            for keys in (self._by_key, self._by_open_key):
                if keys.get(session.key) is session:
                    del keys[session.key]
        if session.claim is not None and self._by_claim.get(session.claim) is session:
            del self._by_claim[session.claim]
        if session.episode is not None:
            session.episode.close()

    def describe(self) -> list[dict]:
        return [s.describe() for s in self._held]

    def free_all(self) -> None:
        for session in list(self._held):
            self.free(session)


def _reopen_problem(session: Session) -> str:
    return f"episode {session.key!r} has ended; its URL opens nothing more (the trainer reserves another episode)"


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


def served_tools(specs: list[dict], foreign: bool = False) -> dict[str, list[dict]]:
    """The tool specs an agent lists, per tool format (`foreign`: tools not built here, awm/awm1k/serving.py,
    each as its app describes it where it has no strict form)."""
    publish = foreign_spec if foreign else published_spec
    return {"strict": [publish(spec, "strict") for spec in specs], "permissive": specs,
            "verl": [publish(spec, "verl") for spec in specs], "awm": META_TOOLS}


def call_result(result: Any) -> types.CallToolResult:
    """A tool's result (or structured error) as an MCP CallToolResult: JSON text plus structured content."""
    structured = result if isinstance(result, dict) else {"result": result}
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=structured,
                                is_error=is_error(result))


# --- one environment ------------------------------------------------------------------------


class ProvenFiles:
    """The files an environment is served from, checked against its proofs when it is loaded, and watched.

    The verification stage records the hash of every file its proofs ran on (tasks, tools, database, ...)
    and of what it produced (verifiers, report) in provenance.json; an environment is served only if its
    files are still those, and only the tasks its report proves. Later, each new session first checks
    (by stat, then by hash) that the files are still the ones loaded: the server's workers hold the loaded
    code, and a file edited in place would reach new episodes only partly, if at all.
    """

    def __init__(self, store: ArtifactStore, env_id: str, task_ids: list[str]):
        self.store, self.env_id = store, env_id
        recorded = self.recorded()
        self._signatures = self._signatures_now(recorded)  # before hashing: a change meanwhile is seen later
        changed = [name for name, digest in sorted(recorded.items()) if self._hash(name) != digest]
        if changed:
            raise UnprovenArtifactError(
                f"{env_id} is not served: {', '.join(changed)} changed after {self.recorder}; {self.rebuild}")
        unproven = sorted(set(task_ids) - self.served_tasks())
        if unproven:
            raise UnprovenArtifactError(f"{env_id} is not served: catalog.jsonl publishes tasks {self.task_record} "
                                        f"does not {self.task_verb}: {', '.join(unproven)}")
        self.hashes = recorded
        self._checked = (self._signatures, None)

    # What the files are checked against (an imported environment's, awm/awm1k/serving.py, differ)
    recorder = "its proofs were recorded"
    task_record = "its report.json"
    task_verb = "prove"

    @property
    def rebuild(self) -> str:
        return f"rebuild it (awm backfill --domain {split_env_id(self.env_id)[0]}) or restore the files"

    def recorded(self) -> dict[str, str]:
        """File -> sha256 the files must have (UnprovenArtifactError if nothing is recorded)."""
        return _recorded_proofs(self.store, self.env_id)

    def served_tasks(self) -> set[str]:
        """The tasks that may be served (the ones the proofs passed)."""
        return {t.task_id for t in artifacts.REPORT.read(self.store, self.env_id).passed}

    def _hash(self, name: str) -> str | None:
        try:
            return self.store.hash(self.env_id, name)
        except FileNotFoundError:
            return None

    def _signatures_now(self, names) -> dict[str, tuple | None]:
        signatures = {}
        for name in names:
            try:
                stat = self.store.path(self.env_id, name).stat()
            except FileNotFoundError:
                signatures[name] = None
                continue
            signatures[name] = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        return signatures

    def changed(self) -> str | None:
        """Why new sessions must be refused (files changed on disk since loading), or None. A stat per file;
        the files whose stat moved are hashed again."""
        signatures = self._signatures_now(self.hashes)
        if signatures == self._checked[0]:
            return self._checked[1]
        moved = [name for name in self.hashes if signatures[name] != self._signatures[name]]
        changed = [name for name in moved if self._hash(name) != self.hashes[name]]
        problem = None
        if changed:
            problem = (f"{', '.join(changed)} changed on disk since the server loaded {self.env_id}; no new "
                       "session opens on it until awm serve is restarted on a proven build")
            log.error("%s", problem)
        self._checked = (signatures, problem)
        return problem


def _recorded_proofs(store: ArtifactStore, env_id: str) -> dict[str, str]:
    """File -> sha256 as the verification stage recorded them; UnprovenArtifactError if it recorded none."""
    try:
        record = store.provenance(env_id).get(PROOF_STAGE)
    except CorruptArtifactError as exc:
        raise UnprovenArtifactError(f"{env_id} is not served: its provenance.json cannot be read") from exc
    if record is None:
        raise UnprovenArtifactError(f"{env_id} is not served: no proofs are recorded for it (provenance.json has "
                                    f"no {PROOF_STAGE} record)")
    recorded = {**record.inputs, **record.outputs}
    uncovered = [name for name in SERVED_FILES if name not in recorded]
    if uncovered:
        raise UnprovenArtifactError(f"{env_id} is not served: its proofs do not cover {', '.join(uncovered)}")
    return recorded


class EnvironmentService:
    """One environment as an MCP server: its tools, and an episode per session."""

    def __init__(self, env: Environment, registry: SessionRegistry, instructions: str | None = None,
                 host: str = "127.0.0.1", idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT_SECONDS,
                 max_sessions: int = DEFAULT_MAX_SESSIONS, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
                 files: ProvenFiles | None = None, tool_format: str = "strict"):
        if tool_format not in SERVED_TOOL_FORMATS:
            raise ValueError(f"tool format must be one of {', '.join(SERVED_TOOL_FORMATS)}, not {tool_format!r}")
        self.env = env
        self.tool_format = tool_format
        self.registry = registry
        self.max_sessions = max_sessions
        self.max_request_bytes = max_request_bytes
        self.files = files
        self.published = {t.task_id for t in env.tasks}
        self._listings: dict[str | None, tuple[dict[str, types.ListToolsResult], types.CallToolResult]] = {}
        self._fixed: Session | None = None  # stdio: the process's one episode
        self._in_flight: dict[str, set[str]] = {}  # MCP session id -> ids of its requests being answered
        self.server: Server = Server(f"awm:{env.env_id}", version=_version(), instructions=instructions,
                                     on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        # The SDK's default middleware opens an OpenTelemetry span per message (~10% of a call's CPU here);
        # the runtime exports no traces, so it keeps only its own.
        self.server.middleware = [self._open_episode_on_initialize]
        self.manager = StreamableHTTPSessionManager(
            app=self.server, json_response=True, security_settings=_transport_security(host),
            session_idle_timeout=idle_timeout, max_sessions=max_sessions, max_request_body_size=max_request_bytes)
        self._stop = anyio.Event()

    # MCP handlers -----------------------------------------------------------------

    def _listing(self, task_id: str | None) -> tuple[dict[str, types.ListToolsResult], types.CallToolResult]:
        """The tools an episode of `task_id` lists, per tool format, and its AWM-format listing: the environment's
        tools, and submit_answer when the task expects an answer (built once per task)."""
        key = task_id if task_id in self.published else None
        listing = self._listings.get(key)
        if listing is None:
            specs = self.env.tools_for(key)
            listing = self._listings[key] = (
                {form: types.ListToolsResult(tools=[types.Tool.model_validate(spec) for spec in served])
                 for form, served in served_tools(specs, getattr(self.env, "foreign", False)).items()},
                types.CallToolResult(content=[types.TextContent(type="text", text=tool_listing(specs))]))
        return listing

    async def _list_tools(self, ctx: ServerRequestContext, params: Any) -> types.ListToolsResult:
        session = await self._session(ctx)
        return self._listing(session.task_id)[0][session.tool_format]

    async def _call_tool(self, ctx: ServerRequestContext, params: types.CallToolRequestParams) -> types.CallToolResult:
        session = await self._session(ctx)
        session.last_active = time.time()
        if session.ended is not None:
            return call_result(tool_error("episode_ended", f"episode {session.key or session.session_id!r} has "
                                                           "ended; no call reaches it any more"))
        name, arguments = params.name, params.arguments or {}
        if session.tool_format == "awm":
            if name == LIST_TOOLS:
                return self._listing(session.task_id)[1]
            unwrapped = unwrap_call(name, arguments)
            if isinstance(unwrapped, dict):
                session.episode.calls += 1  # a call the agent got wrong: a format error, counted as one
                session.episode.tool_errors += 1
                return call_result(unwrapped)
            name, arguments = unwrapped
        try:
            result = await session.episode.acall(name, arguments)
        except Exception as exc:  # noqa: BLE001 - the SDK would put its text, paths and all, on the wire
            log.exception("%s: tool call %s of session %s failed in the server", self.env.env_id, params.name,
                          session.key or session.session_id)
            raise MCPError(INTERNAL_ERROR, "the tool call failed inside the server; the server log has the "
                                           "details") from exc
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
        """Register the session (a reservation being claimed, or a new open session), then create its episode.
        Registering first makes the key and the limit on held episodes hold under concurrent openings."""
        request = ctx.request if isinstance(ctx.request, Request) else None
        session_id = connection.session_id or secrets.token_hex(16)
        reservation = request.scope.get(_RESERVATION) if request is not None else None
        try:
            if reservation is not None:
                session = reservation
                self.registry.claim(session, session_id)
            else:
                query = request.query_params if request is not None else {}
                session = Session(session_id, self.env.env_id, query.get("task") or None, None,
                                  key=query.get("episode") or None,
                                  tool_format=query.get("tool_format") or self.tool_format)
                self.registry.add(session)
        except SessionConflict as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from exc
        except (ServerFull, TooManyConnections) as exc:
            raise MCPError(INVALID_REQUEST, str(exc)) from exc
        connection.exit_stack.callback(self.registry.detach, session, session_id)
        if session.episode is None:
            await self._create_episode(session, session_id)
        if not self.registry.holds(session):  # the trainer freed it meanwhile
            raise MCPError(INVALID_REQUEST, f"episode {session.key!r} was freed while it opened")
        return session

    async def _create_episode(self, session: Session, session_id: str) -> None:
        """The session's episode: created by its first MCP session; a concurrent second opening of the same
        reservation waits for it rather than making another."""
        if session.opening is not None:
            await asyncio.shield(session.opening)
            return
        session.opening = asyncio.get_running_loop().create_future()
        try:
            session.episode = await self.env.areset(session.task_id, unreserved=session.claim is None)
        except QuotaExceeded as exc:  # nothing failed: the unreserved episodes hold their memory
            session.opening.set_exception(MCPError(INVALID_REQUEST, str(exc)))
            session.opening.exception()
            self.registry.free(session)
            raise MCPError(INVALID_REQUEST, f"no room for another unreserved episode: {exc}; try again later") \
                from exc
        except Exception as exc:  # noqa: BLE001 - logged; the client learns only that it failed
            session.opening.set_exception(MCPError(INTERNAL_ERROR, "the episode could not be created; the server "
                                                                   "log has the details"))
            session.opening.exception()  # retrieved: a lone opener leaves no "never retrieved" warning
            self.registry.free(session)
            log.exception("%s: the episode of session %s could not be created", self.env.env_id, session_id)
            raise MCPError(INTERNAL_ERROR, "the episode could not be created; the server log has the details") \
                from exc
        session.opening.set_result(None)
        if not self.registry.holds(session):  # freed while it was being created: free() found no episode
            session.episode.close()

    # HTTP ---------------------------------------------------------------------------

    def opening_problem(self, request: Request, reservation: Session | None = None) -> tuple[int, str] | None:
        """Why a request that would open a session must be refused, as (HTTP status, message)."""
        if self.files is not None:
            changed = self.files.changed()
            if changed:
                return 503, changed
        query = request.query_params
        if reservation is not None:
            task_id = query.get("task")
            if task_id is not None and task_id != reservation.task_id:
                return 400, (f"this URL is bound to task {reservation.task_id!r} by the trainer's reservation; "
                             "open it as it was given")
            if "episode" in query or "tool_format" in query:
                return 400, f"this URL is bound to episode {reservation.key!r}; open it as it was given"
            if reservation.state == "ended":
                return 409, _reopen_problem(reservation)
            return self.registry.connection_problem(reservation)
        tool_format = query.get("tool_format")
        if tool_format is not None and tool_format not in SERVED_TOOL_FORMATS:
            return 400, f"tool_format must be one of {', '.join(SERVED_TOOL_FORMATS)}, not {tool_format!r}"
        task_id = query.get("task")
        if task_id and task_id not in self.published:
            return 400, (f"{self.env.env_id} publishes no task {task_id!r}; published: "
                         f"{', '.join(sorted(self.published))}")
        problem = self.registry.room_problem(reserved=False)
        if problem:
            return (403 if self.registry.reserved_only else 503), problem
        key = query.get("episode")
        if key:
            problem = self.registry.key_problem(key, reserved=False)
            if problem:
                return 409, problem
        return None

    async def handle(self, scope: Scope, receive: Receive, send: Send, reservation: Session | None = None) -> None:
        request = Request(scope, receive)
        version = request.headers.get("mcp-protocol-version")
        if version in MODERN_PROTOCOL_VERSIONS:
            # No session, no episode: ask the client for the handshake era instead.
            data = {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS), "requested": version}
            await _rpc_error(400, UNSUPPORTED_PROTOCOL_VERSION, "this server serves sessions; use the "
                             "initialize handshake", data)(scope, receive, send)
            return
        if request.method != "POST":
            await self.manager.handle_request(scope, receive, send)
            return
        body = await _bounded_body(request, receive, self.max_request_bytes)
        if body is None:
            await _rpc_error(413, INVALID_REQUEST, f"the request body is over {self.max_request_bytes} bytes, the most "
                             "this server accepts in one message (--max-request-bytes); send smaller tool "
                             "arguments")(scope, receive, send)
            return
        replay = _replay(body, receive)
        session_id = request.headers.get("mcp-session-id")
        if session_id is None:
            problem = self.opening_problem(request, reservation)
            if problem:
                status, message = problem
                await _rpc_error(status, INVALID_PARAMS, message)(scope, receive, send)
                return
            if reservation is not None:
                scope[_RESERVATION] = reservation
            await self.manager.handle_request(scope, replay, send)
            return
        await self._answer_once(session_id, body, scope, replay, send)

    async def _answer_once(self, session_id: str, body: bytes, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a request of a session, refusing a second one with the id of a request still in flight: the
        SDK keeps one answer stream per id, so the first would wait forever and outlive its client."""
        request_id = _request_id(body)
        if request_id is None:  # a notification, a response, or not JSON-RPC: the SDK answers it
            await self.manager.handle_request(scope, receive, send)
            return
        pending = self._in_flight.setdefault(session_id, set())
        if request_id in pending:
            await _rpc_error(400, INVALID_REQUEST, f"request id {request_id} is already in flight in this session; "
                             "ids must be unique among a session's unanswered requests",
                             request_id=json.loads(body)["id"])(scope, receive, send)
            return
        pending.add(request_id)
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            pending.discard(request_id)
            if not pending and self._in_flight.get(session_id) is pending:
                del self._in_flight[session_id]

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
        self._fixed = Session("stdio", self.env.env_id, task_id, episode, tool_format=self.tool_format)
        try:
            async with stdio_server() as (read_stream, write_stream):
                await self.server.run(read_stream, write_stream, self.server.create_initialization_options())
        finally:
            if final_db is not None:
                atomic_write_bytes(Path(final_db), await episode.asnapshot())
            episode.close()


async def _bounded_body(request: Request, receive: Receive, limit: int) -> bytes | None:
    """The request body, or None as soon as it is known to be over `limit` bytes (nothing more is read)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        return None
    chunks, size = [], 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A `receive` that hands the already-read body over once, then waits on the connection as usual."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed():
        return pending.pop() if pending else await receive()

    return replayed


def _request_id(body: bytes) -> str | None:
    """The id of the JSON-RPC request in `body`, as the SDK keys its answer streams (str), or None."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or "method" not in message or message.get("id") is None:
        return None
    return str(message["id"])


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


def _rpc_error(status: int, code: int, message: str, data: Any = None, request_id: Any = None) -> Response:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return JSONResponse({"jsonrpc": "2.0", "id": request_id, "error": error}, status_code=status)


# --- the whole catalog ---------------------------------------------------------------------------


class EnvironmentSource(Protocol):
    """Environments the server serves beside the catalog's own, from code it does not build (imported AWM-1K
    environments, awm/awm1k/serving.py). `load` returns an object with Environment's serving surface (env_id,
    tasks, tools_for, areset -> an episode with acall, ascore, asnapshot, close, calls, tool_errors) and the
    files it is served from, checked like ProvenFiles."""

    def catalog(self) -> dict[str, list[str]]: ...

    def load(self, env_id: str, task_ids: list[str], reward: RewardMapping | None) -> tuple[Any, ProvenFiles]: ...

    def close(self) -> None: ...


class RuntimeServer:
    """Every published environment of a store, loaded on first use, behind one ASGI app.

    `public_url` is the base of the URLs the server hands out (reservations, /envs); without it, the address
    it is bound to (or, embedded in another ASGI server, paths alone). Never the client's Host header.
    """

    def __init__(self, store: ArtifactStore, pool: WorkerPool, admin_token: str, host: str = "127.0.0.1",
                 env_ids: list[str] | None = None, reward: RewardMapping | None = None,
                 score_grace: float = DEFAULT_SCORE_GRACE_SECONDS,
                 idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT_SECONDS, max_sessions: int = DEFAULT_MAX_SESSIONS,
                 max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES, public_url: str | None = None,
                 tool_format: str = "strict", reserved_only: bool = False, max_unreserved: int | None = None,
                 max_connections: int = DEFAULT_MAX_CONNECTIONS, sources: tuple[EnvironmentSource, ...] = ()):
        """`max_sessions` bounds what the server holds (see SessionRegistry); unreserved sessions may take
        `max_unreserved` of it (default half), none with `reserved_only`; `max_connections` is the most MCP
        sessions open at once on one reserved episode. `sources` serve environments not built here (imported
        AWM-1K ones: awm/awm1k/serving.py) beside the catalog's, with the same sessions, reservations and
        scores."""
        problem = admin_token_problem(admin_token)
        if tool_format not in SERVED_TOOL_FORMATS:
            raise ValueError(f"tool format must be one of {', '.join(SERVED_TOOL_FORMATS)}, not {tool_format!r}")
        if problem:
            raise ValueError(f"the admin token {problem}")
        if max_request_bytes < 1024:
            raise ValueError(f"the request limit must be at least 1024 bytes (an initialize request), not "
                             f"{max_request_bytes}")
        if max_sessions < 1:
            raise ValueError(f"the session limit must be at least 1, not {max_sessions}")
        if max_unreserved is None:
            max_unreserved = max_sessions // 2
        if not 0 <= max_unreserved <= max_sessions:
            raise ValueError(f"the unreserved session limit must be 0 to the session limit ({max_sessions}), not "
                             f"{max_unreserved}")
        if max_connections < 1:
            raise ValueError(f"the connection limit of a reserved episode must be at least 1, not {max_connections}")
        self.reserved_only = reserved_only
        self.store = store
        self.pool = pool
        self.host = host
        self.reward = reward
        self.idle_timeout = idle_timeout
        self.max_sessions = max_sessions
        self.max_request_bytes = max_request_bytes
        self.tool_format = tool_format
        self.public_url = public_url.rstrip("/") if public_url else None
        self.bound_url: str | None = None  # set once listening (run_http)
        self._token_digest = _digest(admin_token)
        self.catalog = published_catalog(store)
        self.sources: dict[str, EnvironmentSource] = {}  # env_id -> the source that loads it
        for source in sources:
            for env_id, task_ids in source.catalog().items():
                if env_id not in self.catalog:
                    self.catalog[env_id] = task_ids
                    self.sources[env_id] = source
        self._all_sources = tuple(sources)
        if env_ids:
            unknown = sorted(set(env_ids) - set(self.catalog))
            if unknown:
                raise AWMError(f"not published in {store.catalog_path}: {', '.join(unknown)}")
            self.catalog = {e: self.catalog[e] for e in env_ids}
        self.registry = SessionRegistry(score_grace, max_sessions, reservation_ttl=idle_timeout,
                                        max_unreserved=max_unreserved, max_connections=max_connections,
                                        reserved_only=reserved_only)
        self.services: dict[str, EnvironmentService] = {}
        self._load_failures: dict[str, tuple[float, AWMError]] = {}
        self._loading = asyncio.Lock()
        self._task_group: anyio.abc.TaskGroup | None = None

    @property
    def base_url(self) -> str:
        return self.public_url or self.bound_url or ""

    def session(self, ref: str, kind: str | None = None) -> Session:
        """A session by episode key (`kind="key"`) or MCP session id (`kind="session"`), for trainers embedding
        the server in-process: `server.session("run-1", "key").episode.score(answer)`. Without a kind, `ref`
        must name one episode only (AmbiguousRef otherwise)."""
        session = self.registry.find(ref, kind)
        if session is None:
            what = {"key": "episode key", "session": "MCP session id"}.get(kind, "episode key or MCP session id")
            raise KeyError(f"no session {ref!r} ({what})")
        return session

    async def service(self, env_id: str) -> EnvironmentService:
        """The environment's service, loaded (and its files checked against its proofs) on first use; the
        AWMError that kept it from loading, for LOAD_RETRY_SECONDS after a failure."""
        service = self.services.get(env_id)
        if service is not None:
            return service
        async with self._loading:
            service = self.services.get(env_id)
            if service is None:
                failed = self._load_failures.get(env_id)
                if failed is not None and time.monotonic() - failed[0] < LOAD_RETRY_SECONDS:
                    raise failed[1]
                try:
                    env, files = await anyio.to_thread.run_sync(self._load, env_id)
                except AWMError as exc:
                    log.error("%s cannot be served: %s", env_id, exc)
                    self._load_failures[env_id] = (time.monotonic(), exc)
                    raise
                service = EnvironmentService(env, self.registry, self._instructions(env_id), self.host,
                                             self.idle_timeout, self.max_sessions, self.max_request_bytes, files,
                                             self.tool_format)
                await self._task_group.start(service.run)
                self.services[env_id] = service
                self._load_failures.pop(env_id, None)
        return service

    def _load(self, env_id: str) -> tuple[Environment, ProvenFiles]:
        source = self.sources.get(env_id)
        if source is not None:
            return source.load(env_id, self.catalog[env_id], self.reward)
        files = ProvenFiles(self.store, env_id, self.catalog[env_id])
        env = Environment.from_store(self.store, env_id, self.reward, self.pool, task_ids=self.catalog[env_id])
        return env, files

    def _instructions(self, env_id: str) -> str | None:

        try:
            scenario = artifacts.SCENARIO.read(self.store, env_id)
        except AWMError:
            return None
        return f"{scenario.name}: {scenario.description}"

    # ASGI ---------------------------------------------------------------------------

    async def _served(self, env_id: str, scope: Scope, receive: Receive, send: Send) -> EnvironmentService | None:
        """The environment's service, or None once the client has been told (without server paths) why not."""
        try:
            return await self.service(env_id)
        except UnprovenArtifactError as exc:  # names files, not paths: the agent may know why
            message = str(exc)
        except AWMError:
            message = f"{env_id} cannot be served: its artifacts could not be loaded; the server log has the details"
        await _rpc_error(503, INVALID_REQUEST, message)(scope, receive, send)
        return None

    async def _mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        env_id = scope["path_params"]["env_id"]
        if env_id not in self.catalog:
            await _rpc_error(404, INVALID_REQUEST, f"no published environment {env_id!r}; GET /envs lists them")(
                scope, receive, send)
            return
        service = await self._served(env_id, scope, receive, send)
        if service is not None:
            await service.handle(scope, receive, send)

    async def _reserved_mcp(self, scope: Scope, receive: Receive, send: Send) -> None:
        reservation = self.registry.by_claim(scope["path_params"]["claim"])
        if reservation is None:
            await _rpc_error(404, INVALID_REQUEST, "no reserved episode at this URL: it was never reserved, it was "
                             "freed, or it expired unopened")(scope, receive, send)
            return
        service = await self._served(reservation.env_id, scope, receive, send)
        if service is not None:
            await service.handle(scope, receive, send, reservation)

    async def _envs(self, request: Request) -> JSONResponse:
        return JSONResponse({"environments": [
            {"env_id": env_id, "url": f"{self.base_url}/envs/{env_id}/mcp", "tasks": tasks}
            for env_id, tasks in sorted(self.catalog.items())]})

    async def _health(self, request: Request) -> JSONResponse:
        """What a probe needs: "degraded" while a sandbox worker is down (its restart failed; the others
        serve its episodes), with the count. No process ids: the answer is unauthenticated."""
        counts = self.registry.counts()
        pool = self.pool.stats()
        pool["workers"] = [{k: v for k, v in worker.items() if k != "pid"} for worker in pool["workers"]]
        return JSONResponse({"status": "degraded" if pool["down"] else "ok", "workers_down": pool["down"],
                             "environments": len(self.catalog), "loaded": len(self.services),
                             "sessions": counts["live"], "episodes": len(self.registry), "held": self.registry.slots,
                             "unreserved": self.registry.unreserved, "reserved": counts["reserved"],
                             "reserved_only": self.reserved_only, "pool": pool})

    def _authorized(self, request: Request) -> bool:
        """`Authorization: Bearer <token>` with exactly the server's token, compared in constant time (digests
        of equal length, so not even the length is timed)."""
        scheme, space, token = request.headers.get("authorization", "").partition(" ")
        presented = _digest(token)
        return hmac.compare_digest(presented, self._token_digest) and space == " " and scheme.lower() == "bearer"

    async def _admin_sessions(self, request: Request) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        return JSONResponse({"sessions": self.registry.describe()})

    async def _admin_reserve(self, request: Request) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        body = await _json_body(request)
        if isinstance(body, JSONResponse):
            return body
        env_id, task_id, key = body.get("env_id"), body.get("task_id"), body.get("key")
        tool_format = body.get("tool_format") or self.tool_format
        if tool_format not in SERVED_TOOL_FORMATS:
            return _bad_request(f"tool_format must be one of {', '.join(SERVED_TOOL_FORMATS)}, not {tool_format!r}")
        if not isinstance(env_id, str) or env_id not in self.catalog:
            return _bad_request(f"no published environment {env_id!r}; GET /envs lists them")
        if not isinstance(task_id, str) or task_id not in self.catalog[env_id]:
            return _bad_request(f"{env_id} publishes no task {task_id!r}; published: "
                                f"{', '.join(self.catalog[env_id])}")
        if key is not None and not isinstance(key, str):
            return _bad_request("key must be a string or null")
        try:
            service = await self.service(env_id)
        except AWMError as exc:
            return JSONResponse({"error": f"{env_id} cannot be served: {exc}"}, status_code=409)
        changed = service.files.changed() if service.files is not None else None
        if changed:
            return JSONResponse({"error": changed}, status_code=409)
        try:
            session = self.registry.reserve(env_id, task_id, key, tool_format)
        except SessionConflict as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        except ServerFull as exc:
            return JSONResponse({"error": str(exc)}, status_code=503)
        session.url = f"{self.base_url}/episodes/{session.claim}/mcp"
        return JSONResponse({**session.describe(), "expires_in": self.registry.reservation_ttl}, status_code=201)

    def _referenced(self, request: Request, kind: str | None) -> Session | JSONResponse:
        """The episode an admin path names: /admin/episodes/<key>, /admin/mcp-sessions/<session id>, or the
        older /admin/sessions/<ref>, which must name one episode only."""
        ref = request.path_params["ref"]
        try:
            session = self.registry.find(ref, kind)
        except AmbiguousRef as exc:
            return JSONResponse({"error": str(exc)}, status_code=409)
        if session is None:
            return _not_found(ref, kind)
        return session

    async def _admin_free(self, request: Request, kind: str | None = None) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        session = self._referenced(request, kind)
        if isinstance(session, JSONResponse):
            return session
        self.registry.free(session)
        return JSONResponse({"freed": session.describe()})

    async def _admin_score(self, request: Request, kind: str | None = None) -> JSONResponse:
        if not self._authorized(request):
            return _unauthorized()
        session = self._referenced(request, kind)
        if isinstance(session, JSONResponse):
            return session
        if session.episode is None:
            return JSONResponse({"error": f"episode {session.key!r} is reserved and no agent has opened it yet; "
                                          "score it once its session has run"}, status_code=409)
        body = await _json_body(request)
        if isinstance(body, JSONResponse):
            return body
        answer, task_id, end = body.get("answer"), body.get("task_id") or session.task_id, body.get("end", False)
        if not isinstance(end, bool):
            return _bad_request("end must be true or false")
        if answer is not None and not isinstance(answer, (str, dict)):
            return _bad_request("answer must be a string, an object keyed by the task's answer slots, or null")
        if task_id is None:
            return _bad_request("this session was opened without ?task=; give task_id")
        if not isinstance(task_id, str) or task_id not in self.catalog[session.env_id]:
            return _bad_request(f"{session.env_id} publishes no task {task_id!r}")
        score = await session.episode.ascore(answer, task_id)
        if end:
            self.registry.end(session)
        return JSONResponse({**score, "env_id": session.env_id, "task_id": task_id, "session": session.session_id,
                             "episode": session.key, "state": session.state})

    async def _admin_free_key(self, request: Request) -> JSONResponse:
        return await self._admin_free(request, "key")

    async def _admin_score_key(self, request: Request) -> JSONResponse:
        return await self._admin_score(request, "key")

    async def _admin_free_session(self, request: Request) -> JSONResponse:
        return await self._admin_free(request, "session")

    async def _admin_score_session(self, request: Request) -> JSONResponse:
        return await self._admin_score(request, "session")

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
                    for source in self._all_sources:
                        source.close()
        finally:
            if attached:
                self.pool.detach()

    def app(self) -> Starlette:
        return Starlette(routes=[
            Route("/envs", self._envs, methods=["GET"]),
            Route("/envs/{env_id}/mcp", _ASGIEndpoint(self._mcp), methods=["GET", "POST", "DELETE"]),
            Route("/episodes/{claim}/mcp", _ASGIEndpoint(self._reserved_mcp), methods=["GET", "POST", "DELETE"]),
            Route("/healthz", self._health, methods=["GET"]),
            Route("/admin/sessions", self._admin_sessions, methods=["GET"]),
            Route("/admin/sessions", self._admin_reserve, methods=["POST"]),
            Route("/admin/episodes/{ref}", self._admin_free_key, methods=["DELETE"]),
            Route("/admin/episodes/{ref}/score", self._admin_score_key, methods=["POST"]),
            Route("/admin/mcp-sessions/{ref}", self._admin_free_session, methods=["DELETE"]),
            Route("/admin/mcp-sessions/{ref}/score", self._admin_score_session, methods=["POST"]),
            # the older paths, for a reference that names one episode only
            Route("/admin/sessions/{ref}", self._admin_free, methods=["DELETE"]),
            Route("/admin/sessions/{ref}/score", self._admin_score, methods=["POST"]),
        ], lifespan=self.lifespan)


def admin_token_problem(token: object) -> str | None:
    """What is wrong with `token` as the admin token, or None. It travels in an HTTP header, where the
    server compares it byte for byte: printable ASCII without spaces."""
    if not isinstance(token, str) or not token:
        return "must not be empty"
    if not (token.isascii() and token.isprintable()) or " " in token:
        return "must be printable ASCII without spaces or control characters"
    return None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


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
    for entry in store.iter_catalog(torn=[]):  # a torn line is logged and left out; the rest is served
        if entry.get("origin") == "awm1k":  # imported AWM-1K code runs only in the foreign runtime: served
            continue                          # through an EnvironmentSource (awm/awm1k/serving.py)
        if isinstance(entry.get("env_id"), str) and isinstance(entry.get("task_id"), str):
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


def _bad_request(message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=400)


def _unauthorized() -> JSONResponse:
    return JSONResponse({"error": "admin endpoints need 'Authorization: Bearer <token>' with the server's token"},
                        status_code=401, headers={"WWW-Authenticate": "Bearer"})


def _not_found(ref: str, kind: str | None = None) -> JSONResponse:
    what = {"key": "episode key", "session": "MCP session id"}.get(kind, "episode key or MCP session id")
    return JSONResponse({"error": f"no session {ref!r} ({what}); GET /admin/sessions"}, status_code=404)


# --- running -------------------------------------------------------------------------------------


def run_http(server: RuntimeServer, port: int, ready: Any = None) -> None:
    """Serve until interrupted (uvicorn; uvloop and httptools when installed). `ready()` is called once listening."""
    import uvicorn

    config = uvicorn.Config(server.app(), host=server.host, port=port, log_level="warning", access_log=False,
                            lifespan="on", timeout_graceful_shutdown=5)
    http = uvicorn.Server(config)
    original = http.startup

    async def startup(sockets=None):
        await original(sockets=sockets)
        if http.servers:
            server.bound_url = _url(server.host, http.servers[0].sockets[0].getsockname()[1])
        if ready is not None:
            ready(http)

    http.startup = startup
    http.run()


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


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
    return RunningServer(_url(server.host, http.servers[0].sockets[0].getsockname()[1]), thread, http)


def run_stdio(store: ArtifactStore, env_id: str, task_id: str | None, pool: WorkerPool,
              final_db: Path | None = None, reward: RewardMapping | None = None, tool_format: str = "strict") -> None:
    """Serve one published environment, one episode, over stdin/stdout (only as proven, as over HTTP)."""
    catalog = published_catalog(store)
    if env_id not in catalog:
        imported = any(entry.get("env_id") == env_id and entry.get("origin") == "awm1k"
                       for entry in store.iter_catalog(torn=[]))
        if imported:  # their code runs only in the foreign runtime, which this stdio server does not start
            raise AWMError(f"{env_id} is an imported AWM-1K environment: `awm serve --transport stdio` serves "
                           f"environments built here only; serve it over stdio with `awm serve-awm1k --env {env_id}"
                           f"{f' --task {task_id}' if task_id else ''}`, or over HTTP with `awm serve` "
                           "(imported environments are served beside ours)")
        raise AWMError(f"{env_id} publishes no task in {store.catalog_path}")
    if task_id is not None and task_id not in catalog[env_id]:
        raise AWMError(f"{env_id} publishes no task {task_id!r}; published: {', '.join(catalog[env_id])}")
    ProvenFiles(store, env_id, catalog[env_id])
    env = Environment.from_store(store, env_id, reward, pool, task_ids=catalog[env_id])
    service = EnvironmentService(env, SessionRegistry(0), tool_format=tool_format)
    anyio.run(service.serve_stdio, task_id, final_db)
