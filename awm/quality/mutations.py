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
  collateral_write   the reference, then one more successful write through a real write tool on a row the
               task does not change: the reference's own write tools on a neighbouring row, and each other
               write tool of the environment (spread over the tasks), with another task's arguments for it
               or the tools gate's example arguments;
  hedged_answer / dumped_answer / echoed_instruction  the reference, then an answer that hedges ("x or maybe
               y"), lists every candidate, or repeats the instruction;
  detail_changed / text_negated  the reference with one detail the instruction states (a reason, an author,
               a kind, an amount, a quoted text) changed, or its quoted text negated ("NOT ..."); a detail inside
               an object argument (contact.email) is changed in place, by its path.
  created_then_broken  the reference, then one more successful write that ends, voids or undoes a row the
               task created: a tool named for it (cancel, void, suspend, revoke, deactivate, ...) taking the
               new row's id (the key the reference's own replay gave it);
  extra_transition   the reference, then any other successful write through a tool taking a created row's
               id: a status moved on (confirm, approve, complete), a field updated, a child row added;
  unrequested_field  a create call of the reference with an optional argument the instruction does not state
               set to another value the tool accepts: a date or time moved (a year back, then a week on),
               another enum member, a number one more, a flag flipped, a text that is not open amended (the
               columns the request leaves open, awm.runtime.outcome.open_columns, take any text), a row the
               request never mentions linked (an optional id left out by the reference, given).
A verifier that judges a mutant complete lets a wrong agent collect the reward.

Acceptance variants are valid trajectories the verifier must accept (else a right agent is punished):
  extra_reads        every read call of the reference made twice (the ones before its last write again
                     at the end);
  skipped_lookups    only the reference's write calls (it already knows the ids; not for a task whose answer
                     would then be given with no call);
  corrected_write    the reference, with a write on another row made and then undone (its old values written
                     back) before it;
  reordered_steps    the independent parts of a combined task in the other order;
  equivalent_answer  the reference answer in other forms: currency and thousands formatting, statuses in
                     words, and a structured answer keyed by the task's answer slots.
