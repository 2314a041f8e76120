"""What every stage shares: skip-if-valid, failure isolation, atomic outputs, provenance, attempts.

Self-correction: when a stage rejects an environment's output, the error goes into the
environment's attempt log (attempts.json, one list per stage). The next attempt runs
inside an AttemptContext that carries those errors, so a generating backend can put
them into its prompt; the backend also reports its model calls into the context, and
their usage lands in the outcome and in provenance. Success clears the stage's log and
records the attempt count and the errors seen in provenance.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from awm import artifacts
from awm.attempts import AttemptContext, AttemptRecord, attempt_in_progress
from awm.contracts import Provenance
from awm.errors import AWMError, CorruptArtifactError, MissingArtifactError
from awm.registry import STAGE_NAMES, Stage, stage
from awm.store import ArtifactStore, atomic_write_text, dump_json, sha256_file

log = logging.getLogger(__name__)

STAGES = STAGE_NAMES  # in order; the declarations are in awm/registry.py

# Errors that mean "this environment's output is bad", not "the platform is broken".
ENV_ERRORS = (AWMError, ValidationError, sqlite3.Error, ValueError, KeyError)

Output = str | bytes | Path  # text, bytes, or a finished temp file to move into place

ATTEMPT_LOG = artifacts.ATTEMPTS.name
MAX_LOGGED_ATTEMPTS = 10  # per stage; older failures are dropped
LOGGED_ERROR_CHARS = 4000
LOGGED_ANSWER_CHARS = 16000  # a rejected answer kept for the next prompt (about 4K tokens)


@dataclass
class StageOutcome:
    env_id: str
    stage: str
    status: Literal["built", "cached", "failed", "skipped"]
    duration_ms: float = 0.0
    error: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    attempt: int = 1  # this environment's attempt at this stage (1 + failures in its attempt log)
    usage: dict[str, Any] = field(default_factory=dict)  # model calls of this attempt (empty when none)

    @property
    def ok(self) -> bool:
        return self.status in ("built", "cached")




def read_attempts(store: ArtifactStore, env_id: str, stage: str) -> list[AttemptRecord]:
    path = store.path(env_id, ATTEMPT_LOG)
    if not path.exists():
        return []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return [AttemptRecord(**entry) for entry in data.get(stage, [])]
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError, AttributeError):
        path.unlink(missing_ok=True)  # a damaged log only loses feedback; start afresh
        return []


def _write_attempts(store: ArtifactStore, env_id: str, stage: str, records: list[AttemptRecord]) -> None:
    path = store.path(env_id, ATTEMPT_LOG)
    data = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    if records:
        data[stage] = [asdict(r) for r in records[-MAX_LOGGED_ATTEMPTS:]]
    else:
        data.pop(stage, None)
    if data:
        atomic_write_text(path, dump_json(data))
    else:
        path.unlink(missing_ok=True)


def _rejected_answer(exc: Exception, context: AttemptContext) -> str | None:
    """What the model wrote that this attempt rejected, trimmed for the next prompt: the answer the client
    could not accept, or the stage's one answer that the stage then rejected (None for endpoint failures and
    stages of many calls)."""
    if not getattr(exc, "feedback", True):
        return None
    answer = getattr(exc, "answer", None)
    if answer is None:
        answered = [c for c in context.calls if getattr(c, "response", None) and not getattr(c, "subject", None)]
        answer = answered[-1].response if len(answered) == 1 else None
    if not answer:
        return None
    if len(answer) > LOGGED_ANSWER_CHARS:
        cut = len(answer) - LOGGED_ANSWER_CHARS
        answer = f"{answer[:LOGGED_ANSWER_CHARS]}...[{cut} more characters not shown]"
    return answer


def _usage(calls: list[Any]) -> dict[str, Any]:
    if not calls:
        return {}
    from awm.llm.ledger import summarize

    return summarize(calls)


def code_version(stage_name: str, backend_params: dict, backend: Any = None) -> str:
    """What must match for a stage's earlier output to be reused: the stage's declared code version
    (stage, platform version, revision), the generator, and the generator's fingerprint of the stage: the
    digest of the source and data files that shape the stage's output (awm/sources.py), and for a model its
    prompt hash, model and sampling parameters."""
    version = f"{stage(stage_name).code_version}:{backend_params.get('builder', 'llm')}"
    fingerprint = getattr(backend, "fingerprint", None)
    return f"{version}:{fingerprint(stage_name)}" if callable(fingerprint) else version


def upstream_failure(store: ArtifactStore, env_id: str, stage_name: str) -> str | None:
    failure = store.failure(env_id)
    if failure and stage(failure.stage).before(stage(stage_name)):
        return f"upstream stage {failure.stage} failed: {failure.reason}"
    return None


def _recorded_provenance(store: ArtifactStore, env_id: str, stage: str) -> tuple[Provenance | None, str | None]:
    """The stage's provenance record, if any, and why the environment's provenance was discarded, if it was.

    A damaged provenance.json vouches for nothing: it is set aside (provenance.json.corrupt), so this
    stage and every later one rebuild the environment as if it had never been built, and the reason is
    kept in the new record's metrics. Without this, one truncated file failed its whole step on every run.
    """
    try:
        return store.provenance(env_id).get(stage), None
    except CorruptArtifactError as exc:
        aside = store.set_aside(env_id, artifacts.PROVENANCE.name)
        reason = f"{exc}; set aside as {aside.name}, the environment is rebuilt"
        log.warning("%s: %s", env_id, reason)
        return None, reason


def run_env_stage(
    store: ArtifactStore,
    spec: Stage,
    env_id: str,
    produce: Callable[[], tuple[dict[str, Output], dict[str, Any]]],
    backend: Any,
    force: bool = False,
) -> StageOutcome:
    """Run one stage for one environment: `produce` returns the stage's outputs by file name, and metrics.

    Skips the environment if an upstream stage failed it; reuses the existing
    outputs when their provenance shows the same inputs and code version (so a
    retry or a re-run of a range does no work twice); otherwise produces, writes
    every output atomically, and records provenance. A bad environment is
    recorded in failed.json and returned as a failed outcome, never raised.
    """
    stage = spec.name
    inputs = [a.name for a in spec.inputs]
    outputs = [a.name for a in spec.outputs]
    store.sweep_temp(env_id)
    blocked = upstream_failure(store, env_id, stage)
    if blocked:
        return StageOutcome(env_id, stage, "skipped", error=blocked)
    params = dict(getattr(backend, "params", {}))
    version = code_version(stage, params, backend)
    try:
        in_hashes = {name: store.hash(env_id, name) for name in inputs}
    except FileNotFoundError as exc:
        reason = f"missing input {Path(exc.filename).name}: materialize the upstream stage first"
        store.mark_failed(env_id, stage, reason)
        return StageOutcome(env_id, stage, "failed", error=reason)
    previous, discarded = _recorded_provenance(store, env_id, stage)
    if not force and previous and previous.inputs == in_hashes and previous.code_version == version:
        try:
            if all(store.hash(env_id, name) == previous.outputs.get(name) for name in outputs):
                return StageOutcome(env_id, stage, "cached", metrics=previous.metrics)
        except FileNotFoundError:
            pass
    started = time.perf_counter()
    previous_attempts = read_attempts(store, env_id, stage)
    context = AttemptContext(stage, env_id, len(previous_attempts) + 1, previous_attempts)
    with attempt_in_progress(context):
        try:
            artifacts, metrics = produce()
        except ENV_ERRORS as exc:
            reason = f"{type(exc).__name__}: {exc}"
            store.mark_failed(env_id, stage, reason)
            _write_attempts(store, env_id, stage, previous_attempts + [AttemptRecord(
                attempt=context.attempt, error=reason[:LOGGED_ERROR_CHARS],
                details={k: str(v)[:LOGGED_ERROR_CHARS] for k, v in dict(getattr(exc, "details", {}) or {}).items()},
                feedback=bool(getattr(exc, "feedback", True)), answer=_rejected_answer(exc, context))])
            reject = getattr(backend, "reject", None)
            if callable(reject):
                reject(context)  # the backend forgets the responses that led to this output
            return StageOutcome(env_id, stage, "failed", (time.perf_counter() - started) * 1000, reason,
                                attempt=context.attempt, usage=_usage(context.calls))
    if discarded:
        metrics = {**metrics, "provenance_discarded": discarded}
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
    usage = _usage(context.calls)
    prompt_hash = getattr(backend, "prompt_hash", None)
    store.record_provenance(env_id, Provenance(
        stage=stage,
        backend=getattr(backend, "name", "unknown"),
        model=getattr(backend, "model", None),
        prompt_hash=prompt_hash(stage) if callable(prompt_hash) else None,
        params=params,
        attempts=context.attempt,
        errors=[r.error[:1000] for r in previous_attempts],
        code_version=version,
        inputs=in_hashes,
        outputs={name: sha256_file(store.path(env_id, name)) for name in outputs},
        metrics={**metrics, "llm_usage": usage} if usage else metrics,
        duration_ms=round(duration, 2),
    ))
    store.clear_failure(env_id, stage)
    if previous_attempts:
        _write_attempts(store, env_id, stage, [])
    return StageOutcome(env_id, stage, "built", duration, metrics=metrics, attempt=context.attempt, usage=usage)
