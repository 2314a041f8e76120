"""The subscription tools: pausing, resuming, cancelling and changing a subscription's plan."""

from __future__ import annotations

from awm.builder.templates.tools import subscriptions as templates
from awm.builder.tools.base import Param, ToolBuilder, integer

ROLE = "subscription"


def declare(b: ToolBuilder) -> None:
    sub, item = b.ent("subscription"), b.ent("item")
    b.list_tool("subscription")
    b.status_action("subscription", "pause", ("active",), "paused", f"Pause an active {sub.label}.")
    b.status_action("subscription", "resume", ("paused",), "active", f"Resume a paused {sub.label}.")
    b.status_action("subscription", "cancel", ("active", "paused"), "cancelled",
                    f"Cancel a {sub.label}; it will not renew.", extra='{"renews_on": None}')
    b.add(b.names.change("subscription", "change", "plan"),
          f"Switch an active or paused {sub.label} to another active {item.label}; the monthly price "
          f"becomes a tenth of that {item.label}'s price.",
          [Param(f"{sub.name}_id", integer(f"id of the {sub.label}"), True),
           b.id_param("item", f"id of the new {item.label}")],
          templates, "change_SUBSCRIPTION_plan", role="subscription", kind="update")
