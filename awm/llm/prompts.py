"""Versioned prompt templates, one per stage, and the output each stage must get back.

Modelled on the AWM paper's pipeline: scenario expansion from a seed domain (with an
avoid-similar list), user tasks, SQLite schema, sample data, the tool API, and one
verifier per task. Every prompt is a system message (the role and the rules) and a
user message (the inputs as tagged JSON or SQL blocks, the output schema, and the
errors of previous attempts, bounded in size).

A template's hash (its version, both messages and the output schema) is provenance:
changing any of them changes the hash, which re-runs the stage (and misses the cache).
The first line of every system message names the stage and version, which is also how
`awm llm-serve` knows what is being asked.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from string import Template
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from awm.builder.catalogue.model import MODULES
from awm.builder.data import REFERENCE_NOW_ISO
from awm.builder.entities import CORE_ROLES, DEFAULT_LABELS
from awm.builder.flavours import FLAVOURS
from awm.builder.modules.packs import PACK_MODULES, PACK_ROLE_OWNER
from awm.contracts import Contract, Table, Task, ToolSpec

HEADER = re.compile(r"^AWM stage prompt: (?P<stage>[a-z_]+) (?P<version>v\d+)$", re.MULTILINE)
BLOCK = re.compile(r"<(?P<tag>[a-z_]+)>\n(?P<body>.*?)\n</(?P=tag)>", re.DOTALL)

# What the scenario prompt asks for, enforced by the output schema (and so by a server's schema grammar).
MODULES_RANGE = (1, 8)
ITEM_CATEGORIES_RANGE = (3, 6)
ITEMS_RANGE = (6, 12)

# Inputs a prompt may go without: the rest of a partly valid tasks answer, the part of a stage asked in parts.
OPTIONAL_BLOCKS = {"rest": "", "part": ""}
FEEDBACK_CHARS = 2400  # the previous attempts' errors in one prompt, at most
FEEDBACK_ERROR_CHARS = 800  # one error, at most
FEEDBACK_ANSWER_CHARS = 12000  # the rejected answer shown again, at most (about 3K tokens)


# --- what each stage must get back -------------------------------------------------

FlavourName = Literal[tuple(FLAVOURS)]  # type: ignore[valid-type]
ModuleName = Literal[tuple(MODULES)]  # type: ignore[valid-type]


# Words a small model writes as a label when it has none: refused (a table named 'nones' helps no one).
NOT_A_LABEL = frozenset({"none", "null", "nil", "n/a", "na", "no", "nothing", "unknown", "tbd", "other", "misc",
                         "no note", "not applicable", "not available"})

# What each core role is, as the scenarios prompt and the labels' schema tell the model.
ROLE_MEANINGS = {
    "site": "a place where it serves its customers, e.g. branch, store, clinic, depot",
    "category": "a group of the things it offers, e.g. product line, menu section, service area",
    "item": "one thing it sells or provides, e.g. product, service, room type, course",
    "party": "its customer, e.g. customer, client, patient, member",
    "staff": "one of its staff, e.g. sales associate, clerk, nurse, advisor",
    "case": "the main kind of case it handles for a customer, e.g. order, booking, appointment, claim",
    "line": "one line of a case, e.g. order line, booked item, treatment line",
    "payment": "a payment made for a case, e.g. payment, deposit, premium payment",
    "note": "a note staff write on a case, e.g. case note, order note, visit note",
}


class ScenarioDraft(Contract):
    """One business of the seed domain."""

    name: str = Field(min_length=3, max_length=120)
    description: str = Field(min_length=40)
    category: str = Field(min_length=2)
    flavour: FlavourName
    sub_business: str = Field(min_length=3)
    # The core roles are required properties of the schema, so a server's schema grammar writes every one of them
    # (a small model left to a plain string map dropped 'party' five times in a row), each with what it means (told
    # only their names, a small model called the site and the category both by the domain's name).
    labels: dict[str, str] = Field(json_schema_extra={
        "properties": {role: {"type": "string", "minLength": 1, "description": ROLE_MEANINGS[role]}
                       for role in CORE_ROLES},
        "required": list(CORE_ROLES)})
    modules: list[ModuleName] = Field(min_length=MODULES_RANGE[0], max_length=MODULES_RANGE[1])
    entity_groups: list[str] = Field(default_factory=list, max_length=2,
                                     description="the category's own entity groups this business keeps")
    item_categories: list[str] = Field(min_length=ITEM_CATEGORIES_RANGE[0], max_length=ITEM_CATEGORIES_RANGE[1])
    items: list[str] = Field(min_length=ITEMS_RANGE[0], max_length=ITEMS_RANGE[1])
    price_range: tuple[float, float] = Field(description="[lowest, highest] item price in US dollars; the lowest "
                                             "may be 0 where some of what it offers is free")

    @field_validator("labels")
    @classmethod
    def _roles(cls, labels: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(labels) - set(DEFAULT_LABELS) - set(PACK_ROLE_OWNER))
        if unknown:
            raise ValueError(f"unknown roles {unknown}; roles are {sorted(DEFAULT_LABELS)} and the category "
                             f"entities' {sorted(PACK_ROLE_OWNER)}")
        missing = [r for r in CORE_ROLES if r not in labels]
        if missing:
            raise ValueError(f"labels for the core roles {missing} are missing")
        empty = [r for r, label in labels.items() if not label.strip()]
        if empty:
            raise ValueError(f"empty labels for {empty}")
        placeholders = [f"{r} ({label!r})" for r, label in labels.items()
                        if " ".join(label.lower().replace("_", " ").split()).strip(" .") in NOT_A_LABEL]
        if placeholders:
            raise ValueError(f"labels must name a thing, not stand in for one: {', '.join(placeholders)}")
        lists = [f"{r} ({label!r})" for r, label in labels.items() if re.search(r"[,;/]", label)]
        if lists:
            raise ValueError(f"each label is one name, not a list: {', '.join(lists)}")
        by_label: dict[str, list[str]] = {}
        for role, label in labels.items():
            by_label.setdefault(" ".join(label.lower().split()), []).append(role)
        shared = {label: roles for label, roles in by_label.items() if len(roles) > 1}
        if shared:
            raise ValueError("each role needs its own label; " + "; ".join(
                f"{', '.join(roles)} are all called {label!r}" for label, roles in sorted(shared.items())))
        return labels

    @model_validator(mode="after")
    def _prices(self) -> ScenarioDraft:
        low, high = self.price_range
        if not 0 <= low < high:  # 0: some of what it offers is free (a volunteer network's services)
            raise ValueError(f"price_range {list(self.price_range)} must be [low, high] with 0 <= low < high")
        if len(set(self.modules)) != len(self.modules):
            raise ValueError("modules repeat")
        module = PACK_MODULES.get(self.category)
        groups = module.GROUPS if module else {}
        unknown = sorted(set(self.entity_groups) - set(groups))
        if unknown:
            raise ValueError(f"entity_groups {unknown} are not groups of category {self.category!r}; "
                             f"its groups: {', '.join(groups) or 'none'}")
        for name in self.entity_groups:
            needs = [m for m in groups[name].needs if m not in self.modules]
            if needs:
                raise ValueError(f"entity group {name!r} needs the modules {needs}")
            unlabelled = [r for r in groups[name].roles if r not in self.labels]
            if unlabelled:
                raise ValueError(f"entity group {name!r}: labels for its roles {unlabelled} are missing")
        foreign = sorted(r for r in set(self.labels) & set(PACK_ROLE_OWNER) if PACK_ROLE_OWNER[r] is not module)
        if foreign:
            raise ValueError(f"roles {foreign} belong to another category's entities, not {self.category!r}")
        return self


class TasksDraft(Contract):
    acting_user: str = Field(min_length=3, description="the staff member every task is performed for")
    tasks: list[Task] = Field(min_length=1)


class SchemaDraft(Contract):
    tables: list[Table] = Field(min_length=1)


Value = str | int | float | bool | None


class TableRows(Contract):
    table: str
    columns: list[str] = Field(min_length=1)
    rows: list[list[Value]]

    @model_validator(mode="after")
    def _widths(self) -> TableRows:
        for n, row in enumerate(self.rows):
            if len(row) != len(self.columns):
                raise ValueError(f"{self.table} row {n} has {len(row)} values for {len(self.columns)} columns")
        if len(set(self.columns)) != len(self.columns):
            raise ValueError(f"{self.table}: columns repeat")
        return self


class RowsDraft(Contract):
    tables: list[TableRows] = Field(min_length=1)


class ToolsDraft(Contract):
    source: str = Field(min_length=20, description="tools.py: one function per tool, db first")
    tools: list[ToolSpec] = Field(min_length=1)


class VerifierDraft(Contract):
    code: str = Field(min_length=20, description="Python source defining verify(initial, final, answer)")


@lru_cache(maxsize=64)
def _schema_text(output: type[Contract]) -> str:
    return json.dumps(output.model_json_schema(by_alias=True), sort_keys=True)


def output_schema(output: type[Contract]) -> dict[str, Any]:
    """The JSON Schema of an output model (computed once per model; a fresh copy each call)."""
    return json.loads(_schema_text(output))


# --- templates -----------------------------------------------------------------------


@dataclass(frozen=True)
class PromptTemplate:
    stage: str  # the pipeline stage, or "verifier" for the per-task verifier prompt
    version: str
    system: str
    user: str
    output: type[Contract]

    @property
    def schema(self) -> dict[str, Any]:
        return output_schema(self.output)

    @property
    def schema_name(self) -> str:
        return f"awm_{self.stage}"

    @property
    def hash(self) -> str:
        payload = json.dumps({"stage": self.stage, "version": self.version, "system": self.system, "user": self.user,
                              "schema": self.schema}, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()

    def render(self, feedback: list[str] | None = None, answer: str | None = None,
               **values: str) -> list[dict[str, str]]:
        """The messages; `feedback` the earlier attempts' errors, `answer` the newest rejected answer."""
        system = f"AWM stage prompt: {self.stage} {self.version}\n{self.system.strip()}"
        user = Template(self.user.strip()).substitute(
            **{**OPTIONAL_BLOCKS, **values}, schema=json.dumps(self.schema, separators=(",", ":")))
        note = render_feedback(feedback or [], answer if feedback else None)
        if note:
            user = f"{user}\n\n{note}"
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def block(tag: str, body: str) -> str:
    """An input the model reads (and `awm llm-serve` parses): <tag>\\nbody\\n</tag>."""
    return f"<{tag}>\n{body.strip()}\n</{tag}>"


