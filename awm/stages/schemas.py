"""Stage 3: schemas. schema.json (the contract) and schema.sql (its SQLite DDL)."""

from __future__ import annotations

import sqlite3

from awm import artifacts
from awm.auth_names import looks_like_auth
from awm.contracts import SchemaSpec
from awm.errors import StageError
from awm.registry import stage
from awm.schema_sql import to_ddl
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore, dump_json

STAGE = stage("schemas")


def validate_schema(spec: SchemaSpec) -> None:
    """Structural rules every schema must meet; raises StageError naming the first problem."""
    names = [t.name for t in spec.tables]
    if len(names) != len(set(names)):
        raise StageError(STAGE.name, spec.env_id, "duplicate table names")
    columns = {t.name: {c.name for c in t.columns} for t in spec.tables}
    for table in spec.tables:
        if sum(c.primary_key for c in table.columns) != 1:
            raise StageError(STAGE.name, spec.env_id, f"table {table.name} needs exactly one primary key column")
        if looks_like_auth(table.name):
            raise StageError(STAGE.name, spec.env_id, f"table {table.name} looks like authentication data")
        for col in table.columns:
            if looks_like_auth(col.name):
                raise StageError(STAGE.name, spec.env_id, f"column {table.name}.{col.name} looks like authentication data")
        for col in table.columns:
            if col.references:
                ref_table, _, ref_col = col.references.partition(".")
                if ref_col not in columns.get(ref_table, set()):
                    raise StageError(STAGE.name, spec.env_id,
                                     f"{table.name}.{col.name} references missing {col.references}")


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = artifacts.SCENARIO.read(store, env_id)
        tasks = artifacts.TASKS.read(store, env_id)
        spec = SchemaSpec.model_validate(backend.schema(scenario, tasks).model_dump())
        validate_schema(spec)
        ddl = to_ddl(spec)
        conn = sqlite3.connect(":memory:")
        try:
            conn.executescript(ddl)  # the DDL must execute in SQLite
        finally:
            conn.close()
        return {artifacts.SCHEMA_JSON.name: dump_json(spec), artifacts.SCHEMA_SQL.name: ddl}, {
            "tables": len(spec.tables),
            "columns": sum(len(t.columns) for t in spec.tables),
            "foreign_keys": sum(1 for t in spec.tables for c in t.columns if c.references),
        }

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
