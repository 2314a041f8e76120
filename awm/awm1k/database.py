"""An AWM-1K scenario's initial database: their DDL, their indexes, their sample inserts.

Their reset runs every insert and keeps what succeeded, so a scenario whose inserts partly fail starts from a
database nobody described. Here each table's inserts run in a savepoint of their own: a table whose every
statement succeeds is kept, a table with a failing statement is rolled back whole and recorded with the
statement and SQLite's error. The database is published (atomically) only when every table succeeded; else the
environment is quarantined with the failures (awm/awm1k/importer.py): never half-written.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.contracts import IDENT, Column, SchemaSpec, Table

CLOCK = re.compile(r"datetime\s*\(\s*'now'|date\s*\(\s*'now'|current_(timestamp|date|time)\b|strftime\s*\([^)]*'now'",
                   re.IGNORECASE)


@dataclass
class SchemaResult:
    ddl: str  # schema.sql: every table's DDL and indexes, in order
    errors: list[dict[str, str]] = field(default_factory=list)  # {"table", "statement", "error"}


@dataclass
class InsertResult:
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)  # table -> {"statements", "inserted"}
    failures: list[dict[str, Any]] = field(default_factory=list)  # {"table", "index", "statement", "error"}
    clock_statements: int = 0  # inserts whose values depend on the time of the reset (datetime('now'))

    @property
    def ok(self) -> bool:
        return not self.failures


def schema_sql(tables: list[dict[str, Any]]) -> str:
    parts = []
    for table in tables:
        parts.append(table["ddl"].strip().rstrip(";") + ";")
        parts += [index.strip().rstrip(";") + ";" for index in table.get("indexes") or []]
    return "\n\n".join(parts) + "\n"


def create_schema(conn: sqlite3.Connection, tables: list[dict[str, Any]]) -> SchemaResult:
    """Each table's DDL and indexes, as their db.create_sqlite_database runs them; a statement that fails is
    recorded and the rest still run (a later table may not need it)."""
    result = SchemaResult(schema_sql(tables))
    for table in tables:
        for statement in [table["ddl"], *(table.get("indexes") or [])]:
            try:
                conn.execute(statement)
            except sqlite3.Error as exc:
                result.errors.append({"table": table["name"], "statement": statement[:2000], "error": str(exc)})
    conn.commit()
    return result


def insert_samples(conn: sqlite3.Connection, samples: list[dict[str, Any]]) -> InsertResult:
    """Their sample inserts with foreign keys enforced (as their sample.execute_sample_data), one savepoint per
    table: all of a table's statements, or none of them and the first that failed."""
    conn.isolation_level = None
    conn.execute("PRAGMA foreign_keys = ON")
    result = InsertResult()
    for table in samples:
        name = str(table.get("table_name", "unknown"))
        statements = [s for s in table.get("insert_statements") or [] if isinstance(s, str)]
        result.clock_statements += sum(1 for s in statements if CLOCK.search(s))
        conn.execute("SAVEPOINT awm1k_table")
        failed = None
        for index, statement in enumerate(statements):
            try:
                conn.execute(statement)
            except sqlite3.Error as exc:
                failed = {"table": name, "index": index, "statement": statement[:2000], "error": str(exc)}
                break
        if failed:
            conn.execute("ROLLBACK TO awm1k_table")
            result.failures.append(failed)
        conn.execute("RELEASE awm1k_table")
        entry = result.tables.setdefault(name, {"statements": 0, "inserted": 0})
        entry["statements"] += len(statements)
        entry["inserted"] += 0 if failed else len(statements)
    return result


def build_database(path: Path, tables: list[dict[str, Any]], samples: list[dict[str, Any]]
                   ) -> tuple[SchemaResult, InsertResult]:
    conn = sqlite3.connect(path)
    try:
        schema = create_schema(conn, tables)
        inserts = insert_samples(conn, samples)
        conn.execute("PRAGMA foreign_keys = OFF")
    finally:
        conn.close()
    return schema, inserts


def _column_type(declared: str) -> str:
    """SQLite's affinity rules, onto our three types (schema.sql keeps the declared type)."""
    t = (declared or "").upper()
    if "INT" in t:
        return "INTEGER"
    if any(k in t for k in ("REAL", "FLOA", "DOUB", "NUMERIC", "DECIMAL")):
        return "REAL"
    return "TEXT"


def schema_spec(conn: sqlite3.Connection, env_id: str) -> tuple[SchemaSpec | None, str | None]:
    """schema.json read back from the created database, or None and why it does not fit our contract (a table
    of one column, a name that is not a lowercase identifier)."""
    tables = []
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE "
                                            "'sqlite_%' ORDER BY rowid")]
        for name in names:
            refs = {row[3]: f"{row[2]}.{row[4] or 'id'}" for row in conn.execute(f'PRAGMA foreign_key_list("{name}")')}
            columns = [Column(name=c[1], type=_column_type(c[2]), primary_key=bool(c[5]), nullable=not c[3]
                              and not c[5], references=refs.get(c[1]))
                       for c in conn.execute(f'PRAGMA table_info("{name}")')]
            if not IDENT.fullmatch(name):
                raise ValueError(f"table name {name!r} is not a lowercase identifier")
            tables.append(Table(name=name, description="", columns=columns))
        return SchemaSpec(env_id=env_id, tables=tables), None
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        return None, str(exc).splitlines()[0] if str(exc) else type(exc).__name__
