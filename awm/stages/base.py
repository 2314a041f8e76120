"""What every stage shares: skip-if-valid, failure isolation, atomic outputs, provenance."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from awm import __version__
from awm.contracts import Provenance
from awm.errors import AWMError, MissingArtifactError
from awm.store import ArtifactStore, sha256_file

STAGES = ("scenarios", "tasks", "schemas", "databases", "tools", "verification_reports")

# Errors that mean "this environment's output is bad", not "the platform is broken".
ENV_ERRORS = (AWMError, ValidationError, sqlite3.Error, ValueError, KeyError)

Artifact = str | bytes | Path  # text, bytes, or a finished temp file to move into place


@dataclass
class StageOutcome:
    env_id: str
    stage: str
    status: Literal["built", "cached", "failed", "skipped"]
    duration_ms: float = 0.0
    error: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status in ("built", "cached")


def code_version(stage: str, backend_params: dict) -> str:
    return f"{stage}:{__version__}:{backend_params.get('builder', 'llm')}"


def upstream_failure(store: ArtifactStore, env_id: str, stage: str) -> str | None:
    failure = store.failure(env_id)
    if failure and STAGES.index(failure.stage) < STAGES.index(stage):
        return f"upstream stage {failure.stage} failed: {failure.reason}"
    return None


def run_env_stage(
    store: ArtifactStore,
    stage: str,
    env_id: str,
    inputs: list[str],
    outputs: list[str],
    produce: Callable[[], tuple[dict[str, Artifact], dict[str, Any]]],
    backend: Any,
    force: bool = False,
) -> StageOutcome:
    """Run one stage for one environment.

    Skips the environment if an upstream stage failed it; reuses the existing
    outputs when their provenance shows the same inputs and code version (so a
    retry or a re-run of a range does no work twice); otherwise produces, writes
    every output atomically, and records provenance. A bad environment is
    recorded in failed.json and returned as a failed outcome, never raised.
    """
    blocked = upstream_failure(store, env_id, stage)
    if blocked:
        return StageOutcome(env_id, stage, "skipped", error=blocked)
    params = dict(getattr(backend, "params", {}))
    version = code_version(stage, params)
    try:
        in_hashes = {name: store.hash(env_id, name) for name in inputs}
    except FileNotFoundError as exc:
        reason = f"missing input {Path(exc.filename).name}: materialize the upstream stage first"
        store.mark_failed(env_id, stage, reason)
        return StageOutcome(env_id, stage, "failed", error=reason)
    previous = store.provenance(env_id).get(stage)
    if not force and previous and previous.inputs == in_hashes and previous.code_version == version:
        try:
            if all(store.hash(env_id, name) == previous.outputs.get(name) for name in outputs):
                return StageOutcome(env_id, stage, "cached", metrics=previous.metrics)
        except FileNotFoundError:
            pass
    started = time.perf_counter()
    store.sweep_temp(env_id, outputs)
    try:
        artifacts, metrics = produce()
    except ENV_ERRORS as exc:
        reason = f"{type(exc).__name__}: {exc}"
        store.mark_failed(env_id, stage, reason)
        return StageOutcome(env_id, stage, "failed", (time.perf_counter() - started) * 1000, reason)
    missing = [name for name in outputs if name not in artifacts]
    if missing:
        raise MissingArtifactError(f"stage {stage} did not produce {missing} for {env_id}")
    for name, content in artifacts.items():
        if isinstance(content, Path):
            store.write_file_from(env_id, name, content)
        elif isinstance(content, bytes):
            store.write_text(env_id, name, content.decode("utf-8"))
        else:
            store.write_text(env_id, name, content)
    duration = (time.perf_counter() - started) * 1000
    store.record_provenance(env_id, Provenance(
        stage=stage,
        backend=getattr(backend, "name", "unknown"),
        model=getattr(backend, "model", None),
        params=params,
        code_version=version,
        inputs=in_hashes,
        outputs={name: sha256_file(store.path(env_id, name)) for name in outputs},
        metrics=metrics,
        duration_ms=round(duration, 2),
    ))
    store.clear_failure(env_id, stage)
    return StageOutcome(env_id, stage, "built", duration, metrics=metrics)
