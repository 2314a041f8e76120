"""The outcome of an episode: every row that differs between the initial and the final database, and
whether each difference is accounted for by the task's footprint (awm.contracts.Footprint).

A reward is a training signal, so a verifier's verdict on the goals is not enough: the right change plus
collateral damage (other customers' orders cancelled, every other price set to 0.01) must fail. Like
tau2-bench comparing the final database with the gold replay's, and AppWorld checking that nothing else
changed, the runtime diffs the two states and fails any change the task's own reference solution does not
make (the footprint lists those row by row: the goals, and the side effects of the task's own tool calls,
such as a payment row a refund writes or the other addresses a new primary address demotes), and an
updated column must end with the value the reference leaves there.

This is trusted runtime code; it runs in the sandbox worker next to the databases. Only the tables the
episode wrote to are read (DBHandle records them), so a judgement costs a few small queries.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from typing import Any

MAX_UNEXPECTED_EVIDENCE = 10
ALL_TABLES = "*"  # a written-tables marker: the schema itself changed, so every table is compared


@dataclass
class TableInfo:
    name: str
    columns: list[str]
    key: str | None  # the single-column primary key, else None (rows are keyed by rowid)
    anchors: list[str]  # columns that reference another table's rows


@dataclass
class Layout:
    """What the diff needs to know of an environment's schema, read once from its initial database."""

    tables: dict[str, TableInfo]
    cascades: dict[str, set[str]]  # table -> tables a write to it can change through foreign-key actions
    has_triggers: bool
    initial_rows: dict[str, dict[Any, tuple]] = field(default_factory=dict)

    @classmethod
    def read(cls, conn: sqlite3.Connection) -> Layout:
        tables: dict[str, TableInfo] = {}
        cascades: dict[str, set[str]] = {}
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        for name in names:
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            keys = [r[1] for r in info if r[5]]
            fks = conn.execute(f'PRAGMA foreign_key_list("{name}")').fetchall()
            tables[name] = TableInfo(name, [r[1] for r in info], keys[0] if len(keys) == 1 else None,
                                     sorted({r[3] for r in fks}))
            for fk in fks:  # (id, seq, table, from, to, on_update, on_delete, match)
                if fk[5] != "NO ACTION" or fk[6] != "NO ACTION":
                    cascades.setdefault(fk[2], set()).add(name)
        has_triggers = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'trigger'").fetchone() is not None
        return cls(tables, cascades, has_triggers)

    def affected(self, written: set[str]) -> list[str]:
        """The tables whose rows may differ after writes to `written` (foreign-key actions included)."""
        if ALL_TABLES in written or self.has_triggers:
            return list(self.tables)
        seen, todo = set(), [t for t in written if t in self.tables]
        while todo:
            table = todo.pop()
            if table not in seen:
                seen.add(table)
                todo += self.cascades.get(table, ())
        return sorted(seen)

    def rows(self, conn: sqlite3.Connection, table: str) -> dict[Any, tuple]:
        info = self.tables[table]
        cursor = conn.cursor()
        cursor.row_factory = None
        key = f'"{info.key}"' if info.key else "rowid"
        columns = ", ".join(f'"{c}"' for c in info.columns)
        return {row[0]: row[1:] for row in cursor.execute(f'SELECT {key}, {columns} FROM "{table}"')}

    def initial(self, template: sqlite3.Connection, table: str) -> dict[Any, tuple]:
        rows = self.initial_rows.get(table)
        if rows is None:
            rows = self.initial_rows[table] = self.rows(template, table)
        return rows


def diff(layout: Layout, template: sqlite3.Connection, final: sqlite3.Connection, written: set[str]) -> list[dict]:
    """Every row that differs: {"table", "key", "op": insert | update | delete, "columns": {name: [before, after]}}
    (an insert's columns are its values, a delete's the row it removed; an update lists the changed ones)."""
    changes: list[dict] = []
    extra: set[str] = set()
    if ALL_TABLES in written:
        cursor = final.cursor()
        cursor.row_factory = None
        extra = {r[0] for r in cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table' "
                                              "AND name NOT LIKE 'sqlite_%'")} - set(layout.tables)
    for table in sorted(extra):
        changes.append({"table": table, "key": None, "op": "create_table", "columns": {}})
    for table in layout.affected(written):
        info = layout.tables[table]
        before = layout.initial(template, table)
        try:
            after = layout.rows(final, table)
        except sqlite3.Error:  # dropped or altered by the episode
            changes.append({"table": table, "key": None, "op": "alter_table", "columns": {}})
            continue
        for key, row in after.items():
            old = before.get(key)
            if old is None:
                changes.append({"table": table, "key": key, "op": "insert",
                                "columns": {c: [None, v] for c, v in zip(info.columns, row)}})
            elif old != row:
                changes.append({"table": table, "key": key, "op": "update",
                                "columns": {c: [a, b] for c, a, b in zip(info.columns, old, row) if a != b}})
        for key, old in before.items():
            if key not in after:
                changes.append({"table": table, "key": key, "op": "delete",
                                "columns": {c: [v, None] for c, v in zip(info.columns, old)}})
    return changes


