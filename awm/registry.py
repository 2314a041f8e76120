"""The stage registry: every stage declared once, in order. Everything else derives from it.

A stage has one name in every layer: its core module awm/stages/<name>.py, its Dagster asset (and asset
module awm_assets/<name>.py), its checks (checks/<name>.py: `<name>_valid`, `<name>_yield`) and its
quality rules (awm/quality/<name>.py). Each stage module defines one build function,

    build(store, env_id, backend, force=False) -> StageOutcome

that reads the stage's inputs, asks the backend for its output, runs the stage's gate on it and hands it
to the harness (awm/stages/base.py: reuse, failure isolation, atomic writes, provenance). The harness, the
core pipeline, the Dagster assets and checks, the launcher's progress, the GraphQL client and the stage
table in docs/architecture.md are all read from here.

`code_version` is the declared part of what the provenance records and Dagster shows as the asset's code
version: the stage, the platform version and an optional per-stage revision. The harness appends the
generator and its fingerprint of the stage per run (the backend is chosen at run time): for the offline
builder, the digest of every source and data file that shapes the stage's output (awm/sources.py), so a
code change rebuilds the stages it touches without a bump. Bump the revision of one stage (or
awm.__version__ for all) only to rebuild when nothing the digest sees changed.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from awm import __version__, artifacts
from awm.artifacts import Artifact

if TYPE_CHECKING:
    from awm.stages.base import StageOutcome
    from awm.store import ArtifactStore

BuildFn = Callable[["ArtifactStore", str, Any, bool], "StageOutcome"]


@dataclass(frozen=True)
class Stage:
    name: str
    summary: str  # what it produces per environment, one line (the docs' table)
    inputs: tuple[Artifact, ...]  # files it reads (their hashes decide reuse)
    outputs: tuple[Artifact, ...]  # files it writes, all or none
    gate: str  # what its own gate proves before anything is written (awm/quality)
    revision: int = 0  # bump to invalidate this stage's earlier outputs alone
    in_slot_order: bool = False  # a domain's environments are built one after the other (each sees the earlier)

    @property
    def module(self) -> str:
        return f"awm.stages.{self.name}"

    @property
    def build(self) -> BuildFn:
        """The stage's build function (its module is imported on first use)."""
        return importlib.import_module(self.module).build

    @property
    def code_version(self) -> str:
        return f"{self.name}:{__version__}" + (f"+{self.revision}" if self.revision else "")

    @property
    def number(self) -> int:
        return STAGES.index(self) + 1

    @property
    def upstream(self) -> Stage | None:
        return STAGES[self.number - 2] if self.number > 1 else None

    @property
    def last_output(self) -> Artifact:
        """Written last: its presence means the stage built the environment."""
        return self.outputs[-1]

    @property
    def valid_check(self) -> str:
        return f"{self.name}_valid"

    @property
    def yield_check(self) -> str:
        return f"{self.name}_yield"

    def before(self, other: Stage) -> bool:
        return self.number < other.number


STAGES: tuple[Stage, ...] = (
    Stage("scenarios", "a sub-business of the domain per slot", (), (artifacts.SCENARIO,),
          "its id and domain are its own; not a near-duplicate of the domain's earlier scenarios",
          in_slot_order=True),
    Stage("tasks", "N single-sentence user tasks with reference solutions and goals", (artifacts.SCENARIO,),
          (artifacts.TASKS,), "the number asked for, no two alike, each self-contained",
          revision=1),  # 1: reference calls in the environment's API style
    Stage("schemas", "the SQLite schema: contract and DDL", (artifacts.SCENARIO, artifacts.TASKS),
          (artifacts.SCHEMA_JSON, artifacts.SCHEMA_SQL),
          "one primary key per table, resolvable foreign keys, no authentication data; the DDL executes"),
    Stage("databases", "the initial state, deterministic for a seed",
          (artifacts.SCENARIO, artifacts.SCHEMA_JSON, artifacts.SCHEMA_SQL), (artifacts.DATABASE,),
          "rows insert under the constraints, foreign keys hold, enough rows, the schema's expectations"),
    # env.db is an input: the gate smoke-calls every tool against it
    Stage("tools", "the tool API: implementations and MCP specs",
          (artifacts.SCENARIO, artifacts.SCHEMA_JSON, artifacts.TASKS, artifacts.DATABASE),
          (artifacts.TOOLS_PY, artifacts.TOOLS_JSON),
          "sandbox policy, specs match the code, a smoke call per tool, every table reachable",
          revision=1),  # 1: tools named, paged, filtered and erring in the environment's API style
    Stage("verification_reports", "a verifier per task and the proofs of each",
          (artifacts.SCENARIO, artifacts.TASKS, artifacts.SCHEMA_JSON, artifacts.DATABASE, artifacts.TOOLS_PY,
           artifacts.TOOLS_JSON), (artifacts.VERIFIERS, artifacts.REPORT),
          "reference passes, null fails, deterministic and read-only, mutants rejected, alternatives accepted",
          revision=1),  # 1: inserted rows whole in the footprint; the proofs about rows a task creates
)

STAGE_NAMES: tuple[str, ...] = tuple(s.name for s in STAGES)
_BY_NAME = {s.name: s for s in STAGES}

# The unpartitioned asset that publishes what passed every stage (awm/stages/catalog.py).
CATALOG = "environment_catalog"
CATALOG_REVISION = 2  # 1: the catalog metadata reports the task variety; 2: and the API styles
CATALOG_CODE_VERSION = f"{CATALOG}:{__version__}" + (f"+{CATALOG_REVISION}" if CATALOG_REVISION else "")


def stage(name: str) -> Stage:
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no stage named {name!r}; the stages are {', '.join(STAGE_NAMES)}") from None


def markdown_table() -> str:
    """The stage table of docs/architecture.md."""
    rows = ["| # | stage | reads | writes | its gate proves | code version |", "|---|---|---|---|---|---|"]
    for s in STAGES:
        reads = ", ".join(a.name for a in s.inputs) or "-"
        rows.append(f"| {s.number} | `{s.name}`: {s.summary} | {reads} | {', '.join(a.name for a in s.outputs)} | "
                    f"{s.gate} | `{s.code_version}` |")
    return "\n".join(rows)
