"""The schema contract in SQL: SQLAlchemy metadata from schema.json, and SQLite DDL from the metadata."""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.schema import CreateIndex, CreateTable

from awm.contracts import SchemaSpec

_TYPES = {"INTEGER": sa.Integer, "TEXT": sa.Text, "REAL": sa.Float}


def _quote(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def to_metadata(spec: SchemaSpec) -> sa.MetaData:
    metadata = sa.MetaData()
    for table in spec.tables:
        columns = []
        for col in table.columns:
            args: list = [_TYPES[col.type]()]
            if col.references:
                ref_table, ref_col = col.references.split(".")
                args.append(sa.ForeignKey(f"{ref_table}.{ref_col}"))
            columns.append(sa.Column(col.name, *args, primary_key=col.primary_key,
                                     nullable=col.nullable and not col.primary_key, unique=col.unique or None,
                                     autoincrement=False))
        checks = []
        for col in table.columns:
            if col.enum:
                allowed = ", ".join(_quote(v) for v in col.enum)
                checks.append(sa.CheckConstraint(f"{col.name} IN ({allowed})", name=f"ck_{table.name}_{col.name}_enum"))
            if col.minimum is not None:
                checks.append(sa.CheckConstraint(f"{col.name} >= {col.minimum:g}", name=f"ck_{table.name}_{col.name}_min"))
            if col.maximum is not None:
                checks.append(sa.CheckConstraint(f"{col.name} <= {col.maximum:g}", name=f"ck_{table.name}_{col.name}_max"))
        t = sa.Table(table.name, metadata, *columns, *checks)
        for n, cols in enumerate(table.indexes):
            sa.Index(f"ix_{table.name}_{n}", *(t.c[c] for c in cols))
    return metadata


def to_ddl(spec: SchemaSpec) -> str:
    """SQLite DDL for the schema, in table order (foreign keys point backwards)."""
    metadata = to_metadata(spec)
    dialect = sqlite_dialect.dialect()
    parts = []
    for table in spec.tables:
        t = metadata.tables[table.name]
        parts.append(str(CreateTable(t).compile(dialect=dialect)).strip() + ";")
        for index in sorted(t.indexes, key=lambda i: i.name):
            parts.append(str(CreateIndex(index).compile(dialect=dialect)).strip() + ";")
    return "\n\n".join(parts) + "\n"
