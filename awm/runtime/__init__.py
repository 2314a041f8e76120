"""Running environments: episodes, sandboxed tool calls, scoring, and the MCP server.

The public API (imported lazily, so a sandbox worker importing awm.runtime.worker
pays for none of it):

    from awm.runtime import open_environment
    env = open_environment("retail_banking__00")
    with env.reset("t01") as episode:
        episode.call("search_customers", {"query": "ann"})
        episode.score()   # {"reward", "complete", "evidence"}
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "open_environment": "awm.runtime.environment",
    "Environment": "awm.runtime.environment",
    "Episode": "awm.runtime.environment",
    "RewardMapping": "awm.runtime.environment",
    "WorkerPool": "awm.runtime.pool",
    "SandboxError": "awm.runtime.pool",
    "is_error": "awm.runtime.tools",
    "tool_error": "awm.runtime.tools",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'awm.runtime' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
