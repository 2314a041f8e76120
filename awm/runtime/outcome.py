"""The outcome of an episode: every row that differs between the initial and the final database, and
whether each difference is accounted for by the task's footprint (awm.contracts.Footprint).

A reward is a training signal, so a verifier's verdict on the goals is not enough: the right change plus
collateral damage (other customers' orders cancelled, every other price set to 0.01) must fail. Like
tau2-bench comparing the final database with the gold replay's, and AppWorld checking that nothing else
changed, the runtime diffs the two states and fails any change the task's own reference solution does not
make (the footprint lists those row by row: the goals, and the side effects of the task's own tool calls,
such as a payment row a refund writes or the other addresses a new primary address demotes), and an
updated column must end with the value the reference leaves there.

A row the episode inserts is compared whole with a row the reference inserts, in both their final states
(so a row created and then cancelled, suspended or voided is not the row asked for, and a row inserted and
then updated is judged as it ends): every column but the primary key (the next free key, which depends on
what else was inserted first), and but the free-text columns the request leaves open (`open_columns`: a
text the reference made up or the tool composed, such as a note or a generated code: any non-empty text).
A column that points at a row the episode itself inserted is compared through the row it was matched to.

This is trusted runtime code; it runs in the sandbox worker next to the databases. Only the tables the
episode wrote to are read (DBHandle records them), so a judgement costs a few small queries.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

MAX_UNEXPECTED_EVIDENCE = 10
MAX_COLUMN_EVIDENCE = 6  # differing columns named per inserted row
ALL_TABLES = "*"  # a written-tables marker: the schema itself changed, so every table is compared
# Values that are data, not prose, even in a TEXT column: a date, a time, a timestamp or a number. A tool
# fills them from the clock or from arguments, and a request that leaves them unsaid leaves them to the
# tool's default (a booking's start, an application's submission date): never an open column.
_NOT_PROSE = re.compile(r"\s*(\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([+-]\d{2}:?\d{2}|Z)?)?"
                        r"|\d{1,2}:\d{2}(:\d{2})?|[-+]?\d+([.,]\d+)*)\s*")


class _AnyText:
    """What the reference leaves in an open column: any non-empty text."""

    def __repr__(self) -> str:
        return "any non-empty text"


ANY_TEXT = _AnyText()
_ENUM_CHECK = re.compile(r'CHECK\s*\(\s*["`\[]?(\w+)["`\]]?\s+IN\s*\(', re.IGNORECASE)


@dataclass
class TableInfo:
    name: str
    columns: list[str]
    key: str | None  # the single-column primary key, else None (rows are keyed by rowid)
    anchors: list[str]  # columns that reference another table's rows
    types: dict[str, str] = field(default_factory=dict)  # column -> declared type (upper case)
    references: dict[str, str] = field(default_factory=dict)  # anchor column -> the table it points at
    enums: set[str] = field(default_factory=set)  # columns a CHECK (column IN (...)) limits to a closed set


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
        ddl = dict(conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table'").fetchall())
        for name in names:
            info = conn.execute(f'PRAGMA table_info("{name}")').fetchall()
            keys = [r[1] for r in info if r[5]]
            fks = conn.execute(f'PRAGMA foreign_key_list("{name}")').fetchall()
            tables[name] = TableInfo(name, [r[1] for r in info], keys[0] if len(keys) == 1 else None,
                                     sorted({r[3] for r in fks}), {r[1]: str(r[2] or "").upper() for r in info},
                                     {r[3]: r[2] for r in fks}, set(_ENUM_CHECK.findall(ddl.get(name) or "")))
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


def footprint_of(layout: Layout, changes: list[dict], template: sqlite3.Connection | None = None,
                 instruction: str | None = None) -> dict:
    """The footprint (awm.contracts.Footprint, as a dict) that accounts for exactly these changes: an inserted
    row whole (its key kept only to tie the rows that point at it), less its open columns when the request
    (`instruction`, on the initial state `template`) is given (`open_columns`)."""
    footprint: dict[str, dict] = {"updated": {}, "values": {}, "deleted": {}, "inserted": {}, "open": {}}
    for change in changes:
        table, key = change["table"], str(change["key"])
        if change["op"] == "update":
            footprint["updated"].setdefault(table, {})[key] = sorted(change["columns"])
            footprint["values"].setdefault(table, {})[key] = {c: after for c, (_, after) in change["columns"].items()}
        elif change["op"] == "delete":
            footprint["deleted"].setdefault(table, []).append(key)
        elif change["op"] == "insert":
            row = {c: after for c, (_, after) in change["columns"].items()}
            free = (open_columns(layout.tables[table], row, template, instruction)
                    if template is not None and instruction is not None else [])
            footprint["inserted"].setdefault(table, []).append({c: v for c, v in row.items() if c not in free})
            footprint["open"].setdefault(table, []).append(free)
    footprint["open"] = {t: rows for t, rows in footprint["open"].items() if any(rows)}
    return footprint


def _text_key(value: Any) -> str:
    """A text as the verifiers compare a quoted one: whitespace, case and final punctuation do not matter."""
    return " ".join(str(value).split()).lower().rstrip(".!?;:, ")


def _in_initial_state(template: sqlite3.Connection, value: str) -> bool:
    """Whether any text column of any table of the initial state holds `value`."""
    cursor = template.cursor()
    cursor.row_factory = None
    tables = [r[0] for r in cursor.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    probes = []
    for table in tables:
        probes += [f'SELECT 1 FROM "{table}" WHERE "{r[1]}" = ?'
                   for r in cursor.execute(f'PRAGMA table_info("{table}")') if "TEXT" in str(r[2]).upper()]
    for start in range(0, len(probes), 400):  # SQLite's compound SELECT limit is 500
        part = probes[start:start + 400]
        if cursor.execute(" UNION ALL ".join(part) + " LIMIT 1", [value] * len(part)).fetchone() is not None:
            return True
    return False


def open_columns(info: TableInfo, row: dict, template: sqlite3.Connection, instruction: str) -> list[str]:
    """The columns of a row the reference inserted that the request leaves open: a TEXT column without a closed
    set of values (no enum), not pointing at another row, whose value is prose (not a date, a time or a
    number), that the request does not state and that is not a value of the initial state (a name or a
    status copied from another row). The reference made it up, or the tool composed it (a generated code
    that depends on the order rows were inserted in): an episode's row may hold any non-empty text there."""
    said = _text_key(instruction)
    free = []
    for column, value in row.items():
        if (column == info.key or column in info.enums or column in info.references
                or "TEXT" not in info.types.get(column, "") or not isinstance(value, str)):
            continue
        key = _text_key(value)
        if len(key) < 3 or _NOT_PROSE.fullmatch(value) or key in said or _in_initial_state(template, value):
            continue
        free.append(column)
    return free


