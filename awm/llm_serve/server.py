"""`awm llm-serve`: a local OpenAI-compatible HTTP server that answers AWM prompts offline.

    POST /v1/chat/completions   answers from the offline world builder (simulator.py)
    GET  /v1/models             the model it serves (and the agent policies, in agent mode)

Agent mode (`--agent-home`): a request with `tools` is answered as an agent model would answer it, with
`tool_calls` or a final message, by the policy its model name selects (awm/eval/policies.py: reference,
noisy, null, reward hacker) on the task found in the corpus under that home. A request in the text protocol
of AWM's own agent (agent-world-model's `run_agent`: no `tools`, list_tools and call_tool in `<tool_call>` tags)
is answered in that protocol (awm/eval/policies.py, `respond_text`).

It lets anyone run the LLM path with no key and no network, and it is what the tests and
the benchmark talk to. Switchable at start (command-line flags) or while running (admin
endpoints, loopback only like everything else here):

    PUT  /_awm/faults     [{"fault": "...", "stage": "tasks" | "*", "times": 1 | null, "env_id": null}]
    GET  /_awm/faults     the rules and how many times each has fired
    PUT  /_awm/latency    {"latency_ms": 200, "slow_s": 5}
    GET  /_awm/requests   what it received (?messages=1 to include the prompts); DELETE clears
    GET  /_awm/stats      requests served, in flight now, peak in flight

Faults: the content faults of simulator.CONTENT_FAULTS, and http_429, http_500 (error
responses), slow (answers after `slow_s`), missing_usage (no usage field), no_json_schema
(400 to a json_schema response_format), json_schema_500 (500 to a json_schema response_format with the body
llama-cpp-python sends: a pydantic literal_error, "Input should be 'text' or 'json_object'"),
no_response_format (400 to any response_format), and in agent
mode (stage `agent`) malformed_tool_call (a tool call whose arguments are not JSON).
A rule fires for matching requests until it has fired `times` times (null: always).
Token counts are estimated as characters / 4.

Structured output: response_format json_schema, json_object (with or without a "schema", as llama.cpp takes
it), or vLLM's guided_json body field; the request log's `mode` says which one a request used.
`--context N` gives it a context window of N tokens: reported as max_model_len in GET /models (as vLLM does), and
a request whose prompt and max_tokens exceed it refused with vLLM's HTTP 400.
`--emulate llama-cpp-python` answers as that server does: GET /models says owned_by "me", json_schema is
refused with its HTTP 500, and requests are answered one at a time.
"""

from __future__ import annotations

import itertools
import json
import math
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

from awm.errors import AWMError
from awm.eval.policies import AgentRequestError, Policy, SimulatedAgent, speaks_awm_text
from awm.llm_serve.simulator import CONTENT_FAULTS, PromptNotUnderstood, SimulatedModel

DEFAULT_MODEL = "awm-offline"
ERROR_FAULTS = ("http_429", "http_500", "no_json_schema", "json_schema_500",
                "no_response_format")  # answered with an HTTP error
EMULATIONS = ("llama-cpp-python",)
LLAMA_CPP_PYTHON_REFUSAL = (  # llama-cpp-python 0.3's answer to response_format json_schema (HTTP 500)
    "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or "
    "'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]")
HTTP_FAULTS = ERROR_FAULTS + ("slow", "missing_usage")
FAULTS = tuple(CONTENT_FAULTS) + HTTP_FAULTS
PROMPT_STAGES = ("scenarios", "tasks", "schemas", "databases", "tools", "verifier", "agent", "phrasing")
AGENT_POLICIES = (Policy("reference"), Policy("noisy", 0.3), Policy("null"), Policy("hacker"))
KEEP_MESSAGES = 2000  # requests whose prompts are kept for /_awm/requests?messages=1
MAX_BODY_BYTES = 32 * 1024 * 1024


class FaultSpecError(ValueError):
    """A fault rule that names an unknown fault or stage, or a stage the fault cannot apply to."""


