"""The generation backend as a Dagster resource: which backend, how many scenarios per domain."""

from __future__ import annotations

import os

import dagster as dg
from pydantic import Field

from awm.backends import Backend, get_backend


class GeneratorResource(dg.ConfigurableResource):
    """Chooses the backend for a run (AWM_LLM_BACKEND: offline by default) and the corpus shape."""

    backend: str = Field(default="offline", description="offline (default) or openai")
    slots: int = Field(default=10, ge=1, le=999, description="scenarios per domain (AWM_SLOTS)")
    tasks_per_env: int = Field(default=10, ge=1, le=50, description="tasks per environment")
    base_seed: int = Field(default=0, description="changes every generated value when changed")

    @classmethod
    def from_env(cls) -> GeneratorResource:
        return cls(
            backend=os.environ.get("AWM_LLM_BACKEND", "offline"),
            slots=int(os.environ.get("AWM_SLOTS", "10")),
            base_seed=int(os.environ.get("AWM_SEED", "0")),
        )

    def get(self) -> Backend:
        if self.backend != "offline":
            return get_backend(self.backend)
        return get_backend("offline", base_seed=self.base_seed, tasks_per_env=self.tasks_per_env)

    @property
    def deterministic(self) -> bool:
        """A deterministic backend gives the same output on a retry, so retrying cannot correct it."""
        return self.backend == "offline"
