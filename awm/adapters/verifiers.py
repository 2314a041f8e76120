"""A `verifiers` environment over the trainer-ready export, played against a running `awm serve`.

    import verifiers as vf
    env = vf.load_environment("awm.adapters.verifiers", export="tasks.jsonl",
                              base_url="http://127.0.0.1:8000", admin_token_file="~/.awm-token")

Each dataset row is one exported task (its `prompt` in chat format; `info` names the environment, the task and
the tool format). Each rollout:
  1. reserves its own episode of that task on the server (`POST /admin/sessions` with the admin token, under a
     key made from the rollout's trajectory id): the trainer side binds the task and the episode, the agent
     never chooses them;
  2. opens one MCP session at the URL the reservation returned and lists the tools there: the model is offered
     exactly what the server serves (strict function calling for the strict form);
  3. runs every tool call the model makes through that session; the rollout ends when the model answers
     without a tool call (that message is its answer), or at `max_turns`;
  4. on cleanup, scores the episode with the answer and ends it (`POST /admin/episodes/<key>/score`); the
     rubric's reward is the server's reward for that verdict, and its metrics the server's counts.

It runs in the trainer's environment, beside `verifiers` (which pins mcp<2), not in the server's (mcp 2.x), so
it imports nothing of the awm core but `awm.client` (httpx alone): install `verifiers==0.3.1`, then this package without its dependencies
(`pip install --no-deps awm-platform`, or a checkout on PYTHONPATH). It uses the v0 environment API of
verifiers (`vf.MultiTurnEnv`, `vf.Rubric`, `vf.load_environment`).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import verifiers as vf
from datasets import Dataset
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from awm import client

EXPORT_VERSIONS = {"2"}
DEFAULT_BASE_URL = "http://127.0.0.1:8000"
DEFAULT_KEY_PREFIX = "vf-"
ALL_SPLITS = "all"
RECORD_KEYS = ("env_id", "task_id", "prompt", "mcp", "split", "tool_format", "kind")


class AWMVerifiersError(vf.InfraError):
    """The export, the server or the admin token is not what the adapter needs; the message says which."""


def read_export(path: str | Path, splits: Iterable[str] | None = None, domains: Iterable[str] | None = None,
                env_ids: Iterable[str] | None = None) -> list[dict]:
    """The export's records (`awm export`, layout awm), checked, optionally only those of some splits,
    domains or environments."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise AWMVerifiersError(f"no export at {path}: write one with `awm export --out {path}`")
    wanted = [set(values) if values is not None else None for values in (splits, domains, env_ids)]
    records = []
    with path.open(encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            record = _checked_record(line, f"{path}:{number}")
            values = (record["split"], record["domain"], record["env_id"])
            if all(allowed is None or value in allowed for allowed, value in zip(wanted, values)):
                records.append(record)
    return records


def _checked_record(line: str, where: str) -> dict:
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise AWMVerifiersError(f"{where} is not JSON: {exc}") from exc
    if not isinstance(record, dict):
        raise AWMVerifiersError(f"{where} is a JSON {type(record).__name__}, not an export record")
    if "export_version" not in record:
        raise AWMVerifiersError(f"{where} is not a record of `awm export --layout awm` (it has no export_version; "
                                "the hf and verl layouts are for other trainers)")
    if record["export_version"] not in EXPORT_VERSIONS:
        raise AWMVerifiersError(f"{where} has export_version {record.get('export_version')!r}; this adapter reads "
                                f"{', '.join(sorted(EXPORT_VERSIONS))}: export again with this version of awm")
    missing = [key for key in (*RECORD_KEYS, "domain") if key not in record]
    if missing:
        raise AWMVerifiersError(f"{where} lacks {', '.join(missing)}: export with `--layout awm` (the default)")
    reserve = record["mcp"].get("reserve") if isinstance(record["mcp"], dict) else None
    if not isinstance(reserve, dict) or not isinstance(reserve.get("url"), str) or not isinstance(
            reserve.get("body"), dict):
        raise AWMVerifiersError(f"{where} has no mcp.reserve request (url and body)")
    if not isinstance(record["prompt"], list) or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in record["prompt"]):
        raise AWMVerifiersError(f"{where}: prompt must be a list of chat messages with a role and a text content")
    return record