"""

from __future__ import annotations

import bisect
import json
import re
import sqlite3
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

from awm.builder.intents.base import long_date
from awm.contracts import ACCEPTANCE_CLASSES, SchemaSpec, Task, ToolCall, ToolSet
from awm.quality.tools import smoke_arguments

MAX_WRONG_ROW = 1  # one wrong row per task: each more costs a full replay
MAX_DETAILS = 3  # stated details changed per task
MAX_UNREQUESTED = 4  # optional arguments set without being asked, per task
MAX_CREATED_WRITES = 8  # write tools tried on a created row, per task and class
# A tool whose name says it ends, voids or undoes a row: on a row the task created, the row is broken.
_BREAKING = re.compile(r"(^|_)(cancel|void|suspend|revoke|terminate|deactivate|disable|close|reject|decline|withdraw|"
                       r"delete|remove|archive|expire|dismiss|block|freeze|discontinue|abandon|retire|lapse|"
                       r"end|stop|pause|hold|refund|reverse|write_off|unenroll|unregister|unpublish|deny|"
                       r"mark_lost|default|fail|no_show|unsubscribe|release|drop)s?($|_)")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})(.*)")
COLLATERAL_ROWS = 8  # rows tried per write tool for a collateral write (the first one its rules accept counts)
_NUMBER = re.compile(r"(?<![A-Za-z0-9])-?\d+(?:[.,]\d+)*")


@dataclass
class Mutation:
    kind: str  # a class of awm.contracts.MUTANT_CLASSES or ACCEPTANCE_CLASSES
    description: str
    calls: list[ToolCall] = field(default_factory=list)
    answer: str | None = None
    replay: bool = True  # False: judged on the reference's own trajectory (its final state, or `after`)
    after: int | None = None  # not replayed: the reference's state once this many of its calls were made
    must_succeed: list[int] = field(default_factory=list)  # calls that must not fail for the trajectory to count
    group: str | None = None  # alternatives of one probe: only the first that counts is judged

    @property
    def must_pass(self) -> bool:
        """An acceptance variant (a valid trajectory), not a mutant."""
        return self.kind in ACCEPTANCE_CLASSES


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

    def keys(self, table: str) -> list[int]:
        """The table's integer primary keys, in order (none for a table the schema does not have)."""
        if table not in self._keys:
            try:
                pk = self.spec.table(table).primary_key
            except KeyError:
                return []
            self._keys[table] = [k for (k,) in self._query(f'SELECT "{pk}" FROM "{table}" ORDER BY "{pk}"')
                                 if isinstance(k, int)]
        return self._keys[table]

    def row(self, table: str, key: int) -> dict | None:
        """One row of the initial state, by primary key."""
        pk = self.spec.table(table).primary_key
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        try:
            found = conn.execute(f'SELECT * FROM "{table}" WHERE "{pk}" = ?', (key,)).fetchone()
            return dict(found) if found is not None else None
        finally:
            conn.close()

    def neighbour(self, table: str, value: int) -> int | None:
        """The nearest other row of `table`: the next id, else the previous one (None: no other row)."""
        keys = self.keys(table)
        if not keys:
            return None
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
    expected = {str(g.expect.get("value")).lower() for g in task.goals if g.kind == "answer"}
    for goal in task.goals:
        value = goal.expect.get("value") if goal.kind == "answer" else None
        if not isinstance(value, str) or value.lower() not in answer.lower():
            continue
        # another value the task expects (the answer to another of its questions) is no wrong answer: in
        # free text nothing ties a value to its question (a structured answer does)
        for other in [v for v in rows.other_values(value) if v.lower() not in expected][:1]:
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
    """The mutants and acceptance variants of one environment's tasks; reads what it needs of the initial
    database once. `mutations(task)` are known before any replay; `after_reference(task, footprint)` need
    what the reference solution changes. Every write tool of the environment is tried as a collateral write
    on some task: the ones a task's reference does not use are spread over the tasks."""

    def __init__(self, toolset: ToolSet, spec: SchemaSpec, initial_db: Path, tasks: list[Task] = ()):
        self.writes = _write_tools(toolset)
        self.spec = spec
        self.rows = InitialRows(spec, initial_db)
        self.shortcuts = ShortcutMutator(toolset, spec, self.rows, self.writes, tasks)
        self.foreign: dict[str, list[str]] = {}
        for n, tool in enumerate(sorted(self.writes)):
            free = [t for t in tasks if tool not in {c.tool for c in t.reference_solution}]
            if free:
                self.foreign.setdefault(free[n % len(free)].task_id, []).append(tool)

    def mutations(self, task: Task) -> list[Mutation]:
        """The mutants (and answer forms) of `task` built from the task alone."""
        mutations = wrong_row_mutations(task, self.writes, self.spec, self.rows)
        half = half_change_mutation(task, self.writes)
        if half:
            mutations.append(half)
        return mutations + wrong_answer_mutations(task, self.rows) + answer_mutations(task, self.rows)

    def after_reference(self, task: Task, footprint: dict) -> list[Mutation]:
        """Collateral writes, changed details and the acceptance variants that replay a trajectory."""
        touched = touched_rows(footprint)
        return (self.shortcuts.collateral(task, touched, self.foreign.get(task.task_id, []))
                + self.shortcuts.details(task) + self.shortcuts.created(task, footprint)
                + self.shortcuts.unrequested(task, footprint) + self.shortcuts.acceptance(task, touched)
                + refused_attempts(task))


def refused_attempts(task: Task) -> list[Mutation]:
    """An infeasible request tried anyway: the reference, then the call the request asks for. The tools must
    refuse it (with the error code the answer's rule slot names: checked in awm.quality.proofs) and change
    nothing, so the reference answer still completes the task."""
    return [Mutation("refused_attempt", f"the reference, then {r.call.tool} as the request asks (refused as "
                     f"{r.code})", calls=[*task.reference_solution, r.call], answer=task.reference_answer)
            for r in task.refusals]


def mutations_for(task: Task, toolset: ToolSet, spec: SchemaSpec, initial_db: Path) -> list[Mutation]:
    """The mutants of one task built from the task alone (for many tasks of an environment, one Mutator reads
    the database once)."""
    return Mutator(toolset, spec, initial_db).mutations(task)


# --- the shortcuts an RL policy finds ------------------------------------------------------------------


def _id_table(name: str, spec: SchemaSpec, param_tables: dict[str, str]) -> str | None:
    """The table an id argument names: a foreign-key column's target, else the table named like the argument
    (order_item_id -> order_items)."""
    if name in param_tables:
        return param_tables[name]
    stem = name[:-3] if name.endswith("_id") else name
    names = {t.name for t in spec.tables}
    for candidate in (stem + "s", stem + "es", stem[:-1] + "ies" if stem.endswith("y") else None, stem):
        if candidate in names:
            return candidate
    return None


