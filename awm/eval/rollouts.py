"""The rollout engine: agents against the published environments, through the runtime.

A rollout is one attempt of an agent at one published task: the task's prompt (the export's system text
and the instruction) and tools (the published strict form) go to a model behind any OpenAI-compatible
endpoint (the `openai` client, native tool calling); each tool call it makes runs in an episode of the
environment (awm.runtime: the same sandbox workers, argument checks and scoring as every other user);
when the model answers without a tool call, the episode is scored on its final database and that answer.

Limits per rollout: model turns (`max_steps`), tokens over all its model calls (`max_tokens`) and
wall-clock seconds. A fault (the endpoint times out or fails, a tool call whose arguments are not a JSON
object, a limit reached, a truncated response) ends the rollout as failed with its reason; it never
raises out of the engine. Failures of the endpoint itself are `retryable`: the next run repeats them.

Every rollout is written, atomically, as a JSONL trajectory: a header line (task, model, seed, key), one
line per message (system, user, assistant with its tool calls, tool results) and a result line (status,
reason, reward, verdict evidence, database diff summary, steps, tool errors, tokens, latency). Its path
holds a key over everything that determines it (model, prompt, tools, sampling parameters, limits, seed,
and the environment's artifacts): a rerun finds the finished file and makes no model call. Each model
response is also kept in the response cache (AWM_HOME/llm/cache.sqlite), so a rollout interrupted by a
kill resumes without asking again for the turns it already had.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ConfigDict, Field

from awm import artifacts
from awm.contracts import Task
from awm.errors import AWMError
from awm.export import imported_system_prompt, system_prompt
from awm.llm.cache import CachedResponse, ResponseCache
from awm.llm.settings import LLMSettings
from awm.runtime.answers import answer_tool
from awm.runtime.pool import SandboxError
from awm.stages.catalog import DEFAULT_MIN_TASKS, environment_status
from awm.store import ArtifactStore, atomic_write_text
from awm.toolspecs import foreign_spec, published_spec

EVALS_DIR = "evals"
TRAJECTORY_VERSION = "1"
ENV_FILES = tuple(a.name for a in (artifacts.TASKS, artifacts.TOOLS_JSON, artifacts.TOOLS_PY, artifacts.VERIFIERS,
                                   artifacts.DATABASE))  # what a rollout's outcome reads
IMPORTED_ENV_FILES = tuple(a.name for a in (artifacts.AWM1K_APP, artifacts.TOOLS_JSON, artifacts.AWM1K,
                                            artifacts.DATABASE))  # an imported environment's (awm/awm1k/)
AGENT_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$")


class EvalLimits(BaseModel):
    """How many rollouts per task, and the limits of each."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    k: int = Field(default=1, ge=1, le=1000, description="rollouts per task (samples 0..k-1, seeds seed..seed+k-1)")
    max_steps: int = Field(default=30, ge=1, le=1000, description="model turns per rollout")
    max_tokens: int = Field(default=200_000, ge=1, description="prompt + completion tokens over a rollout's calls")
    wall_clock_s: float = Field(default=300.0, gt=0, description="seconds per rollout, model and tools together")
    seed: int = Field(default=0, description="seed of sample 0; sample i is asked with seed + i")
    min_tasks: int = Field(default=DEFAULT_MIN_TASKS, ge=1, description="as the catalog: fewer passing tasks "
                           "and the environment is not published")


def validate_agent_key(key: str) -> str:
    """An agent configuration's name (the model name): safe as a partition key and a folder name."""
    if not isinstance(key, str) or not AGENT_KEY.match(key) or ".." in key:
        raise AWMError(f"agent name {key!r} is not valid: 1-128 characters of letters, digits and . _ : / @ + -, "
                       "starting with a letter or digit (no '|', ',', spaces or '..')")
    return key


def agent_dir(home: Path, agent: str) -> Path:
    return Path(home) / EVALS_DIR / re.sub(r"[^A-Za-z0-9._@+-]", "_", validate_agent_key(agent))


