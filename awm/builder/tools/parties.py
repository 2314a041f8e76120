"""The party tools: registering, contact changes, suspension, tiers."""

from __future__ import annotations

from awm.builder.naming import plural
from awm.builder.templates.tools import parties as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

EMAIL = "^[^@ ]+@[^@ ]+$"


def declare(b: ToolBuilder) -> None:
    party_tools(b)


def party_tools(b: ToolBuilder) -> None:
    p = b.ent("party")
    b.get_tool("party")
    b.list_tool("party")
    b.add(b.names.create("party"), f"Register a new {p.label}. The email must not be in use.",
          [Param("first_name", string("first name"), True), Param("last_name", string("last name"), True),
           Param("email", {**string("email address"), "pattern": EMAIL}, True),
           Param("phone", string("phone number"), True), Param("city", string("city"), True)],
          templates, "create_PARTY", role="party", kind="create")
    b.add(b.names.change("party", "update", "contact"), f"Change a {p.label}'s email, phone or city; omitted fields stay as they are.",
          [Param(f"{p.name}_id", integer(f"id of the {p.label}"), True),
           Param("email", {**string("new email"), "pattern": EMAIL}),
           Param("phone", string("new phone")), Param("city", string("new city"))],
          templates, "update_PARTY_contact", role="party", kind="update")
    b.status_action("party", "suspend", ("active",), "suspended",
                    f"Suspend an active {p.label}: no new {plural(b.labels['case'])} can be opened for them.")
    b.status_action("party", "reactivate", ("suspended",), "active", f"Reactivate a suspended {p.label}.")
    b.add(b.names.change("party", "set", "tier"), f"Move a {p.label} to another tier (standard, silver or gold).",
          [Param(f"{p.name}_id", integer(f"id of the {p.label}"), True),
           Param("tier", string("the new tier", ("standard", "silver", "gold")), True)],
          templates, "set_PARTY_tier", role="party", kind="update")