def touched_rows(footprint: dict) -> set[tuple[str, int | str]]:
    """(table, key) of every row a footprint lets the task update or delete (keys as int where they are)."""
    rows = set()
    for kind in ("updated", "deleted"):
        for table, keys in footprint.get(kind, {}).items():
            rows |= {(table, int(k) if str(k).lstrip("-").isdigit() else k) for k in keys}
    return rows


def _leaves(arguments: dict, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], object]]:
    """Every argument value that is not an object, by its path: (('contact', 'email'), 'a@b.c')."""
    leaves = []
    for name, value in arguments.items():
        if isinstance(value, dict):
            leaves += _leaves(value, (*path, name))
        else:
            leaves.append(((*path, name), value))
    return leaves


def _with_leaf(arguments: dict, path: tuple[str, ...], value: object) -> dict:
    """`arguments` with the value at `path` replaced (the objects on the way copied, never changed)."""
    head, *rest = path
    return {**arguments, head: _with_leaf(arguments[head], tuple(rest), value) if rest else value}


def _leaf_schema(schema: dict, path: tuple[str, ...]) -> dict:
    """The schema of the value at `path` in arguments that `schema` (a tool's inputSchema) describes."""
    for name in path:
        schema = schema.get("properties", {}).get(name, {})
    return schema


def _stated(value: object, instruction: str) -> bool:
    """Whether the instruction states this argument value (a text of 3+ characters, or a number as written)."""
    if isinstance(value, bool) or value is None:
        return False
    text = instruction.lower()
    if isinstance(value, str):
        return len(value) >= 3 and value.lower() in text
    if isinstance(value, (int, float)):
        forms = {str(value), f"{value:.2f}", str(abs(value))} if isinstance(value, float) else {str(abs(value))}
        return any(re.search(rf"(?<![\d.]){re.escape(f)}(?![\d])", text) for f in forms)
    return False


def _other_value(value: object, schema: dict) -> object | None:
    """A different value of the same kind the tool accepts (another enum member, a changed text or number)."""
    if isinstance(value, str):
        enum = [e for e in schema.get("enum", []) if e != value]
        return enum[0] if enum else (None if schema.get("enum") else value + " (amended)")
    if isinstance(value, int):
        return value + 1 if value >= 0 else value - 1
    if isinstance(value, float):
        return round(value * 1.1 + 1, 2)
    return None


def _moved_date(value: str, days: int) -> str | None:
    """An ISO date or timestamp moved by `days`, in the same form (None if it is not one)."""
    match = _DATE.fullmatch(value)
    if match is None:
        return None
    try:
        moved = date(int(match.group(1)), int(match.group(2)), int(match.group(3))) + timedelta(days=days)
    except ValueError:
        return None
    return moved.isoformat() + match.group(4)


def _unrequested_values(value: object, schema: dict, name: str) -> list[object]:
    """Other values an optional argument could be given (the reference's row holds `value` in its column): a
    date a year back and a week on, other enum members, a number one more or less, a flag flipped, a text
    amended. None of them is what the reference leaves."""
    kind = schema.get("type")
    if schema.get("enum"):
        return [e for e in schema["enum"] if e != value][:3]
    if kind == "boolean" or isinstance(value, bool):
        return [not bool(value)]
    if kind in ("integer", "number"):
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            step = 1 if kind == "integer" else 1.5
            return [value + step, value - step]
        low = schema.get("minimum", 1)
        return [int(low) + 1 if kind == "integer" else float(low) + 1.5]
    if kind != "string":
        return []
    dated = schema.get("format") in ("date", "date-time") or re.search(r"(_at|_on|_date|date|_time|_from|_until)$", name)
    if isinstance(value, str) and _DATE.fullmatch(value):
        return [v for v in (_moved_date(value, -365), _moved_date(value, 7)) if v is not None]
    if value is None and dated:
        stamp = "2024-01-01" if schema.get("format") == "date" or name.endswith(("_on", "_date")) else "2024-01-01T09:00:00"
        return [stamp]
    if dated:
        return []  # a time of day or another form of date: not moved
    return [f"{value} (amended)" if isinstance(value, str) and value else "Added without being asked"]


def _format_number(match: re.Match) -> str:
    """1234.50 -> $1,234.50; 17 stays 17 (a count is not money)."""
    text = match.group(0)
    if "." not in text:
        return text
    return f"${float(text):,.2f}"