def dataset_rows(records: list[dict]) -> list[dict]:
    """verifiers dataset rows: the prompt as exported; `info` carries what a rollout needs to reserve its
    episode (flat strings, so every row has one Arrow type). No reference is ever put in a row."""
    rows = []
    for record in records:
        reserve = record["mcp"]["reserve"]
        rows.append({"prompt": [{"role": m["role"], "content": m["content"]} for m in record["prompt"]],
                     "info": {"env_id": record["env_id"], "task_id": record["task_id"], "domain": record["domain"],
                              "kind": record["kind"], "split": record["split"],
                              "tool_format": reserve["body"].get("tool_format") or record["tool_format"],
                              "reserve_url": reserve["url"]}})
    return rows


def admin_token_from(token: str | None = None, token_file: str | Path | None = None) -> str:
    """The server's admin token, as `awm.client` reads it (a trainer-side module that, like this one, imports
    nothing of the awm core)."""
    try:
        return client.admin_token_from(token, token_file)
    except client.AWMClientError as exc:
        raise AWMVerifiersError(f"{exc}; reserving and scoring episodes needs it") from exc


def final_answer(completion: Any) -> str | None:
    """The answer of a rollout: the text of its last message, when that is the model's and calls no tool."""
    if not isinstance(completion, list) or not completion:
        return None
    last = completion[-1]
    role = last.get("role") if isinstance(last, dict) else getattr(last, "role", None)
    calls = last.get("tool_calls") if isinstance(last, dict) else getattr(last, "tool_calls", None)
    if role != "assistant" or calls:
        return None
    content = last.get("content") if isinstance(last, dict) else getattr(last, "content", None)
    if isinstance(content, list):  # content parts: keep the text ones
        content = "".join(p.get("text", "") if isinstance(p, dict) else getattr(p, "text", "") or ""
                          for p in content)
    return content or None


def server_reason(response: httpx.Response) -> str:
    """The reason the server gave for refusing a request (its JSON `error`), else the start of its body."""
    try:
        reason = response.json().get("error")
    except (ValueError, AttributeError):
        reason = None
    return reason if isinstance(reason, str) else response.text[:500]


