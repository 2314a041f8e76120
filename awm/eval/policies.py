"""Offline agent models: what `awm llm-serve` answers in agent mode (a chat completion with `tools`).

The model name picks the policy (`awm llm-serve --agent-policy` sets the one other names get):

    awm-agent-reference      makes the task's reference solution, one tool call per turn, then answers
                             with the reference answer (a short report for an action)
    awm-agent-noisy[-RATE]   the same, but each call is, with probability RATE (default 0.3), skipped or
                             made with a wrong argument; the errors depend on the request's `seed`, so a
                             rollout is reproducible and k rollouts of one task differ
    awm-agent-null           answers at once, without a tool call
    awm-agent-hacker         the reference, then collateral writes through the environment's own write
                             tools on rows the task does not change, and a hedged answer to a question
                             (the shortcuts the verification proofs show a verifier rejects)

The task is recognised from the conversation as a real model would read it: the instruction (the first
user message), told apart between environments by the tools offered and the scenario named in the system
message. The turn is the number of tool calls the conversation already holds, so the server keeps no
state between requests.

AWM's own agent (`awm.core.agent.run_agent` of agent-world-model 0.1.0) offers no `tools`: its system prompt
describes two functions, `list_tools` and `call_tool`, called in `<tool_call>` tags of the message text, and
the first tool message is the listing it makes of the MCP server's tools (`N. mcp_tool_<name>`). A request in
that shape (`speaks_awm_text`) is answered the same way (`respond_text`): list_tools first, then each call of
the plan as `call_tool` with the prefixed name and a JSON string of arguments, then the answer as text.
"""

from __future__ import annotations

import json
import random
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.contracts import Task, ToolCall
from awm.errors import AWMError
from awm.runtime.answers import SUBMIT_ANSWER, reference_submission
from awm.store import ArtifactStore

AGENT_MODEL_PREFIX = "awm-agent-"
POLICIES = ("reference", "noisy", "null", "hacker")
DEFAULT_NOISE = 0.3
MAX_COLLATERAL = 4  # collateral writes per kind a hacker makes (business rules may refuse some of them)
NULL_ANSWER = "I could not complete this request."
_MODEL = re.compile(r"^awm-agent-(reference|null|hacker|noisy)(?:-(\d*\.?\d+))?$")
_TEXT_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_LISTED = re.compile(r"^\d+\. mcp_tool_(\S+)$", re.M)  # a tool in AWM's listing (format_tools_for_response)
AWM_TEXT_PREFIX = "mcp_tool_"
AWM_SERVER_PREFIX = "mcp_server_"  # mcp_agent names a tool <server>_<tool>; their agent's server is "mcp_server"


def speaks_awm_text(messages: list[dict]) -> bool:
    """A conversation of AWM's own agent: its system prompt offers list_tools and call_tool in <tool_call> tags."""
    system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
    return all(mark in system for mark in ("<tool_call>", "list_tools", "call_tool"))


def _text_calls(messages: list[dict]) -> list[str]:
    """The function names called in <tool_call> tags by the assistant messages so far (one per turn)."""
    names = []
    for message in messages:
        if message.get("role") != "assistant":
            continue
        for raw in _TEXT_CALL.findall(str(message.get("content") or ""))[:1]:  # their agent runs the first only
            try:
                names.append(str(json.loads(raw).get("name")))
            except (json.JSONDecodeError, AttributeError):
                names.append("")
    return names


def _text_call(name: str, arguments: dict | None) -> dict:
    return {"role": "assistant", "content": f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}"
                                            "\n</tool_call>"}


class AgentRequestError(ValueError):
    """An agent-mode request llm-serve cannot answer: unknown policy, or a task it cannot find."""


@dataclass(frozen=True)
class Policy:
    name: str
    rate: float = 0.0

    @property
    def model(self) -> str:
        return f"{AGENT_MODEL_PREFIX}{self.name}" + (f"-{self.rate:g}" if self.name == "noisy" else "")


def parse_policy(model: str, default: str = "reference") -> Policy:
    """The policy a model name selects; names outside awm-agent-* get `default` (a policy spec itself)."""
    spec = model if model.startswith(AGENT_MODEL_PREFIX) else AGENT_MODEL_PREFIX + default
    match = _MODEL.match(spec)
    if match is None:
        raise AgentRequestError(f"unknown agent policy {spec.removeprefix(AGENT_MODEL_PREFIX)!r}: use one of "
                                f"{', '.join(POLICIES)} (noisy-RATE for a noisy policy with error rate RATE)")
    name, rate = match.group(1), match.group(2)
    if name != "noisy":
        if rate is not None:
            raise AgentRequestError(f"policy {name} takes no rate (only noisy-RATE does): {model!r}")
        return Policy(name)
    value = float(rate) if rate is not None else DEFAULT_NOISE
    if not 0 <= value <= 1:
        raise AgentRequestError(f"noisy policy rate {value} is outside 0..1")
    return Policy("noisy", value)


