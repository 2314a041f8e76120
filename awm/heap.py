"""The cyclic garbage collector, kept off work it cannot help with.

A stage process holds ~400K objects that live as long as it does (Dagster, great-expectations,
pydantic models); each full collection scans all of them, ~0.3 s on this machine, and the
stages' allocation bursts (parsing generated modules, building reports) trigger one every few
environments. Two remedies, both measured in benchmarks/bench_checks.py:

  freeze_imports  after the heavy imports, move what exists into the permanent generation
                  (gc.freeze), so full collections scan only what the stages made since;
  paused_gc       no collection during a burst of acyclic allocation (an AST: refcounting
                  frees every node), so the nodes are never scanned at all.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def freeze_imports() -> None:
    """Exempt every object alive now from future collections (call right after importing, not later:
    a cycle that becomes garbage after this is never freed)."""
    gc.freeze()


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic collector off for the body, and back as it was after it.

    Parsing a generated tools module allocates tens of thousands of AST nodes, none in a cycle;
    measured in a process with great-expectations loaded, ~3 ms of parsing cost ~13 ms with the
    collector on. Keep the tree inside the body: nodes still alive when the collector resumes
    are scanned after all.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
