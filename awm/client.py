"""A trainer-side client of `awm serve`: reserve an episode, call its tools, score it, end it.

Plain HTTP (httpx) to the server's admin endpoints and to the reserved episode's MCP endpoint, speaking the
streamable-HTTP transport's JSON-RPC itself (initialize, tools/list, tools/call): no dependency on the `mcp`
package or its version, so it runs beside trainers that pin another one (verl, TRL, verifiers). It imports
nothing of the awm core: a trainer installs httpx and this package with --no-deps.

    from awm.client import Client
    with Client("http://127.0.0.1:8000", admin_token_file="~/.awm/admin-token") as client:
        episode = client.reserve("retail_banking__00", "t03")      # one episode per rollout
        episode.tools                                               # what the agent may call
        text, failed = episode.call("get_order", {"order_id": 48})  # the result as the server's JSON text
        verdict = episode.end(answer=None)                          # score with the answer, then free it
        verdict["reward"]

`AsyncClient` is the same with `await`. The server's rules hold: a reservation's key is unique among live
episodes (a key of one's own, e.g. the rollout's request id, or one the server draws), the episode opens
once at its reserved URL (a bearer secret: the admin token never goes there), and `end` scores it with the
answer (a string, an object keyed by the answer slots, or None) and frees it; an episode never opened is
freed and the refusal raised.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import httpx

PROTOCOL_VERSION = "2025-06-18"  # the handshake era the server speaks
TOOL_FORMATS = ("strict", "permissive", "awm", "verl")
DEFAULT_TIMEOUT = 60.0


class AWMClientError(RuntimeError):
    """The server refused a request, or could not be reached; the message says which and why."""


def admin_token_from(token: str | None = None, token_file: str | Path | None = None) -> str:
    """The server's admin token, from (in order) `token_file`, `token`, $AWM_ADMIN_TOKEN_FILE, $AWM_ADMIN_TOKEN,
    as `awm serve` reads it (in a file, one final line break is dropped)."""
    token_file = token_file or (None if token else os.environ.get("AWM_ADMIN_TOKEN_FILE"))
    if token_file:
        path = Path(token_file).expanduser()
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise AWMClientError(f"cannot read the admin token file {path}: {exc}") from exc
        token = text[:-1] if text.endswith("\n") else text
    token = token or os.environ.get("AWM_ADMIN_TOKEN")
    if not token:
        raise AWMClientError("no admin token: pass admin_token or admin_token_file, or set AWM_ADMIN_TOKEN_FILE or "
                             "AWM_ADMIN_TOKEN (the token `awm serve` was started with)")
    return token


def _reason(response: httpx.Response) -> str:
    try:
        reason = response.json().get("error")
    except (ValueError, AttributeError):
        reason = None
    return reason if isinstance(reason, str) else response.text[:500]


def _rpc_message(response: httpx.Response, request_id: int) -> dict:
    """The JSON-RPC response to `request_id` in a streamable-HTTP answer: a JSON body, or an SSE stream."""
    if response.status_code != 200:
        raise AWMClientError(f"the MCP endpoint answered HTTP {response.status_code}: {_reason(response)}")
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        messages, data = [], []
        for line in response.text.splitlines() + [""]:
            if line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif not line and data:
                messages.append(json.loads("\n".join(data)))
                data = []
    else:
        body = response.json()
        messages = body if isinstance(body, list) else [body]
    for message in messages:
        if isinstance(message, dict) and message.get("id") == request_id:
            if "error" in message:
                raise AWMClientError(f"the MCP endpoint refused the request: {message['error']}")
            return message["result"]
    raise AWMClientError(f"the MCP endpoint sent no answer to request {request_id}")


def _call_text(result: dict) -> tuple[str, bool]:
    text = "\n".join(part.get("text", "") for part in result.get("content") or () if part.get("type") == "text")
    return text, bool(result.get("isError"))


class _Base:
    def __init__(self, base_url: str, admin_token: str | None = None, admin_token_file: str | Path | None = None,
                 timeout: float = DEFAULT_TIMEOUT):
        self.base_url = base_url.rstrip("/")
        self._admin_headers = {"Authorization": f"Bearer {admin_token_from(admin_token, admin_token_file)}"}
        self.timeout = timeout

    def _reserve_body(self, env_id: str, task_id: str, key: str | None, tool_format: str) -> dict:
        if tool_format not in TOOL_FORMATS:
            raise AWMClientError(f"tool_format must be one of {', '.join(TOOL_FORMATS)}, not {tool_format!r}")
        return {"env_id": env_id, "task_id": task_id, "key": key, "tool_format": tool_format}

    @staticmethod
    def _reserved(response: httpx.Response, env_id: str, task_id: str) -> dict:
        if response.status_code != 201:
            raise AWMClientError(f"reserving an episode of {env_id} {task_id} was refused (HTTP "
                                 f"{response.status_code}): {_reason(response)}")
        return response.json()

    @staticmethod
    def _initialize(request_id: int) -> dict:
        return {"jsonrpc": "2.0", "id": request_id, "method": "initialize",
                "params": {"protocolVersion": PROTOCOL_VERSION, "capabilities": {},
                           "clientInfo": {"name": "awm.client", "version": "1"}}}


class Episode:
    """One reserved episode, opened: its key, its tools (as the reserved format serves them) and its calls."""

    def __init__(self, client: Client, reservation: dict):
        self.client, self.key, self.url = client, reservation["episode"], reservation["url"]
        self.env_id, self.task_id = reservation["env_id"], reservation["task_id"]
        self.session_id: str | None = None
        self.tools: list[dict] = []
        self._next_id = 0
        self.calls = 0

    def _headers(self) -> dict:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "MCP-Protocol-Version": PROTOCOL_VERSION}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    def _rpc(self, method: str, params: dict | None = None) -> dict:
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params or {}}
        try:
            response = self.client.http.post(self.url, json=message, headers=self._headers())
        except httpx.HTTPError as exc:
            raise AWMClientError(f"{method} on episode {self.key} failed: {exc!r}") from exc
        return _rpc_message(response, self._next_id)

    def open(self) -> Episode:
        self._next_id += 1
        try:
            response = self.client.http.post(self.url, json=_Base._initialize(self._next_id), headers=self._headers())
            _rpc_message(response, self._next_id)
            self.session_id = response.headers.get("mcp-session-id")
            self.client.http.post(self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                  headers=self._headers())
        except httpx.HTTPError as exc:
            raise AWMClientError(f"opening episode {self.key} at its reserved URL failed: {exc!r}") from exc
        self.tools = self._rpc("tools/list")["tools"]
        return self

    def call(self, name: str, arguments: dict | None = None) -> tuple[str, bool]:
        """Run one tool: its result as text (the server's JSON) and whether it failed."""
        self.calls += 1
        return _call_text(self._rpc("tools/call", {"name": name, "arguments": arguments or {}}))

    def score(self, answer: str | dict | None = None) -> dict:
        """The verdict on the episode as it stands (it stays open)."""
        return self.client._score(self.key, answer, end=False)

    def end(self, answer: str | dict | None = None) -> dict:
        """Close the MCP session, score the episode with `answer` and free it: the server's verdict."""
        if self.session_id:
            try:
                self.client.http.delete(self.url, headers=self._headers())
            except httpx.HTTPError:
                pass  # the score below still ends it
            self.session_id = None
        return self.client._score(self.key, answer, end=True)


class Client(_Base):
    """The synchronous client: `reserve` returns an open Episode."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = httpx.Client(timeout=self.timeout)

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.http.close()

    def _admin(self, method: str, path: str, body: dict | None = None) -> httpx.Response:
        try:
            return self.http.request(method, f"{self.base_url}{path}", headers=self._admin_headers, json=body)
        except httpx.HTTPError as exc:
            raise AWMClientError(f"{method} {self.base_url}{path} failed: {exc!r} (is `awm serve` running at "
                                 f"{self.base_url}?)") from exc

    def reserve(self, env_id: str, task_id: str, key: str | None = None, tool_format: str = "strict") -> Episode:
        """Reserve an episode of `task_id` under `key` (drawn by the server if None) and open it."""
        reservation = self._reserved(self._admin("POST", "/admin/sessions",
                                                 self._reserve_body(env_id, task_id, key, tool_format)),
                                     env_id, task_id)
        episode = Episode(self, reservation)
        try:
            return episode.open()
        except AWMClientError:
            self.free(episode.key)
            raise

    def _score(self, key: str, answer: Any, end: bool) -> dict:
        scored = self._admin("POST", f"/admin/episodes/{key}/score", {"answer": answer, "end": end})
        if scored.status_code == 200:
            return scored.json()
        if end:
            self.free(key)
        raise AWMClientError(f"scoring episode {key} was refused (HTTP {scored.status_code}): {_reason(scored)}")

    def free(self, key: str) -> None:
        """Free an episode now, scored or not (a missing one is no error)."""
        freed = self._admin("DELETE", f"/admin/episodes/{key}")
        if freed.status_code not in (200, 404):
            raise AWMClientError(f"freeing episode {key} was refused (HTTP {freed.status_code}): {_reason(freed)}")



class AsyncEpisode(Episode):
    """An Episode of the AsyncClient: the same methods, awaited."""

    async def _rpc(self, method: str, params: dict | None = None) -> dict:  # type: ignore[override]
        self._next_id += 1
        message = {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params or {}}
        try:
            response = await self.client.http.post(self.url, json=message, headers=self._headers())
        except httpx.HTTPError as exc:
            raise AWMClientError(f"{method} on episode {self.key} failed: {exc!r}") from exc
        return _rpc_message(response, self._next_id)

    async def open(self) -> AsyncEpisode:  # type: ignore[override]
        self._next_id += 1
        try:
            response = await self.client.http.post(self.url, json=_Base._initialize(self._next_id),
                                                   headers=self._headers())
            _rpc_message(response, self._next_id)
            self.session_id = response.headers.get("mcp-session-id")
            await self.client.http.post(self.url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                                        headers=self._headers())
        except httpx.HTTPError as exc:
            raise AWMClientError(f"opening episode {self.key} at its reserved URL failed: {exc!r}") from exc
        self.tools = (await self._rpc("tools/list"))["tools"]
        return self

    async def call(self, name: str, arguments: dict | None = None) -> tuple[str, bool]:  # type: ignore[override]
        self.calls += 1
        return _call_text(await self._rpc("tools/call", {"name": name, "arguments": arguments or {}}))

    async def score(self, answer: str | dict | None = None) -> dict:  # type: ignore[override]
        return await self.client._score(self.key, answer, end=False)

    async def end(self, answer: str | dict | None = None) -> dict:  # type: ignore[override]
        if self.session_id:
            try:
                await self.client.http.delete(self.url, headers=self._headers())
            except httpx.HTTPError:
                pass
            self.session_id = None
        return await self.client._score(self.key, answer, end=True)


class AsyncClient(_Base):
    """The asynchronous client: `await reserve(...)` returns an open AsyncEpisode."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.http = httpx.AsyncClient(timeout=self.timeout)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.http.aclose()

    async def _admin(self, method: str, path: str, body: dict | None = None) -> httpx.Response:
        try:
            return await self.http.request(method, f"{self.base_url}{path}", headers=self._admin_headers, json=body)
        except httpx.HTTPError as exc:
            raise AWMClientError(f"{method} {self.base_url}{path} failed: {exc!r} (is `awm serve` running at "
                                 f"{self.base_url}?)") from exc

    async def reserve(self, env_id: str, task_id: str, key: str | None = None,
                      tool_format: str = "strict") -> AsyncEpisode:
        reservation = self._reserved(await self._admin("POST", "/admin/sessions",
                                                       self._reserve_body(env_id, task_id, key, tool_format)),
                                     env_id, task_id)
        episode = AsyncEpisode(self, reservation)  # type: ignore[arg-type]
        try:
            return await episode.open()
        except AWMClientError:
            await self.free(episode.key)
            raise

    async def _score(self, key: str, answer: Any, end: bool) -> dict:
        scored = await self._admin("POST", f"/admin/episodes/{key}/score", {"answer": answer, "end": end})
        if scored.status_code == 200:
            return scored.json()
        if end:
            await self.free(key)
        raise AWMClientError(f"scoring episode {key} was refused (HTTP {scored.status_code}): {_reason(scored)}")

    async def free(self, key: str) -> None:
        freed = await self._admin("DELETE", f"/admin/episodes/{key}")
        if freed.status_code not in (200, 404):
            raise AWMClientError(f"freeing episode {key} was refused (HTTP {freed.status_code}): {_reason(freed)}")
