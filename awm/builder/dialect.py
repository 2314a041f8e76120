"""API styles: the dialect one environment's tools speak, chosen from its seed.

Real APIs differ in how they name things, page through lists, take filters and report errors; an agent
trained on one dialect only learns that dialect. Every offline environment therefore gets an `ApiStyle`,
drawn deterministically from its seed (sha256, never Python's hash()), along five independent axes:

  naming   verb_noun  get_order, list_orders / search_customers, create_order, cancel_order, update_item_price
           by_id      get_order_by_id, find_orders, add_order, cancel_order_by_id, set_item_price_by_id
           noun_verb  order_get, orders_list / customers_search, order_create, order_cancel, item_update_price
  paging   offset     limit, offset -> {items, total, limit, offset, next_offset}
           page       page, page_size -> {results, page, page_size, total_pages, total_results}
           cursor     limit, cursor -> {data, has_more, next_cursor} (an opaque cursor from the last page)
  filters  flat       one optional argument per filterable column
           object     one optional `filters` object holding them (the free-text `query` stays beside it)
  errors   plain      {"error": {"code": "not_found", "message": ...}}
           status     {"error": {"code": "NOT_FOUND", "message": ..., "status": 404}}
           detailed   {"error": {"code": "not_found", "message": ..., "retryable": false, "details": {...}}}
  bodies   flat       one argument per field of a create or update tool
           nested     the fields that belong together in one object argument (BODY_GROUPS): contact={email, phone},
                      address={street, city, postal_code}; ids stay top-level, and a tool with no group stays flat
Every error shape keeps the structured-error contract (one key "error" holding at least code and message).

The intents and the tool generator speak one canonical dialect (the names `ToolNames` gives, flat filters,
limit/offset, flat bodies); `Dialect` translates, in one place, the canonical tool definitions into the
environment's names and parameters and every reference call (its tool, its arguments, and the names of its derived arguments) into the
calls an agent makes against the generated tools.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from awm.builder.world import WorldPlan, stable_seed

if TYPE_CHECKING:
    from awm.builder.toolgen import Param, ToolDef

NAMINGS = ("verb_noun", "by_id", "noun_verb")
PAGINGS = ("offset", "page", "cursor")
FILTERS = ("flat", "object")
ERRORS = ("plain", "status", "detailed")
BODIES = ("flat", "nested")
AXES = ("naming", "paging", "filters", "errors", "bodies")
# bodies: nested. The object arguments a real API groups a create or update tool's descriptive fields into, and
# the fields each takes (a full match of the parameter name). A group forms where a tool has two or more of its
# fields; no id is ever wrapped, and no group takes the name of a parameter the tool already has.
BODY_GROUPS = (
    ("name", "the person's name", re.compile(r"first_name|middle_name|last_name")),
    ("contact", "contact details", re.compile(r"email|phone|mobile|fax|website|contact_(email|phone)")),
    ("address", "the postal address", re.compile(r"street|street_address|address_line\d|city|town|postal_code"
                                                 r"|zip_code|state|region|province|county|country")),
    ("schedule", "when it takes place", re.compile(r"(shift|start|end)_(date|time)|(starts|ends)_(at|on)"
                                                   r"|frequency|first_run_on")),
    ("message", "the message", re.compile(r"subject|body")),
    ("measurements", "the measured values", re.compile(r"[a-z_]+_(kg|g|cm|mm|pct|ppm|bpm|c)|ph|(resting_)?heart_rate"
                                                        r"|blood_pressure")),
    ("score", "the score", re.compile(r"(home|away)_score")),
)
BODY_KINDS = ("create", "update")  # the kinds of tool whose fields nest
# Canonical names with no entity noun in them (their second word is a plain noun of their own).
NOUNLESS = {"transfer_funds": ("transfer", "funds"), "award_points": ("award", "points"),
            "redeem_points": ("redeem", "points")}
# by_id: each canonical verb (or whole nounless name) in that dialect's words.
_BY_ID_VERBS = {"list": "find", "search": "find", "create": "add", "record": "add", "issue": "add", "open": "add",
                "send": "add", "delete": "remove", "update": "set", "transfer": "move", "adjust": "change",
                "credit": "add_funds_to", "debit": "withdraw_from", "apply": "use"}
_BY_ID_NOUNLESS = {"transfer_funds": "move_funds", "award_points": "add_points", "redeem_points": "use_points"}
_BY_ID_TAILS = {"contact": ("edit", "contact")}  # update_x_contact -> edit_x_contact_by_id
PAGE_ITEMS = {"offset": "items", "page": "results", "cursor": "data"}  # where a page's rows are, per paging
PAGING_ARGUMENTS = ("limit", "offset")  # the canonical paging arguments of a list tool
SEARCH_ARGUMENT = "query"


@dataclass(frozen=True)
class ApiStyle:
    """How one environment's tools are named, paged, filtered and report errors."""

    naming: str = "verb_noun"
    paging: str = "offset"
    filters: str = "flat"
    errors: str = "plain"
    bodies: str = "flat"

    def __post_init__(self) -> None:
        for axis, value, allowed in (("naming", self.naming, NAMINGS), ("paging", self.paging, PAGINGS),
                                     ("filters", self.filters, FILTERS), ("errors", self.errors, ERRORS),
                                     ("bodies", self.bodies, BODIES)):
            if value not in allowed:
                raise ValueError(f"unknown API style {axis} {value!r}: one of {', '.join(allowed)}")

    @property
    def name(self) -> str:
        """'by_id/page/object/status/nested'."""
        return "/".join(getattr(self, axis) for axis in AXES)

    def record(self) -> dict[str, str]:
        return asdict(self)


