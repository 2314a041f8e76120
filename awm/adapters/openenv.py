"""An OpenEnv environment over `awm.runtime` (extra `openenv`: pip install 'awm-platform[openenv]').

    reset(env_id=..., task_id=...)  an episode of that task, or of a task picked by `seed` from the catalog;
                                    the observation carries the prompt (chat messages) and the tool specs
    step(AWMAction(tool=..., arguments={...}))   one tool call: the observation carries its result
    step(AWMAction(answer=...))     the final step: the episode is scored and ends

Rewards are mapped as AWM's own OpenEnv environment does: the final step earns the verdict's reward (complete
1.0, partial 0.1, else 0.0: the environment's RewardMapping), and a format error (an unknown tool, arguments
that break the tool's schema, an action that is neither a call nor an answer) earns `format_error_reward`
(-1.0) on its step and is counted in the state; every other step earns 0.0 (a number, never None, so a
trainer can sum a trajectory's step rewards). The generic MCP actions of OpenEnv (ListToolsAction,
CallToolAction) work too. Serve it with `create_awm_app()` (uvicorn), talk to it with `AWMEnvClient`.
"""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

from openenv.core.client_types import StepResult
from openenv.core.env_client import EnvClient
from openenv.core.env_server.http_server import create_app
from openenv.core.env_server.interfaces import Environment as OpenEnvEnvironment
from openenv.core.env_server.mcp_types import CallToolAction, ListToolsAction
from openenv.core.env_server.types import Action, Observation, State
from pydantic import Field

from awm import artifacts
from awm.export import system_prompt
from awm.runtime.environment import Environment, Episode, RewardMapping
from awm.runtime.pool import WorkerPool
from awm.runtime.server import DEFAULT_MAX_REQUEST_BYTES, ProvenFiles, published_catalog
from awm.runtime.tools import is_error
from awm.store import ArtifactStore
from awm.toolspecs import published_spec

FORMAT_ERRORS = {"unknown_tool", "invalid_arguments"}
DEFAULT_FORMAT_ERROR_REWARD = -1.0


class AWMAction(Action):
    """A tool call (`tool`, `arguments`), or the final step (`answer`, possibly null: no answer)."""

    tool: str | None = Field(default=None, description="the tool to call; leave out for the final step")
    arguments: dict[str, Any] = Field(default_factory=dict, description="the tool's arguments")
    answer: str | dict[str, Any] | None = Field(default=None, description="the final answer (ends the episode)")


class AWMObservation(Observation):
    env_id: str | None = None
    task_id: str | None = None
    prompt: list[dict[str, str]] | None = Field(default=None, description="on reset: system text and instruction")
    tools: list[dict[str, Any]] | None = Field(default=None, description="on reset and list_tools: the tool specs")
    tool: str | None = None
    result: Any = None
    error: dict[str, Any] | None = Field(default=None, description="the structured error of a failed call")
    verdict: dict[str, Any] | None = Field(default=None, description="on the final step: the score")


class AWMState(State):
    env_id: str | None = None
    task_id: str | None = None
    format_errors: int = 0
    tool_errors: int = 0
    done: bool = False


class _Corpus:
    """The published environments of one AWM_HOME, loaded once per process and shared by every OpenEnv
    session (each session's episodes are its own)."""

    _lock = threading.Lock()
    _open: dict[tuple[str, str], Environment] = {}

    def __init__(self, home: str | Path | None, pool: WorkerPool | None, reward: RewardMapping | None):
        self.store = ArtifactStore(home)
        self.catalog = published_catalog(self.store)
        self.pool, self.reward = pool, reward

    def environment(self, env_id: str) -> Environment:
        key = (str(self.store.home), env_id)
        with self._lock:
            env = self._open.get(key)
            if env is None:
                ProvenFiles(self.store, env_id, self.catalog[env_id])  # served only as proven, as by awm serve
                env = Environment.from_store(self.store, env_id, self.reward, self.pool,
                                             task_ids=self.catalog[env_id])
                self._open[key] = env
            return env


