"""Typed contracts for what each stage produces.

Every artifact on disk is one of these models serialised as JSON; reading it
back validates it, so a bad value is rejected where it enters a stage.
CONTRACT_VERSION changes whenever a model changes incompatibly.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

CONTRACT_VERSION = "1"
IDENT = re.compile(r"[a-z][a-z0-9_]{0,62}")


class Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


def _ident(value: str, what: str) -> str:
    if not IDENT.fullmatch(value):
        raise ValueError(f"{what} {value!r} is not a lowercase identifier")
    return value


# --- scenarios ---------------------------------------------------------------


class Scenario(Contract):
    """scenario.json: the business one environment simulates."""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    domain: str
    slot: int = Field(ge=0)
    seed: int
    name: str
    description: str
    category: str
    flavour: str
    sub_business: str
    labels: dict[str, str] = Field(description="role -> singular label, e.g. party -> patient")
    modules: list[str]
    entity_groups: list[str] = Field(default_factory=list, description="the category's own entity groups this "
                                     "scenario carries (awm.builder.modules.packs), e.g. cards, disputes")
    item_categories: list[str]
    items: list[str]
    item_category: list[str] = Field(default_factory=list, description="the category of each item, in order; "
                                     "empty when the source gave none (then derived from the item's words)")
    price_range: tuple[float, float]
    item_kind: str = Field(default="", description="what its catalogue items are (awm/builder/catalogue/kinds.py: "
                           "goods, service, booking, plan, ...); empty where the source did not say")
    party_kind: Literal["person", "organisation"] = Field(
        default="person", description="who its customers are: people, or organisations a person speaks for (a "
        "client company, a shipper), which have an office rather than a home")
    builtin: bool = Field(description="False when composed from archetypes for an unseen domain")
    origin: Literal["catalogue", "seeds_file", "composed", "llm", "awm1k"] = Field(
        description="where the domain came from: the curated catalogue, the user's seeds "
        "file, composed from a bare slug's words, written by an LLM, or imported from AWM-1K's files "
        "(awm import-awm; then awm1k.json says what was checked)")
    origin_reason: str = Field(default="", description="why: the pack a composed slug was mapped to, and by which words")

    @model_validator(mode="after")
    def _item_categories_known(self) -> Scenario:
        if self.item_category and len(self.item_category) != len(self.items):
            raise ValueError(f"item_category has {len(self.item_category)} entries for {len(self.items)} items")
        unknown = sorted(set(self.item_category) - set(self.item_categories))
        if unknown:
            raise ValueError(f"item_category names unknown categories {unknown}")
        return self

    @model_validator(mode="before")
    @classmethod
    def _origin_of_older_scenarios(cls, data: Any) -> Any:
        # scenario.json written before the origin was recorded: its builtin flag says enough
        if isinstance(data, dict) and "origin" not in data:
            data = {**data, "origin": "catalogue" if data.get("builtin") else "composed"}
        return data


# --- tasks -------------------------------------------------------------------


class ToolCall(Contract):
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class Goal(Contract):
    """One condition the final state (or the answer) must meet for the task to be complete.

    kinds:
      row_equals   final row `table`[`pk`] has every column in `expect`
      row_delta    final `column` of `table`[`pk`] minus its initial value equals `delta`
      rows_created `count` new rows in `table` whose columns match `expect`
                   (children: rows of `child_table` pointing at the new row via `child_fk`,
                   each matching one entry of `children`)
      row_deleted  `table`[`pk`] no longer exists
      answer       the final answer states `expect['value']` in slot `slot` and no conflicting candidate
                   (`expect['others']`: other values of the same kind; numbers compared to 2 decimals;
                   `expect['type']`: the slot's type, see AnswerSlot, with `expect['values']` the closed set of
                   a status; `expect['refusal']`: the blocking fact of an infeasible request)

    Values in `expect` are literals, or matchers: {"approx": x} (a number to the cent), {"text": s} (a
    quoted text, equal after normalising whitespace, case and final punctuation).
    """

    kind: Literal["row_equals", "row_delta", "rows_created", "row_deleted", "answer"]
    table: str | None = None
    pk: int | None = None
    column: str | None = None
    delta: float | None = None
    count: int | None = None
    expect: dict[str, Any] = Field(default_factory=dict)
    child_table: str | None = None
    child_fk: str | None = None
    children: list[dict[str, Any]] = Field(default_factory=list)
    slot: str | None = Field(default=None, description="answer goals: the key of this value in a structured "
                             "answer (a JSON object keyed by slot)")

    @model_validator(mode="after")
    def _fields_for_kind(self) -> Goal:
        need = {
            "row_equals": ("table", "pk"),
            "row_delta": ("table", "pk", "column", "delta"),
            "rows_created": ("table", "count"),
            "row_deleted": ("table", "pk"),
            "answer": (),
        }[self.kind]
        missing = [f for f in need if getattr(self, f) is None]
        if missing:
            raise ValueError(f"goal {self.kind} needs {', '.join(missing)}")
        if self.kind == "answer" and "value" not in self.expect:
            raise ValueError("answer goal needs expect.value")
        if self.slot is not None and (self.kind != "answer" or not IDENT.match(self.slot)):
            raise ValueError(f"slot {self.slot!r}: only answer goals have a slot, a lowercase identifier")
        if self.children and not (self.child_table and self.child_fk):
            raise ValueError("goal children need child_table and child_fk")
        return self

    def literals(self) -> list[tuple[str, Any]]:
        """(column, value) of every literal the goal demands of the database: the columns its expected rows name
        (an approximate value as its number) and a delta under its column; no null, no boolean. Which columns
        count as identifiers is the caller's to judge."""
        pairs: list[tuple[str, Any]] = []
        rows = [self.expect, *self.children] if self.kind in ("row_equals", "rows_created") else []
        for row in rows:
            pairs += [(c, e.get("approx") if isinstance(e, dict) else e) for c, e in row.items()]
        if self.kind == "row_delta" and self.delta is not None:
            pairs.append((self.column or "delta", self.delta))
        return [(c, v) for c, v in pairs if v is not None and not isinstance(v, bool)]


