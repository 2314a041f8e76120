"""The database handle generated code gets: query, one, execute; nothing else.

The handle wraps a sqlite3 connection whose authorizer refuses ATTACH (which
VACUUM INTO also needs), DETACH, PRAGMA, transaction control and extension
loading, so generated code reaches only its own in-memory database and cannot
commit or undo around the runtime's savepoint. The one savepoint the runtime
uses has a per-process random name that generated code cannot know. A read-only
handle (verifiers) also refuses every write, with `query_only` set underneath: on a
private copy of the initial state, or on an episode's own connection for the length
of one judgement (`_reader`, then `_restore`). A progress handler interrupts a query that runs past the call's
deadline, and SQLite's own limits cap the size of one value and one statement; an episode's
database is capped in pages (`_cap_size`).

Generated code never holds a DBHandle itself: each call or judgement gets a `CallView` of it,
which dies when the call ends, so a handle kept somewhere raises instead of reaching a database
it no longer belongs to.
"""

from __future__ import annotations

import secrets
import sqlite3
import time
from pathlib import Path
from typing import Any

_DENY_ALWAYS = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA, sqlite3.SQLITE_TRANSACTION}
_WRITES = {
    sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE, sqlite3.SQLITE_CREATE_TABLE,
    sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_ALTER_TABLE, sqlite3.SQLITE_CREATE_INDEX,
    sqlite3.SQLITE_DROP_INDEX, sqlite3.SQLITE_CREATE_TRIGGER, sqlite3.SQLITE_DROP_TRIGGER,
    sqlite3.SQLITE_CREATE_VIEW, sqlite3.SQLITE_DROP_VIEW, sqlite3.SQLITE_CREATE_TEMP_TABLE,
    sqlite3.SQLITE_CREATE_TEMP_TRIGGER, sqlite3.SQLITE_CREATE_TEMP_VIEW, sqlite3.SQLITE_CREATE_TEMP_INDEX,
}
_ROW_WRITES = {sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE}
_FUNCTION = getattr(sqlite3, "SQLITE_FUNCTION", 31)
_SAVEPOINT = getattr(sqlite3, "SQLITE_SAVEPOINT", 32)
_DENIED_FUNCTIONS = {"load_extension", "readfile", "writefile", "edit", "fts3_tokenizer"}

# The runtime's savepoint; generated code cannot name it, so it cannot release or roll it back.
_SAVEPOINT_NAME = f"awm_{secrets.token_hex(8)}"

MAX_VALUE_BYTES = 16 * 1024 * 1024
MAX_SQL_BYTES = 1024 * 1024
PROGRESS_EVERY = 2000  # SQLite VM steps between deadline checks
DEFAULT_EPISODE_DB_MB = 64


class ExpiredHandleError(sqlite3.ProgrammingError):
    """Generated code used a database handle after the call or judgement it was given to ended."""


class TransactionLostError(sqlite3.OperationalError):
    """SQLite rolled back a call's whole transaction, the runtime's savepoint with it."""


def _authorizer_rw(action: int, arg1: Any, arg2: Any, db_name: Any, source: Any) -> int:
    if action in _DENY_ALWAYS:
        return sqlite3.SQLITE_DENY
    if action == _SAVEPOINT:
        return sqlite3.SQLITE_OK if arg2 == _SAVEPOINT_NAME else sqlite3.SQLITE_DENY
    if action == _FUNCTION and isinstance(arg2, str) and arg2.lower() in _DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK


def _authorizer_ro(action: int, arg1: Any, arg2: Any, db_name: Any, source: Any) -> int:
    if action in _WRITES or action == _SAVEPOINT:
        return sqlite3.SQLITE_DENY
    return _authorizer_rw(action, arg1, arg2, db_name, source)


def _row_factory(cursor: sqlite3.Cursor, row: tuple) -> dict:
    return {d[0]: v for d, v in zip(cursor.description, row)}


def _limit(conn: sqlite3.Connection) -> sqlite3.Connection:
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, MAX_SQL_BYTES)
    conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    return conn


def open_template(path: Path) -> sqlite3.Connection:
    """A read-only connection to a database file (a template or an initial state)."""
    conn = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro&immutable=1", uri=True, check_same_thread=False)
    return _limit(conn)


