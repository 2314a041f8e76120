"""Mutation testing of verifiers: wrong final states a verifier must reject.

A mutant is a trajectory an imperfect agent could have taken, replayed through the runtime like
the reference solution, so it reaches a real final state (nothing is edited behind the tools' back).
Only its write calls are replayed: a read changes nothing, so the final state is the same without it.
  wrong_row    the reference solution with the goal's row swapped for a neighbour of the same table
               in every write call: the right change, applied to the wrong row;
  half_change  the reference solution with the second half of its write calls left out: half of a
               multi-step change (judged where the reference's own replay passes through that state);
  wrong_answer the full reference solution, then a wrong answer: its numbers shifted, or a name it
               must state swapped for another entity's from the same column (a longer name that
               contains it first: 'AP Biology Session' for 'Biology Session').
A verifier that judges a mutant complete lets a wrong agent collect the reward.
"""

from __future__ import annotations

import bisect
import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from awm.contracts import SchemaSpec, Task, ToolCall, ToolSet

MAX_WRONG_ROW = 1  # one wrong row per task: each more costs a full replay
_NUMBER = re.compile(r"(?<![A-Za-z0-9])-?\d+(?:[.,]\d+)*")


@dataclass
class Mutation:
    kind: Literal["wrong_row", "half_change", "wrong_answer"]
    description: str
    calls: list[ToolCall] = field(default_factory=list)
    answer: str | None = None
    replay: bool = True  # False: judged on the reference's own trajectory (its final state, or `after`)
    after: int | None = None  # not replayed: the reference's state once this many of its calls were made


def _write_tools(toolset: ToolSet) -> set[str]:
    return {t.name for t in toolset.tools if not t.annotations.get("readOnlyHint")}


def _is_id(name: str, value: object) -> bool:
    return (name == "id" or name.endswith("_id")) and isinstance(value, int) and not isinstance(value, bool)


def _targets(task: Task, spec: SchemaSpec) -> list[tuple[str, int]]:
    """(table, id) of the rows the goals are about: changed rows, and the parents of created rows."""
    targets: list[tuple[str, int]] = []
    for goal in task.goals:
        if goal.kind in ("row_equals", "row_delta", "row_deleted") and goal.table and goal.pk is not None:
            targets.append((goal.table, goal.pk))
        if goal.kind == "rows_created" and goal.table:
            try:
                table = spec.table(goal.table)
            except KeyError:
                continue
            for column, value in goal.expect.items():
                col = next((c for c in table.columns if c.name == column), None)
                if col is not None and col.references and _is_id(column, value):
                    targets.append((col.references.partition(".")[0], value))
    return list(dict.fromkeys(targets))


def _param_tables(spec: SchemaSpec) -> dict[str, str]:
    """Argument names that are foreign-key column names, to the table they point at."""
    found: dict[str, str] = {}
    for table in spec.tables:
        for col in table.columns:
            if col.references:
                found.setdefault(col.name, col.references.partition(".")[0])
    return found


class InitialRows:
    """What the mutators read of an environment's initial database, each part read once on first use:
    every table's primary keys in order, and the distinct values of its text columns."""

    def __init__(self, spec: SchemaSpec, initial_db: Path):
        self.spec = spec
        self.path = Path(initial_db).resolve()
        self._keys: dict[str, list[int]] = {}
        self._texts: list[tuple[set[str], list[str]]] | None = None

    def _query(self, sql: str) -> list[tuple]:
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        try:
            return conn.execute(sql).fetchall()
        finally:
            conn.close()

    def neighbour(self, table: str, value: int) -> int | None:
        """The nearest other row of `table`: the next id, else the previous one (None: no other row)."""
        if table not in self._keys:
            try:
                pk = self.spec.table(table).primary_key
            except KeyError:
                return None
            self._keys[table] = [k for (k,) in self._query(f'SELECT "{pk}" FROM "{table}" ORDER BY "{pk}"')
                                 if isinstance(k, int)]
        keys = self._keys[table]
        after = bisect.bisect_right(keys, value)
        if after < len(keys):
            return keys[after]
        before = bisect.bisect_left(keys, value)
        return keys[before - 1] if before > 0 else None

    def _text_columns(self) -> list[tuple[set[str], list[str]]]:
        """Per text column (and per person's full name), its distinct values: as a set, and in table order."""
        if self._texts is None:
            self._texts = []
            parts = []
            for table in self.spec.tables:
                names = {c.name for c in table.columns}
                columns = [f'"{c.name}"' for c in table.columns if c.type == "TEXT" and not c.primary_key]
                if {"first_name", "last_name"} <= names:
                    columns.append("first_name || ' ' || last_name")
                parts += [f"SELECT {n}, v FROM (SELECT DISTINCT {expr} AS v FROM \"{table.name}\" "
                          "WHERE v IS NOT NULL)" for n, expr in enumerate(columns, len(parts))]
            by_column: dict[int, list[str]] = {}
            for start in range(0, len(parts), 400):  # SQLite's compound SELECT limit is 500
                for column, value in self._query(" UNION ALL ".join(parts[start:start + 400])):
                    by_column.setdefault(column, []).append(value)
            self._texts = [(set(values), values) for values in by_column.values()]
        return self._texts

    def other_values(self, value: str) -> list[str]:
        """Other values of the text column(s) where `value` is stored (or of a person's name, first and
        last name together): the entities a wrong answer would name instead. Names that contain `value`
        come first, as the hardest to tell apart."""
        found: list[str] = []
        for present, values in self._text_columns():
            if value in present:
                found += [v for v in values if v != value][:50]
        found = [v for v in dict.fromkeys(found) if isinstance(v, str) and v.strip()]
        return sorted(found, key=lambda v: (value.lower() not in v.lower(), v))