def equivalent_answers(task: Task) -> list[tuple[str, str]]:
    """(description, answer): the reference answer in forms that state the same values."""
    answer = task.reference_answer
    if not answer:
        return []
    forms = []
    # the names the answer states keep their digits ('3.5 Doubles League'): only the values are reformatted
    names = sorted({g.expect["value"] for g in task.goals if g.kind == "answer" and isinstance(g.expect["value"], str)
                    and g.expect["value"] in answer}, key=lambda v: (-len(v), v))
    kept = {f"\x00{n}\x00": name for n, name in enumerate(names)}
    masked = answer
    for mark, name in kept.items():
        masked = masked.replace(name, mark)

    def unmasked(text: str) -> str:
        for mark, name in kept.items():
            text = text.replace(mark, name)
        return text

    money = unmasked(re.sub(r"(?<![\w.,\x00-])\d+\.\d+(?![\w.\x00])", _format_number, masked))
    if money != answer:
        forms.append(("currency and thousands formatting", money))
    trimmed = unmasked(re.sub(r"(?<![\w.\x00])(\d+\.\d)0(?![\d\x00])", r"\1", masked))
    if trimmed != answer:
        forms.append(("a trailing zero dropped", trimmed))
    words = answer
    for goal in task.goals:
        value = goal.expect.get("value") if goal.kind == "answer" else None
        if isinstance(value, str) and "_" in value and re.fullmatch(r"[a-z_]+", value):
            words = re.sub(re.escape(value), value.replace("_", " ").title().replace(" ", "-"), words)
    if words != answer:
        forms.append(("statuses in words", words))
    answers = [g for g in task.goals if g.kind == "answer"]
    structured = {slot: g.expect["value"] for slot, g in zip(task.answer_slots, answers)}
    forms.append(("a structured answer keyed by slot", json.dumps(structured)))
    return forms