@dataclass
class Plan:
    calls: list[ToolCall]
    answer: str


@dataclass
class _Env:
    env_id: str
    scenario: str
    tools: set[str]
    tasks: dict[str, Task]
    writes: set[str]
    staff_only: set[str] = field(default_factory=set)  # not offered to a request the customer writes
    _shortcuts: Any = None

    def offered(self, task: Task) -> set[str]:
        """The tools an episode of `task` lists (ToolSet.offered)."""
        return self.tools - self.staff_only if task.requester == "party" else self.tools

    def shortcuts(self, store: ArtifactStore):
        if self._shortcuts is None:
            from awm.quality.mutations import InitialRows, ShortcutMutator

            spec = artifacts.SCHEMA_JSON.read(store, self.env_id)
            rows = InitialRows(spec, store.database_path(self.env_id))
            toolset = artifacts.TOOLS_JSON.read(store, self.env_id)
            self._shortcuts = ShortcutMutator(toolset, spec, rows, self.writes, list(self.tasks.values()))
        return self._shortcuts


@dataclass
class SimulatedAgent:
    """Finds the task of a conversation in the corpus under `home` and plays a policy on it."""

    home: Path
    default_policy: str = "reference"
    _index: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    _envs: dict[str, _Env] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __post_init__(self) -> None:
        self.store = ArtifactStore(self.home)
        parse_policy("", self.default_policy)  # a bad default fails at start, not on the first request

    def _scan(self) -> None:
        """Index every environment's tasks by instruction (rescanned when an instruction is not found)."""
        index: dict[str, list[tuple[str, str]]] = {}
        for env_id in self.store.env_ids():
            path = artifacts.TASKS.path(self.store, env_id)
            if not path.exists():
                continue
            for task in json.loads(path.read_text(encoding="utf-8")).get("tasks", []):
                index.setdefault(task["instruction"].strip(), []).append((env_id, task["task_id"]))
        self._index = index

    def _env(self, env_id: str) -> _Env:
        env = self._envs.get(env_id)
        if env is None:

            toolset = artifacts.TOOLS_JSON.read(self.store, env_id)
            taskset = artifacts.TASKS.read(self.store, env_id)
            env = self._envs[env_id] = _Env(
                env_id, artifacts.SCENARIO.read(self.store, env_id).name,
                {t.name for t in toolset.tools}, {t.task_id: t for t in taskset.tasks},
                {t.name for t in toolset.tools if not t.annotations.get("readOnlyHint")},
                {t.name for t in toolset.tools if t.staff_only})
        return env

    def find_task(self, messages: list[dict], tool_names: set[str]) -> tuple[_Env, Task]:
        instruction = next((str(m.get("content") or "").strip() for m in messages if m.get("role") == "user"), "")
        if not instruction:
            raise AgentRequestError("the conversation has no user message (the task's instruction)")
        system = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "system")
        with self._lock:
            if instruction not in self._index:
                self._scan()
            candidates = [self._env(env_id) for env_id, _ in self._index.get(instruction, [])]
            for (_, task_id), env in zip(self._index.get(instruction, []), candidates):
                if env.offered(env.tasks[task_id]) <= tool_names and (env.scenario in system or len(candidates) == 1):
                    return env, env.tasks[task_id]
        raise AgentRequestError(f"no task of the corpus in {self.home} has the instruction "
                                f"{instruction[:120]!r} with these tools")

    def plan(self, policy: Policy, env: _Env, task: Task, seed: int | None) -> Plan:
        reference = list(task.reference_solution)
        answer = task.reference_answer or "Done: " + task.instruction
        if policy.name == "reference":
            return Plan(reference, answer)
        if policy.name == "null":
            return Plan([], NULL_ANSWER)
        if policy.name == "noisy":
            rng = random.Random(f"{env.env_id}/{task.task_id}/{seed}/{policy.rate}")
            calls = []
            for call in reference:
                if rng.random() >= policy.rate:
                    calls.append(call)
                elif rng.random() < 0.5 or not call.arguments:
                    continue  # a skipped step
                else:
                    calls.append(_wrong_argument(call, rng))
            return Plan(calls, answer)
        return self._hacker(env, task, reference, answer)

    def _hacker(self, env: _Env, task: Task, reference: list[ToolCall], answer: str) -> Plan:
        from awm.quality.mutations import answer_mutations

        with self._lock:
            shortcuts = env.shortcuts(self.store)
        calls = list(reference)
        if any(c.tool in env.writes for c in reference):
            touched = _touched(reference, env.writes, shortcuts)
            foreign = sorted(env.writes - {c.tool for c in reference})
            own = [m.calls[-1] for m in shortcuts.collateral(task, touched, [])]
            other = [m.calls[-1] for m in shortcuts.collateral(task, touched, foreign)][len(own):]
            calls += own[:MAX_COLLATERAL] + other[:MAX_COLLATERAL]
        if task.kind == "question":
            hedges = [m.answer for m in answer_mutations(task, shortcuts.rows)
                      if m.kind in ("hedged_answer", "dumped_answer") and m.answer]
            answer = hedges[0] if hedges else f"{answer}, or possibly something else"
        return Plan(calls, answer)

    def respond(self, model: str, messages: list[dict], tools: list[dict], seed: int | None) -> dict:
        """The assistant message for this turn: the plan's next tool call, or its final answer."""
        policy = parse_policy(model, self.default_policy)
        names = {t.get("function", {}).get("name") for t in tools if isinstance(t, dict)}
        env, task = self.find_task(messages, names)
        plan = self.plan(policy, env, task, seed)
        if policy.name in ("reference", "noisy") and SUBMIT_ANSWER in names:
            # offered `submit_answer` (a task that expects an answer), the policy submits its answer typed
            submission = reference_submission(task)
            if submission is not None:
                plan.calls.append(ToolCall(tool=SUBMIT_ANSWER, arguments=submission))
        made = sum(len(m.get("tool_calls") or []) for m in messages if m.get("role") == "assistant")
        if made < len(plan.calls):
            call = plan.calls[made]
            return {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{made}", "type": "function",
                "function": {"name": call.tool, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}]}
        return {"role": "assistant", "content": plan.answer}

    def respond_text(self, model: str, messages: list[dict], seed: int | None) -> dict:
        """The assistant message for this turn of AWM's own agent (its <tool_call> text protocol)."""
        policy = parse_policy(model, self.default_policy)
        if policy.name == "null":
            return {"role": "assistant", "content": NULL_ANSWER}
        called = _text_calls(messages)
        if "list_tools" not in called:
            return _text_call("list_tools", None)
        listed = _listed_tools(messages)
        env, task = self.find_task(messages, set(listed))
        plan = self.plan(policy, env, task, seed)
        made = called.count("call_tool")
        if made < len(plan.calls):
            call = plan.calls[made]
            return _text_call("call_tool", {"tool_name": AWM_TEXT_PREFIX + listed[call.tool],
                                            "arguments": json.dumps(call.arguments, ensure_ascii=False)})
        return {"role": "assistant", "content": plan.answer}

    def describe(self, messages: list[dict], tools: list[dict]) -> tuple[str | None, str | None]:
        """(env_id, task_id) of a conversation, for the request log; (None, None) if not found."""
        try:
            names = ({t.get("function", {}).get("name") for t in tools} if tools else set(_listed_tools(messages)))
            env, task = self.find_task(messages, names)
        except (AgentRequestError, AWMError):
            return None, None
        return env.env_id, task.task_id


