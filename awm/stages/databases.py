"""Stage 4: databases. env.db, the deterministic initial state."""

from __future__ import annotations

import sqlite3

from awm.contracts import Scenario, SchemaSpec
from awm.errors import StageError
from awm.quality.gates import gate_database
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore

STAGE = "databases"
MIN_ROWS = 100


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


def build_database(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        spec = store.read_model(env_id, "schema.json", SchemaSpec)
        ddl = store.read_text(env_id, "schema.sql")
        rows = backend.database_rows(scenario, spec)
        tmp = store.temp_path(env_id, "env.db")
        try:
            counts = write_database(tmp, ddl, spec, rows)
            total = sum(counts.values())
            if total < MIN_ROWS:
                raise StageError(STAGE, env_id, f"only {total} rows; at least {MIN_ROWS} are required")
            gate_database(env_id, tmp, spec)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return {"env.db": tmp}, {"rows": total, "tables": len(counts), "empty_tables": sum(1 for n in counts.values() if n == 0),
                                 "rows_per_table": counts}

    return run_env_stage(store, STAGE, env_id, ["scenario.json", "schema.json", "schema.sql"], ["env.db"],
                         produce, backend, force)