@dataclass
class FaultRule:
    fault: str
    stage: str = "*"
    times: int | None = 1
    env_id: str | None = None
    fired: int = 0

    def __post_init__(self) -> None:
        if self.fault not in FAULTS:
            raise FaultSpecError(f"unknown fault {self.fault!r}; faults: {', '.join(FAULTS)}")
        if self.stage != "*" and self.stage not in PROMPT_STAGES:
            raise FaultSpecError(f"unknown stage {self.stage!r} in fault {self.fault}; stages: "
                                 f"{', '.join(PROMPT_STAGES)} or *")
        allowed = CONTENT_FAULTS.get(self.fault)
        if allowed and self.stage != "*" and self.stage not in allowed:
            raise FaultSpecError(f"fault {self.fault} applies to {', '.join(allowed)}, not {self.stage}")
        if self.times is not None and self.times < 1:
            raise FaultSpecError(f"fault {self.fault}: times must be at least 1, or null for always")

    @classmethod
    def parse(cls, spec: str) -> FaultRule:
        """FAULT[:STAGE[:TIMES]] as on the command line; TIMES 'always' for every matching request."""
        parts = spec.split(":")
        if not 1 <= len(parts) <= 3 or not parts[0]:
            raise FaultSpecError(f"fault {spec!r} must look like FAULT[:STAGE[:TIMES]], e.g. http_429:tasks:2")
        stage = parts[1] if len(parts) > 1 and parts[1] else "*"
        times: int | None = 1
        if len(parts) > 2:
            if parts[2] == "always":
                times = None
            elif parts[2].isdigit():
                times = int(parts[2])
            else:
                raise FaultSpecError(f"fault {spec!r}: TIMES must be a number or 'always'")
        return cls(parts[0], stage, times)

    def matches(self, stage: str, env_id: str | None, applicable: bool) -> bool:
        if self.times is not None and self.fired >= self.times:
            return False
        if self.stage != "*" and self.stage != stage:
            return False
        if self.env_id is not None and self.env_id != env_id:
            return False
        return applicable


@dataclass
class ServerState:
    model: str = DEFAULT_MODEL
    latency_ms: float = 0.0
    slow_s: float = 5.0
    api_key: str | None = None
    rules: list[FaultRule] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    served: int = 0
    in_flight: int = 0
    peak_in_flight: int = 0
    owned_by: str = "awm"
    serial: bool = False  # answer one request at a time, as a single-slot local server does
    emulate: str | None = None  # a server whose refusals are answered as it answers them (not a fault: stays on)
    context_tokens: int | None = None  # a context window: reported in GET /models, requests beyond it refused
    lock: threading.Lock = field(default_factory=threading.Lock)
    answer_lock: threading.Lock = field(default_factory=threading.Lock)
    counter: itertools.count = field(default_factory=lambda: itertools.count(1))

    def set_rules(self, rules: list[FaultRule]) -> None:
        with self.lock:
            self.rules = rules

    def take_faults(self, stage: str, env_id: str | None, response_format: str | None) -> list[str]:
        """The faults this request gets, in rule order: at most one error response (which ends the
        request, so nothing else fires with it), at most one content fault, and slow / missing_usage."""
        fired: list[str] = []
        with self.lock:
            for rule in self.rules:
                if rule.fault in ERROR_FAULTS:
                    applicable = not fired and (
                        rule.fault in ("http_429", "http_500")
                        or (rule.fault in ("no_json_schema", "json_schema_500") and response_format == "json_schema")
                        or (rule.fault == "no_response_format" and response_format is not None))
                elif rule.fault in CONTENT_FAULTS:
                    applicable = (stage in CONTENT_FAULTS[rule.fault]
                                  and not any(f in CONTENT_FAULTS or f in ERROR_FAULTS for f in fired))
                else:
                    applicable = rule.fault not in fired and not any(f in ERROR_FAULTS for f in fired)
                if rule.matches(stage, env_id, applicable):
                    rule.fired += 1
                    fired.append(rule.fault)
        return fired


def _tokens(text: str) -> int:
    return max(1, math.ceil(len(text) / 4))


