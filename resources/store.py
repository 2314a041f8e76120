"""The artifact store as a Dagster resource."""

from __future__ import annotations

import os

import dagster as dg
from pydantic import Field

from awm.store import DEFAULT_HOME, ArtifactStore


class ArtifactStoreResource(dg.ConfigurableResource):
    """Where artifacts live (AWM_HOME) and, for the command-line launcher, where progress is reported."""

    home: str = Field(default=DEFAULT_HOME, description="artifact root; default ./.awm or $AWM_HOME")
    progress_file: str | None = Field(default=None, description="append one line per finished environment")

    @classmethod
    def from_env(cls) -> ArtifactStoreResource:
        return cls(home=os.environ.get("AWM_HOME", DEFAULT_HOME), progress_file=os.environ.get("AWM_PROGRESS_FILE"))

    def store(self) -> ArtifactStore:
        return ArtifactStore(self.home)

    def report_progress(self, stage: str, env_id: str, status: str) -> None:
        if not self.progress_file:
            return
        with open(self.progress_file, "a", encoding="utf-8") as fh:  # O_APPEND: one short line is atomic
            fh.write(f"{stage} {env_id} {status}\n")
