"""The case tools: opening a case, its lines, assigning it, the actions of its flavour, moving it."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.codegen import Ident
from awm.builder.data import REFERENCE_NOW
from awm.builder.naming import plural
from awm.builder.templates.tools import cases as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

# statuses of work in progress: a case in one of them is neither editable nor finished
IN_PROGRESS = ("assigned", "in_progress", "under_review", "confirmed")


def declare(b: ToolBuilder) -> None:
    case_tools(b)
    line_tools(b)
    assign_tool(b)
    action_tools(b)
    transfer_tool(b)


def case_tools(b: ToolBuilder) -> None:
    fl = b.plan.flavour
    c, p, s, line = (b.ent(r) for r in ("case", "party", "site", "line"))
    b.get_tool("case", ("line", "payment", "note", "document"))
    b.list_tool("case")
    b.add(b.names.create("case"),
          f"Open a new {c.label} (status {fl.initial}) for an active {p.label} at a {s.label}; add "
          f"{plural(line.label)} to it afterwards.",
          [b.id_param("party"), b.id_param("site"), Param(fl.time_column, string("ISO date-time; defaults to now"))],
          templates, "create_CASE", role="case", kind="create", **time_binding(b), INITIAL=fl.initial, HAS_DISCOUNT=c.has("discount_amount"))


def time_binding(b: ToolBuilder) -> dict:
    """TIME names the parameter carrying the case's time column, TIME_COLUMN the column."""
    return {"TIME": Ident(b.plan.flavour.time_column), "TIME_COLUMN": b.plan.flavour.time_column}


def line_tools(b: ToolBuilder) -> None:
    c, item, line = b.ent("case"), b.ent("item"), b.ent("line")
    editable = tuple(b.plan.flavour.editable)
    b.add(b.names.create("line"),
          f"Add an active {item.label} to a {c.label} that is still {' or '.join(editable)}; the unit price is "
          f"the {item.label}'s current price and the {c.label} total is updated.",
          [b.id_param("case"), b.id_param("item"), Param("quantity", {**integer("how many", 1), "maximum": 1000}, True)],
          templates, "add_LINE", role="line", kind="create", EDITABLE=editable)
    b.list_tool("line")
    b.add(b.names.delete("line"), f"Remove a {line.label} from a {c.label} that is still {' or '.join(editable)}.",
          [Param(f"{line.name}_id", integer(f"id of the {line.label}"), True)],
          templates, "remove_LINE", role="line", kind="delete", destructive=True, EDITABLE=editable)


def assign_tool(b: ToolBuilder) -> None:
    fl = b.plan.flavour
    c, st = b.ent("case"), b.ent("staff")
    closed = tuple(x for x in fl.statuses if x not in fl.editable and x not in IN_PROGRESS)
    service = fl.name == "service"
    b.add(b.names.action("case", "assign"),
          f"Assign an active {st.label} to a {c.label} that is not finished."
          + (" An open one becomes assigned." if service else ""),
          [b.id_param("case"), b.id_param("staff")],
          templates, "assign_CASE", role="case", kind="action", CLOSED=closed, SERVICE=service)


def action_tools(b: ToolBuilder) -> None:
    """One tool per action of the case flavour (confirm, ship, cancel, reschedule, ...)."""
    fl = b.plan.flavour
    c = b.ent("case")
    for action in fl.actions:
        params = []
        extra = "None"
        if action.needs_time:
            params.append(Param(fl.time_column, {**string("new ISO date-time, in the future"),
                                                 "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}"}, True))
            extra = f'{{"{fl.time_column}": {fl.time_column}}}'
        cutoff = (REFERENCE_NOW - timedelta(days=action.window_days)).isoformat() if action.window_days else ""
        b.status_action("case", action.verb, action.sources, action.target,
                        action.description.format(case=c.label), params, extra,
                        template=templates, function="act_on_CASE", **time_binding(b), NEEDS_TIME=action.needs_time,
                        WINDOW_DAYS=action.window_days, WINDOW_TEXT=str(action.window_days), CUTOFF=cutoff,
                        NEEDS_DOCUMENTS=bool(action.requires_verified_documents and b.has("document")))


def transfer_tool(b: ToolBuilder) -> None:
    c, s = b.ent("case"), b.ent("site")
    editable = tuple(b.plan.flavour.editable)
    b.add(b.names.action("case", "transfer"), f"Move a {c.label} that is still {' or '.join(editable)} to another {s.label}.",
          [b.id_param("case"), b.id_param("site", f"id of the new {s.label}")],
          templates, "transfer_CASE", role="case", kind="update", EDITABLE=editable)