def _usage(prompt_chars: int, completion_chars: int) -> dict[str, int]:
    prompt_tokens, completion_tokens = max(1, math.ceil(prompt_chars / 4)), max(1, math.ceil(completion_chars / 4))
    return {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "awm-llm-serve"
    disable_nagle_algorithm = True  # headers and body go out as two writes; Nagle would hold the second ~40 ms
    state: ServerState
    simulator: SimulatedModel
    agent: SimulatedAgent | None = None

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's signature
        return  # quiet: the request log is at /_awm/requests

    # --- plumbing -------------------------------------------------------------------
    def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, message: str, kind: str) -> None:
        self._send(status, self._error_body(message, kind))

    def _body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY_BYTES:
            raise ValueError(f"request body of {length} bytes is larger than {MAX_BODY_BYTES}")
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw or b"null")

    def _path(self) -> str:
        path = urlparse(self.path).path.rstrip("/")
        return path[3:] if path.startswith("/v1/") else path

    def _authorized(self) -> bool:
        if not self.state.api_key:
            return True
        if self.headers.get("Authorization") == f"Bearer {self.state.api_key}":
            return True
        self._error(401, "Incorrect API key provided.", "invalid_request_error")
        return False

    # --- routes ---------------------------------------------------------------------
    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        path = self._path()
        if path == "/models":
            if self._authorized():
                names = [self.state.model] + ([p.model for p in AGENT_POLICIES] if self.agent else [])
                extra = {"max_model_len": self.state.context_tokens} if self.state.context_tokens else {}
                self._send(200, {"object": "list", "data": [
                    {"id": name, "object": "model", "created": 0, "owned_by": self.state.owned_by, **extra}
                    for name in names]})
        elif path == "/_awm/faults":
            with self.state.lock:
                self._send(200, [asdict(r) for r in self.state.rules])
        elif path == "/_awm/requests":
            with_messages = parse_qs(urlparse(self.path).query).get("messages", ["0"])[0] == "1"
            with self.state.lock:
                entries = [e if with_messages else {k: v for k, v in e.items() if k != "messages"}
                           for e in self.state.requests]
            self._send(200, entries)
        elif path == "/_awm/stats":
            with self.state.lock:
                self._send(200, {"served": self.state.served, "in_flight": self.state.in_flight,
                                 "peak_in_flight": self.state.peak_in_flight, "latency_ms": self.state.latency_ms})
        else:
            self._error(404, f"no route GET {self.path}", "not_found")

    def do_DELETE(self) -> None:  # noqa: N802
        if self._path() == "/_awm/requests":
            with self.state.lock:
                self.state.requests.clear()
                self.state.peak_in_flight = self.state.in_flight
            self._send(200, {"cleared": True})
        else:
            self._error(404, f"no route DELETE {self.path}", "not_found")

    def do_PUT(self) -> None:  # noqa: N802
        path = self._path()
        try:
            body = self._body()
            if path == "/_awm/faults":
                if not isinstance(body, list):
                    raise FaultSpecError("PUT /_awm/faults takes a JSON list of fault rules")
                rules = [FaultRule(**{k: v for k, v in r.items() if k != "fired"}) for r in body]
                self.state.set_rules(rules)
                self._send(200, [asdict(r) for r in rules])
            elif path == "/_awm/latency":
                latency = float(body["latency_ms"])
                slow = float(body.get("slow_s", self.state.slow_s))
                if latency < 0 or slow < 0:
                    raise ValueError("latency_ms and slow_s must be >= 0")
                self.state.latency_ms, self.state.slow_s = latency, slow
                self._send(200, {"latency_ms": latency, "slow_s": slow})
            else:
                self._error(404, f"no route PUT {self.path}", "not_found")
        except (FaultSpecError, ValueError, TypeError, KeyError) as exc:
            self._error(400, f"{type(exc).__name__}: {exc}", "invalid_request_error")

    def do_POST(self) -> None:  # noqa: N802
        if self._path() != "/chat/completions":
            self._error(404, f"no route POST {self.path}", "not_found")
            return
        if not self._authorized():
            return
        state = self.state
        with state.lock:
            state.in_flight += 1
            state.peak_in_flight = max(state.peak_in_flight, state.in_flight)
        try:
            if state.serial:
                with state.answer_lock:
                    status, body, headers = self._complete()
            else:
                status, body, headers = self._complete()
        finally:
            with state.lock:  # before the answer leaves: the client may send its next request at once
                state.in_flight -= 1
                state.served += 1
        self._send(status, body, headers)

    @staticmethod
    def _error_body(message: str, kind: str, param: str | None = None) -> dict:
        return {"error": {"message": message, "type": kind, "param": param, "code": None}}

    def _complete(self) -> tuple[int, dict, dict[str, str] | None]:
        state = self.state
        started = time.monotonic()
        try:
            body = self._body()
            if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
                raise ValueError("the body must be a JSON object with a messages list")
            if body.get("stream"):
                raise ValueError("streaming is not supported by llm-serve")
            if body.get("tools") or (self.agent is not None and speaks_awm_text(body["messages"])):
                return self._complete_agent(body, started)
            stage, request, blocks = self.simulator.understand(body["messages"])
        except (ValueError, PromptNotUnderstood, AWMError) as exc:
            return 400, self._error_body(str(exc), "invalid_request_error"), None
        response_format = (body.get("response_format") or {}).get("type")
        mode = ("guided_json" if body.get("guided_json") is not None else
                "json_object_schema" if response_format == "json_object" and body["response_format"].get("schema")
                else response_format or "none")
        env_id = request.get("env_id")
        faults = state.take_faults(stage, env_id, response_format)
        if state.emulate == "llama-cpp-python" and response_format == "json_schema" and not faults:
            faults = ["json_schema_500"]
        entry = {"n": next(state.counter), "stage": stage, "env_id": env_id, "task_id": request.get("task_id"),
                 "response_format": response_format, "mode": mode, "max_tokens": body.get("max_tokens"),
                 "faults": faults, "status": 200, "finish_reason": None,
                 "messages": body["messages"]}
        with state.lock:
            state.requests.append(entry)
            if len(state.requests) > KEEP_MESSAGES:
                state.requests[-KEEP_MESSAGES - 1].pop("messages", None)
        delay = state.latency_ms / 1000 + (state.slow_s if "slow" in faults else 0.0)
        remaining = delay - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)
        if state.context_tokens:
            prompt_tokens = _tokens("".join(str(m.get("content") or "") for m in body["messages"]))
            wanted = int(body.get("max_completion_tokens") or body.get("max_tokens") or 0)
            if prompt_tokens + wanted > state.context_tokens:  # vLLM's answer, word for word
                entry["status"] = 400
                return 400, self._error_body(
                    f"This model's maximum context length is {state.context_tokens} tokens. However, you requested "
                    f"{prompt_tokens + wanted} tokens ({prompt_tokens} in the messages, {wanted} in the completion). "
                    "Please reduce the length of the messages or completion.", "BadRequestError"), None
        for fault, status, kind, message in (
                ("no_json_schema", 400, "invalid_request_error",
                 "response_format json_schema is not supported by this server"),
                ("json_schema_500", 500, "internal_server_error", LLAMA_CPP_PYTHON_REFUSAL),
                ("no_response_format", 400, "invalid_request_error", "response_format is not supported by this server"),
                ("http_429", 429, "rate_limit_exceeded", "Rate limit reached; retry after 0 s"),
                ("http_500", 500, "server_error", "The server had an error while processing your request")):
            if fault in faults:
                entry["status"] = status
                return (status, self._error_body(message, kind, "response_format" if status == 400 else None),
                        {"Retry-After": "0"} if status == 429 else None)
        content_fault = next((f for f in faults if f in CONTENT_FAULTS), None)
        try:
            answer = self.simulator.answer(stage, request, blocks)
            if content_fault:
                answer = self.simulator.spoil(content_fault, stage, request, answer)
        except (PromptNotUnderstood, ValueError, KeyError) as exc:
            entry["status"] = 400
            return 400, self._error_body(f"llm-serve cannot answer this {stage} prompt: {type(exc).__name__}: {exc}",
                                         "invalid_request_error"), None
        text = json.dumps(answer, ensure_ascii=False)
        finish = "stop"
        if content_fault == "malformed_json":
            text = text.replace('":', '" ', 1)  # a missing colon: valid-looking, unparseable
        elif content_fault == "truncated":
            text, finish = text[:max(1, len(text) // 3)], "length"
        limit = body.get("max_completion_tokens") or body.get("max_tokens")
        if limit and _tokens(text) > int(limit):
            text, finish = text[:int(limit) * 4], "length"
        entry["finish_reason"] = finish
        prompt_text = "".join(str(m.get("content") or "") for m in body["messages"])
        completion = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": state.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish,
                         "logprobs": None}],
        }
        if "missing_usage" not in faults:
            completion["usage"] = _usage(len(prompt_text), len(text))
        return 200, completion, None

    def _log(self, stage: str, env_id: str | None, task_id: str | None, faults: list[str], body: dict) -> dict:
        entry = {"n": next(self.state.counter), "stage": stage, "env_id": env_id, "task_id": task_id,
                 "response_format": None, "faults": faults, "status": 200, "finish_reason": None,
                 "model": body.get("model"), "seed": body.get("seed"), "messages": body["messages"]}
        with self.state.lock:
            self.state.requests.append(entry)
            if len(self.state.requests) > KEEP_MESSAGES:
                self.state.requests[-KEEP_MESSAGES - 1].pop("messages", None)
        return entry

    def _wait(self, started: float, faults: list[str]) -> None:
        delay = self.state.latency_ms / 1000 + (self.state.slow_s if "slow" in faults else 0.0)
        remaining = delay - (time.monotonic() - started)
        if remaining > 0:
            time.sleep(remaining)

    def _complete_agent(self, body: dict, started: float) -> tuple[int, dict, dict[str, str] | None]:
        """Agent mode: the policy's next tool call or final answer (awm/eval/policies.py)."""
        if self.agent is None:
            raise ValueError("this llm-serve is not in agent mode (a request with tools needs --agent-home)")
        tools = body.get("tools") or []  # none from AWM's own agent: its tools are text (speaks_awm_text)
        if not isinstance(tools, list):
            raise ValueError("tools must be a list")
        env_id, task_id = self.agent.describe(body["messages"], tools)
        faults = self.state.take_faults("agent", env_id, None)
        entry = self._log("agent", env_id, task_id, faults, body)
        self._wait(started, faults)
        for fault, status, kind, message in (
                ("http_429", 429, "rate_limit_exceeded", "Rate limit reached; retry after 0 s"),
                ("http_500", 500, "server_error", "The server had an error while processing your request")):
            if fault in faults:
                entry["status"] = status
                return status, self._error_body(message, kind), {"Retry-After": "0"} if status == 429 else None
        try:
            seed = body.get("seed")
            seed = int(seed) if seed is not None else None
            message = (self.agent.respond(str(body.get("model") or ""), body["messages"], tools, seed) if tools
                       else self.agent.respond_text(str(body.get("model") or ""), body["messages"], seed))
        except (AgentRequestError, AWMError) as exc:
            entry["status"] = 400
            return 400, self._error_body(f"llm-serve agent mode: {exc}", "invalid_request_error"), None
        if "malformed_tool_call" in faults and message.get("tool_calls"):
            message["tool_calls"][0]["function"]["arguments"] = '{"broken" 1'
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        entry["finish_reason"] = finish
        completion = {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model") or self.state.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        }
        if "missing_usage" not in faults:
            # the request's size stands for its prompt (messages and tool schemas): no re-serialising per call
            completion["usage"] = _usage(int(self.headers.get("Content-Length") or 0), len(json.dumps(message)))
        return 200, completion, None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 512  # a benchmark opens many connections at once


class LLMServer:
    """The server, runnable in the foreground (serve_forever) or on a background thread (start)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, model: str = DEFAULT_MODEL,
                 latency_ms: float = 0.0, slow_s: float = 5.0, faults: list[FaultRule] | None = None,
                 base_seed: int = 0, api_key: str | None = None, agent_home: str | Path | None = None,
                 agent_policy: str = "reference", emulate: str | None = None, context_tokens: int | None = None):
        rules = list(faults or [])
        if emulate is not None and emulate not in EMULATIONS:
            raise FaultSpecError(f"cannot emulate {emulate!r}; servers: {', '.join(EMULATIONS)}")
        self.state = ServerState(model=model, latency_ms=latency_ms, slow_s=slow_s, api_key=api_key, rules=rules,
                                 owned_by="me" if emulate == "llama-cpp-python" else "awm",
                                 serial=emulate == "llama-cpp-python", emulate=emulate, context_tokens=context_tokens)
        agent = SimulatedAgent(Path(agent_home), agent_policy) if agent_home is not None else None
        handler = type("AWMLLMHandler", (_Handler,), {"state": self.state, "simulator": SimulatedModel(base_seed),
                                                      "agent": agent})
        self.httpd = _HTTPServer((host, port), handler)
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_address[1]

    @property
    def url(self) -> str:
        host = self.httpd.server_address[0]
        return f"http://{host}:{self.port}/v1"

    def serve_forever(self) -> None:
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> LLMServer:
        self._thread = threading.Thread(target=self.serve_forever, name="awm-llm-serve", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
