"""What every concern's tool declarations use: a tool's metadata (ToolDef, Param), JSON Schema helpers, the
placeholders bound for every role of a world, and the generic tools (list, get, status transition, delete)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import ModuleType
from typing import Any

from awm.builder.codegen import Expr, Ident, Repeat
from awm.builder.dialect import ApiStyle, ToolNames, split_name
from awm.builder.entities import FULL_NAME, Entity
from awm.builder.naming import code_prefix, plural
from awm.builder.phrasing import fix_articles
from awm.builder.templates.tools import generic
from awm.builder.tools.audience import audience
from awm.builder.world import WorldPlan

PAGE_SIZE = {"type": "integer", "minimum": 1, "maximum": 100, "default": 20, "description": "page size"}
# Per paging style (awm.builder.dialect): the list tools' paging parameters (name, schema, default), their
# template in generic.py, and the keys their answer describes itself with.
PAGING = {
    "offset": ((("limit", PAGE_SIZE, 20),
                ("offset", {"type": "integer", "minimum": 0, "default": 0, "description": "rows to skip"}, 0)),
               "list_ENTITIES", "items, total, next_offset"),
    "page": ((("page", {"type": "integer", "minimum": 1, "default": 1, "description": "page number, from 1"}, 1),
              ("page_size", {**PAGE_SIZE, "description": "rows per page"}, 20)),
             "page_ENTITIES", "results, total_results, total_pages"),
    "cursor": ((("limit", PAGE_SIZE, 20),
                ("cursor", {"type": "string", "minLength": 1, "description": "next_cursor of the previous page; "
                            "leave it out for the first page"}, None)),
               "cursor_ENTITIES", "data, has_more, next_cursor"),
}


@dataclass
class Param:
    name: str
    schema: dict[str, Any]
    required: bool = False
    default: Any = None


@dataclass
class ToolDef:
    """One tool: its metadata (name, description, parameters, hints, role, kind) and the template function
    its code is rendered from (`function` of the template module `template`, with `bindings`)."""

    name: str
    description: str
    params: list[Param]
    template: ModuleType
    function: str
    bindings: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False
    destructive: bool = False
    role: str = ""
    kind: str = "read"  # read | create | update | delete | action
    paged: bool = False  # a list tool: its filters and paging arguments follow the API style
    audience: str = "staff"  # who may use it: "party" (the customer too) or "staff" (awm.builder.tools.audience)
    # bodies: nested (awm.builder.dialect): the object parameters holding fields the template takes by name
    bodies: tuple[tuple[str, tuple[str, ...]], ...] = ()


def integer(desc: str, minimum: int | None = 1) -> dict:
    s: dict[str, Any] = {"type": "integer", "description": desc}
    if minimum is not None:
        s["minimum"] = minimum
    return s


def string(desc: str, enum: tuple[str, ...] | None = None, min_length: int = 1) -> dict:
    s: dict[str, Any] = {"type": "string", "description": desc}
    if enum:
        s["enum"] = list(enum)
    elif min_length:
        s["minLength"] = min_length
    return s


def number(desc: str, minimum: float | None = None, exclusive: bool = False) -> dict:
    s: dict[str, Any] = {"type": "number", "description": desc}
    if minimum is not None:
        s["exclusiveMinimum" if exclusive else "minimum"] = minimum
    return s


def filter_schema(ent: Entity, column: str, plan: WorldPlan) -> dict:
    col = ent.col(column)
    if col.ref:
        return integer(f"only rows of this {plan[col.ref].label} (id)")
    if col.enum:
        return string(f"only rows with this {column}", col.enum)
    if col.type == "INTEGER":
        return {"type": "integer", "description": f"only rows with this {column}"}
    return string(f"only rows with this exact {column}")


def entity_bindings(ent: Entity, token: str) -> dict[str, Any]:
    """The placeholders of one role: TOKEN (an identifier: the role's singular snake name), TOKEN_TABLE,
    TOKEN_LABEL, TOKEN_FK, TOKEN_PLURAL (its label in the plural) and TOKEN_PREFIX (its code prefix)."""
    return {token: Ident(ent.name), f"{token}_TABLE": ent.table, f"{token}_LABEL": ent.label,
            f"{token}_FK": ent.fk, f"{token}_PLURAL": plural(ent.label), f"{token}_PREFIX": code_prefix(ent.label)}


def role_bindings(plan: WorldPlan) -> dict[str, Any]:
    """The placeholders of every role of the world, the role in capitals as token (PARTY, PURCHASE_ORDER)."""
    bindings: dict[str, Any] = {}
    for role, ent in plan.entities.items():
        bindings.update(entity_bindings(ent, role.upper()))
    return bindings


class ToolBuilder:
    """Collects one world's tools, in order; each concern module's `declare(builder)` adds its own."""

    def __init__(self, plan: WorldPlan, style: ApiStyle):
        self.plan = plan
        self.style = style
        self.names = ToolNames(plan)
        self.labels = plan.scenario.labels
        self.tools: list[ToolDef] = []
        self.roles = role_bindings(plan)

    def ent(self, role: str) -> Entity:
        return self.plan[role]

    def has(self, role: str) -> bool:
        return self.plan.has(role)

    def add(self, name: str, description: str, params: list[Param], template: ModuleType, function: str, *,
            role: str, kind: str = "read", read_only: bool = False, destructive: bool = False,
            paged: bool = False, **bindings: Any) -> None:
        """Declare a tool rendered from `template.function`, the world's role placeholders and `bindings`."""
        params = [replace(p, schema={**p.schema, "description": fix_articles(p.schema["description"])})
                  if isinstance(p.schema.get("description"), str) else p for p in params]
        self.tools.append(ToolDef(name, fix_articles(description), params, template, function,
                                  {**self.roles, **bindings},
                                  read_only=read_only, destructive=destructive, role=role, kind=kind, paged=paged,
                                  audience=audience(role, kind, self.verb(name, role))))

    def verb(self, name: str, role: str) -> str:
        """The verb of a canonical tool name (cancel_order -> cancel, update_customer_contact -> update)."""
        ent = self.plan[role] if role and self.has(role) else None
        if ent is None:
            return name.split("_", 1)[0]
        return split_name(name, ent.name, ent.plural_name)[0]

    def id_param(self, role: str, desc: str | None = None) -> Param:
        ent = self.ent(role)
        return Param(ent.fk, integer(desc or f"id of the {ent.label}"), True)

    # generic tools -----------------------------------------------------------------
    def list_tool(self, role: str) -> None:
        """A list (or search) tool: filters flat or in one `filters` object, paged, as the API style says."""
        ent, style = self.ent(role), self.style
        params = []
        if ent.search:
            shown = ", ".join("full name" if c == FULL_NAME else c for c in ent.search)
            params.append(Param("query", string(f"text matched (case-insensitive, partial) against {shown}")))
        filters = {column: filter_schema(ent, column, self.plan) for column in ent.filters}
        if style.filters == "object" and filters:
            params.append(Param("filters", {"type": "object", "properties": filters, "additionalProperties": False,
                                            "description": "only rows matching every filter given"}))
            given = "{" + ", ".join(f'"{c}": filters.get("{c}")' for c in ent.filters) + "} if filters else {}"
        else:
            params += [Param(column, schema) for column, schema in filters.items()]
            given = "{" + ", ".join(f'"{c}": {c}' for c in ent.filters) + "}"
        paging, template, keys = PAGING[style.paging]
        params += [Param(name, schema, default=default) for name, schema, default in paging]
        verb = "Search" if ent.search else "List"
        self.add(self.names.list(role),
                 f"{verb} {plural(ent.label)} with optional filters; results are paged ({keys}). {ent.description}",
                 params, generic, template, role=role, read_only=True, paged=True,
                 **entity_bindings(ent, "ENTITY"), SEARCH=bool(ent.search), SEARCH_COLUMNS=tuple(ent.search),
                 FILTERS=Expr(given))

    def get_tool(self, role: str, children: tuple[str, ...] = ()) -> None:
        ent = self.ent(role)
        present = [self.ent(child) for child in children if self.has(child)]
        extra = f" with its {', '.join(plural(c.label) for c in present)}" if children else ""
        self.add(self.names.get(role), f"Get one {ent.label} by id{extra}.",
                 [Param(f"{ent.name}_id", integer(f"id of the {ent.label}"), required=True)],
                 generic, "get_ENTITY", role=role, read_only=True, **entity_bindings(ent, "ENTITY"),
                 CHILDREN=Repeat(tuple({"CHILD_KEY": c.plural_name, "CHILD_TABLE": c.table} for c in present)))

    def status_action(self, role: str, verb: str, sources: tuple[str, ...], target: str, desc: str,
                      extra_params: list[Param] | None = None, extra: str = "None",
                      template: ModuleType = generic, function: str = "transition_ENTITY", **bindings: Any) -> None:
        """A tool moving a row from one of `sources` to `target` (the prelude's `transition`); `extra` is
        the source of further column values to set, `template.function` a template adding checks first."""
        ent = self.ent(role)
        self.add(self.names.action(role, verb), f"{desc} Allowed from: {', '.join(sources)}.",
                 [Param(f"{ent.name}_id", integer(f"id of the {ent.label}"), True), *(extra_params or [])],
                 template, function, role=role, kind="action", **entity_bindings(ent, "ENTITY"),
                 VERB_TEXT=verb.replace("_", " "), SOURCES=sources, TARGET=target, EXTRA=Expr(extra), **bindings)

    def delete_tool(self, role: str, description: str) -> None:
        ent = self.ent(role)
        self.add(self.names.delete(role), description,
                 [Param(f"{ent.name}_id", integer(f"id of the {ent.label}"), True)],
                 generic, "delete_ENTITY", role=role, kind="delete", destructive=True,
                 **entity_bindings(ent, "ENTITY"))
