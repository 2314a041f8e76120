"""The files of an environment, each declared once: its name, its contract, and how it is read.

    from awm import artifacts
    taskset = artifacts.TASKS.read(store, env_id)        # a validated TaskSet
    ddl = artifacts.SCHEMA_SQL.read(store, env_id)       # text
    db_path = artifacts.DATABASE.read(store, env_id)     # a checked SQLite file's path

The names are the store's public layout (README, "Artifacts"); the stage registry
(awm/registry.py) says which stage writes each and which stages read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from awm.contracts import (
    Failure,
    ForeignManifest,
    Scenario,
    SchemaSpec,
    TaskSet,
    ToolSet,
    VerificationReport,
    VerifierSet,
)

if TYPE_CHECKING:
    from awm.store import ArtifactStore

T = TypeVar("T")


@dataclass(frozen=True)
class Artifact(Generic[T]):
    """One file of an environment's folder."""

    name: str
    kind: Literal["json", "text", "sqlite"]
    description: str
    model: type[BaseModel] | None = None  # the contract of a JSON artifact

    def path(self, store: ArtifactStore, env_id: str) -> Path:
        return store.path(env_id, self.name)

    def exists(self, store: ArtifactStore, env_id: str) -> bool:
        return store.exists(env_id, self.name)

    def read(self, store: ArtifactStore, env_id: str) -> T:
        """The validated model (JSON), the text (text), or the path of a checked database (sqlite); a missing
        or damaged file raises MissingArtifactError or CorruptArtifactError naming it."""
        if self.kind == "sqlite":
            return store.database_path(env_id)  # type: ignore[return-value]
        if self.model is not None:
            return store.read_model(env_id, self.name, self.model)  # type: ignore[return-value]
        return store.read_text(env_id, self.name)  # type: ignore[return-value]

    def __str__(self) -> str:
        return self.name


SCENARIO: Artifact[Scenario] = Artifact("scenario.json", "json", "name, description, domain, seed, labels, modules",
                                        Scenario)
TASKS: Artifact[TaskSet] = Artifact("tasks.json", "json", "tasks: instruction, kind, reference_solution, "
                                    "reference_answer, goals", TaskSet)
SCHEMA_JSON: Artifact[SchemaSpec] = Artifact("schema.json", "json", "tables, columns, primary/foreign keys, enums, "
                                             "ranges", SchemaSpec)
SCHEMA_SQL: Artifact[str] = Artifact("schema.sql", "text", "SQLite DDL")
DATABASE: Artifact[Path] = Artifact("env.db", "sqlite", "the initial state")
TOOLS_PY: Artifact[str] = Artifact("tools.py", "text", "tool implementations (checked by the sandbox policy)")
TOOLS_JSON: Artifact[ToolSet] = Artifact("tools.json", "json", "MCP tool specs: name, description, inputSchema",
                                         ToolSet)
VERIFIERS: Artifact[VerifierSet] = Artifact("verifiers.json", "json", "verify(initial, final, answer) code per task",
                                            VerifierSet)
REPORT: Artifact[VerificationReport] = Artifact("report.json", "json", "per task: what was proven",
                                                VerificationReport)

# Written by `awm import-awm` (awm/awm1k/importer.py) for an environment imported from AWM-1K's files.
AWM1K: Artifact[ForeignManifest] = Artifact("awm1k.json", "json", "an imported AWM-1K environment: origin, provenance "
                                            "of each file, checks, routes, tasks and their tiers", ForeignManifest)
AWM1K_APP: Artifact[str] = Artifact("app.py", "text", "their FastAPI + SQLAlchemy environment code, run only in the "
                                    "OS-isolated foreign runtime")
AWM1K_SPEC: Artifact[Any] = Artifact("api_spec.json", "json", "their API spec (api_groups), as published")
IMPORTED = (AWM1K, AWM1K_APP, AWM1K_SPEC)  # written by no stage: by the import of another format

# Written by the harness, not by a stage's build function.
PROVENANCE: Artifact[Any] = Artifact("provenance.json", "json", "per stage: backend, params, code version, input "
                                     "and output hashes, metrics, duration")
ATTEMPTS: Artifact[Any] = Artifact("attempts.json", "json", "each stage's failed attempts and the errors fed back")
FAILED: Artifact[Failure] = Artifact("failed.json", "json", "only if a stage failed it: stage, check, reason", Failure)

ALL = (SCENARIO, TASKS, SCHEMA_JSON, SCHEMA_SQL, DATABASE, TOOLS_PY, TOOLS_JSON, VERIFIERS, REPORT, AWM1K, AWM1K_APP,
       AWM1K_SPEC, PROVENANCE, ATTEMPTS, FAILED)