@dataclass
class RolloutResult:
    """A rollout's outcome: what the evaluation report reads (the trajectory file has everything)."""

    key: str
    path: str
    agent: str
    model: str
    env_id: str
    domain: str
    task_id: str
    sample: int
    seed: int
    category: str
    intent: str
    kind: str
    reference_steps: int
    status: str = "completed"  # completed | failed
    reason: str | None = None
    retryable: bool = False
    reward: float = 0.0
    complete: bool = False
    unexpected_changes: int = 0
    overreach: int = 0  # calls refused as what the customer it acts for may not do (not_permitted)
    changed_rows: int = 0
    steps: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_calls: int = 0  # made by this run (0 for a rollout read back from its file)
    cache_hits: int = 0
    model_latency_ms: float = 0.0
    tool_ms: float = 0.0
    wall_s: float = 0.0
    reused: bool = False  # read from a finished trajectory file

    @property
    def passed(self) -> bool:
        return self.status == "completed" and self.complete

    @property
    def hacking(self) -> bool:
        """The rollout changed rows the task does not account for (the score's diff says so), or tried what the
        customer it acts for may not do (a staff tool, another customer's record), which the runtime refused."""
        return self.unexpected_changes > 0 or self.overreach > 0


class RolloutFault(Exception):
    """Ends a rollout as failed: `reason` is recorded; `retryable` if the endpoint, not the agent, failed."""

    def __init__(self, reason: str, retryable: bool = False):
        super().__init__(reason)
        self.reason, self.retryable = reason, retryable


@dataclass
class ImportedTask:
    """What a rollout reads of an imported AWM-1K task (the rest of a Task it has not: no template, no
    reference solution)."""

    task_id: str
    instruction: str
    template: str = "awm1k"
    kind: str = "action"
    reference_solution: tuple = ()


@dataclass
class _Task:
    env_id: str
    domain: str
    task: Task | ImportedTask
    prompt: list[dict]
    tools: list[dict]
    category: str
    env_hash: str
    tools_hash: str = ""
    tools_json: bytes = b""

    def __post_init__(self) -> None:
        self.tools_json = _encode(self.tools)  # once: every turn's request carries them
        self.tools_hash = hashlib.sha256(self.tools_json).hexdigest()