class ShortcutMutator:
    """The mutants and acceptance variants of one task that need its footprint (what the reference solution
    changes), so they are built once the reference has been replayed."""

    def __init__(self, toolset: ToolSet, spec: SchemaSpec, rows: InitialRows, writes: set[str],
                 tasks: list[Task] = ()):
        self.toolset, self.spec, self.rows, self.writes = toolset, spec, rows, writes
        self.examples: dict[str, ToolCall] = {}  # a reference call of each write tool some task makes
        for task in tasks:
            for call in task.reference_solution:
                if call.tool in writes:
                    self.examples.setdefault(call.tool, call)
        self.schemas = {t.name: t.input_schema for t in toolset.tools}
        self.param_tables = _param_tables(spec)


    def _other_row(self, table: str, value: int, touched: set) -> int | None:
        keys = self.rows.keys(table)
        ordered = [k for k in keys if k > value] + [k for k in reversed(keys) if k < value]
        return next((k for k in ordered if (table, k) not in touched), None)

    def _row_variants(self, call: ToolCall, touched: set) -> list[ToolCall]:
        """The call moved off the rows the task changes: every id argument that names one of them points at
        another row, and the first id argument (the row the tool acts on) takes each of up to
        COLLATERAL_ROWS other rows in turn (a business rule may refuse some: a shipped order cannot be shipped)."""
        arguments = dict(call.arguments)
        ids = []
        for name, value in call.arguments.items():
            table = _id_table(name, self.spec, self.param_tables) if _is_id(name, value) else None
            if table is not None:
                ids.append((name, value, table))
                if (table, value) in touched:
                    arguments[name] = self._other_row(table, value, touched) or value
        if not ids:
            return [ToolCall(tool=call.tool, arguments=arguments)]
        name, value, table = ids[0]
        keys = self.rows.keys(table)
        start = arguments[name]
        ordered = [k for k in keys if k >= start] + [k for k in keys if k < start]
        rows = [k for k in ordered if k != value and (table, k) not in touched][:COLLATERAL_ROWS]
        return [ToolCall(tool=call.tool, arguments={**arguments, name: k}) for k in rows]

    def collateral(self, task: Task, touched: set, foreign: list[str]) -> list[Mutation]:
        reference = list(task.reference_solution)
        extra: list[tuple[str, ToolCall]] = []
        seen: set[str] = set()
        for call in reversed(reference):
            if call.tool in self.writes and call.tool not in seen:
                seen.add(call.tool)
                extra += [("the task's own", variant) for variant in self._row_variants(call, touched)]
        for tool in foreign:
            # another task's call of the tool (arguments its rules accept), else the tools gate's examples
            example = self.examples.get(tool) or ToolCall(tool=tool, arguments=smoke_arguments(self.schemas[tool]))
            extra += [("another", variant) for variant in self._row_variants(example, touched)]
        return [Mutation("collateral_write", f"the reference, then {whose} write tool {call.tool}"
                         f"({json.dumps(call.arguments, sort_keys=True)[:160]}) on a row the task does not change",
                         reference + [call], task.reference_answer, must_succeed=[len(reference)], group=call.tool)
                for whose, call in extra]

    def details(self, task: Task) -> list[Mutation]:
        mutations: list[Mutation] = []
        reference = list(task.reference_solution)
        for i, call in enumerate(reference):
            if call.tool not in self.writes:
                continue
            for path, value in _leaves(call.arguments):
                name = ".".join(path)
                if _is_id(path[-1], value) or not _stated(value, task.instruction):
                    continue
                schema = _leaf_schema(self.schemas.get(call.tool, {}), path)
                changes = [("detail_changed", _other_value(value, schema))]
                if isinstance(value, str) and not schema.get("enum"):
                    changes.append(("text_negated", "NOT " + value))
                for kind, other in changes:
                    if other is None or (kind == "detail_changed"
                                         and sum(m.kind == kind for m in mutations) >= MAX_DETAILS):
                        continue
                    calls = list(reference)
                    calls[i] = ToolCall(tool=call.tool, arguments=_with_leaf(call.arguments, path, other))
                    mutations.append(Mutation(kind, f"{call.tool} {name}={other!r} where the instruction states "
                                              f"{value!r}", calls, task.reference_answer, must_succeed=[i]))
        return mutations

    def _created_keys(self, footprint: dict) -> list[tuple[str, int]]:
        """(table, key) of each row the reference inserts, as its replay numbered it."""
        found = []
        for table, rows in footprint.get("inserted", {}).items():
            try:
                pk = self.spec.table(table).primary_key
            except KeyError:
                continue
            found += [(table, row[pk]) for row in rows if _is_id(pk, row.get(pk))]
        return found

    def _acting_on(self, tool: str) -> tuple[str, str] | None:
        """(argument, table) of the row a write tool acts on: its first id argument, required."""
        schema = self.schemas.get(tool, {})
        required = set(schema.get("required", []))
        for name, prop in schema.get("properties", {}).items():
            if (name == "id" or name.endswith("_id")) and isinstance(prop, dict) and prop.get("type") == "integer":
                table = _id_table(name, self.spec, self.param_tables)
                return (name, table) if name in required and table is not None else None
        return None

    def created(self, task: Task, footprint: dict) -> list[Mutation]:
        """The reference, then a write on a row it created: created_then_broken (a tool named for ending or
        voiding it) and extra_transition (any other write tool taking the row's id), each tool once (the
        first of the created rows where the call succeeds and changes the state)."""
        reference = list(task.reference_solution)
        keys = self._created_keys(footprint)
        mutations: list[Mutation] = []
        counts: dict[str, int] = {}
        for tool in sorted(self.writes):
            acting = self._acting_on(tool)
            if acting is None:
                continue
            name, table = acting
            rows = [key for t, key in keys if t == table]
            if not rows:
                continue
            kind = "created_then_broken" if _BREAKING.search(tool) else "extra_transition"
            if counts.get(kind, 0) >= MAX_CREATED_WRITES:
                continue
            counts[kind] = counts.get(kind, 0) + 1
            example = self.examples.get(tool) or ToolCall(tool=tool, arguments=smoke_arguments(self.schemas[tool]))
            for key in rows:
                call = ToolCall(tool=tool, arguments={**example.arguments, name: key})
                shown = json.dumps(call.arguments, sort_keys=True)[:160]
                mutations.append(Mutation(kind, f"the reference, then {tool}({shown}) on the {table} row the task "
                                          "created", reference + [call], task.reference_answer,
                                          must_succeed=[len(reference)], group=tool))
        return mutations

    def _inserted_value(self, footprint: dict, column: str) -> tuple[bool, object]:
        """(found, value): the value a row the reference inserted holds in `column` (found False when no
        inserted row has the column, or it is one the request leaves open)."""
        for table, rows in footprint.get("inserted", {}).items():
            for row in rows:
                if column in row:
                    try:
                        self.spec.table(table).column(column)
                    except KeyError:
                        continue
                    return True, row[column]
        return False, None

    def unrequested(self, task: Task, footprint: dict) -> list[Mutation]:
        """A create call of the reference with an optional argument the instruction does not state set to other
        values the tool accepts (alternatives of one probe: the first the tool takes counts)."""
        reference = list(task.reference_solution)
        mutations: list[Mutation] = []
        probes = 0
        for i, call in enumerate(reference):
            if call.tool not in self.writes or probes >= MAX_UNREQUESTED:
                continue
            schema = self.schemas.get(call.tool, {})
            required = set(schema.get("required", []))
            for name, prop in schema.get("properties", {}).items():
                if name in required or not isinstance(prop, dict) or prop.get("type") == "object":
                    continue
                given = name in call.arguments
                is_id = name == "id" or name.endswith("_id")
                if (given and is_id) or (given and _stated(call.arguments[name], task.instruction)):
                    continue  # an id the reference passes is the row the request names (wrong_row moves it)
                found, value = self._inserted_value(footprint, name)
                if not found:
                    continue  # not a column of a row the reference creates (or one the request leaves open)
                if is_id:  # a row the request never mentions linked (a staff member assigned unasked)
                    table = _id_table(name, self.spec, self.param_tables)
                    others = [k for k in self.rows.keys(table) if k != value][:2] if table else []
                else:
                    others = _unrequested_values(value, prop, name)
                if not others:
                    continue
                probes += 1
                for other in others:
                    calls = list(reference)
                    calls[i] = ToolCall(tool=call.tool, arguments={**call.arguments, name: other})
                    mutations.append(Mutation("unrequested_field", f"{call.tool} {name}={other!r}, which the "
                                              f"instruction does not ask for (the reference leaves {value!r})", calls,
                                              task.reference_answer, must_succeed=[i], group=f"{i}:{name}"))
                if probes >= MAX_UNREQUESTED:
                    break
        return mutations

    def acceptance(self, task: Task, touched: set) -> list[Mutation]:
        reference = list(task.reference_solution)
        reads = [c for c in reference if c.tool not in self.writes]
        writes = [c for c in reference if c.tool in self.writes]
        variants: list[Mutation] = []
        if reads:
            # the reads after the last write made twice, and every earlier read made again at the end: reads
            # change nothing, and a trajectory that shares the reference up to its last write is cheap to judge
            last = max((i for i, c in enumerate(reference) if c.tool in self.writes), default=-1) + 1
            tail = [c for call in reference[last:] for c in (call, call)]
            again = [c for c in reference[:last] if c.tool not in self.writes]
            variants.append(Mutation("extra_reads", f"{len(reads)} read calls made twice", reference[:last] + tail
                                     + again, task.reference_answer))
            if writes or not any(g.kind == "answer" for g in task.goals):
                # (with no write left, it would answer without a call: a guess, which earns nothing)
                variants.append(Mutation("skipped_lookups", f"only the {len(writes)} write calls", writes,
                                         task.reference_answer))
        corrected = self._corrected_write(reference, touched)
        if corrected is not None:
            wrong, undo = corrected
            variants.append(Mutation("corrected_write", f"{wrong.tool} on another row, then undone, first",
                                     [wrong, undo] + reference, task.reference_answer, must_succeed=[0, 1]))
        if len(task.segments) == 2:
            first = task.segments[0]
            variants.append(Mutation("reordered_steps", "the second part of the task first",
                                     reference[first:] + reference[:first], task.reference_answer))
        return variants

    def _corrected_write(self, reference: list[ToolCall], touched: set) -> tuple[ToolCall, ToolCall] | None:
        """A write that sets columns of one row (its other arguments are that row's columns, top-level or in an
        object argument), made on another row, and the call that writes that row's old values back."""
        for call in reference:
            if call.tool not in self.writes:
                continue
            ids = [(n, v) for n, v in call.arguments.items() if _is_id(n, v)]
            if len(ids) != 1:
                continue
            name, value = ids[0]
            table = _id_table(name, self.spec, self.param_tables)
            if table is None or (table, value) not in touched:
                continue
            columns = {c.name for c in self.spec.table(table).columns}
            values = {path: v for path, v in _leaves(call.arguments) if path != (name,)}
            if not values or not {path[-1] for path in values} <= columns:
                continue
            other = self._other_row(table, value, touched)
            old = self.rows.row(table, other) if other is not None else None
            if old is None or any(old.get(p[-1]) is None for p in values) or all(
                    old.get(p[-1]) == v for p, v in values.items()):
                continue
            wrong = ToolCall(tool=call.tool, arguments={**call.arguments, name: other})
            undo = wrong.arguments
            for path in values:
                undo = _with_leaf(undo, path, old[path[-1]])
            return wrong, ToolCall(tool=call.tool, arguments=undo)
        return None