ANSWER_TYPES = ("count", "amount", "date", "status", "name", "boolean", "rule")
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class AnswerSlot(Contract):
    """One value a task's answer must give, typed: what the `submit_answer` tool accepts for it and how the
    verifier compares it (after canonical normalisation: case, separators, currency, precision, date forms).

    types: count (a whole number), amount (a decimal, `precision` places), date (YYYY-MM-DD), status (one of
    `values`), name (a name from the world's rows, compared by its words), boolean, rule (one of `values`: the
    business rule that refuses an infeasible request, named by the error code the refusing tool returns)."""

    name: str
    type: Literal["count", "amount", "date", "status", "name", "boolean", "rule"]
    values: list[str] | None = Field(default=None, description="the closed set of values, where one exists "
                                     "(a status from the world's enum)")
    precision: int | None = Field(default=None, description="amounts: decimal places compared")
    refusal: bool = Field(default=False, description="the fact a refusal must give: the request is infeasible "
                          "and this is the blocking state or rule the tools reveal")

    @classmethod
    def of(cls, name: str, goal: Goal) -> AnswerSlot:
        """The slot of an answer goal: its declared `expect['type']`, else the type its value has."""
        value, declared = goal.expect["value"], goal.expect.get("type")
        if declared is None:
            if isinstance(value, bool):
                declared = "boolean"
            elif isinstance(value, int):
                declared = "count"
            elif isinstance(value, float):
                declared = "amount"
            elif isinstance(value, str) and DATE.fullmatch(value):
                declared = "date"
            else:
                declared = "name"
        values = None
        if declared in ("status", "rule"):
            values = sorted({str(value), *(str(v) for v in goal.expect.get("values", ()))})
        return cls(name=name, type=declared, values=values, precision=2 if declared == "amount" else None,
                   refusal=bool(goal.expect.get("refusal")))


class DerivedArgument(Contract):
    """An argument of a reference call whose value the agent learns from an earlier tool result (the items of the
    order it looked up, the balance it worked out), not from the instruction."""

    call: int = Field(ge=0, description="index of the call in the reference solution")
    argument: str


