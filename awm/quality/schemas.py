"""Schema checks, on the DDL as SQLite sees it and on schema.json.

The DDL must execute; then SQLite's own catalogue (PRAGMA table_info, foreign_key_list) must show a
primary key on every table and foreign keys that name existing tables and columns, and agree with
schema.json (the contract the tools and verifiers were written against). No table or column may
model authentication data. Every problem is reported, not only the first.
"""

from __future__ import annotations

import sqlite3

from awm.auth_names import looks_like_auth
from awm.contracts import SchemaSpec
from awm.quality.findings import Finding

CHECK_DDL = "ddl_executes"
CHECK_PRIMARY_KEY = "primary_keys"
CHECK_FOREIGN_KEY = "foreign_keys"
CHECK_AUTH = "no_auth_tables"
CHECK_AGREES = "ddl_matches_schema_json"


def _catalogue(conn: sqlite3.Connection) -> dict[str, dict]:
    tables = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    found = {}
    for table in tables:
        columns = {r[1]: {"type": r[2], "notnull": bool(r[3]), "pk": bool(r[5])}
                   for r in conn.execute(f'PRAGMA table_info("{table}")')}
        fks = {r[3]: (r[2], r[4]) for r in conn.execute(f'PRAGMA foreign_key_list("{table}")')}
        found[table] = {"columns": columns, "fks": fks}
    return found


def ddl_findings(env_id: str, ddl: str) -> tuple[list[Finding], dict[str, dict]]:
    """Execute the DDL in a scratch database; findings about keys, and SQLite's view of the tables."""
    conn = sqlite3.connect(":memory:")
    try:
        try:
            conn.executescript(ddl)
        except sqlite3.Error as exc:
            return [Finding(env_id, CHECK_DDL, f"SQLite rejects schema.sql: {exc}")], {}
        catalogue = _catalogue(conn)
    finally:
        conn.close()
    findings = []
    for table, info in catalogue.items():
        if not any(c["pk"] for c in info["columns"].values()):
            findings.append(Finding(env_id, CHECK_PRIMARY_KEY, "table has no primary key", table=table))
        for column, (target, target_column) in info["fks"].items():
            if target not in catalogue:
                findings.append(Finding(env_id, CHECK_FOREIGN_KEY, f"references missing table {target}",
                                        table=table, column=column))
            elif (target_column or "") not in catalogue[target]["columns"]:
                findings.append(Finding(env_id, CHECK_FOREIGN_KEY,
                                        f"references missing column {target}.{target_column}",
                                        table=table, column=column))
    return findings, catalogue


def spec_findings(spec: SchemaSpec) -> list[Finding]:
    """Rules on schema.json itself: one primary key per table, resolvable references, no auth data."""
    env_id = spec.env_id
    findings = []
    columns = {t.name: {c.name for c in t.columns} for t in spec.tables}
    names = [t.name for t in spec.tables]
    for name in sorted({n for n in names if names.count(n) > 1}):
        findings.append(Finding(env_id, CHECK_AGREES, "table defined twice", table=name))
    for table in spec.tables:
        keys = [c.name for c in table.columns if c.primary_key]
        if len(keys) != 1:
            findings.append(Finding(env_id, CHECK_PRIMARY_KEY, f"needs exactly one primary key column, has {keys}",
                                    table=table.name))
        if looks_like_auth(table.name):
            findings.append(Finding(env_id, CHECK_AUTH, "table looks like authentication data", table=table.name))
        for col in table.columns:
            if looks_like_auth(col.name):
                findings.append(Finding(env_id, CHECK_AUTH, "column looks like authentication data",
                                        table=table.name, column=col.name))
            if col.references:
                ref_table, _, ref_col = col.references.partition(".")
                if ref_col not in columns.get(ref_table, set()):
                    findings.append(Finding(env_id, CHECK_FOREIGN_KEY, f"references missing {col.references}",
                                            table=table.name, column=col.name))
    return findings


def agreement_findings(spec: SchemaSpec, catalogue: dict[str, dict]) -> list[Finding]:
    """schema.sql and schema.json describe the same tables, columns, keys and references."""
    env_id = spec.env_id
    findings = []
    declared = {t.name: t for t in spec.tables}
    for name in sorted(set(catalogue) - set(declared)):
        findings.append(Finding(env_id, CHECK_AGREES, "in schema.sql but not in schema.json", table=name))
    for name in sorted(set(declared) - set(catalogue)):
        findings.append(Finding(env_id, CHECK_AGREES, "in schema.json but not in schema.sql", table=name))
    for name in sorted(set(declared) & set(catalogue)):
        actual = catalogue[name]
        for col in declared[name].columns:
            info = actual["columns"].get(col.name)
            if info is None:
                findings.append(Finding(env_id, CHECK_AGREES, "column missing from schema.sql", table=name,
                                        column=col.name))
                continue
            if info["pk"] != col.primary_key:
                findings.append(Finding(env_id, CHECK_AGREES, f"primary key is {info['pk']} in schema.sql, "
                                        f"{col.primary_key} in schema.json", table=name, column=col.name))
            ref = actual["fks"].get(col.name)
            ref_text = f"{ref[0]}.{ref[1]}" if ref else None
            if ref_text != col.references:
                findings.append(Finding(env_id, CHECK_AGREES, f"references {ref_text} in schema.sql, "
                                        f"{col.references} in schema.json", table=name, column=col.name))
        for extra in sorted(set(actual["columns"]) - {c.name for c in declared[name].columns}):
            findings.append(Finding(env_id, CHECK_AGREES, "column in schema.sql but not in schema.json",
                                    table=name, column=extra))
    return findings


def schema_findings(spec: SchemaSpec, ddl: str) -> list[Finding]:
    """Every schema problem of one environment (empty when the schema is valid)."""
    findings, catalogue = ddl_findings(spec.env_id, ddl)
    findings += spec_findings(spec)
    if catalogue:
        findings += agreement_findings(spec, catalogue)
    return findings