def answer_mutations(task: Task, rows: InitialRows) -> list[Mutation]:
    """Answers judged on the reference's final state: hedges, dumps and echoes (rejected), equivalent forms
    (accepted)."""
    if not any(g.kind == "answer" for g in task.goals):
        return []
    answer = task.reference_answer or ""
    mutations = []
    wrong = [m.answer for m in wrong_answer_mutations(task, rows)]
    if wrong:
        mutations.append(Mutation("hedged_answer", "the answer hedged with a wrong one",
                                  answer=f"{answer}, or maybe {wrong[0]}", replay=False))
    candidates: list[str] = []
    for goal in task.goals:
        value = goal.expect.get("value") if goal.kind == "answer" else None
        if isinstance(value, str):
            candidates += rows.other_values(value)[:15]
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            candidates += [f"{value + d:.2f}" if isinstance(value, float) else str(value + d) for d in (-2, -1, 1, 2)]
    if candidates:
        mutations.append(Mutation("dumped_answer", f"the answer with {len(candidates)} other candidates listed",
                                  answer=f"{answer}. Other possibilities: {', '.join(candidates)}", replay=False))
    mutations.append(Mutation("hedged_answer", "the answer left open with a hedge naming no other value",
                              answer=f"{answer}, or possibly something else", replay=False))
    mutations.append(Mutation("echoed_instruction", "the instruction repeated as the answer",
                              answer=task.instruction, replay=False))
    mutations += [Mutation("equivalent_answer", description, answer=form, replay=False)
                  for description, form in equivalent_answers(task)]
    return mutations + typed_answer_mutations(task) + prose_answer_mutations(task)