def open_image(image: bytes) -> sqlite3.Connection:
    """A read-only in-memory database from a database file's bytes (how a sandbox worker receives a template).

    The image is copied into an ordinary in-memory database and dropped: a deserialized database
    would hold the image and the page cache's copies of the same pages, twice the memory of the file.
    """
    source = sqlite3.connect(":memory:", check_same_thread=False)
    try:
        source.deserialize(image)
        conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        source.backup(conn)
    finally:
        source.close()
    conn.execute("PRAGMA query_only = ON")
    return _limit(conn)


def fresh_copy(template: sqlite3.Connection) -> sqlite3.Connection:
    """A private, writable in-memory copy of `template` through the SQLite backup API.

    benchmarks/bench_runtime.py compares it with a file copy and with deserialize (one
    memcpy of the file image): deserialize is as fast, but an episode it makes holds the
    image and the page cache's copies of the same pages, about a third more memory once
    queried, which counts at a thousand concurrent sessions.
    """
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    template.backup(conn)
    conn.execute("PRAGMA foreign_keys = ON")
    # Temp tables in the episode's own memory, under its cap (temp.max_page_count) and in its worker's
    # ceiling: by default SQLite spills them to a file in the temp directory, which the episodes of a
    # worker share (under OS isolation, a 64 MiB tmpfs one episode could fill for all the others).
    conn.execute("PRAGMA temp_store = MEMORY")
    return _limit(conn)


def readonly_copy(source: sqlite3.Connection) -> sqlite3.Connection:
    """A private in-memory copy of `source` that refuses writes (for verifiers)."""
    copy = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    source.backup(copy)
    copy.execute("PRAGMA query_only = ON")
    copy.execute("PRAGMA temp_store = MEMORY")  # a sort or an index a query builds stays in memory too
    return _limit(copy)


