"""Write an environment's initial database from its DDL and rows: the one way env.db is made.

Used by the databases stage and by the databases check that rebuilds an environment to prove the
build does not depend on the clock."""

from __future__ import annotations

import sqlite3

from awm.contracts import SchemaSpec
from awm.errors import StageError

STAGE = "databases"  # the stage whose error a bad row is


def write_database(path, ddl: str, spec: SchemaSpec, rows: dict[str, list[dict]]) -> dict[str, int]:
    """Create `path` from DDL and rows; check foreign keys; return row counts per table."""
    counts: dict[str, int] = {}
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA journal_mode = OFF")
        conn.executescript(ddl)
        conn.execute("BEGIN")
        for table in spec.tables:
            table_rows = rows.get(table.name, [])
            names = [c.name for c in table.columns]
            unknown = set().union(*(r.keys() for r in table_rows)) - set(names) if table_rows else set()
            if unknown:
                raise StageError(STAGE, spec.env_id, f"rows for {table.name} have unknown columns {sorted(unknown)}")
            sql = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' for _ in names)})"
            try:
                conn.executemany(sql, [tuple(r.get(n) for n in names) for r in table_rows])
            except sqlite3.IntegrityError as exc:
                raise StageError(STAGE, spec.env_id, f"inserting into {table.name}: {exc}") from exc
            counts[table.name] = len(table_rows)
        broken = conn.execute("PRAGMA foreign_key_check").fetchall()
        if broken:
            table, rowid, parent, _ = broken[0]
            raise StageError(STAGE, spec.env_id, f"{len(broken)} broken foreign keys, first: {table} row {rowid} -> {parent}")
        conn.execute("COMMIT")
    finally:
        conn.close()
    return counts