class Refusal(Contract):
    """The call an infeasible request asks for, which the environment's tools refuse: the rule slot of the task's
    answer names `code`, and the verification stage proves it by making this call after the reference solution
    (the tool must return an error with this code and change nothing)."""

    call: ToolCall
    code: str = Field(pattern=r"^[a-z][a-z0-9_]*$", description="the error code the refusing tool returns "
                      "(compared whatever its case: an API style may write it in upper case)")


class Task(Contract):
    task_id: str
    instruction: str = Field(min_length=10)
    kind: Literal["action", "question"]
    template: str
    reference_solution: list[ToolCall] = Field(min_length=1)
    reference_answer: str | None = None
    goals: list[Goal] = Field(min_length=1)
    segments: list[int] = Field(default_factory=list, description="a combined task: how many reference calls "
                                "each of its independent parts makes, in order (they may run in either order)")
    derived: list[DerivedArgument] = Field(default_factory=list, description="arguments whose values come from "
                                           "earlier tool results (a chained task), so the instruction need not state them")
    refusals: list[Refusal] = Field(default_factory=list, description="an infeasible request: the call it asks "
                                    "for and the rule that refuses it (the answer's `rule` slot)")
    requester: Literal["staff", "party"] = Field(
        "staff", description="who writes the request: the task set's acting staff member, or the person it is "
        "about (a customer, patient, member: the scenario's party) in their own words")
    party_id: int | None = Field(None, ge=1, description="a request the party writes (requester 'party'): their "
                                 "row's id, so that the tools refuse a write on another party's rows "
                                 "(ToolSpec.owned)")

    @field_validator("task_id")
    @classmethod
    def _task_id(cls, v: str) -> str:
        if not re.fullmatch(r"t\d{2}", v):
            raise ValueError(f"task_id {v!r} must look like t01")
        return v

    @model_validator(mode="after")
    def _question_has_answer(self) -> Task:
        if self.kind == "question" and not self.reference_answer:
            raise ValueError(f"{self.task_id}: a question needs a reference_answer")
        if self.segments and sum(self.segments) != len(self.reference_solution):
            raise ValueError(f"{self.task_id}: segments {self.segments} do not add up to the "
                             f"{len(self.reference_solution)} reference calls")
        rules = {g.expect["value"] for g in self.goals if g.kind == "answer" and g.expect.get("type") == "rule"}
        for refusal in self.refusals:
            if refusal.code not in rules:
                raise ValueError(f"{self.task_id}: the refused call {refusal.call.tool} names the rule "
                                 f"{refusal.code!r}, which no rule slot of the answer expects")
        for d in self.derived:
            if d.call >= len(self.reference_solution) or d.argument not in self.reference_solution[d.call].arguments:
                raise ValueError(f"{self.task_id}: derived argument {d.argument!r} of call {d.call} is not in the "
                                 "reference solution")
        if self.party_id is not None and self.requester != "party":
            raise ValueError(f"{self.task_id}: party_id {self.party_id} names who writes the request, but the "
                             "requester is the staff")
        return self

    @property
    def steps(self) -> int:
        return len(self.reference_solution)

    @property
    def answer_slots(self) -> list[str]:
        """The keys of a structured answer, one per answer goal (`slot`, else answer_1, answer_2, ...)."""
        answers = [g for g in self.goals if g.kind == "answer"]
        return [g.slot or f"answer_{n}" for n, g in enumerate(answers, 1)]

    @property
    def answer_schema(self) -> list[AnswerSlot]:
        """The typed slots of the answer, in the order the instruction asks (empty: the task expects none)."""
        answers = [g for g in self.goals if g.kind == "answer"]
        return [AnswerSlot.of(name, g) for name, g in zip(self.answer_slots, answers)]

    @property
    def distinct_tools(self) -> int:
        return len({c.tool for c in self.reference_solution})


class TaskSet(Contract):
    """tasks.json"""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    acting_user: str = Field(description="who the agent acts for (staff of the business)")
    tasks: list[Task] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique_ids(self) -> TaskSet:
        ids = [t.task_id for t in self.tasks]
        if len(ids) != len(set(ids)):
            raise ValueError("duplicate task ids")
        return self


# --- schemas -----------------------------------------------------------------


