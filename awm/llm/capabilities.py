"""What each endpoint was found to accept, remembered across calls, clients and processes.

One row per (endpoint, model) in AWM_HOME/llm/endpoints.sqlite: the profile recognised from GET /models, the
context window the server reported, and the structured-output mode that works after the refusals met so far (with
the refusal that made the client step down). A Dagster step runs in its own process; without this memory every
step would meet the same refusal again.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from awm.llm.cache import open_sqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS endpoints (
    base_url TEXT NOT NULL,
    model TEXT NOT NULL,
    profile TEXT,
    context_tokens INTEGER,
    mode TEXT,
    refusal TEXT,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (base_url, model)
)
"""


@dataclass
class Endpoint:
    profile: str | None = None  # recognised from GET /models (None: not recognised or not probed)
    context_tokens: int | None = None  # what the server reported
    mode: str | None = None  # the structured-output mode that works (None: not stepped down)
    refusal: str | None = None  # the server's words when it refused the mode before `mode`
    probed: bool = False


class EndpointMemory:
    """A process-wide dictionary per SQLite file in front of it; without a file, the client's own dictionary."""

    _process: dict[str | None, dict[tuple[str, str], Endpoint]] = {}
    _lock = threading.Lock()

    def __init__(self, path: Path | None):
        self.path = Path(path) if path is not None else None
        self._local = threading.local()
        with self._lock:
            self._known = self._process.setdefault(str(self.path), {}) if self.path is not None else {}

    def _conn(self):
        conn = getattr(self._local, "conn", None)
        if conn is None and self.path is not None:
            conn = self._local.conn = open_sqlite(self.path, SCHEMA)
        return conn

    def get(self, base_url: str, model: str) -> Endpoint | None:
        with self._lock:
            known = self._known.get((base_url, model))
        if known is not None:
            return known
        conn = self._conn()
        if conn is None:
            return None
        row = conn.execute("SELECT profile, context_tokens, mode, refusal FROM endpoints WHERE base_url = ? AND "
                           "model = ?", (base_url, model)).fetchone()
        if row is None:
            return None
        endpoint = Endpoint(*row, probed=True)
        with self._lock:
            self._known[(base_url, model)] = endpoint
        return endpoint

    def put(self, base_url: str, model: str, endpoint: Endpoint) -> None:
        with self._lock:
            self._known[(base_url, model)] = endpoint
        conn = self._conn()
        if conn is not None:
            conn.execute(
                "INSERT OR REPLACE INTO endpoints (base_url, model, profile, context_tokens, mode, refusal, updated_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (base_url, model, endpoint.profile, endpoint.context_tokens, endpoint.mode, endpoint.refusal,
                 datetime.now(UTC).isoformat(timespec="seconds")))
