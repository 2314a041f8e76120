"""Database checks: the initial state honours its schema, and does not depend on the clock.

Two independent implementations of the same rules, derived from schema.json:
  - `database_findings`: plain SQL, fast; the databases stage runs it on every database it builds,
    so a bad environment is failed where it is made;
  - `run_expectation_suite`: a great-expectations 1.x suite over the same database; the blocking
    asset check runs it, so a rule the stage let through is caught by a second engine.
Rules: primary keys unique, NOT NULL honoured, foreign keys resolve, a minimum number of rows per
table, values inside the enums and ranges the schema states.

The suite validates the database in long form: one frame whose rows are the cells under a rule
(table, column, row id, value) plus one row per table with its row count. GE's cost is per
expectation (about 7 ms each, measured), not per row, so seven expectations over all cells cost
a fraction of one expectation per column (over 200 for an 18-table schema, 1.4 s per database).
Foreign keys are checked as a left join (each value against the parent id it resolves to), which
keeps the expectation small; a value set of every parent id makes GE copy thousands of values per
metric.

Clock independence: `rebuild_findings` builds the database again from the same inputs and
compares bytes; `ddl_clock_findings` rejects DDL defaults that read the clock.
"""

from __future__ import annotations

import os
import re
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.contracts import SchemaSpec
from awm.database_writer import write_database
from awm.heap import freeze_imports
from awm.quality.findings import Finding
from awm.store import ArtifactStore, sha256_file

MIN_ROWS_PER_TABLE = 1
CHECK_ROWS = "database_rows"  # the SQL rules, as the stage runs them
CHECK_SUITE = "database_expectations"  # the great-expectations suite
CHECK_CLOCK = "clock_independent"
SAMPLE_VALUES = 5
_CLOCK_SQL = re.compile(r"CURRENT_(TIMESTAMP|DATE|TIME)\b|['\"]now['\"]|\b(random|randomblob)\s*\(", re.IGNORECASE)


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


# --- the SQL rules ----------------------------------------------------------------------


def _samples(conn: sqlite3.Connection, sql: str, params: tuple = ()) -> list[tuple]:
    return conn.execute(sql + f" LIMIT {SAMPLE_VALUES}", params).fetchall()


def _table_is_clean(conn: sqlite3.Connection, table, present: set[str], min_rows: int) -> bool:
    """One scan of `table` counting every rule's violations at once; True if there are none.

    The per-rule queries below name the rows, but cost a query per column and rule; a clean table,
    the usual case, needs only this one."""
    t = _q(table.name)
    parts, params = ["COUNT(*)"], []
    for col in table.columns:
        c = _q(col.name)
        if col.primary_key or col.unique:
            parts.append(f"COUNT({c}) - COUNT(DISTINCT {c})")
        if not col.nullable or col.primary_key:
            parts.append(f"SUM({c} IS NULL)")
        if col.references:
            ref_table, _, ref_col = col.references.partition(".")
            if ref_table not in present:
                return False
            parts.append(f"SUM({c} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {_q(ref_table)} AS parent "
                         f"WHERE parent.{_q(ref_col)} = {t}.{c}))")
        if col.enum:
            parts.append(f"SUM({c} IS NOT NULL AND {c} NOT IN ({', '.join('?' for _ in col.enum)}))")
            params += list(col.enum)
        for op, bound in (("<", col.minimum), (">", col.maximum)):
            if bound is not None:
                parts.append(f"SUM({c} IS NOT NULL AND {c} {op} ?)")
                params.append(bound)
    count, *violations = conn.execute(f"SELECT {', '.join(parts)} FROM {t}", params).fetchone()
    return count >= min_rows and not any(violations)