def diff_since(layout: Layout, template: sqlite3.Connection, final: sqlite3.Connection, base: list[dict],
               written: set[str]) -> list[dict]:
    """The diff of a state that differs from the one `base` (its diff) describes only by writes to `written`:
    those tables (and what they cascade to) are compared again, the others are taken from `base`."""
    if ALL_TABLES in written or layout.has_triggers:
        return diff(layout, template, final, {ALL_TABLES})
    again = set(layout.affected(written))
    return [c for c in base if c["table"] not in again] + diff(layout, template, final, written)


def footprint_of(layout: Layout, changes: list[dict]) -> dict:
    """The footprint (awm.contracts.Footprint, as a dict) that accounts for exactly these changes."""
    footprint: dict[str, dict] = {"updated": {}, "values": {}, "deleted": {}, "inserted": {}}
    for change in changes:
        table, key = change["table"], str(change["key"])
        if change["op"] == "update":
            footprint["updated"].setdefault(table, {})[key] = sorted(change["columns"])
            footprint["values"].setdefault(table, {})[key] = {c: after for c, (_, after) in change["columns"].items()}
        elif change["op"] == "delete":
            footprint["deleted"].setdefault(table, []).append(key)
        elif change["op"] == "insert":
            anchors = layout.tables[table].anchors
            footprint["inserted"].setdefault(table, []).append(
                {c: change["columns"][c][1] for c in anchors if c in change["columns"]})
    return footprint


def _same(actual: Any, expected: Any) -> bool:
    numbers = (int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers) and not isinstance(actual, bool):
        return abs(actual - expected) < 0.005
    return actual == expected


def _describe(change: dict) -> str:
    where = f"{change['table']} row {change['key']}"
    if change["op"] == "update":
        what = ", ".join(f"{c} {a!r} -> {b!r}" for c, (a, b) in list(change["columns"].items())[:6])
        return f"{where} updated ({what})"
    if change["op"] == "insert":
        values = ", ".join(f"{c}={b!r}" for c, (_, b) in list(change["columns"].items())[:6])
        return f"{where} inserted ({values})"
    if change["op"] == "delete":
        return f"{where} deleted"
    return f"table {change['table']}: {change['op'].replace('_', ' ')}"


def account(layout: Layout, changes: list[dict], footprint: dict) -> tuple[dict, list[str]]:
    """(summary, unexpected): rows changed per table with how many the footprint expects, and a line of
    evidence for every change it does not (table, key and columns)."""
    unexpected: list[dict] = []
    unused_inserts = {t: list(rows) for t, rows in footprint.get("inserted", {}).items()}
    tables: dict[str, dict[str, int]] = {}
    for change in changes:
        table, key, op = change["table"], str(change["key"]), change["op"]
        counts = tables.setdefault(table, {"inserted": 0, "updated": 0, "deleted": 0, "unexpected": 0})
        if op in ("insert", "update", "delete"):
            counts[op + "d" if op != "insert" else "inserted"] += 1
        if op == "update":
            allowed = footprint.get("updated", {}).get(table, {}).get(key)
            expected = footprint.get("values", {}).get(table, {}).get(key, {})
            ok = (allowed is not None and set(change["columns"]) <= set(allowed)
                  and all(_same(after, expected[c]) for c, (_, after) in change["columns"].items() if c in expected))
        elif op == "delete":
            ok = key in footprint.get("deleted", {}).get(table, [])
        elif op == "insert":
            anchors = layout.tables[table].anchors if table in layout.tables else []
            values = {c: change["columns"][c][1] for c in anchors if c in change["columns"]}
            pool = unused_inserts.get(table, [])
            ok = values in pool
            if ok:
                pool.remove(values)
        else:
            ok = False
        if not ok:
            counts["unexpected"] += 1
            unexpected.append(change)
    summary = {"tables": tables, "changed": len(changes), "expected": len(changes) - len(unexpected),
               "unexpected": len(unexpected)}
    evidence = [f"unexpected change: {_describe(c)}" for c in unexpected[:MAX_UNEXPECTED_EVIDENCE]]
    if len(unexpected) > MAX_UNEXPECTED_EVIDENCE:
        evidence.append(f"... and {len(unexpected) - MAX_UNEXPECTED_EVIDENCE} more unexpected changes")
    return summary, evidence


def judged(verdict: dict, summary: dict, unexpected: list[str]) -> dict:
    """The verifier's verdict on the goals, joined with the outcome: complete only if nothing unexpected changed."""
    verdict = dict(verdict)
    verdict["diff"] = summary
    if unexpected:
        verdict["evidence"] = list(verdict.get("evidence", [])) + unexpected
        if verdict.get("complete"):
            verdict["evidence"] = [e for e in verdict["evidence"] if e != "every goal is met"]
        verdict["complete"] = False
        verdict["collateral"] = True
    return verdict
