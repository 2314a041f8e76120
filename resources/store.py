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
        """AWM_HOME and AWM_PROGRESS_FILE, when set, as dg.EnvVar: read when a run starts, in the process that
        runs it, and shown in the launchpad as the variable they come from rather than a value fixed when the
        definitions loaded. (The generator and LLM resources keep plain values: their fields are validated
        when the resource is made, which an EnvVar, resolved later, would not pass.)"""
        return cls(home=dg.EnvVar("AWM_HOME") if os.environ.get("AWM_HOME") else DEFAULT_HOME,
                   progress_file=dg.EnvVar("AWM_PROGRESS_FILE") if os.environ.get("AWM_PROGRESS_FILE") else None)

    def store(self) -> ArtifactStore:
        return ArtifactStore(self.home)

    def report_progress(self, stage: str, env_id: str, status: str) -> None:
        if not self.progress_file:
            return
        with open(self.progress_file, "a", encoding="utf-8") as fh:  # O_APPEND: one short line is atomic
            fh.write(f"{stage} {env_id} {status}\n")