class Column(Contract):
    name: str
    type: Literal["INTEGER", "TEXT", "REAL"]
    primary_key: bool = False
    nullable: bool = True
    unique: bool = False
    references: str | None = Field(default=None, description="'table.column' this column points at")
    enum: list[str] | None = None
    minimum: float | None = None
    maximum: float | None = None
    description: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _ident(v, "column name")


class Table(Contract):
    name: str
    description: str
    columns: list[Column] = Field(min_length=2)
    indexes: list[list[str]] = Field(default_factory=list)

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _ident(v, "table name")

    @property
    def primary_key(self) -> str:
        return next(c.name for c in self.columns if c.primary_key)

    def column(self, name: str) -> Column:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"table {self.name} has no column {name}")


class SchemaSpec(Contract):
    """schema.json: the structure of env.db (schema.sql is its DDL)."""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    tables: list[Table] = Field(min_length=1)

    def table(self, name: str) -> Table:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"schema of {self.env_id} has no table {name}")


# --- tools -------------------------------------------------------------------


class OwnedArgument(BaseModel):
    """An argument naming a row a party owns, and how its owner is found: `path` [table, column] (the row's
    column holding the owner's id: the party table's own `id`, or its party column) or [table, column, table2,
    column2] (the row's parent, through its column `column`, holds the owner in `column2`)."""

    model_config = ConfigDict(extra="forbid")

    argument: str
    path: list[str] = Field(min_length=2, max_length=4)

    @field_validator("path")
    @classmethod
    def _path(cls, v: list[str]) -> list[str]:
        if len(v) % 2:
            raise ValueError(f"owner path {v}: table and column pairs")
        return [_ident(part, "owner path part") for part in v]

    def owner_sql(self) -> str:
        """The query of the owner's id (`owner`), the named row's id its one parameter."""
        if len(self.path) == 2:
            table, column = self.path
            return f'SELECT "{column}" AS owner FROM "{table}" WHERE id = ?'
        table, via, parent, column = self.path
        return f'SELECT p."{column}" AS owner FROM "{table}" t JOIN "{parent}" p ON p.id = t."{via}" WHERE t.id = ?'


