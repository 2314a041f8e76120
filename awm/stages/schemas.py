"""Stage 3: schemas. schema.json (the contract) and schema.sql (its SQLite DDL)."""

from __future__ import annotations

import sqlite3

from awm.auth_names import looks_like_auth
from awm.contracts import Scenario, SchemaSpec, TaskSet
from awm.errors import StageError
from awm.schema_sql import to_ddl
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = "schemas"


def validate_schema(spec: SchemaSpec) -> None:
    """Structural rules every schema must meet; raises StageError naming the first problem."""
    names = [t.name for t in spec.tables]
    if len(names) != len(set(names)):
        raise StageError(STAGE, spec.env_id, "duplicate table names")
    columns = {t.name: {c.name for c in t.columns} for t in spec.tables}
    for table in spec.tables:
        if sum(c.primary_key for c in table.columns) != 1:
            raise StageError(STAGE, spec.env_id, f"table {table.name} needs exactly one primary key column")
        if looks_like_auth(table.name):
            raise StageError(STAGE, spec.env_id, f"table {table.name} looks like authentication data")
        for col in table.columns:
            if looks_like_auth(col.name):
                raise StageError(STAGE, spec.env_id, f"column {table.name}.{col.name} looks like authentication data")
        for col in table.columns:
            if col.references:
                ref_table, _, ref_col = col.references.partition(".")
                if ref_col not in columns.get(ref_table, set()):
                    raise StageError(STAGE, spec.env_id,
                                     f"{table.name}.{col.name} references missing {col.references}")


def build_schema(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        tasks = store.read_model(env_id, "tasks.json", TaskSet)
        spec = SchemaSpec.model_validate(backend.schema(scenario, tasks).model_dump())
        validate_schema(spec)
        ddl = to_ddl(spec)
        conn = sqlite3.connect(":memory:")
        try:
            conn.executescript(ddl)  # the DDL must execute in SQLite
        finally:
            conn.close()
        return {"schema.json": dump_json(spec), "schema.sql": ddl}, {
            "tables": len(spec.tables),
            "columns": sum(len(t.columns) for t in spec.tables),
            "foreign_keys": sum(1 for t in spec.tables for c in t.columns if c.references),
        }

    return run_env_stage(store, STAGE, env_id, ["scenario.json", "tasks.json"], ["schema.json", "schema.sql"],
                         produce, backend, force)
