"""One stage's attempt at one environment: the earlier failures a generating backend may learn from.

The stages' harness (awm.stages.base) runs each attempt inside an AttemptContext that carries the errors
of the environment's earlier attempts (its attempt log, attempts.json); a backend reads them with
`current_attempt()` to put them into its prompt, and reports its model calls into the context."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class AttemptRecord:
    """One failed attempt at a stage, as kept in the attempt log."""

    attempt: int
    error: str
    details: dict[str, str] = field(default_factory=dict)  # e.g. task id -> what was wrong with its verifier
    feedback: bool = True  # False for failures that are not the output's fault (an endpoint that was down)
    answer: str | None = None  # the rejected answer (trimmed), shown to the model beside the error


@dataclass
class AttemptContext:
    """What a backend may know about the attempt it is producing output for."""

    stage: str
    env_id: str
    attempt: int
    previous: list[AttemptRecord] = field(default_factory=list)
    calls: list[Any] = field(default_factory=list)  # model call records the backend reports

    def errors_for(self, subject: str | None = None) -> list[str]:
        """Errors worth showing the model, oldest first: all of them, or those about one subject."""
        errors = []
        for record in self.previous:
            if not record.feedback:
                continue
            if subject is not None and record.details:
                if subject in record.details:
                    errors.append(record.details[subject])
            else:
                errors.append(record.error)
        return errors

    def last_answer(self, subject: str | None = None) -> str | None:
        """The newest rejected answer worth showing the model again (stage-wide answers only: a per-subject
        error, such as one verifier's proof, is about an answer the model gives again anyway)."""
        for record in reversed(self.previous):
            if record.feedback and record.answer and (subject is None or not record.details):
                return record.answer
        return None


_CURRENT_ATTEMPT: contextvars.ContextVar[AttemptContext | None] = contextvars.ContextVar("awm_attempt", default=None)


def current_attempt() -> AttemptContext | None:
    """The attempt the calling thread is producing output for, if any."""
    return _CURRENT_ATTEMPT.get()


@contextlib.contextmanager
def attempt_in_progress(context: AttemptContext) -> Iterator[AttemptContext]:
    """Make `context` the calling thread's current attempt for the duration of the block."""
    token = _CURRENT_ATTEMPT.set(context)
    try:
        yield context
    finally:
        _CURRENT_ATTEMPT.reset(token)
