"""The account tools: freezing accounts, transfers between them, credits and debits."""

from __future__ import annotations

from awm.builder.naming import plural
from awm.builder.templates.tools import accounts as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLE = "account"


def declare(b: ToolBuilder) -> None:
    a, e = b.ent("account"), b.ent("account_entry")
    b.get_tool("account")
    b.list_tool("account")
    b.list_tool("account_entry")
    b.status_action("account", "freeze", ("active",), "frozen", f"Freeze an active {a.label}.")
    b.status_action("account", "unfreeze", ("frozen",), "active", f"Unfreeze a frozen {a.label}.")
    b.add(b.names.transfer_funds(),
          f"Move money between two active {plural(a.label)}. The source must hold enough balance; "
          f"both sides get an {e.label}.",
          [Param(f"from_{a.fk}", integer(f"id of the {a.label} to debit"), True),
           Param(f"to_{a.fk}", integer(f"id of the {a.label} to credit"), True),
           Param("amount", number("amount to move", 0, True), True), Param("memo", string("memo"))],
          templates, "transfer_funds", role="account", kind="action")
    for verb, entry_type, desc, note in (("credit", "deposit", "Add money to", ""),
                                         ("debit", "withdrawal", "Take money from", " The balance must cover it.")):
        b.add(b.names.action("account", verb),
              f"{desc} an active {a.label}, with a memo; the {e.label} is recorded as a {entry_type}.{note}",
              [b.id_param("account"), Param("amount", number("amount", 0, True), True),
               Param("memo", string("what it is for"), True)],
              templates, f"{verb}_ACCOUNT", role="account", kind="action")