class RolloutEpisode:
    """One rollout's episode on the server: reserved under its key, played through one MCP session at the
    reserved URL, scored with the answer and ended. The MCP session is held by a task of its own (the
    transport's task group is entered and left in one task) so the rollout's turns can call tools through it;
    one HTTP client carries the whole rollout (the admin token goes only to the admin endpoints)."""

    def __init__(self, base_url: str, admin_token: str, key: str, call_timeout: float):
        self.base_url, self.key, self.call_timeout = base_url, key, call_timeout
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(call_timeout, read=call_timeout * 2))
        self._admin_headers = {"Authorization": f"Bearer {admin_token}"}
        self.reserved = False
        self.session: ClientSession | None = None
        self._ready, self._closing = asyncio.Event(), asyncio.Event()
        self._error: BaseException | None = None
        self._task: asyncio.Task | None = None

    async def _admin(self, method: str, url: str, body: dict | None = None) -> httpx.Response:
        try:
            return await self.http.request(method, url, headers=self._admin_headers, json=body)
        except httpx.HTTPError as exc:
            raise AWMVerifiersError(f"{method} {url} failed: {exc!r} (is `awm serve` running at "
                                    f"{self.base_url}?)") from exc

    async def reserve(self, reserve_url: str, body: dict) -> str:
        """Reserve the episode; the URL the agent side connects to (a bearer secret: kept out of the state)."""
        url = reserve_url.replace("{base_url}", self.base_url)
        reserved = await self._admin("POST", url, {**body, "key": self.key})
        if reserved.status_code != 201:
            raise AWMVerifiersError(f"reserving an episode of {body['env_id']} {body['task_id']} was refused "
                                    f"(HTTP {reserved.status_code}): {server_reason(reserved)}")
        self.reserved = True
        return reserved.json()["url"]

    async def open(self, url: str) -> list:
        """Open the MCP session at the reserved URL: the tools it serves."""
        tools: list = []
        self._task = asyncio.create_task(self._hold(url, tools))
        await self._ready.wait()
        if self.session is None:
            raise AWMVerifiersError(f"could not open an MCP session at episode {self.key}: {self._error!r}")
        return tools

    async def _hold(self, url: str, tools: list) -> None:
        try:
            async with streamable_http_client(url, http_client=self.http) as (read, write, _), \
                    ClientSession(read, write) as session:
                await session.initialize()
                tools.extend((await session.list_tools()).tools)
                self.session = session
                self._ready.set()
                await self._closing.wait()
        except Exception as exc:  # reported by open(), or by the next call
            self._error = exc
        finally:
            self.session = None
            self._ready.set()

    async def call(self, name: str, arguments: dict) -> tuple[str, bool]:
        """The call's result as text (the server's JSON), and whether it failed."""
        if self.session is None:
            raise AWMVerifiersError(f"the MCP session of episode {self.key} is closed: {self._error!r}")
        try:
            result = await self.session.call_tool(name, arguments,
                                                  read_timeout_seconds=timedelta(seconds=self.call_timeout))
        except Exception as exc:  # the transport, not the tool: the rollout cannot go on
            raise AWMVerifiersError(f"calling {name} over the MCP session of episode {self.key} failed: "
                                    f"{exc!r}") from exc
        text = "\n".join(getattr(part, "text", "") or "" for part in result.content)
        return text, bool(result.isError)

    async def finish(self, answer: str | None) -> dict:
        """Close the MCP session, then score the episode with `answer` and end it (a reservation no session
        opened is freed instead, and refused as unscored): the server's verdict."""
        self._closing.set()
        if self._task is not None:
            await self._task
        ref = f"{self.base_url}/admin/episodes/{self.key}"
        scored = await self._admin("POST", f"{ref}/score", {"answer": answer, "end": True})
        if scored.status_code == 200:
            return scored.json()
        await self._admin("DELETE", ref)
        raise AWMVerifiersError(f"scoring episode {self.key} was refused (HTTP {scored.status_code}): "
                                f"{server_reason(scored)}")


