"""The endpoint agents are evaluated against, as a Dagster resource (the model is the partition key).

Defaults from the environment, every field editable per run in the launchpad under resources.agent:

    AWM_AGENT_BASE_URL      endpoint (default OPENAI_BASE_URL, else OpenAI)
    AWM_AGENT_API_KEY_ENV   name of the environment variable holding the key (default OPENAI_API_KEY)
    AWM_AGENT_CONCURRENCY   rollouts in flight at once in one run (default 8)
    AWM_AGENT_TIMEOUT       seconds per model request (default 60)

The key itself never enters run config.
"""

import os

import dagster as dg
from pydantic import Field

from awm.llm.errors import LLMConfigError
from awm.llm.settings import DEFAULT_BASE_URL, LLMSettings


class AgentResource(dg.ConfigurableResource):
    """Where the agent models are served and how to call them (the model name is the `agent` partition)."""

    base_url: str = Field(default=DEFAULT_BASE_URL, description="OpenAI-compatible endpoint (AWM_AGENT_BASE_URL)")
    api_key_env_var: str = Field(default="OPENAI_API_KEY", description="environment variable holding the key")
    temperature: float = Field(default=0.0, ge=0, le=2, description="sampling temperature")
    max_tokens: int = Field(default=4096, ge=16, description="completion tokens per model call")
    timeout_s: float = Field(default=60.0, gt=0, description="seconds per model request (AWM_AGENT_TIMEOUT)")
    transport_retries: int = Field(default=2, ge=0, le=20, description="retries of 429/5xx/timeouts per request")
    concurrency: int = Field(default=8, ge=1, le=512, description="rollouts in flight at once (AWM_AGENT_CONCURRENCY)")
    cache: bool = Field(default=True, description="reuse cached model responses (a resumed rollout asks no turn twice)")

    @classmethod
    def env_values(cls) -> dict:
        env = os.environ
        values: dict = {"base_url": env.get("AWM_AGENT_BASE_URL") or env.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL,
                        "api_key_env_var": env.get("AWM_AGENT_API_KEY_ENV") or "OPENAI_API_KEY"}
        for field, var, kind in (("concurrency", "AWM_AGENT_CONCURRENCY", int), ("timeout_s", "AWM_AGENT_TIMEOUT", float)):
            raw = env.get(var)
            if raw:
                try:
                    values[field] = kind(raw)
                except ValueError as exc:
                    raise LLMConfigError(f"{var}={raw!r} is not a valid {kind.__name__}") from exc
        return values

    @classmethod
    def configurable_from_env(cls):
        return cls.configure_at_launch(**cls.env_values())

    def settings(self, model: str) -> LLMSettings:
        key = os.environ.get(self.api_key_env_var) or None
        settings = LLMSettings(base_url=self.base_url, api_key=key, model=model, temperature=self.temperature,
                               max_tokens=self.max_tokens, timeout_s=self.timeout_s,
                               transport_retries=self.transport_retries, concurrency=self.concurrency,
                               cache=self.cache)
        settings.require_key()
        return settings

    def describe(self) -> dict:
        return self.model_dump()