class AWMOpenEnv(OpenEnvEnvironment):
    """One OpenEnv session: an episode of a published AWM task at a time."""

    SUPPORTS_CONCURRENT_SESSIONS = True  # episodes are isolated copies of the database

    def __init__(self, home: str | Path | None = None, pool: WorkerPool | None = None,
                 reward: RewardMapping | None = None, tool_format: str = "strict",
                 format_error_reward: float = DEFAULT_FORMAT_ERROR_REWARD):
        super().__init__()
        self.corpus = _Corpus(home, pool, reward)
        self.tool_format = tool_format
        self.format_error_reward = format_error_reward
        self.episode: Episode | None = None
        self._state = AWMState()

    @property
    def state(self) -> AWMState:
        return self._state

    def reset(self, seed: int | None = None, episode_id: str | None = None, env_id: str | None = None,
              task_id: str | None = None, **kwargs: Any) -> AWMObservation:
        if env_id is None:
            env_id = random.Random(seed).choice(sorted(self.corpus.catalog))
        if env_id not in self.corpus.catalog:
            raise ValueError(f"no published environment {env_id!r}")
        tasks = self.corpus.catalog[env_id]
        if task_id is None:
            task_id = random.Random(seed).choice(tasks)
        if task_id not in tasks:
            raise ValueError(f"{env_id} publishes no task {task_id!r}; published: {', '.join(tasks)}")
        self.close()
        env = self.corpus.environment(env_id)
        self.episode = env.reset(task_id)
        self._state = AWMState(episode_id=episode_id or f"{env_id}/{task_id}/{id(self.episode):x}", env_id=env_id,
                               task_id=task_id)
        task = env.task(task_id)
        scenario = artifacts.SCENARIO.read(self.corpus.store, env_id)
        prompt = [{"role": "system", "content": system_prompt(scenario, env.taskset.acting_user, task)},
                  {"role": "user", "content": task.instruction}]
        return AWMObservation(env_id=env_id, task_id=task_id, prompt=prompt, tools=self._tools(env))

    def _tools(self, env: Environment) -> list[dict[str, Any]]:
        """The episode's tools: the environment's, and submit_answer when its task expects an answer."""
        return [published_spec(spec, self.tool_format) for spec in env.tools_for(self._state.task_id)]

    def step(self, action: Action, timeout_s: float | None = None, **kwargs: Any) -> AWMObservation:
        if self.episode is None or self._state.done:
            return self._format_error("the episode is over or was never started: reset first")
        self._state.step_count += 1
        if isinstance(action, ListToolsAction):
            return AWMObservation(env_id=self._state.env_id, task_id=self._state.task_id, reward=0.0,
                                  tools=self._tools(self.episode.env))
        if isinstance(action, CallToolAction):
            return self._call(action.tool_name, action.arguments)
        if not isinstance(action, AWMAction):
            return self._format_error(f"unknown action {type(action).__name__}: send AWMAction")
        if action.tool is not None:
            return self._call(action.tool, action.arguments)
        verdict = self.episode.score(action.answer)
        self._state.done = True
        self.close()
        return AWMObservation(env_id=self._state.env_id, task_id=self._state.task_id, done=True,
                              reward=verdict["reward"], verdict={**verdict, "format_errors": self._state.format_errors})

    def _call(self, tool: str, arguments: dict[str, Any]) -> AWMObservation:
        result = self.episode.call(tool, arguments)
        observation = AWMObservation(env_id=self._state.env_id, task_id=self._state.task_id, tool=tool, reward=0.0)
        if not is_error(result):
            observation.result = result
            return observation
        observation.error = result["error"]
        self._state.tool_errors += 1
        if result["error"].get("code") in FORMAT_ERRORS:
            self._state.format_errors += 1
            observation.reward = self.format_error_reward
        return observation

    def _format_error(self, message: str) -> AWMObservation:
        self._state.format_errors += 1
        return AWMObservation(env_id=self._state.env_id, task_id=self._state.task_id, reward=self.format_error_reward,
                              error={"code": "invalid_action", "message": message}, done=self._state.done)

    def close(self) -> None:
        if self.episode is not None:
            self.episode.close()
            self.episode = None


def create_awm_app(home: str | Path | None = None, pool: WorkerPool | None = None,
                   reward: RewardMapping | None = None, tool_format: str = "strict",
                   max_concurrent_envs: int = 64, max_message_bytes: int = DEFAULT_MAX_REQUEST_BYTES):
    """The OpenEnv server app (FastAPI) over the published corpus of `home`: one AWMOpenEnv per session. A
    request body or WebSocket message over `max_message_bytes` (as `awm serve --max-request-bytes`) is
    refused before OpenEnv parses it: HTTP 413, or the WebSocket closed with 1009 (message too big)."""
    app = create_app(lambda: AWMOpenEnv(home, pool, reward, tool_format), AWMAction, AWMObservation,
                     env_name="awm", max_concurrent_envs=max_concurrent_envs)
    return MessageCap(app, max_message_bytes)


class MessageCap:
    """An ASGI wrapper that refuses messages over `limit` bytes: an HTTP body (413) or a WebSocket message
    (closed with 1009); nothing of them reaches the app."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    def __getattr__(self, name: str) -> Any:  # the wrapped app's attributes (routes, state) as before
        return getattr(self.app, name)

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            declared = dict(scope.get("headers") or ()).get(b"content-length", b"")
            if declared.isdigit() and int(declared) > self.limit:
                await _too_large(send, self.limit)
                return
            receive = self._http_receive(receive, send)
        elif scope["type"] == "websocket":
            receive = self._ws_receive(receive, send)
        await self.app(scope, receive, send)

    def _http_receive(self, receive, send):
        seen = 0

        async def bounded():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    await _too_large(send, self.limit)
                    return {"type": "http.disconnect"}
            return message

        return bounded

    def _ws_receive(self, receive, send):
        async def bounded():
            message = await receive()
            if message["type"] == "websocket.receive":
                size = len(message.get("bytes") or b"") + len((message.get("text") or "").encode("utf-8"))
                if size > self.limit:
                    await send({"type": "websocket.close", "code": 1009,
                                "reason": f"message over {self.limit} bytes"})
                    return {"type": "websocket.disconnect", "code": 1009}
            return message

        return bounded


async def _too_large(send, limit: int) -> None:
    body = f'{{"error": "the request body is over {limit} bytes"}}'.encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


class AWMEnvClient(EnvClient[AWMAction, AWMObservation, AWMState]):
    """The OpenEnv client of `create_awm_app` (WebSocket session: one environment instance per client)."""

    def _step_payload(self, action: AWMAction) -> dict[str, Any]:
        return action.model_dump(exclude={"metadata"})

    def _parse_result(self, payload: dict[str, Any]) -> StepResult[AWMObservation]:
        observation = AWMObservation(**payload.get("observation", {}), reward=payload.get("reward"),
                                     done=payload.get("done", False))
        return StepResult(observation=observation, reward=payload.get("reward"), done=payload.get("done", False))

    def _parse_state(self, payload: dict[str, Any]) -> AWMState:
        return AWMState(**payload)
