"""The LLM endpoint as a Dagster resource: a small ConfigurableResource around the `openai` client.

Not dagster-openai, whose resource breaks when two assets of one in-process run use it and
when a server omits `usage`. Every field defaults from the environment (see
awm/llm/settings.py) and can be changed per run in the launchpad under resources.llm; the
API key itself never enters run config: the resource names the environment variable
that holds it.
"""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
from pydantic import Field, field_validator

from awm.llm.client import LLMClient
from awm.llm.profiles import MODES, PROFILES
from awm.llm.settings import DEFAULT_BASE_URL, DEFAULT_MODEL, LLMSettings, parse_prices

STRUCTURED_OUTPUT_MODES = ("auto", *MODES)


class LLMResource(dg.ConfigurableResource):
    """Where the model is and how to call it (OPENAI_BASE_URL, OPENAI_API_KEY, AWM_LLM_*)."""

    base_url: str = Field(default=DEFAULT_BASE_URL, description="OpenAI-compatible endpoint (OPENAI_BASE_URL)")
    api_key_env_var: str = Field(default="OPENAI_API_KEY", description="environment variable holding the key")
    model: str = Field(default=DEFAULT_MODEL, description="model name (AWM_LLM_MODEL)")
    temperature: float = Field(default=0.2, ge=0, le=2, description="AWM_LLM_TEMPERATURE")
    profile: str = Field(default="auto", description="auto | openai | vllm | llama.cpp | ollama (AWM_LLM_PROFILE): "
                                                    "structured-output modes and the defaults of the fields below")
    max_tokens: int | None = Field(default=None, ge=16, description="completion limit per call, clamped to what "
                                   "the context leaves; hitting it is an error (default: the profile's)")
    context_tokens: int | None = Field(default=None, ge=256, description="context window (AWM_LLM_CONTEXT; default: "
                                       "the server's or the profile's)")
    request_tokens: int | None = Field(default=None, ge=1024, description="the most one request may take, prompt "
                                       "+ answer (AWM_LLM_REQUEST_TOKENS; default 24,000 or the context when "
                                       "smaller): the databases and tools stages split to fit it")
    timeout_s: float | None = Field(default=None, gt=0, description="seconds per HTTP request (AWM_LLM_TIMEOUT; "
                                    "default: the profile's)")
    transport_retries: int = Field(default=4, ge=0, le=20, description="retries of 429/5xx/timeouts in the client")
    backoff_s: float = Field(default=1.0, ge=0, description="first transport backoff, doubling (AWM_LLM_BACKOFF)")
    concurrency: int | None = Field(default=None, ge=1, le=512, description="calls in flight at once in one run "
                                    "(default: the profile's)")
    cache: bool = Field(default=True, description="reuse cached responses (AWM_LLM_CACHE=0 bypasses the cache)")
    structured_output: str = Field(default="auto", description="auto (the profile's modes, stepping down on a "
                                   "refusal) | " + " | ".join(MODES))
    prices_json: str | None = Field(default=None, description="price table: JSON object or path (AWM_LLM_PRICES)")
    seed: int | None = Field(default=None, description="sampling seed, where the server supports one")

    @field_validator("profile")
    @classmethod
    def _profile(cls, value: str) -> str:
        if value not in PROFILES:
            raise ValueError(f"profile {value!r} is not one of {', '.join(PROFILES)}")
        return value

    @field_validator("structured_output")
    @classmethod
    def _mode(cls, value: str) -> str:
        if value not in STRUCTURED_OUTPUT_MODES:
            raise ValueError(f"structured_output {value!r} is not one of {', '.join(STRUCTURED_OUTPUT_MODES)}")
        return value

    @classmethod
    def env_values(cls) -> dict:
        """The fields' values from the environment (AWM_LLM_PRICES kept as given)."""
        import os

        settings = LLMSettings.from_env()
        values = {name: getattr(settings, name) for name in (
            "base_url", "model", "profile", "temperature", "max_tokens", "context_tokens", "request_tokens", "timeout_s",
            "transport_retries", "backoff_s", "concurrency", "cache", "structured_output", "seed")}
        prices = os.environ.get("AWM_LLM_PRICES")
        if prices:
            values["prices_json"] = prices
        return {k: v for k, v in values.items() if v is not None}

    @classmethod
    def from_env(cls) -> LLMResource:
        return cls(**cls.env_values())

    @classmethod
    def configurable_from_env(cls):
        """Defaults from the environment, every field editable per run in the launchpad."""
        return cls.configure_at_launch(**cls.env_values())

    def settings(self) -> LLMSettings:
        import os

        prices = parse_prices(self.prices_json, "prices_json") if self.prices_json else {}
        key = os.environ.get(self.api_key_env_var) or None
        return LLMSettings(base_url=self.base_url, api_key=key, model=self.model, profile=self.profile,
                           temperature=self.temperature, max_tokens=self.max_tokens,
                           context_tokens=self.context_tokens, request_tokens=self.request_tokens,
                           timeout_s=self.timeout_s,
                           transport_retries=self.transport_retries, backoff_s=self.backoff_s,
                           concurrency=self.concurrency, cache=self.cache,
                           structured_output=self.structured_output, prices=prices, seed=self.seed)

    @property
    def effective_concurrency(self) -> int:
        """Calls in flight at once: as set, else the configured profile's."""
        return self.settings().limits().concurrency

    def client(self, home: str | Path | None) -> LLMClient:
        return LLMClient(self.settings(), Path(home) if home is not None else None)

    def preflight(self) -> list[str]:
        """Fail now, with the reason, if the key is missing or the endpoint unreachable."""
        settings = self.settings()
        if not (settings.api_key and settings.api_key.get_secret_value().strip()):
            from awm.llm.errors import LLMConfigError

            raise LLMConfigError(
                f"no API key: set {self.api_key_env_var} (for a local server that ignores keys, such as vLLM, "
                "Ollama or `awm llm-serve`, any non-empty value will do)")
        return LLMClient(settings, None).ping()

    def describe(self) -> dict:
        """What a person wants to see in metadata (never the key)."""
        return json.loads(self.model_dump_json(exclude={"prices_json"}))