class ToolSpec(BaseModel):
    """One MCP tool: name, description, inputSchema (JSON Schema of the arguments)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    name: str
    description: str
    input_schema: dict[str, Any] = Field(alias="inputSchema")
    annotations: dict[str, Any] = Field(default_factory=dict)
    staff_only: bool = Field(False, description="only the business's staff may use it: a task the party writes in "
                             "their own words (Task.requester 'party') is not offered it, and the runtime refuses "
                             "it there (awm/builder/tools/audience.py; a model writing the tools marks them, awm/llm/prompts.py TOOLS). "
                             "AWM-1K's tools are open to all")
    owned: list[OwnedArgument] = Field(default_factory=list, description="a write the party may make: the "
                                       "arguments naming rows a party owns, which in a party's own request "
                                       "(Task.party_id) must be theirs or a party's that names them as "
                                       "representative, else the runtime refuses the call (not_permitted)")

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        return _ident(v, "tool name")

    def mcp(self) -> dict[str, Any]:
        """The tool as MCP lists it: name, description, inputSchema, annotations."""
        return self.model_dump(by_alias=True, exclude={"staff_only", "owned"})

    def offered_to(self, requester: str) -> bool:
        """Whether a task written by `requester` (Task.requester) may use this tool."""
        return not (self.staff_only and requester == "party")


class ToolSet(Contract):
    """tools.json"""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    tools: list[ToolSpec] = Field(min_length=1)
    api_style: dict[str, str] | None = Field(default=None, description="the dialect the tools speak (naming, paging, "
                                             "filters, errors, bodies; see awm/builder/dialect.py); None when not "
                                             "chosen from one, as for tools an LLM wrote")
    representative: list[str] | None = Field(default=None, min_length=2, max_length=2, description="[party table, "
                                             "column]: where a party names the party authorised to act for them "
                                             "(ToolSpec.owned); None: no one acts for another")

    def representative_sql(self) -> str | None:
        """The query of whom a party names as representative (`representative`), the party's id its one
        parameter; None when no one acts for another."""
        if self.representative is None:
            return None
        table, column = (_ident(part, "representative part") for part in self.representative)
        return f'SELECT "{column}" AS representative FROM "{table}" WHERE id = ?'

    def offered(self, task: Task | None) -> list[ToolSpec]:
        """The tools an episode of `task` may use: all of them, but a party's own request (Task.requester
        'party') is not offered the staff-only ones. None: no task, every tool (the environment's full API)."""
        return [t for t in self.tools if task is None or t.offered_to(task.requester)]

    @property
    def style_name(self) -> str:
        """The API style as one string, naming/paging/filters/errors/bodies ('by_id/cursor/object/detailed/nested');
        empty when none is recorded (a style recorded before bodies had a choice has flat ones)."""
        if not self.api_style:
            return ""
        recorded = {"bodies": "flat", **self.api_style}
        return "/".join(recorded.get(axis, "?") for axis in ("naming", "paging", "filters", "errors", "bodies"))

    @model_validator(mode="after")
    def _unique(self) -> ToolSet:
        names = [t.name for t in self.tools]
        dupes = {n for n in names if names.count(n) > 1}
        if dupes:
            raise ValueError(f"duplicate tool names: {sorted(dupes)}")
        return self


# --- verification ------------------------------------------------------------


class Footprint(Contract):
    """The rows a task may change: what its reference solution changes, goals and the side effects of its
    own tool calls alike, row by row (never a blanket allowance). Keys are primary-key values as text.

    An episode's changes are accounted for when every updated row and column (ending with the reference's
    value), every deleted row, and every inserted row is one of these. An inserted row is compared whole with
    one row the reference inserted, both in their final state (a row created and then cancelled is not the
    row asked for): on every column `inserted` lists but the primary key (the key the reference got, kept
    only to tie the rows that point at it; a column pointing at a row the episode inserted is compared
    through the reference row that row matched); texts after normalising whitespace, case and final
    punctuation, numbers to the cent. The open columns of a row (`open`) are left out of it and need any
    non-empty text. A footprint written before whole rows were recorded lists only an inserted row's
    columns that point at other rows, and is compared on those alone."""

    updated: dict[str, dict[str, list[str]]] = Field(default_factory=dict, description="table -> key -> columns")
    values: dict[str, dict[str, dict[str, Any]]] = Field(
        default_factory=dict, description="table -> key -> column -> the value the reference leaves there: an "
        "updated column must end with it (numbers to the cent), so a side effect cannot be set to anything else")
    deleted: dict[str, list[str]] = Field(default_factory=dict, description="table -> keys")
    inserted: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="table -> each row the reference inserts, in its final state: column -> "
        "value, every column but the open ones")
    open: dict[str, list[list[str]]] = Field(
        default_factory=dict, description="table -> per inserted row (in the order of `inserted`), the free-text "
        "columns the request leaves open: TEXT without an enum, not pointing at a row, prose (not a date, time or "
        "number), neither stated by the instruction nor a value of the initial database (awm.runtime.outcome."
        "open_columns); an episode's row must hold a non-empty text there")

    @model_validator(mode="after")
    def _open_rows_are_inserted(self) -> Footprint:
        for table, rows in self.open.items():
            if len(rows) > len(self.inserted.get(table, [])):
                raise ValueError(f"footprint: {len(rows)} rows of open columns for table {table}, which has "
                                 f"{len(self.inserted.get(table, []))} inserted rows")
        return self


class Verifier(Contract):
    task_id: str
    code: str = Field(description="Python source defining verify(initial, final, answer)")
    footprint: Footprint | None = Field(default=None, description="what the reference solution changes; "
                                        "written by the verification stage, computed by the runtime if absent")


class VerifierSet(Contract):
    """verifiers.json"""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    verifiers: list[Verifier]


MUTANT_CLASSES = ("wrong_row", "half_change", "wrong_answer", "collateral_write", "hedged_answer", "dumped_answer",
                  "echoed_instruction", "detail_changed", "text_negated", "negated_answer", "unlisted_hedge",
                  "cross_kind_hedge", "blind_answer", "malformed_submission", "created_then_broken", "extra_transition",
                  "unrequested_field", "wrong_rule")