def database_findings(db_path: Path, spec: SchemaSpec, min_rows: int = MIN_ROWS_PER_TABLE) -> list[Finding]:
    """Every violation of the schema's rules in the database at `db_path`, with sample rows."""
    env_id = spec.env_id
    findings: list[Finding] = []
    conn = sqlite3.connect(f"file:{Path(db_path).resolve()}?mode=ro", uri=True)
    try:
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in spec.tables:
            if table.name not in present:
                findings.append(Finding(env_id, CHECK_ROWS, "table is missing from env.db", table=table.name))
                continue
            if _table_is_clean(conn, table, present, min_rows):
                continue
            t = _q(table.name)
            pk = table.primary_key
            count = conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
            if count < min_rows:
                findings.append(Finding(env_id, CHECK_ROWS, f"{count} rows, at least {min_rows} required",
                                        table=table.name, value=count))
            for col in table.columns:
                c = _q(col.name)
                if col.primary_key or col.unique:
                    for value, n in _samples(conn, f"SELECT {c}, COUNT(*) FROM {t} WHERE {c} IS NOT NULL "
                                                   f"GROUP BY {c} HAVING COUNT(*) > 1"):
                        findings.append(Finding(env_id, CHECK_ROWS, f"value {value!r} appears {n} times in a "
                                                f"{'primary key' if col.primary_key else 'unique'} column",
                                                table=table.name, column=col.name, value=value))
                if not col.nullable or col.primary_key:
                    for (row,) in _samples(conn, f"SELECT {_q(pk)} FROM {t} WHERE {c} IS NULL"):
                        findings.append(Finding(env_id, CHECK_ROWS, "NULL in a NOT NULL column",
                                                table=table.name, column=col.name, row=row))
                if col.references:
                    ref_table, _, ref_col = col.references.partition(".")
                    if ref_table not in present:
                        findings.append(Finding(env_id, CHECK_ROWS, f"references missing table {ref_table}",
                                                table=table.name, column=col.name))
                        continue
                    sql = (f"SELECT child.{_q(pk)}, child.{c} FROM {t} AS child LEFT JOIN {_q(ref_table)} AS parent "
                           f"ON parent.{_q(ref_col)} = child.{c} WHERE child.{c} IS NOT NULL "
                           f"AND parent.{_q(ref_col)} IS NULL")
                    for row, value in _samples(conn, sql):
                        findings.append(Finding(env_id, CHECK_ROWS, f"foreign key {value!r} has no "
                                                f"{col.references}", table=table.name, column=col.name,
                                                row=row, value=value))
                if col.enum:
                    marks = ", ".join("?" for _ in col.enum)
                    sql = f"SELECT {_q(pk)}, {c} FROM {t} WHERE {c} IS NOT NULL AND {c} NOT IN ({marks})"
                    for row, value in _samples(conn, sql, tuple(col.enum)):
                        findings.append(Finding(env_id, CHECK_ROWS, f"{value!r} is not one of {col.enum}",
                                                table=table.name, column=col.name, row=row, value=value))
                bounds = [(op, b) for op, b in (("<", col.minimum), (">", col.maximum)) if b is not None]
                for op, bound in bounds:
                    sql = f"SELECT {_q(pk)}, {c} FROM {t} WHERE {c} IS NOT NULL AND {c} {op} ?"
                    for row, value in _samples(conn, sql, (bound,)):
                        word = "below the minimum" if op == "<" else "above the maximum"
                        findings.append(Finding(env_id, CHECK_ROWS, f"{value!r} is {word} {bound:g}",
                                                table=table.name, column=col.name, row=row, value=value))
    finally:
        conn.close()
    return findings


# --- the great-expectations suite --------------------------------------------------------


@dataclass
class SuiteResult:
    env_id: str
    success: bool
    expectations: int
    cells: int
    findings: list[Finding] = field(default_factory=list)
    failed_expectations: list[dict] = field(default_factory=list)


_GX_LOCK = threading.Lock()
_GX: dict[str, Any] = {}


