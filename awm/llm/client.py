"""The LLM client: the official `openai` package against any OpenAI-compatible endpoint.

One call = cache lookup, then (on a miss) a chat completion under a concurrency
semaphore with transport retries, then strict output handling:

- the endpoint is recognised once (GET /models, awm/llm/profiles.py) unless a profile is
  configured; the profile gives the structured-output modes to try and the defaults of
  timeout, concurrency, max_tokens and context;
- structured output: the profile's first mode; a server that refuses a mode in words
  (HTTP 400, 422 or 500 whose body names the response format, as llama-cpp-python's
  500 `literal_error ... Input should be 'text' or 'json_object'`) makes the client step
  down to the next mode once, and the mode that works is remembered for the endpoint
  (awm/llm/capabilities.py); the mode each response used is in its CallRecord;
- max_tokens is clamped to what the context leaves after the prompt, and the clamp is
  recorded; a prompt that leaves no room is an LLMConfigError naming both sizes;
- finish_reason `length` is a TruncatedOutputError, never repaired;
- the content must be one JSON document; the only repairs are the safe ones of
  awm/llm/repair.py (recorded); then it must validate against the stage's output model;
- 429, 5xx, timeouts (on servers that answer many requests at once) and connection
  errors are retried here with exponential backoff (Retry-After honoured); anything still
  failing is an LLMTransportError that counts the requests made and says what to change.
  Endpoint errors are never shown to the model (their `feedback` is False).

Every call, hit or miss, valid or not, is a CallRecord in the ledger.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from awm.concurrency import STAGE_WORK
from awm.llm import profiles
from awm.llm.cache import CachedResponse, ResponseCache, cache_key
from awm.llm.capabilities import Endpoint, EndpointMemory
from awm.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMTransportError,
    MalformedOutputError,
    RejectedOutputError,
    SchemaViolationError,
    TruncatedOutputError,
)
from awm.llm.ledger import CallRecord, Ledger
from awm.llm.prompts import output_schema
from awm.llm.repair import strip_wrapping
from awm.llm.settings import DEFAULT_REQUEST_TOKENS, LLMSettings

M = TypeVar("M", bound=BaseModel)

MODES = profiles.MODES
MAX_RETRY_AFTER_S = 60.0
MIN_ANSWER_TOKENS = 512  # a prompt that leaves less than this of the context for the answer is not sent
CHARS_PER_TOKEN = 3.5  # prompt size estimate for clamping (English and JSON run 3.5 to 4.5 characters a token)
FORMAT_WORDS = ("response_format", "json_schema", "guided_json", "json_object", "grammar")


@dataclass(frozen=True)
class CallTags:
    """Where a call belongs, for the ledger."""

    run_id: str | None = None
    domain: str | None = None
    env_id: str | None = None
    subject: str | None = None
    attempt: int | None = None


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def parse_output(content: str | None, finish_reason: str | None, output: type[M], max_tokens: int) -> M:
    """Strictly turn a completion into the stage's output model, or raise an LLMOutputError saying why."""
    return parse_answer(content, finish_reason, output, max_tokens)[0]


def parse_answer(content: str | None, finish_reason: str | None, output: type[M],
                 max_tokens: int) -> tuple[M, str | None]:
    """(the output model, the safe repair made or None); an LLMOutputError carrying the answer otherwise."""
    size = len(content or "")
    if finish_reason == "length":
        raise TruncatedOutputError(
            f"the response stopped at the token limit (finish_reason length, max_tokens={max_tokens}) after "
            f"{size} characters; truncated output is never repaired: answer more concisely")
    if finish_reason == "content_filter":
        raise LLMOutputError("the response was withheld by the server's content filter (finish_reason content_filter)")
    if content is None or not content.strip():
        raise MalformedOutputError(f"the response is empty (finish_reason {finish_reason!r}); a JSON object is required")
    text, repair = strip_wrapping(content)
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        pos = getattr(exc, "pos", 0) or 0
        where = (f" at line {exc.lineno} column {exc.colno} (character {pos} of {len(text)})"
                 if isinstance(exc, json.JSONDecodeError) else "")
        snippet = text[max(0, pos - 60):pos + 20].replace("\n", "\\n")
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise MalformedOutputError(f"the response is not valid JSON: {reason}{where}, near: ...{snippet}...",
                                   answer=content) from exc
    if not isinstance(data, dict):
        raise SchemaViolationError(f"the response must be a JSON object, got {type(data).__name__}", answer=content)
    try:
        return output.model_validate(data), repair
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:8]:
            loc = ".".join(str(p) for p in err["loc"]) or "<root>"
            problems.append(f"{loc}: {err['msg']}")
        raise SchemaViolationError(
            f"the response does not match the {output.__name__} schema ({exc.error_count()} error(s)): "
            + "; ".join(problems), answer=content) from exc