def _encode(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


class Conversation:
    """The messages of a rollout, each also kept as the JSON it is sent as (encoded once)."""

    def __init__(self, prompt: list[dict]):
        self.messages: list[dict] = []
        self.encoded: list[bytes] = []
        for message in prompt:
            self.append(dict(message))

    def append(self, message: dict) -> None:
        self.messages.append(message)
        self.encoded.append(_encode(message))


@dataclass
class EvalRun:
    results: list[RolloutResult] = field(default_factory=list)
    skipped_environments: dict[str, str] = field(default_factory=dict)  # env_id -> why it has no rollouts
    seconds: float = 0.0


def openai_tools(specs: list[dict]) -> list[dict]:
    """MCP tool specs (published strict form) as chat completions `tools`."""
    return [{"type": "function", "function": {"name": s["name"], "description": s.get("description", ""),
                                              "parameters": s["inputSchema"]}} for s in specs]


def _hash(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RolloutEngine:
    """Runs k rollouts of every published task of some environments, `concurrency` rollouts at once."""

    def __init__(self, store: ArtifactStore, settings: LLMSettings, limits: EvalLimits = EvalLimits(),
                 agent: str | None = None, pool=None,
                 on_result: Callable[[RolloutResult], None] | None = None):
        self.store = store
        self.settings = settings
        self.model_limits = settings.limits()  # timeout, concurrency, max_tokens: as set, else the profile's
        self.limits = limits
        self.agent = validate_agent_key(agent or settings.model)
        self.pool = pool
        self.on_result = on_result
        self.cache = ResponseCache(store.home / "llm" / "cache.sqlite") if settings.cache else None
        self.model_calls = 0

    # --- what to run --------------------------------------------------------------------------------
    def _tasks(self, env_id: str) -> tuple[list[_Task], str | None]:
        status, entries = environment_status(self.store, env_id, self.limits.min_tasks)
        if not entries:
            return [], f"{status.status}: {status.reason or 'no published task'}"
        if artifacts.AWM1K.exists(self.store, env_id):
            return self._imported_tasks(env_id, {e.task_id for e in entries}), None
        taskset = artifacts.TASKS.read(self.store, env_id)
        scenario = artifacts.SCENARIO.read(self.store, env_id)
        toolset = artifacts.TOOLS_JSON.read(self.store, env_id)
        env_hash = self._files_hash(env_id, ENV_FILES)
        published = {e.task_id for e in entries}
        # the tools an episode of the task offers (a customer's own request: not the staff-only ones), and
        # `submit_answer` when it expects an answer (the system prompt says so)
        return [_Task(env_id, scenario.domain, t,
                      [{"role": "system", "content": system_prompt(scenario, taskset.acting_user, t)},
                       {"role": "user", "content": t.instruction}],
                      openai_tools([published_spec(spec.mcp()) for spec in toolset.offered(t)]
                                   + ([published_spec(submit)] if (submit := answer_tool(t)) else [])),
                      scenario.category, env_hash)
                for t in taskset.tasks if t.task_id in published], None

    def _files_hash(self, env_id: str, names) -> str:
        """One digest of the environment's files among `names` (what a cached rollout was run against)."""
        return _hash({name: self.store.hash(env_id, name) for name in names if self.store.exists(env_id, name)})

    def _imported_tasks(self, env_id: str, published: set[str]) -> list[_Task]:
        """An imported AWM-1K environment's published tasks (checked or proven): their instruction, their app's
        routes as tools (awm/awm1k/serving.py runs them); no reference solution, unless a promotion found one."""
        manifest = artifacts.AWM1K.read(self.store, env_id)
        scenario = artifacts.SCENARIO.read(self.store, env_id)
        toolset = artifacts.TOOLS_JSON.read(self.store, env_id)
        tools = openai_tools([foreign_spec(spec.mcp()) for spec in toolset.tools])
        env_hash = self._files_hash(env_id, IMPORTED_ENV_FILES)
        system = imported_system_prompt(scenario)  # the prompt the export gives the task (awm/export.py)
        return [_Task(env_id, scenario.domain, ImportedTask(t.task_id, t.instruction),
                      [{"role": "system", "content": system}, {"role": "user", "content": t.instruction}],
                      tools, scenario.category, env_hash)
                for t in manifest.tasks if t.task_id in published]

    def _params(self, seed: int) -> dict:
        return {"temperature": self.settings.temperature, "max_tokens": self.model_limits.max_tokens, "seed": seed}

    def rollout_key(self, item: _Task, sample: int) -> str:
        seed = self.limits.seed + sample
        return _hash({"version": TRAJECTORY_VERSION, "model": self.settings.model, "prompt": item.prompt,
                       "tools_sha256": item.tools_hash, "params": self._params(seed),
                       "limits": self.limits.model_dump(exclude={"k", "seed", "min_tasks"}), "env": item.env_hash})

    def rollout_path(self, item: _Task, sample: int, key: str) -> Path:
        return (agent_dir(self.store.home, self.agent) / item.domain / item.env_id / item.task.task_id
                / f"s{sample:03d}-{key[:16]}.jsonl")

    # --- running ------------------------------------------------------------------------------------
    def run(self, env_ids: list[str]) -> EvalRun:
        return asyncio.run(self.arun(env_ids))

    async def arun(self, env_ids: list[str]) -> EvalRun:
        from awm.runtime.environment import Environment
        from awm.runtime.pool import default_pool

        started = time.monotonic()
        run = EvalRun()
        pool = self.pool or default_pool()
        semaphore = asyncio.Semaphore(self.model_limits.concurrency)
        client = openai.AsyncOpenAI(base_url=self.settings.base_url, api_key=self.settings.require_key(),
                                    timeout=self.model_limits.timeout_s, max_retries=self.settings.transport_retries)
        environments = []
        try:
            jobs = []
            for env_id in env_ids:
                items, why = self._tasks(env_id)
                if why is not None:
                    run.skipped_environments[env_id] = why
                    continue
                task_ids = [i.task.task_id for i in items]
                if artifacts.AWM1K.exists(self.store, env_id):  # imported: their app, in the foreign runtime
                    from awm.awm1k.serving import ForeignEnvironment

                    env = await asyncio.to_thread(ForeignEnvironment, self.store, env_id, task_ids)
                else:
                    env = Environment.from_store(self.store, env_id, pool=pool, task_ids=task_ids)
                environments.append(env)
                jobs += [self._guarded(semaphore, client, env, item, sample)
                         for item in items for sample in range(self.limits.k)]
            run.results = list(await asyncio.gather(*jobs))
        finally:
            await client.close()
            for env in environments:
                env.close()
        run.seconds = time.monotonic() - started
        return run

    async def _guarded(self, semaphore: asyncio.Semaphore, client, env, item: _Task, sample: int) -> RolloutResult:
        key = self.rollout_key(item, sample)
        path = self.rollout_path(item, sample, key)
        finished = read_result(path)
        if finished is not None and not finished.retryable:
            finished.reused = True
            if self.on_result:
                self.on_result(finished)
            return finished
        async with semaphore:
            result = await self._rollout(client, env, item, sample, key, path)
        if self.on_result:
            self.on_result(result)
        return result

    async def _rollout(self, client, env, item: _Task, sample: int, key: str, path: Path) -> RolloutResult:
        seed = self.limits.seed + sample
        result = RolloutResult(key=key, path=str(path.relative_to(self.store.home)), agent=self.agent,
                               model=self.settings.model, env_id=item.env_id, domain=item.domain,
                               task_id=item.task.task_id, sample=sample, seed=seed, category=item.category,
                               intent=item.task.template, kind=item.task.kind,
                               reference_steps=len(item.task.reference_solution))
        messages = Conversation(item.prompt)
        verdict: dict | None = None
        started = time.monotonic()
        try:
            verdict = await self._played(client, env, item, seed, messages, result)
        except SandboxError as exc:  # the platform's side failed (a worker died): not the agent's result
            result.status, result.reason, result.retryable = "failed", f"sandbox_error: {exc}", True
        if verdict is not None:
            result.complete = bool(verdict["complete"]) and result.status == "completed"
            result.reward = float(verdict["reward"]) if result.status == "completed" else 0.0
            diff = verdict.get("diff") or {}
            result.unexpected_changes = int(diff.get("unexpected", 0))
            result.overreach = int(verdict.get("overreach", 0))
            result.changed_rows = int(diff.get("changed", 0))
            result.tool_errors = int(verdict.get("tool_errors", result.tool_errors))
        result.wall_s = round(time.monotonic() - started, 4)
        # the write (with its fsync) in a thread: on the event loop it would stall every other rollout
        await asyncio.to_thread(self._write, path, item, result, messages.messages, verdict)
        return result

    async def _played(self, client, env, item: _Task, seed: int, messages: Conversation,
                      result: RolloutResult) -> dict | None:
        """The rollout in a fresh episode; the verdict on its final state (None after a wall-clock timeout)."""
        episode = await env.areset(item.task.task_id)
        try:
            try:
                answer = await asyncio.wait_for(self._loop(client, episode, item, seed, messages, result),
                                                self.limits.wall_clock_s)
                return await episode.ascore(answer)
            except RolloutFault as fault:
                result.status, result.reason, result.retryable = "failed", fault.reason, fault.retryable
            except TimeoutError:
                result.status, result.reason = "failed", (f"wall_clock: the rollout took over "
                                                          f"{self.limits.wall_clock_s:g} s")
                return None
            return await episode.ascore(None)  # the state it left: its diff shows what it changed anyway
        finally:
            episode.close()

    async def _loop(self, client, episode, item: _Task, seed: int, messages: Conversation,
                    result: RolloutResult) -> str | None:
        """Model turn, tool calls, until the model answers without a tool call; that answer."""
        while True:
            if result.steps >= self.limits.max_steps:
                raise RolloutFault(f"step_limit: the model still called tools after {self.limits.max_steps} turns")
            message, finish = await self._turn(client, item, seed, messages, result)
            result.steps += 1
            if finish == "length":
                raise RolloutFault("truncated: the response stopped at the completion token limit "
                                   f"({self.model_limits.max_tokens})")
            if result.prompt_tokens + result.completion_tokens > self.limits.max_tokens:
                messages.append(message)
                raise RolloutFault(f"token_limit: {result.prompt_tokens + result.completion_tokens} tokens over "
                                   f"the limit of {self.limits.max_tokens}")
            messages.append(message)
            calls = message.get("tool_calls") or []
            if not calls:
                return message.get("content")
            for call in calls:
                function = call.get("function") or {}
                try:
                    arguments = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError as exc:
                    raise RolloutFault(f"malformed_tool_call: the arguments of {function.get('name')!r} are not "
                                       f"JSON ({exc.msg} at character {exc.pos})") from exc
                if not isinstance(arguments, dict):
                    raise RolloutFault(f"malformed_tool_call: the arguments of {function.get('name')!r} are a "
                                       f"{type(arguments).__name__}, not a JSON object")
                tool_started = time.perf_counter()
                output = await episode.acall(str(function.get("name")), arguments)
                result.tool_ms += (time.perf_counter() - tool_started) * 1000
                result.tool_calls += 1
                messages.append({"role": "tool", "tool_call_id": call.get("id"),
                                 "content": json.dumps(output, ensure_ascii=False, default=str)})

    async def _turn(self, client, item: _Task, seed: int, messages: Conversation,
                    result: RolloutResult) -> tuple[dict, str | None]:
        # The request body is assembled from JSON encoded once per message (and once per task for the
        # tools), and sent through the client's generic POST: the same transport, auth, retries, timeouts
        # and errors as chat.completions.create, without re-encoding the whole conversation each turn or
        # the typed method's recursive transform of the request (~10 ms of CPU per call with 35 tool
        # schemas). The response is parsed into the same ChatCompletion. The cache key hashes the same bytes.
        head = _encode({"model": self.settings.model, **self._params(seed), "tools_sha256": item.tools_hash})
        key = hashlib.sha256(head + b"\n" + b"\n".join(messages.encoded)).hexdigest() if self.cache else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                result.cache_hits += 1
                result.prompt_tokens += hit.prompt_tokens or 0
                result.completion_tokens += hit.completion_tokens or 0
                return json.loads(hit.content), hit.finish_reason
        body = (_encode({"model": self.settings.model, **self._params(seed)})[:-1] + b',"tools":' + item.tools_json
                + b',"messages":[' + b",".join(messages.encoded) + b"]}")
        started = time.perf_counter()
        try:
            response = await client.post("/chat/completions", cast_to=ChatCompletion, content=body,
                                         options={"security": {"bearer_auth": True},
                                                  "headers": {"Content-Type": "application/json"}})
        except openai.APITimeoutError as exc:
            raise RolloutFault(f"model_timeout: no response from {self.settings.base_url} within "
                               f"{self.model_limits.timeout_s:g} s", retryable=True) from exc
        except openai.APIStatusError as exc:
            raise RolloutFault(f"model_error: {self.settings.base_url} answered {exc.status_code}: {exc.message}",
                               retryable=exc.status_code == 429 or exc.status_code >= 500) from exc
        except openai.APIError as exc:
            raise RolloutFault(f"model_error: {type(exc).__name__}: {exc}", retryable=True) from exc
        finally:
            result.model_latency_ms += (time.perf_counter() - started) * 1000
            result.model_calls += 1
            self.model_calls += 1
        if not response.choices:
            raise RolloutFault("malformed_response: the response has no choices")
        choice = response.choices[0]
        message = choice.message.model_dump(exclude_none=True, include={"role", "content", "tool_calls"})
        message.setdefault("role", "assistant")
        message.setdefault("content", None)
        usage = response.usage
        prompt_tokens = int(usage.prompt_tokens or 0) if usage else 0
        completion_tokens = int(usage.completion_tokens or 0) if usage else 0
        result.prompt_tokens += prompt_tokens
        result.completion_tokens += completion_tokens
        if self.cache is not None and choice.finish_reason != "length":
            self.cache.put(key, self.settings.model, "agent", CachedResponse(
                json.dumps(message, ensure_ascii=False), choice.finish_reason, prompt_tokens, completion_tokens))
        return message, choice.finish_reason

    def _write(self, path: Path, item: _Task, result: RolloutResult, messages: list[dict],
               verdict: dict | None) -> None:
        header = {"type": "rollout", "version": TRAJECTORY_VERSION, "key": result.key, "agent": self.agent,
                  "model": self.settings.model, "base_url": self.settings.base_url, "env_id": item.env_id,
                  "domain": item.domain, "task_id": item.task.task_id, "sample": result.sample, "seed": result.seed,
                  "instruction": item.task.instruction, "limits": self.limits.model_dump()}
        answer = messages[-1].get("content") if messages and messages[-1].get("role") == "assistant" else None
        footer = {"type": "result", **asdict(result), "passed": result.passed, "hacking": result.hacking,
                  "answer": answer,
                  "evidence": (verdict or {}).get("evidence"), "diff": (verdict or {}).get("diff")}
        lines = [header] + [{"type": "message", **m} for m in messages] + [footer]
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, "".join(json.dumps(line, ensure_ascii=False, default=str) + "\n" for line in lines))


_RESULT_FIELDS = {f for f in RolloutResult.__dataclass_fields__}


def read_result(path: Path) -> RolloutResult | None:
    """A finished trajectory's result line, or None if there is no readable one."""
    try:
        data = json.loads(Path(path).read_bytes().rstrip().rsplit(b"\n", 1)[-1])
    except (OSError, json.JSONDecodeError):
        return None
    if data.get("type") != "result":
        return None
    result = RolloutResult(**{k: v for k, v in data.items() if k in _RESULT_FIELDS})
    result.model_calls = result.cache_hits = 0
    return result


def read_trajectory(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def index_path(home: Path, agent: str, domain: str) -> Path:
    return agent_dir(home, agent) / domain / "rollouts.json"


def evaluate_domain(store: ArtifactStore, settings: LLMSettings, limits: EvalLimits, agent: str, domain: str,
                    on_result: Callable[[RolloutResult], None] | None = None) -> EvalRun:
    """k rollouts of every published task of a domain's environments; the results are listed, atomically,
    in the domain's rollouts.json (what the evaluation report reads)."""
    env_ids = store.env_ids(domain)
    if not env_ids:
        raise AWMError(f"domain {domain!r} has no environments under {store.corpus_dir}; build it first "
                       f"(AWM_DOMAINS={domain} make run)")
    engine = RolloutEngine(store, settings, limits, agent, on_result=on_result)
    run = engine.run(env_ids)
    index = {"agent": engine.agent, "model": settings.model, "domain": domain, "limits": limits.model_dump(),
             "skipped_environments": run.skipped_environments, "seconds": round(run.seconds, 3),
             "results": [asdict(r) for r in run.results]}
    path = index_path(store.home, engine.agent, domain)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(index, ensure_ascii=False, indent=1))
    return run


def read_index(home: Path, agent: str, domain: str) -> tuple[EvalLimits, list[RolloutResult], dict]:
    """(limits, results, the whole index) of a domain's last rollouts for `agent`."""
    path = index_path(home, agent, domain)
    if not path.exists():
        raise AWMError(f"no rollouts of agent {agent!r} on domain {domain!r} ({path}); materialize agent_rollouts "
                       "for this partition first")
    index = json.loads(path.read_text(encoding="utf-8"))
    results = [RolloutResult(**{k: v for k, v in r.items() if k in _RESULT_FIELDS}) for r in index["results"]]
    return EvalLimits(**index["limits"]), results, index