CANONICAL = ApiStyle()


def style_for(seed: int) -> ApiStyle:
    """The style of the environment with this scenario seed: each axis drawn from an rng seeded by sha256 (bodies
    last, so the other axes are what they were before it)."""
    rng = random.Random(stable_seed("api_style", seed))
    return ApiStyle(naming=rng.choice(NAMINGS), paging=rng.choice(PAGINGS), filters=rng.choice(FILTERS),
                    errors=rng.choice(ERRORS), bodies=rng.choice(BODIES))


def body_groups(tool: ToolDef) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The object arguments `tool` takes in the nested style: (object name, the parameters it holds), in the
    order of their first parameter."""
    if tool.kind not in BODY_KINDS:
        return ()
    taken = {p.name for p in tool.params}
    groups = []
    for group, _, fields in BODY_GROUPS:
        members = tuple(p.name for p in tool.params if fields.fullmatch(p.name) and not p.name.endswith("_id"))
        if len(members) >= 2 and group not in taken:
            groups.append((group, members))
            taken |= set(members)
    order = [p.name for p in tool.params]
    return tuple(sorted(groups, key=lambda g: order.index(g[1][0])))


def nested_params(params: list[Param], groups: tuple[tuple[str, tuple[str, ...]], ...]) -> list[Param]:
    """`params` with each group's members in one object parameter, at the place of its first member: required
    if any member is, its schema closed and listing the required members."""
    by_name = {p.name: p for p in params}
    out = []
    for param in params:
        group = next((g for g in groups if param.name in g[1]), None)
        if group is None:
            out.append(param)
        elif param.name == group[1][0]:
            members = [by_name[m] for m in group[1]]
            what = next(what for name, what, _ in BODY_GROUPS if name == group[0])
            schema: dict[str, Any] = {"type": "object", "description": f"{what}: {', '.join(group[1])}",
                                      "properties": {m.name: m.schema for m in members}}
            required = [m.name for m in members if m.required]
            if required:
                schema["required"] = required
            schema["additionalProperties"] = False
            out.append(replace(param, name=group[0], schema=schema, required=bool(required), default=None))
    return out


class ToolNames:
    """The canonical names tools get in one world: shared by the tool and the task generators (the environment's
    own names are `Dialect.name` of these)."""

    def __init__(self, plan: WorldPlan):
        self.plan = plan

    def get(self, role: str) -> str:
        return f"get_{self.plan[role].name}"

    def list(self, role: str) -> str:
        ent = self.plan[role]
        verb = "search" if ent.search else "list"
        return f"{verb}_{ent.plural_name}"

    def create(self, role: str) -> str:
        verb = {"line": "add", "note": "add", "address": "add", "review": "add", "ticket_comment": "add",
                "payment": "record", "notification": "send", "ticket": "open", "purchase_line": "add",
                "invoice": "issue"}.get(role, "create")
        return f"{verb}_{self.plan[role].name}"

    def delete(self, role: str) -> str:
        return f"{'remove' if role == 'line' else 'delete'}_{self.plan[role].name}"

    def action(self, role: str, verb: str) -> str:
        return f"{verb}_{self.plan[role].name}"

    def change(self, role: str, verb: str, what: str) -> str:
        """A tool changing one aspect of a row: update_product_price, set_customer_tier, change_membership_plan."""
        return f"{verb}_{self.plan[role].name}_{what}"

    def transfer_funds(self) -> str:
        return "transfer_funds"

    def points(self, verb: str) -> str:
        """award_points, redeem_points."""
        return f"{verb}_points"


def split_name(canonical: str, noun: str, plural_noun: str) -> tuple[str, str, str]:
    """(verb, noun, tail) of a canonical tool name: update_item_price -> (update, item, price)."""
    if canonical in NOUNLESS:
        return (*NOUNLESS[canonical], "")
    for candidate in (plural_noun, noun):
        if canonical.endswith("_" + candidate):
            return canonical[:-len(candidate) - 1], candidate, ""
    for candidate in (plural_noun, noun):
        verb, sep, tail = canonical.partition("_" + candidate + "_")
        if sep and verb:
            return verb, candidate, tail
    raise ValueError(f"tool name {canonical!r} names neither {noun!r} nor {plural_noun!r}: name it through ToolNames")


def styled_name(style: ApiStyle, canonical: str, noun: str, plural_noun: str, by_own_id: bool) -> str:
    """`canonical` in the naming dialect of `style`; `by_own_id`: the tool's first argument is its row's id."""
    if style.naming == "verb_noun":
        return canonical
    verb, word, tail = split_name(canonical, noun, plural_noun)
    if style.naming == "noun_verb":
        return "_".join(p for p in (word, verb, tail) if p)
    if canonical in _BY_ID_NOUNLESS:
        return _BY_ID_NOUNLESS[canonical]
    if tail in _BY_ID_TAILS:
        verb, tail = _BY_ID_TAILS[tail]
    verb = _BY_ID_VERBS.get(verb, verb)
    suffix = "by_id" if by_own_id and verb not in ("find", "add") else ""
    return "_".join(p for p in (verb, word, tail, suffix) if p)


class ReferenceCallError(ValueError):
    """A canonical reference call that the environment's dialect cannot express."""