def _same(actual: Any, expected: Any) -> bool:
    numbers = (int, float)
    if isinstance(actual, numbers) and isinstance(expected, numbers) and not isinstance(actual, bool):
        return abs(actual - expected) < 0.005
    return actual == expected


def _same_value(actual: Any, expected: Any) -> bool:
    """An inserted row's column: numbers to the cent, texts as _text_key compares them, no text like NULL."""
    if isinstance(actual, str) and isinstance(expected, str):
        return _text_key(actual) == _text_key(expected)
    if (actual is None or actual == "") and (expected is None or expected == ""):
        return True
    return _same(actual, expected)


def _filled(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _describe(change: dict, differences: list[tuple[str, Any, Any]] | None = None) -> str:
    where = f"{change['table']} row {change['key']}"
    if change["op"] == "update":
        what = ", ".join(f"{c} {a!r} -> {b!r}" for c, (a, b) in list(change["columns"].items())[:6])
        return f"{where} updated ({what})"
    if change["op"] == "insert" and differences:
        what = ", ".join(f"{c} {a!r}, expected {b!r}"
                         for c, a, b in differences[:MAX_COLUMN_EVIDENCE])
        more = len(differences) - MAX_COLUMN_EVIDENCE
        return f"{where} inserted: {what}" + (f" (and {more} more columns)" if more > 0 else "")
    if change["op"] == "insert":
        values = ", ".join(f"{c}={b!r}" for c, (_, b) in list(change["columns"].items())[:6])
        return f"{where} inserted ({values})"
    if change["op"] == "delete":
        return f"{where} deleted"
    return f"table {change['table']}: {change['op'].replace('_', ' ')}"


@dataclass
class _Matched:
    """A column's value that points at a row the episode inserted, and the reference row that row matched."""

    value: Any
    table: str
    reference_key: Any

    def __repr__(self) -> str:
        return f"{self.value!r} (the reference's {self.table} row {self.reference_key!r})"


class _Inserts:
    """Matches the rows an episode inserted with the rows the reference inserted (the footprint's), each
    used once: table by table, the tables whose rows others point at first, so a column pointing at a row
    the episode inserted is compared through the reference row that row was matched to."""

    def __init__(self, layout: Layout, footprint: dict):
        self.layout = layout
        self.expected = footprint.get("inserted", {})
        self.open = footprint.get("open", {})
        self.matched: dict[str, dict[Any, Any]] = {}  # table -> episode key -> the reference's key

    def order(self, tables: list[str]) -> list[str]:
        ordered, seen = [], set()

        def visit(table: str, path: tuple) -> None:
            if table in seen or table in path:
                return
            info = self.layout.tables.get(table)
            for parent in (info.references.values() if info else ()):
                if parent in tables:
                    visit(parent, (*path, table))
            seen.add(table)
            ordered.append(table)

        for table in tables:
            visit(table, ())
        return ordered

    def differences(self, table: str, row: dict, n: int) -> list[tuple[str, Any, Any]]:
        """(column, episode's value, reference's value) for each column where `row` is not reference row n."""
        info = self.layout.tables.get(table)
        expected = self.expected[table][n]
        free = self.open.get(table, [])
        free = free[n] if n < len(free) else []
        found = []
        for column, value in expected.items():
            if info is not None and column == info.key:
                continue  # the key the reference got: it only ties the rows that point at this one
            actual = shown = row.get(column)
            parent = info.references.get(column) if info is not None else None
            if parent is not None and actual in self.matched.get(parent, {}):
                actual = self.matched[parent][actual]  # a row the episode inserted: the reference row it is
                shown = _Matched(row.get(column), parent, actual)
            if not _same_value(actual, value):
                found.append((column, shown, value))
        found += [(column, row.get(column), ANY_TEXT) for column in free if not _filled(row.get(column))]
        return found

    def match(self, table: str, inserts: list[dict]) -> list[tuple[dict, list[tuple[str, Any, Any]] | None]]:
        """Each inserted change with None (matched to a reference row) or its differences from the nearest
        reference row left ([] when the reference inserted no more rows there)."""
        expected = self.expected.get(table, [])
        rows = [{c: after for c, (_, after) in change["columns"].items()} for change in inserts]
        fits = [[n for n in range(len(expected)) if not self.differences(table, row, n)] for row in rows]
        owner: dict[int, int] = {}  # reference row -> episode row: a maximum matching (augmenting paths)

        def place(i: int, tried: set) -> bool:
            for n in fits[i]:
                if n not in tried:
                    tried.add(n)
                    if n not in owner or place(owner[n], tried):
                        owner[n] = i
                        return True
            return False

        for i in range(len(rows)):
            place(i, set())
        taken = {i: n for n, i in owner.items()}
        info = self.layout.tables.get(table)
        key = info.key if info is not None else None
        for i, n in taken.items():
            if key is not None and key in expected[n]:
                self.matched.setdefault(table, {})[inserts[i]["key"]] = expected[n][key]
        left = [n for n in range(len(expected)) if n not in owner]
        result = []
        for i, change in enumerate(inserts):
            if i in taken:
                result.append((change, None))
            else:
                nearest = min((self.differences(table, rows[i], n) for n in left), key=len, default=[])
                result.append((change, nearest))
        return result


def account(layout: Layout, changes: list[dict], footprint: dict) -> tuple[dict, list[str]]:
    """(summary, unexpected): rows changed per table with how many the footprint expects, and a line of
    evidence for every change it does not (table, key and columns; for an inserted row, each column where
    it differs from the nearest row the reference inserted)."""
    unexpected: list[tuple[dict, list | None]] = []
    tables: dict[str, dict[str, int]] = {}
    inserts: dict[str, list[dict]] = {}
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
        elif op == "insert" and table in layout.tables:
            inserts.setdefault(table, []).append(change)
            continue
        else:
            ok = False
        if not ok:
            counts["unexpected"] += 1
            unexpected.append((change, None))
    matcher = _Inserts(layout, footprint)
    for table in matcher.order(list(inserts)):
        for change, differences in matcher.match(table, inserts[table]):
            if differences is not None:
                tables[table]["unexpected"] += 1
                unexpected.append((change, differences))
    summary = {"tables": tables, "changed": len(changes), "expected": len(changes) - len(unexpected),
               "unexpected": len(unexpected)}
    evidence = [f"unexpected change: {_describe(c, d)}" for c, d in unexpected[:MAX_UNEXPECTED_EVIDENCE]]
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
