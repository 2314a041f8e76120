"""The cooperative lock that lets stage work run in turns while model calls overlap.

Shared by the stages' harness (which holds it while a worker thread builds an environment) and the LLM
client and backend (which let go of it while they wait on the network)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator


class CooperativeLock:
    """Serialises stage work across threads; the holder gives it up while it waits on the network.

    Environments are built concurrently only so that model calls overlap; everything else a stage
    does (parsing generated code, SQLite, proofs) is CPU-bound under the GIL anyway, and CPython's
    ast module is not safe to use from several threads at once. So a worker thread holds this lock
    while it runs a stage and releases it around a model call (the LLM client does)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner: int | None = None

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        self._lock.acquire()
        self._owner = threading.get_ident()
        try:
            yield
        finally:
            self._owner = None
            self._lock.release()

    @contextlib.contextmanager
    def released(self) -> Iterator[None]:
        """Let other stage work run meanwhile, if this thread holds the lock; otherwise a no-op."""
        if self._owner != threading.get_ident():
            yield
            return
        self._owner = None
        self._lock.release()
        try:
            yield
        finally:
            self._lock.acquire()
            self._owner = threading.get_ident()


STAGE_WORK = CooperativeLock()
