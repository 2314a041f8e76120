"""The support ticket tools: opening, assigning, prioritising, escalating, resolving, commenting."""

from __future__ import annotations

from awm.builder.templates.tools import support as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLE = "ticket"
PRIORITIES = ("low", "normal", "high", "urgent")


def declare(b: ToolBuilder) -> None:
    t, tc, st, p = b.ent("ticket"), b.ent("ticket_comment"), b.ent("staff"), b.ent("party")
    b.get_tool("ticket", ("ticket_comment",))
    b.list_tool("ticket")
    b.add(b.names.action("ticket", "assign"),
          f"Assign an active {st.label} to a {t.label} that is not resolved or closed; an open one moves to in_progress.",
          [b.id_param("ticket"), b.id_param("staff")],
          templates, "assign_TICKET", role="ticket", kind="action")
    b.add(b.names.create("ticket"),
          f"Open a new {t.label} for a {p.label}, optionally assigned to an active {st.label} (then it is in_progress).",
          [b.id_param("party"), Param("subject", string("what it is about"), True),
           Param("priority", string("how urgent", PRIORITIES), True),
           Param(st.fk, integer(f"id of the {st.label} to handle it"))],
          templates, "open_TICKET", role="ticket", kind="create")
    b.add(b.names.change("ticket", "set", "priority"), f"Change the priority of a {t.label} that is not resolved or closed.",
          [b.id_param("ticket"), Param("priority", string("the new priority", PRIORITIES), True)],
          templates, "set_TICKET_priority", role="ticket", kind="update")
    b.status_action("ticket", "escalate", ("open", "in_progress"), "escalated", f"Escalate a {t.label}.")
    b.status_action("ticket", "resolve", ("open", "in_progress", "escalated"), "resolved", f"Resolve a {t.label}.")
    b.add(b.names.create("ticket_comment"), f"Add a {tc.label} to a {t.label}.",
          [b.id_param("ticket"), Param("body", string("comment text"), True),
           Param(st.fk, integer(f"id of the {st.label} writing it"))],
          templates, "add_TICKET_COMMENT", role="ticket_comment", kind="create")