def refuses_format(exc: openai.APIStatusError, mode: str) -> bool:
    """Whether an error response is the server refusing the structured-output mode (in words, 400/422/500)."""
    if mode == "none" or exc.status_code not in (400, 422, 500):
        return False
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in FORMAT_WORDS)


def schema_hash(schema: dict) -> str:
    return hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """A generous estimate of a prompt's tokens (characters / 3.5, plus a few per message)."""
    return math.ceil(sum(len(str(m.get("content") or "")) for m in messages) / CHARS_PER_TOKEN) + 8 * len(messages)


class LLMClient:
    def __init__(self, settings: LLMSettings, home: Path | None = None, *, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self._key = settings.require_key()
        self.limits = settings.limits()
        self._openai = openai.OpenAI(base_url=settings.base_url, api_key=self._key, timeout=self.limits.timeout_s,
                                     max_retries=0)
        self._semaphore = threading.BoundedSemaphore(self.limits.concurrency)
        self._mode_lock = threading.Lock()
        self._resolve_lock = threading.Lock()
        self._resolved = False
        self.profile = settings.profile  # the profile in use (auto until the endpoint is recognised)
        self._chain = self._modes(self.profile)
        self._mode = self._chain[0]
        self.refusals: list[str] = []  # the refusals that made this client step down
        self._sleep = sleep
        self.memory = EndpointMemory(home / "llm" / "endpoints.sqlite" if home is not None else None)
        self.cache = ResponseCache(home / "llm" / "cache.sqlite") if home is not None else None
        self.ledger = Ledger(home / "llm" / "ledger.sqlite") if home is not None else None

    def _modes(self, profile_name: str) -> tuple[str, ...]:
        if self.settings.structured_output != "auto":
            return (self.settings.structured_output,)
        return profiles.profile(profile_name).modes

    @property
    def structured_output(self) -> str:
        """The response format the client currently uses (it may have stepped down after a refusal)."""
        return self._mode

    @property
    def concurrency(self) -> int:
        return self.limits.concurrency

    # --- preflight ------------------------------------------------------------------
    def ping(self, timeout_s: float = 10.0) -> list[str]:
        """List the endpoint's models: proves the endpoint is reachable and the key accepted."""
        return [m["id"] for m in self._models(timeout_s)]

    def _models(self, timeout_s: float = 10.0) -> list[dict]:
        try:
            page = self._openai.with_options(timeout=min(timeout_s, self.limits.timeout_s)).models.list()
        except openai.AuthenticationError as exc:
            raise LLMConfigError(f"{self.settings.shown_url} rejected the API key (401): {exc.message}; "
                                 "check OPENAI_API_KEY") from exc
        except openai.NotFoundError:
            return []  # reachable; some servers do not list models
        except openai.APIConnectionError as exc:
            raise LLMConfigError(f"cannot reach the LLM endpoint {self.settings.shown_url} ({type(exc).__name__}: "
                                 f"{exc.__cause__ or exc}); start the server or fix OPENAI_BASE_URL") from exc
        except openai.APIStatusError as exc:
            raise LLMConfigError(f"{self.settings.shown_url} answered {exc.status_code} to GET /models: "
                                 f"{exc.message}") from exc
        return [m.model_dump() for m in page.data]

    def resolve(self) -> None:
        """Once per client: what the endpoint is (remembered, or recognised from GET /models), hence the modes to
        try, the mode to start at, and the limits. Safe to call again; cheap after the first time."""
        if self._resolved:
            return
        with self._resolve_lock:
            if self._resolved:
                return
            s = self.settings
            endpoint = self.memory.get(s.shown_url, s.model)
            if endpoint is None:
                endpoint = Endpoint()
                try:
                    entries = self._models()
                    named = [e for e in entries if e.get("id") == s.model] or entries
                    endpoint.profile, endpoint.context_tokens = profiles.recognise(named)
                    endpoint.probed = True
                    self.memory.put(s.shown_url, s.model, endpoint)
                except LLMConfigError:
                    pass  # the call itself will fail and say why
            self.profile = s.profile if s.profile != "auto" else (endpoint.profile or "auto")
            self.limits = s.limits(detected=endpoint.profile, server_context=endpoint.context_tokens)
            self._semaphore = threading.BoundedSemaphore(self.limits.concurrency)
            self._chain = self._modes(self.profile)
            self._mode = endpoint.mode if endpoint.mode in self._chain else self._chain[0]
            if endpoint.refusal and endpoint.mode == self._mode:
                self.refusals.append(endpoint.refusal)
            self._resolved = True

    def request_budget(self) -> tuple[int, str]:
        """(the most one request may take, prompt + answer, in tokens; where that number comes from): the setting
        (AWM_LLM_REQUEST_TOKENS, default 24,000), or the context window when that is smaller."""
        self.resolve()
        wanted = self.settings.request_tokens or DEFAULT_REQUEST_TOKENS
        source = "AWM_LLM_REQUEST_TOKENS" if self.settings.request_tokens else "the default request budget"
        context = self.limits.context_tokens
        if context is not None and context < wanted:
            return context, f"the context window ({self.limits.source['context_tokens']})"
        return wanted, source

    def describe(self) -> dict[str, Any]:
        """What the client negotiated, for metadata and provenance."""
        self.resolve()
        budget, budget_from = self.request_budget()
        return {"profile": self.profile, "structured_output": self._mode, "modes": list(self._chain),
                "refusals": list(self.refusals), "timeout_s": self.limits.timeout_s,
                "concurrency": self.limits.concurrency, "max_tokens": self.limits.max_tokens,
                "context_tokens": self.limits.context_tokens, "request_tokens": budget,
                "limits_from": {**self.limits.source, "request_tokens": budget_from}}

    # --- one call -------------------------------------------------------------------
    def params(self, schema: dict) -> dict[str, Any]:
        """What, besides model and messages, determines a response (the cache key's parameters)."""
        # the configured max_tokens (the profile's when unset), not a call's clamped one: a key stays the same
        # whatever the endpoint turns out to be
        return {"temperature": self.settings.temperature, "max_tokens": self.settings.limits().max_tokens,
                "seed": self.settings.seed, "schema": schema_hash(schema)}

    def complete(self, stage: str, messages: list[dict[str, str]], output: type[M], schema_name: str,
                 tags: CallTags = CallTags(), on_record: Callable[[CallRecord], None] | None = None,
                 check: Callable[[M], str | None] | None = None, keep_invalid: bool = False,
                 answer_tokens: int | None = None) -> M:
        """The stage's output for `messages`. `check`, when given, is the caller's own rule on a parsed answer (the
        reason it is rejected, or None): a rejected answer is recorded as such and raised as a RejectedOutputError
        (it stays cached, so a re-run replays the same exchange for free). `keep_invalid`: an answer that is JSON but
        breaks the schema is cached too and replayed as the same SchemaViolationError (a caller that keeps the valid
        part of such an answer gets the same part again on a re-run, for free). `answer_tokens`: the most the stage's
        answer is expected to need; the call's max_tokens is not set above it (a model that loops on whitespace stops
        there, not at the end of the context)."""
        schema = output_schema(output)
        key = cache_key(self.settings.model, messages, self.params(schema))
        record = CallRecord(stage=stage, model=self.settings.model, cache_key=key, cache_hit=False, latency_ms=0.0,
                            run_id=tags.run_id, domain=tags.domain, env_id=tags.env_id, subject=tags.subject,
                            attempt=tags.attempt)
        started = time.perf_counter()
        try:
            parsed = self._cached(key, output, record, keep_invalid) if self.settings.cache and self.cache else None
            if parsed is not None:
                record.cache_hit = True
            else:
                self.resolve()
                parsed = self._call(record, messages, output, schema_name, schema, keep_invalid, answer_tokens)
            why = check(parsed) if check is not None else None
            if why:  # cached all the same: a re-run replays the same answers, rejection included, for free
                record.outcome, record.error = "rejected", why[:500]
                raise RejectedOutputError(why, answer=record.response, output=parsed)
            return parsed
        except BaseException as exc:
            if record.outcome == "ok" and not record.cache_hit:  # e.g. interrupted: not a success
                record.outcome, record.error = "interrupted", f"{type(exc).__name__}: {exc}"[:500]
            raise
        finally:
            record.latency_ms = round((time.perf_counter() - started) * 1000, 2)
            if self.ledger is not None:
                self.ledger.record(record)
            if on_record is not None:
                on_record(record)

    def _cached(self, key: str, output: type[M], record: CallRecord, keep_invalid: bool = False) -> M | None:
        hit = self.cache.get(key)
        if hit is None:
            return None
        try:
            parsed = parse_output(hit.content, hit.finish_reason, output, self.limits.max_tokens)
            record.response = hit.content  # a stage that rejects it shows it to the model like a fresh answer
            return parsed
        except SchemaViolationError as exc:
            if not keep_invalid:
                self.cache.evict([key])
                return None
            record.cache_hit, record.response = True, hit.content
            record.outcome, record.error = "invalid", str(exc)[:500]
            raise
        except LLMOutputError:
            self.cache.evict([key])  # written by an older output model; ask again
            return None

    def _max_tokens(self, record: CallRecord, messages: list[dict[str, str]]) -> int:
        """The completion limit of this call: the setting, clamped to what the request budget (the context, or
        less) leaves after the prompt, measured before sending (the clamp is recorded)."""
        wanted = self.limits.max_tokens
        budget, budget_from = self.request_budget()
        context = self.limits.context_tokens
        prompt = estimate_tokens(messages)
        room = budget - prompt
        if room < MIN_ANSWER_TOKENS:
            record.outcome = "too_long"
            if context is not None and budget == context:
                record.error = f"prompt of about {prompt} tokens in a context of {context}"
                raise LLMConfigError(
                    f"the {record.stage} prompt is about {prompt} tokens and the context window is {context} "
                    f"({self.limits.source['context_tokens']}), which leaves {room} for the answer; use a model or "
                    "server with a longer context and set AWM_LLM_CONTEXT to it")
            record.error = f"prompt of about {prompt} tokens in a request budget of {budget}"
            raise LLMConfigError(
                f"the {record.stage} prompt is about {prompt} tokens and a request may take {budget} ({budget_from}), "
                f"which leaves {room} for the answer; raise AWM_LLM_REQUEST_TOKENS (up to the context window)")
        if wanted > room:
            record.clamped = f"max_tokens {wanted} clamped to {room}: the prompt takes about {prompt} of {budget}"
            return room
        return wanted

    def _call(self, record: CallRecord, messages: list[dict[str, str]], output: type[M], schema_name: str,
              schema: dict, keep_invalid: bool = False, answer_tokens: int | None = None) -> M:
        max_tokens = self._max_tokens(record, messages)
        if answer_tokens is not None and max_tokens > answer_tokens:
            record.clamped = (f"max_tokens {max_tokens} set to {answer_tokens}, the most the {record.stage} answer is "
                              "expected to need")
            max_tokens = answer_tokens
        record.max_tokens = max_tokens
        with STAGE_WORK.released(), self._semaphore:  # other environments' stage work runs meanwhile
            response = self._create(record, messages, schema_name, schema, max_tokens)
        usage = getattr(response, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            record.prompt_tokens = int(usage.prompt_tokens)
            record.completion_tokens = int(usage.completion_tokens or 0)
            price = self.settings.price()
            if price is not None:
                record.cost_usd = round(price.cost(record.prompt_tokens, record.completion_tokens), 8)
        if not response.choices:
            record.outcome, record.error = "invalid", "the response has no choices"
            raise MalformedOutputError("the response has no choices")
        choice = response.choices[0]
        content = choice.message.content if choice.message else None
        record.response = content
        try:
            parsed, repair = parse_answer(content, choice.finish_reason, output, max_tokens)
        except LLMOutputError as exc:
            record.outcome = "truncated" if isinstance(exc, TruncatedOutputError) else "invalid"
            record.error = str(exc)[:500]
            if keep_invalid and isinstance(exc, SchemaViolationError) and self.settings.cache and self.cache:
                self.cache.put(record.cache_key, self.settings.model, record.stage, CachedResponse(
                    content, choice.finish_reason, record.prompt_tokens, record.completion_tokens))
            if isinstance(exc, TruncatedOutputError) and record.clamped:
                raise TruncatedOutputError(f"{exc} ({record.clamped})") from exc
            raise
        record.repair = repair
        if self.settings.cache and self.cache is not None:
            self.cache.put(record.cache_key, self.settings.model, record.stage, CachedResponse(
                content, choice.finish_reason, record.prompt_tokens, record.completion_tokens))
        return parsed

    def _request(self, mode: str, schema_name: str, schema: dict) -> dict[str, Any]:
        """The structured-output part of a request in `mode` (see awm/llm/profiles.py)."""
        if mode == "json_schema":
            return {"response_format": {"type": "json_schema",
                                        "json_schema": {"name": schema_name, "schema": schema, "strict": False}}}
        if mode == "guided_json":
            return {"extra_body": {"guided_json": schema}}
        if mode == "json_object_schema":
            return {"response_format": {"type": "json_object", "schema": schema}}
        if mode == "json_object":
            return {"response_format": {"type": "json_object"}}
        return {}

    def _step_down(self, mode: str, exc: openai.APIStatusError) -> bool:
        """After a refusal of `mode`, use the next mode of the chain (once per mode) and remember it."""
        following = profiles.next_mode(self._chain, mode)
        if following is None:
            return False
        refusal = f"{mode} refused ({exc.status_code}): {' '.join(str(exc.message).split())[:300]}"
        with self._mode_lock:
            if self._mode == mode:
                self._mode = following
                self.refusals.append(refusal)
                s = self.settings
                known = self.memory.get(s.shown_url, s.model) or Endpoint()
                known.mode, known.refusal = following, refusal
                self.memory.put(s.shown_url, s.model, known)
        return True

    def _refusal_error(self, mode: str, exc: openai.APIStatusError) -> LLMConfigError:
        text = f"{exc.message} {exc.body}".lower()
        auto_next = profiles.next_mode(profiles.profile("auto").modes, mode)
        if self.settings.structured_output != "auto":
            fix = f"set AWM_LLM_STRUCTURED_OUTPUT=auto (or {auto_next})" if auto_next else \
                "set AWM_LLM_STRUCTURED_OUTPUT=auto"
        else:
            fix = "set AWM_LLM_STRUCTURED_OUTPUT to a mode the server accepts"
        if "json_object" in text and mode != "json_object":
            fix += ("; this server accepts json_object: AWM_LLM_STRUCTURED_OUTPUT=json_object_schema (the schema as "
                    "a grammar, as llama.cpp and llama-cpp-python do) or json_object, or AWM_LLM_PROFILE=llama.cpp")
        return LLMConfigError(f"{self.settings.shown_url} refused structured output {mode} ({exc.status_code}): "
                              f"{' '.join(str(exc.message).split())[:400]}; {fix}")

    def _create(self, record: CallRecord, messages: list[dict[str, str]], schema_name: str, schema: dict,
                max_tokens: int):
        settings = self.settings
        while True:
            mode = self._mode
            kwargs: dict[str, Any] = {"model": settings.model, "messages": messages,
                                      "temperature": settings.temperature, "max_tokens": max_tokens,
                                      "timeout": self.limits.timeout_s, **self._request(mode, schema_name, schema)}
            if settings.seed is not None:
                kwargs["seed"] = settings.seed
            record.structured_output = mode
            record.requests += 1
            try:
                return self._openai.chat.completions.create(**kwargs)
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                record.outcome, record.error = "transport_error", f"{exc.status_code}: {exc.message}"[:500]
                raise LLMConfigError(f"{settings.shown_url} rejected the API key ({exc.status_code}): {exc.message}; "
                                     "check OPENAI_API_KEY") from exc
            except openai.NotFoundError as exc:
                record.outcome, record.error = "transport_error", f"404: {exc.message}"[:500]
                raise LLMConfigError(f"{settings.shown_url} has no model {settings.model!r} or no chat completions "
                                     f"endpoint (404): {exc.message}; check AWM_LLM_MODEL and OPENAI_BASE_URL") from exc
            except openai.APIStatusError as exc:
                status = exc.status_code
                if refuses_format(exc, mode):
                    if self._step_down(mode, exc):
                        continue
                    record.outcome, record.error = "refused", f"{status}: {exc.message}"[:500]
                    raise self._refusal_error(mode, exc) from exc
                what = f"{status}: {' '.join(str(exc.message).split())}"
                if status == 429 or status >= 500:
                    if record.transport_retries < settings.transport_retries:
                        self._sleep(self._backoff(record.transport_retries, exc))
                        record.transport_retries += 1
                        continue
                    hint = "the server kept failing; see its log"
                elif "context" in what.lower():
                    hint = ("the prompt and max_tokens exceed the server's context: set AWM_LLM_CONTEXT to its context "
                            "window so that max_tokens is clamped to fit")
                else:
                    hint = "the server refused the request as sent"
                record.outcome, record.error = "transport_error", what[:500]
                raise self._transport_error(record, what, hint) from exc
            except openai.APIConnectionError as exc:
                timeout = isinstance(exc, openai.APITimeoutError)
                what = (f"no answer within {self.limits.timeout_s:g} s" if timeout
                        else f"{type(exc).__name__}: {exc.__cause__ or exc}")
                # A server that answers one request at a time goes on with an abandoned request: a retry would
                # queue behind it, so a timeout there is not retried.
                retry = not timeout or self.limits.concurrency > 1
                if retry and record.transport_retries < settings.transport_retries:
                    self._sleep(self._backoff(record.transport_retries, exc))
                    record.transport_retries += 1
                    continue
                record.outcome, record.error = "transport_error", what[:500]
                hint = (f"raise AWM_LLM_TIMEOUT (now {self.limits.timeout_s:g} s, {self.limits.source['timeout_s']}) "
                        "or set the profile of a slow local server (AWM_LLM_PROFILE=llama.cpp or ollama: 1800 s, "
                        "one request at a time)" if timeout else "start the server or fix OPENAI_BASE_URL")
                raise self._transport_error(record, what, hint) from exc
            except openai.APIError as exc:  # e.g. a body that is not a chat completion
                record.outcome, record.error = "transport_error", f"{type(exc).__name__}: {exc}"[:500]
                raise LLMTransportError(f"{settings.shown_url} answered with something the openai client cannot "
                                        f"read: {type(exc).__name__}: {exc}", requests=record.requests) from exc

    def _transport_error(self, record: CallRecord, what: str, hint: str) -> LLMTransportError:
        return LLMTransportError(
            f"{self.settings.shown_url} failed: {record.requests} request(s) for this {record.stage} call, last "
            f"error {what[:400]}; {hint}. An endpoint failure, not the model's answer: it is not shown to the "
            "model and the stage is not retried for it", requests=record.requests)

    def _backoff(self, retry: int, exc: Exception) -> float:
        wait = self.settings.backoff_s * (2 ** retry)
        response = getattr(exc, "response", None)
        header = response.headers.get("retry-after") if response is not None else None
        if header:
            try:
                wait = max(wait, min(float(header), MAX_RETRY_AFTER_S))
            except ValueError:
                pass  # an HTTP date: keep the exponential backoff
        return wait


__all__ = ["CallTags", "LLMClient", "LLMError", "parse_output"]
