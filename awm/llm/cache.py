"""The response cache: content-addressed by (model, messages, parameters), in SQLite under AWM_HOME.

Only responses that parsed and matched their output schema are stored, and a stage
whose output was rejected downstream evicts the responses it used, so a hit is always
a response that once produced a valid artifact. Safe across threads (a connection
per thread) and processes (SQLite locking, WAL journal).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    stage TEXT NOT NULL,
    content TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created_at TEXT NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
)
"""


def cache_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    """sha256 of the canonical JSON of everything that determines a response."""
    canonical = json.dumps({"model": model, "messages": messages, "params": params}, sort_keys=True,
                           separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    content: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


def open_sqlite(path: Path, schema: str) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.executescript(schema)
    return conn


class ResponseCache:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._conn()  # create the file and table now, so a bad path fails early

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = open_sqlite(self.path, SCHEMA)
        return conn

    def get(self, key: str) -> CachedResponse | None:
        row = self._conn().execute(
            "SELECT content, finish_reason, prompt_tokens, completion_tokens FROM responses WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        self._conn().execute("UPDATE responses SET hits = hits + 1 WHERE key = ?", (key,))
        return CachedResponse(*row)

    def put(self, key: str, model: str, stage: str, response: CachedResponse) -> None:
        self._conn().execute(
            "INSERT OR REPLACE INTO responses (key, model, stage, content, finish_reason, prompt_tokens, "
            "completion_tokens, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key, model, stage, response.content, response.finish_reason, response.prompt_tokens,
             response.completion_tokens, datetime.now(UTC).isoformat(timespec="seconds")),
        )

    def evict(self, keys: list[str]) -> int:
        if not keys:
            return 0
        cursor = self._conn().executemany("DELETE FROM responses WHERE key = ?", [(k,) for k in keys])
        return cursor.rowcount

    def __len__(self) -> int:
        return self._conn().execute("SELECT COUNT(*) FROM responses").fetchone()[0]
