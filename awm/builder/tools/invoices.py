"""The invoice tools: reading, paying, voiding and issuing invoices."""

from __future__ import annotations

from awm.builder.naming import plural
from awm.builder.templates.tools import invoices as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLE = "invoice"


def declare(b: ToolBuilder) -> None:
    inv, p, c = b.ent("invoice"), b.ent("party"), b.ent("case")
    b.get_tool("invoice")
    b.list_tool("invoice")
    b.status_action("invoice", "pay", ("open", "overdue"), "paid", f"Mark an {b.labels['invoice']} as paid.")
    b.status_action("invoice", "void", ("open", "overdue"), "void", f"Void an unpaid {b.labels['invoice']}.")
    b.add(b.names.create("invoice"),
          f"Issue an open {inv.label} to a {p.label}, optionally for one of their {plural(c.label)}; it is "
          "dated today and due on the date given.",
          [b.id_param("party"), Param("amount", number("amount due", 0, True), True),
           Param("due_on", {**string("ISO date, after today"), "pattern": r"^\d{4}-\d{2}-\d{2}$"}, True),
           Param(c.fk, integer(f"id of the {c.label} it bills"))],
          templates, "issue_INVOICE", role="invoice", kind="create")