# A policy that makes no call and answers every task the same way: every count and amount up to 400, and a
# refusal that names every common blocking word (judged on the initial state, so no work is done).
BLIND_DUMP = ", ".join(f"{n}.0" for n in range(401)) + "; " + ", ".join(str(n) for n in range(401))
UNIVERSAL_REFUSAL = ("I cannot do that: it is not allowed. The record is inactive, suspended or closed, the item "
                     "is sold out, the address is primary, the window has closed and the balance is too low.")
NUMBER_NAMES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                "sixteen seventeen eighteen nineteen twenty").split()


def _answers(task: Task) -> list[tuple[str, object, object]]:
    """(slot, value, AnswerSlot) of each answer the task expects."""
    goals = [g for g in task.goals if g.kind == "answer"]
    return [(slot.name, g.expect["value"], slot) for slot, g in zip(task.answer_schema, goals)]


def typed_answer_mutations(task: Task) -> list[Mutation]:
    """Structured (typed) answers, as submit_answer passes them: extra keys, a list for a value, a wrong status
    (rejected); each value in another accepted written form (accepted)."""
    answers = _answers(task)
    if not answers:
        return []
    right = {slot: value for slot, value, _ in answers}
    first_slot, first_value, first_type = answers[0]
    mutations = [
        Mutation("blind_answer", "no call, and the right typed submission", answer=json.dumps(right),
                 replay=False, after=0),
        Mutation("malformed_submission", "a submission with an extra key of alternatives",
                 answer=json.dumps({**right, "other_possibilities": [first_value]}), replay=False),
        Mutation("malformed_submission", f"a submission with a list for {first_slot}",
                 answer=json.dumps({**right, first_slot: [first_value, first_value]}), replay=False)]
    others = [v for v in first_type.values or [] if v != first_value]
    if others:
        mutations.append(Mutation("malformed_submission", f"a submission with another {first_slot}",
                                  answer=json.dumps({**right, first_slot: others[0]}), replay=False))
    for slot, value, kind in answers:
        if kind.type == "rule":  # the fact right, the rule another the tools enforce
            mutations += [Mutation("wrong_rule", f"a submission naming the rule {other!r}",
                                   answer=json.dumps({**right, slot: other}), replay=False)
                          for other in kind.values or [] if other != value]
    forms = dict(right)
    for slot, value, kind in answers:
        if kind.type == "amount":
            forms[slot] = f"${value:,.2f}"
        elif kind.type == "count" and 0 <= value < len(NUMBER_NAMES):
            forms[slot] = NUMBER_NAMES[value]
        elif kind.type == "date":
            forms[slot] = long_date(value)
        elif isinstance(value, str):
            forms[slot] = value.replace("_", " ").upper()
    if forms != right:
        mutations.append(Mutation("typed_answer", "each value in another written form (currency, words, a long "
                                  "date, upper case)", answer=json.dumps(forms), replay=False))
    return mutations