ACCEPTANCE_CLASSES = ("extra_reads", "skipped_lookups", "corrected_write", "reordered_steps", "equivalent_answer",
                      "natural_answer", "typed_answer", "refused_attempt")


class ProofClass(Contract):
    """One class of proof for one task: how many trajectories were tried, how many were judged as they must be
    (a mutant rejected, an acceptance variant accepted), and the ones judged wrongly."""

    tried: int = Field(default=0, ge=0)
    right: int = Field(default=0, ge=0)
    wrong: list[str] = Field(default_factory=list, description="the trajectories judged wrongly, described")


class TaskReport(Contract):
    task_id: str
    reference_passed: bool
    null_passed: bool
    steps: int
    distinct_tools: int
    error: str | None = None
    evidence: list[str] = Field(default_factory=list)
    deterministic: bool = Field(default=True, description="the verifier gave the same verdict twice")
    read_only: bool = Field(default=True, description="the verifier never tried to write to a database")
    proofs: dict[str, ProofClass] = Field(default_factory=dict, description="per mutant and acceptance class")
    collateral_tools: list[str] = Field(default_factory=list, description="the write tools tried as a "
                                        "collateral write on this task (a write that changed a row)")

    @property
    def mutations_tried(self) -> int:
        return sum(p.tried for c, p in self.proofs.items() if c in MUTANT_CLASSES)

    @property
    def mutations_killed(self) -> int:
        return sum(p.right for c, p in self.proofs.items() if c in MUTANT_CLASSES)

    @property
    def survivors(self) -> list[str]:
        """The mutants the verifier accepted."""
        return [f"{c}: {w}" for c, p in self.proofs.items() if c in MUTANT_CLASSES for w in p.wrong]

    @property
    def rejected_alternatives(self) -> list[str]:
        """The valid alternative trajectories the verifier rejected."""
        return [f"{c}: {w}" for c, p in self.proofs.items() if c in ACCEPTANCE_CLASSES for w in p.wrong]

    @property
    def publishable(self) -> bool:
        """Solvable (the reference passes), not trivially passing (the null trajectory fails), and judged
        by an honest verifier: deterministic, read-only, rejecting every mutant and accepting every valid
        alternative tried."""
        return self.failure_check() is None

    def failure_check(self) -> str | None:
        """The first proof this task failed, named as in the check metadata (None if publishable)."""
        for failed, name in ((not self.reference_passed, "reference_solution"), (self.null_passed, "null_trajectory"),
                             (not self.deterministic, "verifier_deterministic"), (not self.read_only, "verifier_read_only"),
                             (bool(self.survivors), "mutation_testing"),
                             (bool(self.rejected_alternatives), "acceptance_testing")):
            if failed:
                return name
        return None


class VerificationReport(Contract):
    """report.json: what was proven about each task."""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    tasks: list[TaskReport]

    @property
    def passed(self) -> list[TaskReport]:
        return [t for t in self.tasks if t.publishable]

    def proof_totals(self) -> dict[str, dict[str, int]]:
        """Per proof class, over every task: {"tried", "right"}."""
        return proof_totals(self.tasks)


def proof_totals(tasks: list[TaskReport]) -> dict[str, dict[str, int]]:
    """Per proof class (mutants, then acceptance variants), over `tasks`: how many tried, how many judged right."""
    totals = {c: {"tried": 0, "right": 0} for c in MUTANT_CLASSES + ACCEPTANCE_CLASSES}
    for task in tasks:
        for name, proof in task.proofs.items():
            entry = totals.setdefault(name, {"tried": 0, "right": 0})
            entry["tried"] += proof.tried
            entry["right"] += proof.right
    return totals