def _gx():
    """One ephemeral GE context per process (importing GE costs seconds: only when a check needs it)."""
    with _GX_LOCK:
        if not _GX:
            os.environ.setdefault("GX_ANALYTICS_ENABLED", "false")
            import great_expectations as gx
            import great_expectations.expectations as gxe

            context = gx.get_context(mode="ephemeral")
            context.variables.progress_bars = {"globally": False, "metric_calculations": False}
            source = context.data_sources.add_pandas("awm_databases")
            asset = source.add_dataframe_asset(name="cells")
            _GX.update(gx=gx, gxe=gxe, batch_definition=asset.add_batch_definition_whole_dataframe("whole"))
            freeze_imports()  # GE leaves ~220K objects that live as long as the process (awm/heap.py)
        return _GX


def expectation_suite(min_rows: int = MIN_ROWS_PER_TABLE):
    """The suite over the long-form frame (see the module docstring); enums arrive as a parameter."""
    g = _gx()
    gx, gxe = g["gx"], g["gxe"]
    return gx.ExpectationSuite(name=f"awm_database_min{min_rows}", expectations=[
        gxe.ExpectColumnValuesToBeBetween(column="table_rows", min_value=min_rows),
        gxe.ExpectColumnValuesToBeUnique(column="unique_key"),
        gxe.ExpectColumnValuesToNotBeNull(column="value", row_condition="required==True", condition_parser="pandas"),
        gxe.ExpectColumnPairValuesToBeEqual(column_A="reference", column_B="resolved",
                                            ignore_row_if="both_values_are_missing"),
        gxe.ExpectColumnValuesToBeInSet(column="enum_key", value_set={"$PARAMETER": "enum_keys"}),
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="number", column_B="minimum", or_equal=True,
                                                    ignore_row_if="either_value_is_missing"),
        gxe.ExpectColumnPairValuesAToBeGreaterThanB(column_A="maximum", column_B="number", or_equal=True,
                                                    ignore_row_if="either_value_is_missing"),
    ])


def _number(value: Any) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return None


_FRAME_COLUMNS = ("table", "column", "row", "value", "table_rows", "unique_key", "required", "reference",
                  "resolved", "enum_key", "number", "minimum", "maximum")


def cell_frame(db_path: Path, spec: SchemaSpec, key_prefix: str = ""):
    """The long-form frame: one row per table (its row count) and one per cell under a rule.

    Built column by column (a list per frame column, extended once per schema column): a row-wise
    build spends most of its time making tuples. `key_prefix` goes in front of every unique and
    enum key (an environment's id, when several databases share one frame)."""
    import pandas as pd

    out: dict[str, list] = {name: [] for name in _FRAME_COLUMNS}
    enum_keys: list[str] = []
    nan = float("nan")
    conn = sqlite3.connect(f"file:{Path(db_path).resolve()}?mode=ro", uri=True)
    try:
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        ids = {t.name: {r[0] for r in conn.execute(f"SELECT {_q(t.primary_key)} FROM {_q(t.name)}")}
               for t in spec.tables if t.name in present}
        for table in spec.tables:
            rows = conn.execute(f"SELECT * FROM {_q(table.name)}").fetchall() if table.name in present else []
            for name, value in zip(_FRAME_COLUMNS, (table.name, None, None, None, len(rows), None, False, None,
                                                    None, None, nan, nan, nan)):
                out[name].append(value)
            if not rows:
                continue
            names = [d[1] for d in conn.execute(f"PRAGMA table_info({_q(table.name)})")]
            pk_index = names.index(table.primary_key)
            row_ids = [str(row[pk_index]) for row in rows]
            n = len(rows)
            for col in table.columns:
                if col.name not in names:
                    continue
                i = names.index(col.name)
                values = [row[i] for row in rows]
                head = f"{key_prefix}{table.name}.{col.name}="
                out["table"] += [table.name] * n
                out["column"] += [col.name] * n
                out["row"] += row_ids
                out["value"] += values
                out["table_rows"] += [None] * n
                out["unique_key"] += ([None if v is None else f"{head}{v}" for v in values]
                                      if col.primary_key or col.unique else [None] * n)
                out["required"] += [bool(col.primary_key or not col.nullable)] * n
                if col.references:
                    parent_ids = ids.get(col.references.partition(".")[0], set())
                    out["reference"] += [None if v is None else str(v) for v in values]
                    out["resolved"] += [str(v) if v is not None and v in parent_ids else None for v in values]
                else:
                    out["reference"] += [None] * n
                    out["resolved"] += [None] * n
                if col.enum:
                    enum_keys += [f"{head}{v}" for v in col.enum]
                    out["enum_key"] += [None if v is None else f"{head}{v}" for v in values]
                else:
                    out["enum_key"] += [None] * n
                if col.minimum is not None or col.maximum is not None:
                    numbers = [_number(v) for v in values]
                    out["number"] += [nan if x is None else x for x in numbers]
                    out["minimum"] += [col.minimum if col.minimum is not None else nan] * n
                    out["maximum"] += [col.maximum if col.maximum is not None else nan] * n
                else:
                    out["number"] += [nan] * n
                    out["minimum"] += [nan] * n
                    out["maximum"] += [nan] * n
    finally:
        conn.close()
    frame = pd.DataFrame(out, columns=list(_FRAME_COLUMNS))
    frame["value"] = frame["value"].astype(object)
    return frame, enum_keys


