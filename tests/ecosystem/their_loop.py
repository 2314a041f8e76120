"""AWM's agent (`awm.core.agent.run_agent`) run to its end on an event loop of its own, for the scripts that run in
AWM's agent's virtualenv (stdlib only: their package is named `awm` too, so the project is not on the path).

Their agent enters and leaves mcp_agent's app around every MCP call, and mcp_agent's event bus
(`AsyncEventBus._process_events`) outlives `run_agent` and sometimes ignores cancellation; `asyncio.run` waits
for such a task forever (docs/awm1k.md, "Their code on our export"). Here what is left is cancelled and waited
for a bounded time, and the tasks that did not end are reported, never waited for."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine


def run_bounded(coroutine: Coroutine, seconds: float, cancel_seconds: float = 10.0) -> tuple[float, list[str]]:
    """Run `coroutine` (at most `seconds`: TimeoutError past that) on a new loop, then cancel the tasks it left
    and wait for them at most `cancel_seconds`. Returns the seconds the coroutine took and the names of the
    tasks that did not end."""
    loop = asyncio.new_event_loop()
    started = time.perf_counter()
    try:
        loop.run_until_complete(asyncio.wait_for(coroutine, seconds))
        took = time.perf_counter() - started
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=cancel_seconds))
    stuck = [t.get_coro().__qualname__ for t in pending if not t.done()]
    if not stuck:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
    return took, stuck