class Dialect:
    """One environment's style applied: its tools' names, and reference calls translated into it
    (`awm.builder.toolgen.dialect_for(plan)` gives an environment's own)."""

    def __init__(self, plan: WorldPlan, canonical_tools: list[ToolDef], style: ApiStyle | None = None):
        self.plan = plan
        self.style = style if style is not None else style_for(plan.scenario.seed)
        self.tools = {t.name: t for t in canonical_tools}
        self.names: dict[str, str] = {}
        self.bodies = {t.name: body_groups(t) for t in canonical_tools} if self.style.bodies == "nested" else {}
        self.bodies = {name: groups for name, groups in self.bodies.items() if groups}
        for tool in canonical_tools:
            ent = plan[tool.role]
            own_id = bool(tool.params) and tool.params[0].name == f"{ent.name}_id"
            self.names[tool.name] = styled_name(self.style, tool.name, ent.name, ent.plural_name, own_id)
        taken: dict[str, str] = {}
        for canonical, styled in self.names.items():
            if styled in taken:
                raise ValueError(f"{plan.scenario.env_id}: tools {taken[styled]!r} and {canonical!r} are both "
                                 f"named {styled!r} in the {self.style.naming} dialect")
            taken[styled] = canonical

    def name(self, canonical: str) -> str:
        if canonical not in self.names:
            raise ReferenceCallError(f"{self.plan.scenario.env_id}: no tool {canonical!r} in this environment")
        return self.names[canonical]

    def tool(self, canonical: str) -> ToolDef:
        """The canonical tool as the environment serves it: its name and parameters in the dialect."""
        tool = self.tools[canonical]
        groups = self.bodies.get(canonical, ())
        return replace(tool, name=self.name(canonical), params=nested_params(tool.params, groups), bodies=groups)

    def argument(self, canonical_tool: str, argument: str) -> str:
        """Where a canonical argument of a canonical tool goes in the dialect's call: limit -> page_size, a filter
        -> filters, a field of a body -> contact (the object holding it)."""
        if not self.tools[canonical_tool].paged:
            return next((group for group, members in self.bodies.get(canonical_tool, ()) if argument in members),
                        argument)
        if argument == "limit":
            return "page_size" if self.style.paging == "page" else "limit"
        if argument == "offset":
            return {"offset": "offset", "page": "page", "cursor": "cursor"}[self.style.paging]
        if argument != SEARCH_ARGUMENT and self.style.filters == "object":
            return "filters"
        return argument

    def call(self, canonical_tool: str, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A canonical reference call as the environment's tools take it."""
        name = self.name(canonical_tool)
        if not self.tools[canonical_tool].paged:
            return name, self._nest(canonical_tool, arguments)
        out: dict[str, Any] = {}
        filters = {k: v for k, v in arguments.items() if k not in PAGING_ARGUMENTS and k != SEARCH_ARGUMENT}
        if SEARCH_ARGUMENT in arguments:
            out[SEARCH_ARGUMENT] = arguments[SEARCH_ARGUMENT]
        if filters and self.style.filters == "object":
            out["filters"] = filters
        else:
            out.update(filters)
        out.update(self._paging(canonical_tool, arguments.get("limit"), arguments.get("offset")))
        return name, out

    def _nest(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The arguments with each body's fields moved into its object."""
        out: dict[str, Any] = {}
        for name, value in arguments.items():
            group = self.argument(tool, name)
            if group == name:
                out[name] = value
            else:
                out.setdefault(group, {})[name] = value
        return out

    def _paging(self, tool: str, limit: int | None, offset: int | None) -> dict[str, int]:
        if self.style.paging == "offset":
            return {k: v for k, v in (("limit", limit), ("offset", offset)) if v is not None}
        if self.style.paging == "page":
            out = {} if limit is None else {"page_size": limit}
            if offset:
                size = limit or 20
                if offset % size:
                    raise ReferenceCallError(f"{tool}: offset {offset} is not a whole page of {size}")
                out["page"] = offset // size + 1
            return out
        if offset:
            raise ReferenceCallError(f"{tool}: a call at offset {offset} has no cursor: page there from the start")
        return {} if limit is None else {"limit": limit}

    def reference(self, calls: list[tuple[str, dict[str, Any]]], derived: list[tuple[int, str]]
                  ) -> tuple[list[tuple[str, dict[str, Any]]], list[tuple[int, str]]]:
        """Canonical reference calls and their derived arguments ((call index, argument)) in this dialect."""
        styled = [self.call(tool, arguments) for tool, arguments in calls]
        moved = [(n, self.argument(calls[n][0], argument)) for n, argument in derived]
        return styled, list(dict.fromkeys(moved))