class AWMRubric(vf.Rubric):
    """The reward is the server's: the verdict of the task's verifier on the episode's final database and the
    answer, mapped by the server's reward mapping. Metrics: complete, and the server's counts of the episode."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.add_reward_func(self.awm_reward)
        for metric in (self.awm_complete, self.awm_tool_calls, self.awm_tool_errors, self.awm_format_errors):
            self.add_metric(metric)

    @staticmethod
    def _verdict(state) -> dict:
        return (state.get("awm") or {}).get("verdict") or {}

    async def awm_reward(self, state) -> float:
        return float(self._verdict(state).get("reward", 0.0))

    async def awm_complete(self, state) -> float:
        return float(bool(self._verdict(state).get("complete")))

    async def awm_tool_calls(self, state) -> float:
        return float(self._verdict(state).get("calls", 0))

    async def awm_tool_errors(self, state) -> float:
        return float(self._verdict(state).get("tool_errors", 0))

    async def awm_format_errors(self, state) -> float:
        return float((state.get("awm") or {}).get("format_errors", 0))


class AWMEnv(vf.MultiTurnEnv):
    """Rollouts of exported AWM tasks, one reserved episode each, tools over MCP, reward from the server."""

    def __init__(self, base_url: str, admin_token: str, key_prefix: str = DEFAULT_KEY_PREFIX,
                 call_timeout: float = 30.0, max_turns: int = 32, **kwargs):
        if not key_prefix or len(key_prefix) > 64 or not all(c.isalnum() or c in "_.:-" for c in key_prefix):
            raise AWMVerifiersError(f"key_prefix must be 1-64 letters, digits or _ . : -, not {key_prefix!r}")
        super().__init__(max_turns=max_turns, rubric=AWMRubric(), **kwargs)
        self.base_url = base_url.rstrip("/")
        self.key_prefix, self.call_timeout = key_prefix, call_timeout
        self._admin_token = admin_token
        self._episodes: dict[str, RolloutEpisode] = {}

    async def setup_state(self, state, **kwargs):
        info = state["info"]
        key = f"{self.key_prefix}{state['trajectory_id']}"
        state["awm"] = {"episode": key, "env_id": info["env_id"], "task_id": info["task_id"], "format_errors": 0,
                        "verdict": None}
        episode = self._episodes[key] = RolloutEpisode(self.base_url, self._admin_token, key, self.call_timeout)
        url = await episode.reserve(info["reserve_url"], {"env_id": info["env_id"], "task_id": info["task_id"],
                                                          "tool_format": info["tool_format"]})
        tools = await episode.open(url)
        strict = True if info["tool_format"] == "strict" else None
        state["tool_defs"] = [vf.Tool(name=t.name, description=t.description or "", parameters=t.inputSchema,
                                      strict=strict) for t in tools]
        return state

    @vf.stop
    async def answered(self, state) -> bool:
        """The model's last turn called no tool: that message is its answer."""
        if not state["trajectory"]:
            return False
        last = state["trajectory"][-1]["completion"][-1]
        return last.role == "assistant" and not getattr(last, "tool_calls", None)

    async def env_response(self, messages, state, **kwargs):
        episode = self._episodes[state["awm"]["episode"]]
        replies = []
        for call in messages[-1].tool_calls or []:
            try:
                arguments = json.loads(call.arguments or "{}")
                if not isinstance(arguments, dict):
                    raise ValueError(f"arguments must be a JSON object, not {type(arguments).__name__}")
            except ValueError as exc:  # the server never sees it: a format error of the model
                state["awm"]["format_errors"] += 1
                content = json.dumps({"error": {"code": "invalid_arguments",
                                                "message": f"arguments of {call.name} are not a JSON object: {exc}"}})
            else:
                content, _ = await episode.call(call.name, arguments)
            replies.append(vf.ToolMessage(role="tool", content=content, tool_call_id=call.id))
        return replies

    @vf.cleanup
    async def score_and_end_episode(self, state) -> None:
        """Score the rollout's episode with its answer and end it; the verdict goes into the state."""
        awm = state.get("awm")
        episode = self._episodes.pop(awm["episode"], None) if awm else None
        if episode is None:
            return
        try:
            if episode.reserved:
                awm["verdict"] = await episode.finish(final_answer(state.get("completion")))
        except AWMVerifiersError as exc:
            if state.get("error") is None:
                state["error"] = exc
        finally:
            await episode.http.aclose()


def load_environment(export: str | Path, base_url: str | None = None, admin_token: str | None = None,
                     admin_token_file: str | Path | None = None, train_split: str | None = "train",
                     eval_split: str | None = "validation", domains: list[str] | None = None,
                     env_ids: list[str] | None = None, max_turns: int = 32, key_prefix: str = DEFAULT_KEY_PREFIX,
                     call_timeout: float = 30.0, **kwargs) -> AWMEnv:
    """The entry point `vf.load_environment("awm.adapters.verifiers", ...)` calls.

    export: an `awm export` file (layout awm). base_url: where `awm serve` listens (default $AWM_BASE_URL, else
    http://127.0.0.1:8000). The admin token as `awm serve` reads it (admin_token_file, admin_token,
    $AWM_ADMIN_TOKEN_FILE, $AWM_ADMIN_TOKEN). train_split / eval_split: the export's split label (train,
    validation, test) of the training and the evaluation dataset, "all" for every task, None for no such
    dataset. domains / env_ids: keep only these.
    """
    token = admin_token_from(admin_token, admin_token_file)
    base_url = base_url or os.environ.get("AWM_BASE_URL") or DEFAULT_BASE_URL
    datasets = {}
    for name, split in (("dataset", train_split), ("eval_dataset", eval_split)):
        records = [] if split is None else read_export(export, None if split == ALL_SPLITS else [split], domains,
                                                       env_ids)
        datasets[name] = Dataset.from_list(dataset_rows(records)) if records else None
    if datasets["dataset"] is None and datasets["eval_dataset"] is None:
        raise AWMVerifiersError(f"{export} has no task in split {train_split!r} nor {eval_split!r}"
                                + (f" of domains {domains}" if domains else "")
                                + (f" of environments {env_ids}" if env_ids else ""))
    return AWMEnv(base_url, token, key_prefix=key_prefix, call_timeout=call_timeout, max_turns=max_turns,
                  **datasets, **kwargs)