def _listed_tools(messages: list[dict]) -> dict[str, str]:
    """The tools named in AWM's listing (the first tool message that holds one): tool name -> the name listed
    after `mcp_tool_` (with mcp_agent's server prefix where it put one)."""
    for message in messages:
        if message.get("role") == "tool":
            names = _LISTED.findall(str(message.get("content") or ""))
            if names:
                return {name.removeprefix(AWM_SERVER_PREFIX): name for name in names}
    return {}


def _wrong_argument(call: ToolCall, rng: random.Random) -> ToolCall:
    name = rng.choice(sorted(call.arguments))
    value = call.arguments[name]
    if isinstance(value, bool):
        wrong: Any = not value
    elif isinstance(value, int):
        wrong = value + 1
    elif isinstance(value, float):
        wrong = round(value * 1.5 + 1, 2)
    elif isinstance(value, str):
        wrong = value + " x"
    else:
        wrong = None
    return ToolCall(tool=call.tool, arguments={**call.arguments, name: wrong})


def _touched(reference: list[ToolCall], writes: set[str], shortcuts) -> set[tuple[str, Any]]:
    """The rows the reference's write calls name (id arguments mapped to their tables)."""
    from awm.quality.mutations import _id_table, _is_id

    touched = set()
    for call in reference:
        if call.tool not in writes:
            continue
        for name, value in call.arguments.items():
            if _is_id(name, value):
                table = _id_table(name, shortcuts.spec, shortcuts.param_tables)
                if table is not None:
                    touched.add((table, value))
    return touched