def _plain(value: Any) -> Any:
    """A JSON-able Python value for a sample cell (NaN, the frame's "not applicable", becomes None)."""
    if hasattr(value, "item"):
        value = value.item()
    if isinstance(value, float) and value != value:
        return None
    return value


def _suite_findings(env_id: str, result) -> tuple[list[Finding], list[dict]]:
    findings, failed = [], []
    for r in result.results:
        if r.success:
            continue
        config = r.expectation_config
        kind = config.type
        column = config.kwargs.get("column") or f"{config.kwargs.get('column_A')} vs {config.kwargs.get('column_B')}"
        detail = r.result or {}
        samples = [{k: _plain(v) for k, v in s.items()} for s in detail.get("partial_unexpected_index_list") or []]
        failed.append({"expectation": kind, "on": column, "unexpected_count": detail.get("unexpected_count"),
                       "sample": samples[:SAMPLE_VALUES]})
        for sample in samples[:SAMPLE_VALUES]:
            value = sample.get("value", sample.get(config.kwargs.get("column") or "", None))
            if kind == "expect_column_values_to_be_between" and config.kwargs.get("column") == "table_rows":
                value = sample.get("table_rows")
            findings.append(Finding(env_id, CHECK_SUITE, f"{kind} failed on {column}",
                                    table=sample.get("table"), column=sample.get("column"), row=sample.get("row"),
                                    value=value if isinstance(value, (int, float)) or value is None else str(value)[:120]))
        if not samples:
            findings.append(Finding(env_id, CHECK_SUITE, f"{kind} failed on {column}: {str(detail)[:300]}"))
    return list(dict.fromkeys(findings)), failed


def run_expectation_suite(db_path: Path, spec: SchemaSpec, min_rows: int = MIN_ROWS_PER_TABLE) -> SuiteResult:
    """Validate one database with the suite; on failure, name the table, column, row and value."""
    g = _gx()
    frame, enum_keys = cell_frame(db_path, spec)
    suite = expectation_suite(min_rows)
    params = {"enum_keys": sorted(set(enum_keys)) or ["<no enums>"]}
    batch = g["batch_definition"].get_batch(batch_parameters={"dataframe": frame})
    quick = batch.validate(suite, result_format="BOOLEAN_ONLY", expectation_parameters=params)
    result = SuiteResult(spec.env_id, bool(quick.success), len(suite.expectations), len(frame))
    if quick.success:
        return result
    # Only a failing suite pays for the details: unexpected rows named by table, column and row id.
    detailed = batch.validate(suite, expectation_parameters=params, result_format={
        "result_format": "SUMMARY", "unexpected_index_column_names": ["table", "column", "row", "value", "table_rows"],
        "partial_unexpected_count": SAMPLE_VALUES})
    result.findings, result.failed_expectations = _suite_findings(spec.env_id, detailed)
    return result


