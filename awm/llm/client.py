"""The LLM client: the official `openai` package against any OpenAI-compatible endpoint.

One call = cache lookup, then (on a miss) a chat completion under a concurrency
semaphore with transport retries, then strict output handling:

- structured output: `response_format` json_schema where the server supports it; in
  `auto` mode a server that refuses it (HTTP 400 naming the response format) is asked
  for json_object, then for plain text, and the client remembers what works;
- finish_reason `length` is a TruncatedOutputError, never repaired;
- the content must be one JSON document (optionally inside a single ``` fence, the
  only wrapping removed), then it must validate against the stage's output model;
- 429, 5xx, timeouts and connection errors are retried here with exponential backoff
  (Retry-After honoured); anything still failing is an LLMTransportError.

Every call, hit or miss, valid or not, is a CallRecord in the ledger.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import openai
from pydantic import BaseModel, ValidationError

from awm.concurrency import STAGE_WORK
from awm.llm.cache import CachedResponse, ResponseCache, cache_key
from awm.llm.errors import (
    LLMConfigError,
    LLMError,
    LLMOutputError,
    LLMTransportError,
    MalformedOutputError,
    SchemaViolationError,
    TruncatedOutputError,
)
from awm.llm.ledger import CallRecord, Ledger
from awm.llm.prompts import output_schema
from awm.llm.settings import LLMSettings

M = TypeVar("M", bound=BaseModel)

MODES = ("json_schema", "json_object", "none")
MAX_RETRY_AFTER_S = 60.0
_FENCE = re.compile(r"^```(?:json|JSON)?[ \t]*\n(?P<body>.*)\n```$", re.DOTALL)


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
    size = len(content or "")
    if finish_reason == "length":
        raise TruncatedOutputError(
            f"the response stopped at the token limit (finish_reason length, max_tokens={max_tokens}) after "
            f"{size} characters; truncated output is never repaired: answer more concisely")
    if finish_reason == "content_filter":
        raise LLMOutputError("the response was withheld by the server's content filter (finish_reason content_filter)")
    if content is None or not content.strip():
        raise MalformedOutputError(f"the response is empty (finish_reason {finish_reason!r}); a JSON object is required")
    text = content.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group("body").strip()
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except (json.JSONDecodeError, ValueError) as exc:
        pos = getattr(exc, "pos", 0) or 0
        where = (f" at line {exc.lineno} column {exc.colno} (character {pos} of {len(text)})"
                 if isinstance(exc, json.JSONDecodeError) else "")
        snippet = text[max(0, pos - 60):pos + 20].replace("\n", "\\n")
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise MalformedOutputError(f"the response is not valid JSON: {reason}{where}, near: ...{snippet}...") from exc
    if not isinstance(data, dict):
        raise SchemaViolationError(f"the response must be a JSON object, got {type(data).__name__}")
    try:
        return output.model_validate(data)
    except ValidationError as exc:
        problems = []
        for err in exc.errors()[:8]:
            loc = ".".join(str(p) for p in err["loc"]) or "<root>"
            problems.append(f"{loc}: {err['msg']}")
        raise SchemaViolationError(
            f"the response does not match the {output.__name__} schema ({exc.error_count()} error(s)): "
            + "; ".join(problems)) from exc


def _about_format(exc: openai.BadRequestError) -> bool:
    text = f"{exc.message} {exc.body}".lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object", "format"))


def schema_hash(schema: dict) -> str:
    return hashlib.sha256(json.dumps(schema, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class LLMClient:
    def __init__(self, settings: LLMSettings, home: Path | None = None, *, sleep: Callable[[float], None] = time.sleep):
        self.settings = settings
        self._key = settings.require_key()
        self._openai = openai.OpenAI(base_url=settings.base_url, api_key=self._key, timeout=settings.timeout_s,
                                     max_retries=0)
        self._semaphore = threading.BoundedSemaphore(settings.concurrency)
        self._mode_lock = threading.Lock()
        self._mode = "json_schema" if settings.structured_output == "auto" else settings.structured_output
        self._sleep = sleep
        self.cache = ResponseCache(home / "llm" / "cache.sqlite") if home is not None else None
        self.ledger = Ledger(home / "llm" / "ledger.sqlite") if home is not None else None

    @property
    def structured_output(self) -> str:
        """The response format the client currently uses (auto mode may have stepped down)."""
        return self._mode

    # --- preflight ------------------------------------------------------------------
    def ping(self, timeout_s: float = 10.0) -> list[str]:
        """List the endpoint's models: proves the endpoint is reachable and the key accepted."""
        try:
            page = self._openai.with_options(timeout=min(timeout_s, self.settings.timeout_s)).models.list()
        except openai.AuthenticationError as exc:
            raise LLMConfigError(f"{self.settings.base_url} rejected the API key (401): {exc.message}; "
                                 "check OPENAI_API_KEY") from exc
        except openai.NotFoundError:
            return []  # reachable; some servers do not list models
        except openai.APIConnectionError as exc:
            raise LLMConfigError(f"cannot reach the LLM endpoint {self.settings.base_url} ({type(exc).__name__}: "
                                 f"{exc.__cause__ or exc}); start the server or fix OPENAI_BASE_URL") from exc
        except openai.APIStatusError as exc:
            raise LLMConfigError(f"{self.settings.base_url} answered {exc.status_code} to GET /models: "
                                 f"{exc.message}") from exc
        return [m.id for m in page.data]

    # --- one call -------------------------------------------------------------------
    def params(self, schema: dict) -> dict[str, Any]:
        """What, besides model and messages, determines a response (the cache key's parameters)."""
        return {"temperature": self.settings.temperature, "max_tokens": self.settings.max_tokens,
                "seed": self.settings.seed, "schema": schema_hash(schema)}

    def complete(self, stage: str, messages: list[dict[str, str]], output: type[M], schema_name: str,
                 tags: CallTags = CallTags(), on_record: Callable[[CallRecord], None] | None = None) -> M:
        schema = output_schema(output)
        key = cache_key(self.settings.model, messages, self.params(schema))
        record = CallRecord(stage=stage, model=self.settings.model, cache_key=key, cache_hit=False, latency_ms=0.0,
                            run_id=tags.run_id, domain=tags.domain, env_id=tags.env_id, subject=tags.subject,
                            attempt=tags.attempt)
        started = time.perf_counter()
        try:
            parsed = self._cached(key, output) if self.settings.cache and self.cache else None
            if parsed is not None:
                record.cache_hit = True
                return parsed
            return self._call(record, messages, output, schema_name, schema)
        finally:
            record.latency_ms = round((time.perf_counter() - started) * 1000, 2)
            if self.ledger is not None:
                self.ledger.record(record)
            if on_record is not None:
                on_record(record)

    def _cached(self, key: str, output: type[M]) -> M | None:
        hit = self.cache.get(key)
        if hit is None:
            return None
        try:
            return parse_output(hit.content, hit.finish_reason, output, self.settings.max_tokens)
        except LLMOutputError:
            self.cache.evict([key])  # written by an older output model; ask again
            return None

    def _call(self, record: CallRecord, messages: list[dict[str, str]], output: type[M], schema_name: str,
              schema: dict) -> M:
        with STAGE_WORK.released(), self._semaphore:  # other environments' stage work runs meanwhile
            response = self._create(record, messages, schema_name, schema)
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
        try:
            parsed = parse_output(content, choice.finish_reason, output, self.settings.max_tokens)
        except LLMOutputError as exc:
            record.outcome = "truncated" if isinstance(exc, TruncatedOutputError) else "invalid"
            record.error = str(exc)[:500]
            raise
        if self.settings.cache and self.cache is not None:
            self.cache.put(record.cache_key, self.settings.model, record.stage, CachedResponse(
                content, choice.finish_reason, record.prompt_tokens, record.completion_tokens))
        return parsed

    def _response_format(self, mode: str, schema_name: str, schema: dict) -> dict | None:
        if mode == "json_schema":
            return {"type": "json_schema", "json_schema": {"name": schema_name, "schema": schema, "strict": False}}
        if mode == "json_object":
            return {"type": "json_object"}
        return None

    def _step_down(self, mode: str, exc: openai.BadRequestError) -> bool:
        """In auto mode, a 400 about the response format moves to the next simpler format."""
        if self.settings.structured_output != "auto" or mode == "none" or not _about_format(exc):
            return False
        with self._mode_lock:
            if self._mode == mode:
                self._mode = MODES[MODES.index(mode) + 1]
        return True

    def _create(self, record: CallRecord, messages: list[dict[str, str]], schema_name: str, schema: dict):
        settings = self.settings
        while True:
            mode = self._mode
            kwargs: dict[str, Any] = {"model": settings.model, "messages": messages,
                                      "temperature": settings.temperature, "max_tokens": settings.max_tokens}
            if settings.seed is not None:
                kwargs["seed"] = settings.seed
            response_format = self._response_format(mode, schema_name, schema)
            if response_format is not None:
                kwargs["response_format"] = response_format
            record.structured_output = mode
            try:
                return self._openai.chat.completions.create(**kwargs)
            except openai.BadRequestError as exc:
                if self._step_down(mode, exc):
                    continue
                record.outcome, record.error = "transport_error", f"400: {exc.message}"[:500]
                if mode != "none" and _about_format(exc):
                    raise LLMConfigError(f"{settings.base_url} refused response_format {mode} (400): {exc.message}; "
                                         "set structured_output (AWM_LLM_STRUCTURED_OUTPUT) to auto") from exc
                raise LLMTransportError(f"{settings.base_url} refused the request (400): {exc.message}") from exc
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                record.outcome, record.error = "transport_error", f"{exc.status_code}: {exc.message}"[:500]
                raise LLMConfigError(f"{settings.base_url} rejected the API key ({exc.status_code}): {exc.message}; "
                                     "check OPENAI_API_KEY") from exc
            except openai.NotFoundError as exc:
                record.outcome, record.error = "transport_error", f"404: {exc.message}"[:500]
                raise LLMConfigError(f"{settings.base_url} has no model {settings.model!r} or no chat completions "
                                     f"endpoint (404): {exc.message}; check AWM_LLM_MODEL and OPENAI_BASE_URL") from exc
            except (openai.RateLimitError, openai.InternalServerError, openai.APIConnectionError,
                    openai.APIStatusError) as exc:
                status = getattr(exc, "status_code", None)
                retryable = status is None or status == 429 or status >= 500
                what = f"{status}: {getattr(exc, 'message', exc)}" if status else f"{type(exc).__name__}: {exc}"
                if not retryable or record.transport_retries >= settings.transport_retries:
                    record.outcome, record.error = "transport_error", what[:500]
                    tries = record.transport_retries + 1
                    raise LLMTransportError(f"{settings.base_url} failed {tries} time(s); last error {what}") from exc
                self._sleep(self._backoff(record.transport_retries, exc))
                record.transport_retries += 1
            except openai.APIError as exc:  # e.g. a body that is not a chat completion
                record.outcome, record.error = "transport_error", f"{type(exc).__name__}: {exc}"[:500]
                raise LLMTransportError(f"{settings.base_url} answered with something the openai client cannot "
                                        f"read: {type(exc).__name__}: {exc}") from exc

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