def wrong_row_mutations(task: Task, writes: set[str], spec: SchemaSpec, rows: InitialRows) -> list[Mutation]:
    param_tables = _param_tables(spec)
    mutations = []
    for table, value in _targets(task, spec):
        other = rows.neighbour(table, value)
        if other is None:
            continue
        changed = 0
        calls = []
        for call in task.reference_solution:
            if call.tool not in writes:
                continue  # a read changes nothing: the mutant's final state comes from its writes alone
            arguments = dict(call.arguments)
            for name, arg in call.arguments.items():
                named_table = param_tables.get(name)
                if _is_id(name, arg) and arg == value and named_table in (None, table):
                    arguments[name] = other
                    changed += 1
            calls.append(ToolCall(tool=call.tool, arguments=arguments))
        if changed:
            mutations.append(Mutation("wrong_row", f"the change applied to {table} {other} instead of {value}",
                                      calls, task.reference_answer))
        if len(mutations) >= MAX_WRONG_ROW:
            break
    return mutations


def half_change_mutation(task: Task, writes: set[str]) -> Mutation | None:
    """The reference's state after the first half of its write calls: judged midway through the reference's
    own replay (the state it passes through there is the mutant's final state, reads changing nothing),
    so it costs one judgement rather than a trajectory of its own."""
    positions = [i for i, call in enumerate(task.reference_solution) if call.tool in writes]
    if len(positions) < 2:
        return None
    kept, dropped = positions[:len(positions) // 2], positions[len(positions) // 2:]
    names = ", ".join(task.reference_solution[i].tool for i in dropped)
    return Mutation("half_change", f"{len(kept)} of {len(positions)} write calls made (left out: {names})",
                    [task.reference_solution[i] for i in kept], task.reference_answer, replay=False,
                    after=kept[-1] + 1)


def _shift_number(match: re.Match) -> str:
    text = match.group(0)
    plain = text.replace(",", "")
    if "." in plain:
        decimals = len(plain.split(".")[1])
        return f"{float(plain) * 1.1 + 1:.{decimals}f}"
    return str(int(plain) + 1)


def _swap_expected(task: Task, answer: str, rows: InitialRows) -> list[str]:
    """Answers with one expected name replaced by another entity's (same column): one per name."""
    swapped = []
    for goal in task.goals:
        value = goal.expect.get("value") if goal.kind == "answer" else None
        if not isinstance(value, str) or value.lower() not in answer.lower():
            continue
        for other in rows.other_values(value)[:1]:
            swapped.append(re.sub(re.escape(value), other.replace("\\", "\\\\"), answer, flags=re.IGNORECASE))
    return swapped


def wrong_answer_mutations(task: Task, rows: InitialRows) -> list[Mutation]:
    answer = task.reference_answer
    if not answer:
        return []
    mutations = []
    if _NUMBER.search(answer):
        shifted = _NUMBER.sub(_shift_number, answer)
        mutations.append(Mutation("wrong_answer", f"answer {shifted!r} instead of {answer!r}", [], shifted, False))
    for swapped in _swap_expected(task, answer, rows):
        mutations.append(Mutation("wrong_answer", f"answer {swapped!r} instead of {answer!r}", [], swapped, False))
    return mutations


class Mutator:
    """The mutants of one environment's tasks; reads what it needs of the initial database once."""

    def __init__(self, toolset: ToolSet, spec: SchemaSpec, initial_db: Path):
        self.writes = _write_tools(toolset)
        self.spec = spec
        self.rows = InitialRows(spec, initial_db)

    def mutations(self, task: Task) -> list[Mutation]:
        """Every mutant of `task` this module can build (none for a task with nothing to perturb)."""
        mutations = wrong_row_mutations(task, self.writes, self.spec, self.rows)
        half = half_change_mutation(task, self.writes)
        if half:
            mutations.append(half)
        return mutations + wrong_answer_mutations(task, self.rows)


def mutations_for(task: Task, toolset: ToolSet, spec: SchemaSpec, initial_db: Path) -> list[Mutation]:
    """The mutants of one task (for many tasks of an environment, one Mutator reads the database once)."""
    return Mutator(toolset, spec, initial_db).mutations(task)
