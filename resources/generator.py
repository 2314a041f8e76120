"""The generation backend as a Dagster resource: which backend, the corpus shape, and the model behind it."""

import os
from typing import Any

import dagster as dg
from pydantic import Field, field_validator

from awm.backends import BACKENDS, Backend, get_backend
from awm.store import ArtifactStore
from resources.llm import LLMResource


class GeneratorResource(dg.ConfigurableResource):
    """Chooses the backend for a run (AWM_LLM_BACKEND: offline by default, or openai) and the corpus shape.

    With the openai backend the endpoint is checked when the run starts (a key is set, the endpoint
    answers), so a wrong setting fails the run before any stage does work."""

    backend: str = Field(default="offline", description="offline (default) or openai (AWM_LLM_BACKEND)")
    slots: int = Field(default=10, ge=1, le=999, description="scenarios per domain (AWM_SLOTS)")
    tasks_per_env: int = Field(default=10, ge=1, le=50, description="tasks per environment (AWM_TASKS_PER_ENV)")
    base_seed: int = Field(default=0, description="changes every generated value when changed")
    retry_delay_s: float = Field(default=1.0, ge=0, le=600, description="wait before a stage's retry, doubling "
                                 "each attempt (AWM_RETRY_DELAY)")
    # a nested resource: its own config (resources.llm in the launchpad) when bound at the top level too.
    # (No `from __future__ import annotations` in this module: Dagster reads this annotation at runtime.)
    llm: LLMResource

    def __init__(self, **data: Any):
        data.setdefault("llm", LLMResource())
        super().__init__(**data)

    @field_validator("backend")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in BACKENDS:
            raise ValueError(f"backend {value!r} is not one of {', '.join(BACKENDS)} (AWM_LLM_BACKEND)")
        return value

    @staticmethod
    def env_values() -> dict:
        """The fields set by the environment (AWM_LLM_BACKEND, AWM_SLOTS, AWM_SEED, AWM_RETRY_DELAY,
        AWM_TASKS_PER_ENV)."""
        return {"backend": os.environ.get("AWM_LLM_BACKEND", "offline"),
                "slots": int(os.environ.get("AWM_SLOTS", "10")),
                "base_seed": int(os.environ.get("AWM_SEED", "0")),
                "retry_delay_s": float(os.environ.get("AWM_RETRY_DELAY", "1.0")),
                "tasks_per_env": int(os.environ.get("AWM_TASKS_PER_ENV", "10"))}

    @classmethod
    def from_env(cls, llm: Any = None) -> "GeneratorResource":
        return cls(**cls.env_values(), llm=llm if llm is not None else LLMResource.from_env())

    @classmethod
    def configurable_from_env(cls, llm: Any):
        """Defaults from the environment, every field editable per run in the launchpad: a run that sets one
        field keeps the environment's values of the others (a bound instance would reset them to the class's)."""
        return cls.configure_at_launch(**cls.env_values(), llm=llm)

    def setup_for_execution(self, context: dg.InitResourceContext) -> None:
        if self.backend == "openai":
            self.llm.preflight()

    def get(self, store: ArtifactStore | None = None, run_id: str | None = None) -> Backend:
        if self.backend == "openai":
            home = store.home if store is not None else None
            return get_backend("openai", client=self.llm.client(home), store=store, tasks_per_env=self.tasks_per_env,
                               run_id=run_id)
        return get_backend("offline", base_seed=self.base_seed, tasks_per_env=self.tasks_per_env, run_id=run_id)

    @property
    def deterministic(self) -> bool:
        """A deterministic backend gives the same output on a retry, so retrying cannot correct it."""
        return self.backend == "offline"

    @property
    def concurrency(self) -> int:
        """Environments built at once within a step (1 for the offline builder, which is CPU-bound)."""
        return 1 if self.deterministic else self.llm.effective_concurrency

    def retry_delay(self, attempt: int) -> float:
        """Seconds to wait after failed attempt `attempt` (1-based): exponential backoff."""
        return self.retry_delay_s * 2 ** (attempt - 1)
