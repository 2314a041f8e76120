"""The database handle generated code gets: query, one, execute; nothing else.

The handle wraps a sqlite3 connection whose authorizer refuses ATTACH, DETACH,
PRAGMA and extension loading, so generated code reaches only its own database.
A read-only handle (verifiers) also refuses every write. A progress handler
interrupts a query that runs past the call's deadline.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

_DENY_ALWAYS = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA}
_WRITES = {
    sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE, sqlite3.SQLITE_CREATE_TABLE,
    sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_CREATE_INDEX,
    sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_CREATE_TRIGGER, sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_CREATE_TEMP_TABLE,
    sqlite3.SQLITE_CREATE_TEMP_TRIGGER, sqlite3.SQLITE_CREATE_TEMP_VIEW, sqlite3.SQLITE_CREATE_TEMP_INDEX,
}
_FUNCTION = getattr(sqlite3, "SQLITE_FUNCTION", 31)


def _authorizer_rw(action: int, arg1: Any, arg2: Any, db_name: Any, source: Any) -> int:
    if action in _DENY_ALWAYS:
        return sqlite3.SQLITE_DENY
    if action == _FUNCTION and arg2 in ("load_extension", "readfile", "writefile"):
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _authorizer_ro(action: int, arg1: Any, arg2: Any, db_name: Any, source: Any) -> int:
    if action in _WRITES:
        return sqlite3.SQLITE_DENY
    return _authorizer_rw(action, arg1, arg2, db_name, source)


def _row_factory(cursor: sqlite3.Cursor, row: tuple) -> dict:
    return {d[0]: v for d, v in zip(cursor.description, row)}


def open_template(path: Path) -> sqlite3.Connection:
    """A read-only connection to a database file (a template or an initial state)."""
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    return conn


def fresh_copy(template: sqlite3.Connection) -> sqlite3.Connection:
    """An in-memory copy of `template` (SQLite backup API), private to one episode."""
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    template.backup(conn)
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


class DBHandle:
    """What generated code sees of a database."""

    __slots__ = ("_conn", "_deadline", "_readonly")

    def __init__(self, conn: sqlite3.Connection, readonly: bool = False):
        self._conn = conn
        self._readonly = readonly
        self._deadline = 0.0
        conn.row_factory = _row_factory
        conn.set_authorizer(_authorizer_ro if readonly else _authorizer_rw)
        conn.set_progress_handler(self._progress, 2000)

    def _progress(self) -> int:
        return 1 if self._deadline and time.monotonic() > self._deadline else 0

    def set_deadline(self, seconds: float | None) -> None:
        self._deadline = time.monotonic() + seconds if seconds else 0.0

    def query(self, sql: str, params: list | tuple = ()) -> list[dict]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    def one(self, sql: str, params: list | tuple = ()) -> dict | None:
        return self._conn.execute(sql, tuple(params)).fetchone()

    def execute(self, sql: str, params: list | tuple = ()) -> dict:
        cursor = self._conn.execute(sql, tuple(params))
        return {"rowcount": cursor.rowcount, "lastrowid": cursor.lastrowid}

    def release(self) -> sqlite3.Connection:
        """Give back the connection with the sandbox hooks removed (for the runtime, not generated code)."""
        self._conn.set_authorizer(None)
        self._conn.set_progress_handler(None, 0)
        self._conn.row_factory = None
        return self._conn