def prose_answer_mutations(task: Task) -> list[Mutation]:
    """Prose a strict reader must refuse (a value negated, hedges in words no list names, a second candidate of
    another kind, a blind dump or refusal with no call made) and forms it must accept (a count in words, a date
    written out, a leading 'As of <date>,', extra correct context, a refusal paraphrased)."""
    answers = _answers(task)
    answer = task.reference_answer or ""
    if not answers or not answer:
        return []
    mutations = [
        Mutation("blind_answer", "no call, and every number up to 400 as the answer", answer=BLIND_DUMP,
                 replay=False, after=0),
        Mutation("blind_answer", "no call, and the same refusal for every request", answer=UNIVERSAL_REFUSAL,
                 replay=False, after=0),
        Mutation("blind_answer", "no call, and the reference answer (right, but a guess)", answer=answer,
                 replay=False, after=0),
        Mutation("unlisted_hedge", "the answer with a hedge in words no list names",
                 answer=f"{answer} That is my best reckoning, though I would not wager on it.", replay=False),
        Mutation("unlisted_hedge", "the answer presumed, give or take",
                 answer=f"Presumably {answer}, give or take; it may be otherwise.", replay=False),
    ]
    slot, value, kind = answers[0]
    shown = _shown(answer, value)
    if shown is not None:
        at = shown.start()
        shown = shown.group(0)
        mutations.append(Mutation("negated_answer", f"{slot} negated",
                                  answer=_at(answer, at, shown, "not " + shown), replay=False))
        rival = _cross_kind(value, kind.type)
        if rival is not None:
            mutations.append(Mutation("cross_kind_hedge", f"{slot} hedged with {rival!r}",
                                      answer=_at(answer, at, shown, f"{shown} or {rival}"), replay=False))
    mutations.append(Mutation("natural_answer", "the answer with a leading 'As of June 1, 2025,'",
                              answer=f"As of June 1, 2025, {answer[:1].lower()}{answer[1:]}", replay=False))
    counts = any(k.type == "count" for _, _, k in answers)
    context = "(I checked the records.)" if counts else "(I checked 4 records.)"
    mutations.append(Mutation("natural_answer", "the answer with extra correct context",
                              answer=f"{answer} {context}", replay=False))
    for slot, value, kind in answers:
        shown = _shown(answer, value)
        if shown is None:
            continue
        at, shown = shown.start(), shown.group(0)
        if kind.type == "count" and 0 <= value < len(NUMBER_NAMES):
            mutations.append(Mutation("natural_answer", f"{slot} in words",
                                      answer=_at(answer, at, shown, NUMBER_NAMES[value]), replay=False))
        elif kind.type == "date":
            mutations.append(Mutation("natural_answer", f"{slot} written out",
                                      answer=_at(answer, at, shown, long_date(value)), replay=False))
        elif kind.type == "rule":
            other = next((o for o in kind.values or [] if o != value), None)
            if other is not None:
                mutations.append(Mutation("wrong_rule", f"{slot} given as {other!r} in prose",
                                          answer=_at(answer, at, shown, other.replace("_", " ")), replay=False))
        elif kind.type == "status":
            rival = next((o for o in kind.values or [] if value in (f"in{o}", f"un{o}")), None)
            if rival is not None:
                mutations.append(Mutation("natural_answer", f"{slot} paraphrased as 'not {rival} any more'",
                                          answer=_at(answer, at, shown, f"not {rival} any more"), replay=False))
    return mutations


def _at(text: str, start: int, old: str, new: str) -> str:
    """`text` with `old`, found at `start`, written `new`."""
    return text[:start] + new + text[start + len(old):]


def _shown(answer: str, value: object) -> re.Match | None:
    """Where the reference answer writes `value` (its first occurrence), or None if it does not."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        forms = [f"{value:,.2f}", f"{value:.2f}"] if isinstance(value, float) else [str(value)]
        for form in forms:
            match = re.search(rf"(?<![\d.,]){re.escape(form)}(?![\d]|[.,]\d)", answer)
            if match:
                return match
        return None
    for form in (str(value), str(value).replace("_", " ")):
        match = re.search(rf"(?<![A-Za-z0-9]){re.escape(form)}(?![A-Za-z0-9])", answer, flags=re.IGNORECASE)
        if match:
            return match
    return None


def _cross_kind(value: object, kind: str) -> str | None:
    """A second candidate of another written kind: an amount rounded to a whole number, a count with decimals,
    a date written out a day later."""
    if kind == "amount" and isinstance(value, (int, float)):
        return str(round(value) + 1)
    if kind == "count" and isinstance(value, int):
        return f"{value + 1}.0"
    if kind == "date" and isinstance(value, str):
        day = int(value[8:10])
        return long_date(value[:8] + f"{day + 1 if day < 28 else day - 1:02d}")
    return None
