"""How to reach a model and what to ask of it, from environment variables or explicit values.

    OPENAI_BASE_URL            endpoint (OpenAI, vLLM, Ollama, `awm llm-serve`), default OpenAI
    OPENAI_API_KEY             key (any non-empty value for a local server that ignores it)
    AWM_LLM_MODEL              model name
    AWM_LLM_TEMPERATURE        sampling temperature
    AWM_LLM_PROFILE            auto | openai | vllm | llama.cpp | ollama: what the server accepts and the
                               defaults of the next four (awm/llm/profiles.py)
    AWM_LLM_MAX_TOKENS         completion token limit per call (a response that hits it is an error)
    AWM_LLM_CONTEXT            the server's context window in tokens (prompt + completion)
    AWM_LLM_REQUEST_TOKENS     the most one request may take, prompt + completion (default 24,000, or the
                               context when smaller): the databases and tools stages split to fit it
    AWM_LLM_TIMEOUT            seconds per HTTP request
    AWM_LLM_TRANSPORT_RETRIES  retries of 429, 5xx, timeouts and connection errors inside the client
    AWM_LLM_BACKOFF            first transport backoff in seconds (doubles each retry)
    AWM_LLM_CONCURRENCY        calls in flight at once within one process
    AWM_LLM_CACHE              1 (default) to reuse cached responses, 0 to bypass the cache
    AWM_LLM_STRUCTURED_OUTPUT  auto (the profile's modes, stepping down on a refusal) or one mode:
                               json_schema | guided_json | json_object_schema | json_object | none
    AWM_LLM_PRICES             JSON object, or a path to a JSON file: {"model": {"input_per_mtok": 0.15,
                               "output_per_mtok": 0.6}} in USD per million tokens
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Literal, NamedTuple
from urllib.parse import urlsplit, urlunsplit

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from awm.llm.errors import LLMConfigError
from awm.llm.profiles import profile

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_REQUEST_TOKENS = 24_000  # prompt + completion of one request, at most (the context when smaller)
StructuredOutput = Literal["auto", "json_schema", "guided_json", "json_object_schema", "json_object", "none"]
ProfileName = Literal["auto", "openai", "vllm", "llama.cpp", "ollama"]
LIMIT_FIELDS = ("timeout_s", "concurrency", "max_tokens", "context_tokens")


class Limits(NamedTuple):
    """The settings a profile gives defaults for, resolved; `source` says where each came from."""

    timeout_s: float
    concurrency: int
    max_tokens: int
    context_tokens: int | None
    source: dict[str, str]


class Price(BaseModel):
    """USD per million tokens."""

    model_config = ConfigDict(extra="forbid")

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens * self.input_per_mtok + completion_tokens * self.output_per_mtok) / 1_000_000


def redacted_url(url: str) -> str:
    """`url` without the credentials it may carry (`user:password@`): what is recorded (provenance, metadata)
    and shown (errors, logs)."""
    try:
        parts = urlsplit(url)
        if parts.username is None and parts.password is None:
            return url
        host = parts.hostname or ""
        if parts.port is not None:
            host = f"{host}:{parts.port}"
    except ValueError:  # not a URL one can take apart: show none of it
        return "<an unparsable URL>"
    return urlunsplit(parts._replace(netloc=f"***@{host}"))


class LLMSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    base_url: str = DEFAULT_BASE_URL
    api_key: SecretStr | None = None
    model: str = DEFAULT_MODEL
    temperature: float = Field(default=0.2, ge=0, le=2)
    profile: ProfileName = "auto"
    max_tokens: int | None = Field(default=None, ge=16)  # None: the profile's
    context_tokens: int | None = Field(default=None, ge=256)  # None: the server's or the profile's
    request_tokens: int | None = Field(default=None, ge=1024)  # None: DEFAULT_REQUEST_TOKENS
    timeout_s: float | None = Field(default=None, gt=0)  # None: the profile's
    transport_retries: int = Field(default=4, ge=0, le=20)
    backoff_s: float = Field(default=1.0, ge=0)
    concurrency: int | None = Field(default=None, ge=1, le=512)  # None: the profile's
    cache: bool = True
    structured_output: StructuredOutput = "auto"
    prices: dict[str, Price] = Field(default_factory=dict)
    seed: int | None = None

    @classmethod
    def from_env(cls, **overrides) -> LLMSettings:
        env = os.environ
        values: dict = {}
        for field, var, kind in _ENV_FIELDS:
            raw = env.get(var)
            if raw is None or raw == "":
                continue
            values[field] = _parse(var, raw, kind)
        values.update({k: v for k, v in overrides.items() if v is not None})
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            var = next((v for f, v, _ in _ENV_FIELDS if f == field.split(".")[0]), field)
            raise LLMConfigError(f"LLM setting {field} ({var}) is invalid: {first['msg']}") from exc

    def limits(self, detected: str | None = None, server_context: int | None = None) -> Limits:
        """Timeout, concurrency, max_tokens and context: as set, else the configured profile's (or, with profile
        auto, the profile recognised from the server, `detected`), the context preferring what the server said."""
        name = self.profile if self.profile != "auto" or detected is None else detected
        chosen = profile(name)
        values: dict = {}
        source: dict[str, str] = {}
        for field in LIMIT_FIELDS:
            value = getattr(self, field)
            if value is not None:
                values[field], source[field] = value, "set"
            elif field == "context_tokens" and server_context is not None:
                values[field], source[field] = server_context, "server"
            else:
                values[field], source[field] = getattr(chosen, field), f"profile {name}"
        return Limits(**values, source=source)

    def price(self) -> Price | None:
        return self.prices.get(self.model)

    @property
    def shown_url(self) -> str:
        """The endpoint without its credentials, if its URL carries any."""
        return redacted_url(self.base_url)

    def require_key(self) -> str:
        key = self.api_key.get_secret_value() if self.api_key else ""
        if not key.strip():
            raise LLMConfigError(
                "no API key: set OPENAI_API_KEY (for a local server that ignores keys, such as vLLM, Ollama or "
                "`awm llm-serve`, any non-empty value will do)")
        return key


def parse_prices(raw: str, source: str = "AWM_LLM_PRICES") -> dict[str, Price]:
    """A price table from JSON text or from a path to a JSON file."""
    text = raw
    if not raw.lstrip().startswith("{"):
        path = Path(raw).expanduser()
        if not path.is_file():
            raise LLMConfigError(f"{source}={raw!r} is neither a JSON object nor the path of a JSON file")
        text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LLMConfigError(f"{source} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise LLMConfigError(f"{source} must be a JSON object of model -> prices")
    prices = {}
    for model, price in data.items():
        try:
            prices[model] = Price.model_validate(price)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            raise LLMConfigError(f"{source}: price of {model}{'.' + field if field else ''} is invalid: "
                                 f"{first['msg']} (use input_per_mtok and output_per_mtok, USD)") from exc
    return prices


def _parse(var: str, raw: str, kind: str):
    try:
        if kind == "int":
            return int(raw)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            lowered = raw.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"expected 1/0, true/false, yes/no or on/off, got {raw!r}")
        if kind == "prices":
            return parse_prices(raw, var)
        if kind == "secret":
            return SecretStr(raw)
        return raw
    except ValueError as exc:
        raise LLMConfigError(f"{var}={raw!r} is not a valid {kind}: {exc}") from exc


_ENV_FIELDS = (
    ("base_url", "OPENAI_BASE_URL", "str"),
    ("api_key", "OPENAI_API_KEY", "secret"),
    ("model", "AWM_LLM_MODEL", "str"),
    ("temperature", "AWM_LLM_TEMPERATURE", "float"),
    ("profile", "AWM_LLM_PROFILE", "str"),
    ("max_tokens", "AWM_LLM_MAX_TOKENS", "int"),
    ("context_tokens", "AWM_LLM_CONTEXT", "int"),
    ("request_tokens", "AWM_LLM_REQUEST_TOKENS", "int"),
    ("timeout_s", "AWM_LLM_TIMEOUT", "float"),
    ("transport_retries", "AWM_LLM_TRANSPORT_RETRIES", "int"),
    ("backoff_s", "AWM_LLM_BACKOFF", "float"),
    ("concurrency", "AWM_LLM_CONCURRENCY", "int"),
    ("cache", "AWM_LLM_CACHE", "bool"),
    ("structured_output", "AWM_LLM_STRUCTURED_OUTPUT", "str"),
    ("prices", "AWM_LLM_PRICES", "prices"),
    ("seed", "AWM_LLM_SEED", "int"),
)