class CatalogEntry(Contract):
    """One line of catalog.jsonl: a published task."""

    env_id: str
    domain: str
    task_id: str
    instruction: str
    kind: str
    scenario: str
    steps: int
    tools: int
    path: str
    difficulty: dict[str, dict[str, Any]] | None = Field(
        default=None, description="per evaluated agent: pass_rate, rollouts and level (awm/eval/report.py)")
    origin: str = Field(default="unknown", description="where the domain came from: catalogue, seeds_file, "
                        "composed or llm (unknown in a line written before it was recorded)")
    origin_reason: str = ""
    api_style: str = Field(default="", description="the API style its tools speak, naming/paging/filters/errors/bodies "
                           "(awm/builder/dialect.py); empty when the tools have none (an LLM wrote them)")
    tier: Literal["proven", "checked"] = Field(
        default="proven", description="proven: a reference solution passes its verifier, which rejects the null "
        "trajectory, every mutant and no valid alternative (every task built here); checked: no reference exists "
        "(an imported AWM-1K task), its verifier only ran, deterministic and read-only, and rejected the unchanged "
        "database (docs/awm1k.md)")


# --- imported environments (AWM-1K) ------------------------------------------


class ForeignTask(Contract):
    """One task of an imported AWM-1K scenario and what its verifier showed without a reference solution."""

    task_id: str
    index: int = Field(ge=0, description="its task_idx in their files")
    instruction: str
    verifier: str | None = Field(default=None, description="their verify_task_completion code (pure-code mode)")
    checks: dict[str, bool] = Field(default_factory=dict, description="runs, deterministic, read_only, "
                                    "null_rejected (the unchanged database is not complete), clock_free")
    tier: Literal["proven", "checked", "failed", "unverified"]
    reason: str = ""
    reference: list[dict[str, Any]] | None = Field(
        default=None, description="proven: the candidate reference that passed the proofs, its calls (tool, arguments)")
    reference_answer: str | None = Field(default=None, description="proven: the reference's final answer")
    footprint: dict[str, Any] | None = Field(
        default=None, description="proven: the rows the reference changes per table (added, removed, changed), less "
        "the columns that differ between two replays of it (`open`): what an episode's outcome is checked against")
    proofs: dict[str, Any] = Field(default_factory=dict, description="the promotion's proofs of the reference: "
                                   "reference, null, mutants per kind (tried, rejected by the verifier or the outcome "
                                   "diff, accepted)")
    candidates: list[dict[str, Any]] = Field(
        default_factory=list, description="candidate references tried for promotion: source, result, reason")


class ForeignRoute(Contract):
    """One route of their app, the MCP tool it is, and its smoke call."""

    tool: str
    method: str
    path: str
    status: int | None = None
    answered: bool = Field(description="the smoke call got an answer below HTTP 500")
    error: str | None = None


class ForeignManifest(Contract):
    """awm1k.json: an environment imported from AWM-1K's files: where each file came from and what was checked."""

    contract_version: str = CONTRACT_VERSION
    env_id: str
    origin: Literal["awm1k"] = "awm1k"
    scenario: str = Field(description="their scenario name")
    status: Literal["checked", "quarantined"]
    reason: str = ""
    provenance: dict[str, list[dict[str, Any]]] = Field(
        default_factory=dict, description="our file -> the lines of their files it was made from: file, line, sha256")
    checks: dict[str, Any] = Field(default_factory=dict, description="schema_executes, schema_errors, inserts_ok, "
                                   "insert_failures (table, statement, error), insert_tables, clock_dependent_inserts, "
                                   "routes_answer, missing")
    routes: list[ForeignRoute] = Field(default_factory=list)
    tasks: list[ForeignTask] = Field(default_factory=list)

    @property
    def checked_tasks(self) -> list[ForeignTask]:
        return [t for t in self.tasks if t.tier in ("checked", "proven")]


# --- provenance --------------------------------------------------------------


class Provenance(Contract):
    """Where an artifact came from. Kept in provenance.json, one record per stage."""

    stage: str
    backend: str
    model: str | None = None
    prompt_hash: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    attempts: int = 1
    errors: list[str] = Field(default_factory=list)
    code_version: str
    inputs: dict[str, str] = Field(default_factory=dict, description="input file -> sha256")
    outputs: dict[str, str] = Field(default_factory=dict, description="output file -> sha256")
    metrics: dict[str, Any] = Field(default_factory=dict, description="counts the stage reported")
    duration_ms: float = 0.0


class Failure(Contract):
    """failed.json: the stage that failed an environment, and why."""

    env_id: str
    stage: str
    reason: str