def json_block(tag: str, value: Any) -> str:
    return block(tag, json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def render_feedback(errors: list[str], answer: str | None = None) -> str:
    """The previous attempts' errors, newest first, each and all bounded, so a prompt never balloons; before them
    the newest rejected answer (bounded too), so the model corrects it rather than starting again."""
    if not errors:
        return ""
    shown = ""
    if answer:
        text = answer.strip()
        if len(text) > FEEDBACK_ANSWER_CHARS:
            text = (text[:FEEDBACK_ANSWER_CHARS] + f"\n...[the rest of your answer, {len(text) - FEEDBACK_ANSWER_CHARS}"
                    " characters, is not shown]")
        shown = block("previous_answer", "Your previous answer, which was rejected:\n" + text) + "\n\n"
    lines: list[str] = []
    used = 0
    for n, error in reversed(list(enumerate(errors, 1))):
        text = " ".join(error.split())
        if len(text) > FEEDBACK_ERROR_CHARS:
            text = text[:FEEDBACK_ERROR_CHARS - 15] + " ...[truncated]"
        line = f"- attempt {n}: {text}"
        if lines and used + len(line) > FEEDBACK_CHARS:
            break
        lines.append(line)
        used += len(line)
    omitted = len(errors) - len(lines)
    tail = f"\n({omitted} older error(s) omitted)" if omitted else ""
    fix = ("Correct your previous answer: fix every problem listed, keep what was right, and answer again with the "
           "complete JSON object." if shown else
           "Fix every problem listed and answer again with the complete JSON object.")
    return shown + block("previous_attempt_errors",
                         "Earlier answers to this request were rejected:\n" + "\n".join(lines) + tail + "\n" + fix)


def parse_blocks(text: str) -> dict[str, str]:
    return {m.group("tag"): m.group("body") for m in BLOCK.finditer(text)}


_FLAVOUR_LINES = "\n".join(f"  - {name}: statuses {', '.join(f.statuses)}" for name, f in FLAVOURS.items())
_ROLE_LINES = ", ".join(DEFAULT_LABELS)
_CORE_ROLE_LINES = "\n".join(f"  - {role}: {ROLE_MEANINGS[role]}" for role in CORE_ROLES)
_GROUP_LINES = "\n".join(
    f"  - {category}: " + "; ".join(f"{name} (roles {', '.join(g.roles)}; needs modules {', '.join(g.needs) or 'none'})"
                                     for name, g in module.GROUPS.items())
    for category, module in PACK_MODULES.items())
_COMMON_RULES = f"""\
Answer with one JSON object that matches the JSON Schema given in the request, and nothing else: no prose,
no comments, no trailing commas. If the answer would be too long, make it more concise rather than stopping
half way. The simulated present is the fixed reference time {REFERENCE_NOW_ISO}: never use the real current
date, 'now' or CURRENT_TIMESTAMP."""

SCENARIOS = PromptTemplate(
    stage="scenarios",
    version="v6",
    output=ScenarioDraft,
    system=f"""
You design businesses for a simulator in which AI agents learn to use tools. Each business becomes one
self-contained environment: a SQLite database of its operations and a set of tools (an API) that one of its
staff members uses. You expand a seed domain into concrete, distinct businesses.
Rules:
- One specific kind of business within the domain (a sub-business), realistic and operational: it has
  customers or clients, staff, locations, things it sells or provides, and one main kind of case it handles.
- It must differ clearly from every business listed under <avoid>: another sub-business, not a renamed one.
- flavour is the lifecycle of its main case, one of:
{_FLAVOUR_LINES}
- labels gives the singular, lowercase name this business uses for each role; roles are {_ROLE_LINES}.
  The core roles are required; each names a different thing:
{_CORE_ROLE_LINES}
- labels are distinct: two roles never share a label. Each is one real name (never none, n/a or a list).
- modules are the optional parts of the business it runs ({MODULES_RANGE[0]} to {MODULES_RANGE[1]} of:
  {', '.join(MODULES)}).
- entity_groups (0 to 2) are what only its kind of business keeps, from its category's groups below; give
  labels for the roles of each group chosen, and include the modules it needs:
{_GROUP_LINES}
- item_categories ({ITEM_CATEGORIES_RANGE[0]} to {ITEM_CATEGORIES_RANGE[1]}) and items ({ITEMS_RANGE[0]} to \
{ITEMS_RANGE[1]}) are what it offers, named as this business would.
- price_range is [lowest, highest] item price in US dollars (lowest 0 where some of what it offers is free).
{_COMMON_RULES}
""",
    user="""
$request

$avoid

Write business number $number of the seed domain "$domain".

JSON Schema of the answer:
$schema
""",
)

TASKS = PromptTemplate(
    stage="tasks",
    version="v2",
    output=TasksDraft,
    system=f"""
You write the tasks that users give an AI assistant operating the tools of a business. The assistant acts for
one fixed staff member (acting_user, "First Last, Job title"), who is already signed in.
Rules:
- Exactly the number of tasks asked for, ids t01, t02, ... A task is one or two sentences and carries every
  value needed (names, emails, codes, amounts, quantities, dates), so it can be done without asking back.
- No tasks about logging in, passwords, credentials, accounts security or permissions.
- Mix kinds: "action" tasks change the database; "question" tasks only read it and need reference_answer.
  Prefer realistic multi-step tasks that use several tools.
- reference_solution lists the exact tool calls, in order, that solve the task: snake_case tool names in
  verb_noun style (get_order, search_customers, cancel_order, add_order_line, record_payment) and concrete
  arguments (row ids are integers). The tools and the data will be written later to match these calls.
- goals are machine-checkable conditions on the final database or the answer:
  row_equals (table, pk, expect: column -> value), row_delta (table, pk, column, delta),
  rows_created (table, count, expect; optionally child_table, child_fk, children), row_deleted (table, pk),
  answer (expect: {{"value": ...}} that the final answer must state).
- template names the kind of task in a few snake_case words.
- When the request lists task_ids (the rest of an answer whose other tasks were kept, shown in <kept_tasks>),
  write exactly those tasks, with those ids, for the same acting_user, different from the kept ones.
{_COMMON_RULES}
""",
    user="""
$request

$scenario
$rest
Write $count tasks for this business.

JSON Schema of the answer:
$schema
""",
)

SCHEMAS = PromptTemplate(
    stage="schemas",
    version="v1",
    output=SchemaDraft,
    system=f"""
You design the SQLite database of a business so that every one of its user tasks can be carried out on it.
Rules:
- 15 to 21 tables named in the business's own words (snake_case, plural), covering the core operations and
  every table the tasks and their goals mention, with exactly those table and column names.
- Every table has exactly one primary key, an INTEGER column named id. Types are INTEGER, TEXT or REAL.
- Foreign keys are columns named <singular>_id with references "table.id"; a table only references tables
  listed before it.
- Use enum for status-like columns, minimum/maximum for quantities and prices, unique for codes and emails,
  nullable false for required values, and indexes (lists of column names) for columns that are searched.
- No tables or columns for authentication: no passwords, credentials, logins, sessions or API keys.
{_COMMON_RULES}
""",
    user="""
$request

$scenario

$tasks

Design the database.

JSON Schema of the answer:
$schema
""",
)

DATABASES = PromptTemplate(
    stage="databases",
    version="v2",
    output=RowsDraft,
    system=f"""
You write the initial state of a business's SQLite database: realistic rows for every table.
Rules:
- Tables in the order given by the schema; foreign keys point at rows that exist (parents first).
- Every id, code, name, email, amount and status that the tasks, their reference solutions and their goals
  mention exists with exactly those values, so every task is solvable and every goal is checkable.
- The acting user is a staff row, and the rows the tasks touch belong to or are handled by them where natural.
- For search and filter tasks include both rows that match and rows that do not.
- Dates and times are ISO 8601 strings around the fixed reference time {REFERENCE_NOW_ISO}; never 'now'.
- Honour NOT NULL, UNIQUE, CHECK (enum, minimum, maximum) constraints. At least 100 rows in total, no empty
  table. Each table is given as columns (names) and rows (lists of values in that column order).
- The rows are asked for in parts (<part>): write rows only for the tables listed in its "tables", every one
  of them; the other tables are written in other parts. Rows written by earlier parts have the ids listed in
  its "written_ids": foreign keys to those tables point at those ids.
{_COMMON_RULES}
""",
    user="""
$request

$scenario

$schema_sql

$tasks

$part

Write the rows of the tables of this part.

JSON Schema of the answer:
$schema
""",
)

TOOLS = PromptTemplate(
    stage="tools",
    version="v3",
    output=ToolsDraft,
    system=f"""
You write the tool API of a business: Python functions over its SQLite database, and an MCP tool spec for each.
The code is untrusted and runs in a sandbox. Rules for source (one Python module):
- One top-level function per tool, `def tool_name(db, arg1, arg2=default, ...)`, db first. Helper functions
  are allowed. The database is reached only through db.query(sql, params) -> list of dict rows,
  db.one(sql, params) -> dict or None, and db.execute(sql, params) -> {{"rowcount": n, "lastrowid": id}}.
- SQL is parameterised with ? placeholders; never format values into SQL text.
- No imports except json, math, re and datetime; no open, eval, exec, print, getattr, type, globals; no
  names or attributes starting with an underscore; no classes, decorators, with, async or str.format.
- Return JSON-serialisable values. Business-rule violations and missing rows return
  {{"error": {{"code": "not_found" | "invalid_state" | "invalid_argument", "message": "..."}}}}.
- Read tools for every entity (get_<thing> by id, list_ or search_<things> with filters, limit and offset),
  and write tools for the actions of the business (create, update, status transitions, payments, notes).
  About 30 to 40 tools, including every tool the tasks' reference solutions call, with exactly those names and
  argument names.
Rules for tools (the specs): one per function, in the same order: name, description (what it does, when to use
it), inputSchema (a JSON Schema object whose properties are exactly the function's arguments after db, with
required listing those without a default), annotations ({{"readOnlyHint": true}} for tools that only read),
staff_only (true for what only the business's staff may do: back-office records, prices, stock, status
transitions of the business's own work, other customers' records; false for what a customer may do for
themselves: browse and search what is offered, read and manage their own account, orders and bookings), and,
for a write a customer may make, owned (each argument naming a row a customer owns, with the path to the owner:
[table, customer column], [customer table, "id"], or [table, parent column, parent table, customer column]).
The tools are asked for in parts (<part>): write the tools of the tables listed in its "tables" (their read
tools and the actions on them) and every tool listed in its "tools", and none of the tools in its "written"
(earlier parts wrote them). Helper functions listed in its "helpers" exist already: call them without
defining them again (a helper defined again must be identical).
{_COMMON_RULES}
""",
    user="""
$request

$scenario

$schema_sql

$tasks

$part

Write the tools of this part.

JSON Schema of the answer:
$schema
""",
)

VERIFIERS = PromptTemplate(
    stage="verifier",
    version="v1",
    output=VerifierDraft,
    system=f"""
You write the verifier of one task: Python code that decides, from the database before and after an agent
worked on the task and from the agent's final answer, whether the task was completed.
Rules:
- Define verify(initial, final, answer) returning {{"complete": bool, "evidence": [str, ...]}}; complete is
  true only when every goal of the task holds. Evidence says what was checked and what differed.
- initial and final are read-only handles: .query(sql, params) -> list of dict rows, .one(sql, params) ->
  dict or None; parameterised SQL only. answer is the agent's final text, or None.
- It must say incomplete for the untouched database with no answer, and complete after the reference solution.
- Deterministic and read-only. The same sandbox rules as the tools: imports only from json, math, re and
  datetime; no open, eval, exec, print, getattr, type; no names or attributes starting with an underscore.
- Compare numbers with a tolerance of 0.005 and text case-insensitively where a person would.
{_COMMON_RULES}
""",
    user="""
$request

$scenario

$schema_sql

$task

Write the verifier of this task.

JSON Schema of the answer:
$schema
""",
)

TEMPLATES: dict[str, PromptTemplate] = {t.stage: t for t in (SCENARIOS, TASKS, SCHEMAS, DATABASES, TOOLS, VERIFIERS)}
# Which templates each pipeline stage uses (the verification stage asks one verifier per task).
STAGE_TEMPLATES: dict[str, tuple[str, ...]] = {
    "scenarios": ("scenarios",), "tasks": ("tasks",), "schemas": ("schemas",), "databases": ("databases",),
    "tools": ("tools",), "verification_reports": ("verifier",),
}


def stage_prompt_hash(stage: str) -> str:
    """The provenance hash of everything a stage asks the model."""
    names = STAGE_TEMPLATES.get(stage)
    if names is None:
        raise KeyError(f"no prompt templates for stage {stage!r}; stages: {', '.join(STAGE_TEMPLATES)}")
    digest = hashlib.sha256()
    for name in names:
        digest.update(TEMPLATES[name].hash.encode())
    return digest.hexdigest()


def identify(messages: list[dict[str, Any]]) -> tuple[str, str] | None:
    """(template stage, version) of an AWM prompt, from the first line of its system message."""
    for message in messages:
        if message.get("role") == "system" and isinstance(message.get("content"), str):
            match = HEADER.search(message["content"])
            if match:
                return match.group("stage"), match.group("version")
    return None