def suites_pass_together(items: list[tuple[str, Path, SchemaSpec]],
                         min_rows: int = MIN_ROWS_PER_TABLE) -> tuple[bool, int]:
    """One quick validation of the suite over many databases at once (keys prefixed by environment).

    Great-expectations costs about the same per expectation whatever the frame's size, so a partition's
    databases are validated in one batch; only when the batch fails are they validated one by one (with
    run_expectation_suite) to name the failing environment, table, column and row.
    """
    import pandas as pd

    if not items:
        return True, 0
    g = _gx()
    frames, enum_keys = [], []
    for env_id, db_path, spec in items:
        frame, keys = cell_frame(db_path, spec, key_prefix=f"{env_id}|")
        frames.append(frame)
        enum_keys += keys
    combined = pd.concat(frames, ignore_index=True)
    params = {"enum_keys": sorted(set(enum_keys)) or ["<no enums>"]}
    batch = g["batch_definition"].get_batch(batch_parameters={"dataframe": combined})
    result = batch.validate(expectation_suite(min_rows), result_format="BOOLEAN_ONLY", expectation_parameters=params)
    return bool(result.success), len(combined)


# --- clock independence --------------------------------------------------------------------


def ddl_clock_findings(env_id: str, ddl: str) -> list[Finding]:
    """DDL that fills values from the clock or at random makes the initial state differ per build."""
    return [Finding(env_id, CHECK_CLOCK, f"schema.sql uses {m.group(0)!r}, which changes with the clock or per build")
            for m in _CLOCK_SQL.finditer(ddl)]


def _first_difference(a: Path, b: Path, spec: SchemaSpec) -> str:
    conns = [sqlite3.connect(f"file:{p.resolve()}?mode=ro", uri=True) for p in (a, b)]
    try:
        for table in spec.tables:
            order = f"ORDER BY {_q(table.primary_key)}"
            left, right = (c.execute(f"SELECT * FROM {_q(table.name)} {order}").fetchall() for c in conns)
            if left == right:
                continue
            if len(left) != len(right):
                return f"table {table.name}: {len(left)} rows, then {len(right)}"
            for row_a, row_b in zip(left, right):
                if row_a != row_b:
                    names = [c.name for c in table.columns]
                    diff = [names[i] if i < len(names) else str(i)
                            for i, (x, y) in enumerate(zip(row_a, row_b)) if x != y]
                    return f"table {table.name} row {row_a[0]}: {', '.join(diff)} differ ({row_a} then {row_b})"
        return "same rows, different file bytes (page layout)"
    finally:
        for c in conns:
            c.close()


def rebuild_findings(store: ArtifactStore, env_id: str, backend) -> list[Finding]:
    """Build env.db again from the same scenario and schema; it must be byte-identical."""
    scenario = artifacts.SCENARIO.read(store, env_id)
    spec = artifacts.SCHEMA_JSON.read(store, env_id)
    ddl = artifacts.SCHEMA_SQL.read(store, env_id)
    findings = ddl_clock_findings(env_id, ddl)
    tmp = store.temp_path(env_id, "env.db.rebuild")
    try:
        write_database(tmp, ddl, spec, backend.database_rows(scenario, spec))
        original = artifacts.DATABASE.path(store, env_id)
        if sha256_file(tmp) != sha256_file(original):
            detail = _first_difference(original, tmp, spec)
            findings.append(Finding(env_id, CHECK_CLOCK, f"a second build differs: {detail}"))
    finally:
        tmp.unlink(missing_ok=True)
    return findings
