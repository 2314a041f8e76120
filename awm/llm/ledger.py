"""The token and cost ledger: one row per model call (cache hits included), in SQLite under AWM_HOME.

Costs come from a configurable price table (USD per million tokens). A call whose
server sent no `usage`, or whose model has no price, is counted as such rather than
guessed: `calls_without_usage` and `unpriced_calls` say how much of a total is known.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from awm.llm.cache import open_sqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS calls (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT NOT NULL,
    run_id TEXT,
    stage TEXT NOT NULL,
    domain TEXT,
    env_id TEXT,
    subject TEXT,
    attempt INTEGER,
    model TEXT NOT NULL,
    cache_key TEXT NOT NULL,
    cache_hit INTEGER NOT NULL,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_ms REAL NOT NULL,
    cost_usd REAL,
    transport_retries INTEGER NOT NULL,
    structured_output TEXT,
    outcome TEXT NOT NULL,
    error TEXT,
    requests INTEGER NOT NULL DEFAULT 0,
    max_tokens INTEGER,
    clamped TEXT,
    repair TEXT
);
CREATE INDEX IF NOT EXISTS calls_by_run ON calls (run_id, stage);
CREATE INDEX IF NOT EXISTS calls_by_domain ON calls (domain);
"""


@dataclass
class CallRecord:
    """One logical call: a cache hit, or one HTTP exchange (with its transport retries)."""

    stage: str
    model: str
    cache_key: str
    cache_hit: bool
    latency_ms: float
    outcome: str = "ok"  # ok | invalid | truncated | rejected | refused | too_long | transport_error | interrupted
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    transport_retries: int = 0
    structured_output: str | None = None
    error: str | None = None
    run_id: str | None = None
    domain: str | None = None
    env_id: str | None = None
    subject: str | None = None  # e.g. the task a verifier was written for
    attempt: int | None = None
    requests: int = 0  # HTTP requests made (transport retries and format step-downs included; 0 for a hit)
    max_tokens: int | None = None  # the completion limit sent
    clamped: str | None = None  # why max_tokens was lowered to fit the context
    repair: str | None = None  # the safe repair the answer needed (awm/llm/repair.py)
    keep: bool = field(default=False, compare=False)  # the stage may keep this response even if it fails
    response: str | None = field(default=None, compare=False, repr=False)  # the answer's text (not in the ledger)

    @property
    def usage_missing(self) -> bool:
        return not self.cache_hit and self.outcome in ("ok", "invalid", "truncated", "rejected") and \
            self.prompt_tokens is None


USAGE_KEYS = ("llm_calls", "llm_api_calls", "llm_cache_hits", "llm_prompt_tokens", "llm_completion_tokens",
              "llm_cost_usd", "llm_unpriced_calls", "llm_calls_without_usage", "llm_transport_retries",
              "llm_invalid_responses", "llm_requests", "llm_endpoint_errors", "llm_repairs", "llm_clamped_calls")
NOT_ANSWERED = ("transport_error", "refused", "too_long", "interrupted")  # outcomes where no answer was read
_NEW_COLUMNS = {"requests": "INTEGER NOT NULL DEFAULT 0", "max_tokens": "INTEGER", "clamped": "TEXT", "repair": "TEXT"}
_NOT_STORED = ("keep", "response")


def summarize(records: Iterable[CallRecord]) -> dict[str, Any]:
    """Totals of a set of calls; tokens and cost count only calls that reached the model (not cache hits)."""
    total = dict.fromkeys(USAGE_KEYS, 0)
    total["llm_cost_usd"] = 0.0
    modes: dict[str, int] = {}
    for r in records:
        total["llm_calls"] += 1
        total["llm_transport_retries"] += r.transport_retries
        if r.cache_hit:
            total["llm_cache_hits"] += 1
            continue
        total["llm_api_calls"] += 1
        total["llm_requests"] += r.requests
        total["llm_endpoint_errors"] += r.outcome in NOT_ANSWERED
        total["llm_repairs"] += r.repair is not None
        total["llm_clamped_calls"] += r.clamped is not None
        if r.structured_output and r.outcome not in NOT_ANSWERED:
            modes[r.structured_output] = modes.get(r.structured_output, 0) + 1
        total["llm_invalid_responses"] += r.outcome in ("invalid", "truncated", "rejected")
        if r.usage_missing:
            total["llm_calls_without_usage"] += 1
        total["llm_prompt_tokens"] += r.prompt_tokens or 0
        total["llm_completion_tokens"] += r.completion_tokens or 0
        if r.cost_usd is None:
            total["llm_unpriced_calls"] += r.outcome not in NOT_ANSWERED
        else:
            total["llm_cost_usd"] += r.cost_usd
    total["llm_cost_usd"] = round(total["llm_cost_usd"], 6)
    # the structured-output mode of each answered request, e.g. "json_object_schema 3, json_object 1"
    total["llm_structured_output_modes"] = ", ".join(f"{m} {n}" for m, n in sorted(modes.items())) or "none asked"
    return total


class Ledger:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._conn()

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = open_sqlite(self.path, SCHEMA)
            have = {row[1] for row in conn.execute("PRAGMA table_info(calls)")}
            for name, kind in _NEW_COLUMNS.items():  # a ledger written before these columns existed
                if name not in have:
                    try:
                        conn.execute(f"ALTER TABLE calls ADD COLUMN {name} {kind}")
                    except sqlite3.OperationalError as exc:
                        if "duplicate column" not in str(exc):  # another process added it meanwhile
                            raise
        return conn

    def record(self, rec: CallRecord) -> None:
        row = asdict(rec)
        for name in _NOT_STORED:
            row.pop(name)
        row["at"] = datetime.now(UTC).isoformat(timespec="milliseconds")
        row["cache_hit"] = int(rec.cache_hit)
        columns = ", ".join(row)
        self._conn().execute(f"INSERT INTO calls ({columns}) VALUES ({', '.join('?' for _ in row)})",
                             tuple(row.values()))

    def records(self, run_id: str | None = None, stage: str | None = None,
                domains: list[str] | None = None) -> list[CallRecord]:
        where, params = [], []
        if run_id is not None:
            where.append("run_id = ?")
            params.append(run_id)
        if stage is not None:
            where.append("stage = ?")
            params.append(stage)
        if domains is not None:
            where.append(f"domain IN ({', '.join('?' for _ in domains)})")
            params.extend(domains)
        clause = f" WHERE {' AND '.join(where)}" if where else ""
        names = [f for f in CallRecord.__dataclass_fields__ if f not in _NOT_STORED]
        rows = self._conn().execute(f"SELECT {', '.join(names)} FROM calls{clause} ORDER BY id", params).fetchall()
        return [CallRecord(**{**dict(zip(names, row)), "cache_hit": bool(row[names.index("cache_hit")])})
                for row in rows]

    def cost_by_domain(self, domains: list[str] | None = None) -> dict[str, dict[str, Any]]:
        """Per domain, over every run and stage: calls, cache hits, tokens and cost."""
        by_domain: dict[str, list[CallRecord]] = {}
        for rec in self.records(domains=domains):
            by_domain.setdefault(rec.domain or "?", []).append(rec)
        return {domain: summarize(recs) for domain, recs in sorted(by_domain.items())}