class DBHandle:
    """What generated code sees of a database: query, one, execute.

    A writable handle records the tables its statements write (`_written`, from the authorizer, which sees
    every statement as SQLite compiles it), so the outcome of an episode is diffed on those tables only
    (awm/runtime/outcome.py); a statement that changes the schema marks every table."""

    __slots__ = ("_conn", "_deadline", "_readonly", "_written")

    def __init__(self, conn: sqlite3.Connection, readonly: bool = False):
        self._conn = conn
        self._readonly = readonly
        self._deadline = 0.0
        self._written: set[str] = set()
        self._install()

    def _install(self) -> None:
        conn = self._conn
        conn.row_factory = _row_factory
        conn.set_authorizer(_authorizer_ro if self._readonly else self._authorize_write)
        conn.set_progress_handler(self._progress, PROGRESS_EVERY)

    def _authorize_write(self, action: int, arg1: Any, arg2: Any, db_name: Any, source: Any) -> int:
        verdict = _authorizer_rw(action, arg1, arg2, db_name, source)
        if verdict == sqlite3.SQLITE_OK:
            if action in _ROW_WRITES:
                self._written.add(arg1)
            elif action in _WRITES:
                self._written.add("*")  # outcome.ALL_TABLES: the schema changed
        return verdict

    def _progress(self) -> int:
        return 1 if self._deadline and time.monotonic() > self._deadline else 0

    def query(self, sql: str, params: list | tuple = ()) -> list[dict]:
        return self._conn.execute(sql, tuple(params)).fetchall()

    def one(self, sql: str, params: list | tuple = ()) -> dict | None:
        return self._conn.execute(sql, tuple(params)).fetchone()

    def execute(self, sql: str, params: list | tuple = ()) -> dict:
        cursor = self._conn.execute(sql, tuple(params))
        return {"rowcount": cursor.rowcount, "lastrowid": cursor.lastrowid}

    # The runtime's side (underscored, so out of reach of generated code) -----------

    def _set_deadline(self, seconds: float | None) -> None:
        self._deadline = time.monotonic() + seconds if seconds else 0.0

    def _begin(self) -> None:
        self._conn.execute(f"SAVEPOINT {_SAVEPOINT_NAME}")

    def _commit(self) -> None:
        self._conn.execute(f"RELEASE {_SAVEPOINT_NAME}")

    def _rollback(self) -> None:
        if self._transaction_lost():  # SQLite rolled the whole transaction back itself (see CallView)
            return
        self._conn.execute(f"ROLLBACK TO {_SAVEPOINT_NAME}")
        self._conn.execute(f"RELEASE {_SAVEPOINT_NAME}")

    def _reader(self) -> DBHandle:
        """A read-only view of this database on the same connection, for a verifier: no copy, and no
        second parse of the schema. Until `_restore()`, the connection refuses every write (the
        read-only authorizer, and query_only underneath it)."""
        self._conn.set_authorizer(None)
        self._conn.execute("PRAGMA query_only = ON")
        return DBHandle(self._conn, readonly=True)

    def _restore(self) -> None:
        """End a `_reader()` view: this handle's own authorizer and deadline again, writes allowed."""
        self._conn.set_authorizer(None)
        self._conn.execute("PRAGMA query_only = OFF")
        self._install()

    def _close(self) -> None:
        self._conn.close()

    def _view(self, transactional: bool = False) -> CallView:
        """What one call (`transactional`: inside the runtime's savepoint) or judgement gets; end it with `_end`."""
        return CallView(self, transactional)

    def _transaction_lost(self) -> bool:
        """Whether SQLite rolled back the transaction the runtime's savepoint began (see CallView)."""
        return not self._conn.in_transaction

    def _pragmas(self, *pragmas: str) -> list[int]:
        """Run integer pragmas as the runtime (generated code is refused every PRAGMA), between statements;
        the value each returns."""
        conn = self._conn
        conn.set_authorizer(None)
        try:
            return [next(iter(conn.execute(f"PRAGMA {pragma}").fetchone().values())) for pragma in pragmas]
        finally:
            self._install()

    def _cap_size(self, max_bytes: int) -> None:
        """Stop the database (its main and its temp schema, each) growing past `max_bytes` (max_page_count):
        a write beyond fails with SQLITE_FULL, which SQLite answers by rolling back the whole transaction
        (see CallView and run_tool). A database already larger keeps its size, and cannot grow. The pragma
        parses the schema: call it before the first statement that would (a reset stays cheap)."""
        (size,) = self._pragmas("page_size")
        pages = max(1, max_bytes // size)
        self._pragmas(f"max_page_count = {pages}", f"temp.max_page_count = {pages}")

    def _footprint_bytes(self) -> int:
        """Bytes of pages the database holds (main and temp), for the worker's memory ceiling."""
        size, main, temp = self._pragmas("page_size", "main.page_count", "temp.page_count")
        return size * (main + temp)

    def _max_bytes(self) -> int:
        """The size cap of the main database (see _cap_size)."""
        size, pages = self._pragmas("page_size", "max_page_count")
        return size * pages


class CallView:
    """A database as one call or judgement of generated code holds it: query, one, execute, until `_end`.

    Kept beyond its call (in a module, a default argument), it raises ExpiredHandleError instead of
    reading or writing. A tool call's view (`transactional`) also runs nothing more once SQLite has
    rolled back the call's whole transaction (`INSERT OR ROLLBACK`, `RAISE(ROLLBACK)` in a trigger,
    a full database): statements after it would run outside the runtime's savepoint and be kept.
    """

    __slots__ = ("_handle", "_transactional", "_full")

    def __init__(self, handle: DBHandle, transactional: bool):
        self._handle: DBHandle | None = handle
        self._transactional = transactional
        self._full = False  # a statement hit the database's size cap (SQLITE_FULL)

    def _target(self) -> DBHandle:
        handle = self._handle
        if handle is None:
            raise ExpiredHandleError("this database handle is no longer valid: its call ended (a handle works only "
                                     "during the call or judgement it was given to)")
        if self._transactional and handle._transaction_lost():
            raise TransactionLostError("SQLite rolled back this call's transaction (a ROLLBACK conflict clause or "
                                       "trigger, or a full database); the call runs no more statements")
        return handle

    def _failed(self, exc: sqlite3.OperationalError) -> None:
        if exc.sqlite_errorcode == sqlite3.SQLITE_FULL:
            self._full = True

    def query(self, sql: str, params: list | tuple = ()) -> list[dict]:
        handle = self._target()
        try:
            return handle.query(sql, params)
        except sqlite3.OperationalError as exc:
            self._failed(exc)
            raise

    def one(self, sql: str, params: list | tuple = ()) -> dict | None:
        handle = self._target()
        try:
            return handle.one(sql, params)
        except sqlite3.OperationalError as exc:
            self._failed(exc)
            raise

    def execute(self, sql: str, params: list | tuple = ()) -> dict:
        handle = self._target()
        try:
            return handle.execute(sql, params)
        except sqlite3.OperationalError as exc:
            self._failed(exc)
            raise

    def _end(self) -> None:
        self._handle = None
