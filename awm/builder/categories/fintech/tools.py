"""The tools of a money app's own entities (awm/builder/modules/packs/fintech.py): spending budgets, savings
goals, merchant payouts; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.fintech import templates
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("budget", "savings_goal", "payout")


def declare(b: ToolBuilder) -> None:
    if b.has("budget"):
        bu = b.ent("budget")
        b.list_tool("budget")
        b.add(b.names.action("budget", "set_limit"), f"Change the monthly limit of an active {bu.label}.",
              [b.id_param("budget"), Param("monthly_limit", number("the new limit", 0, True), True)],
              templates, "set_limit_BUDGET", role="budget", kind="update")
        b.status_action("budget", "pause", ("active",), "paused", f"Pause an active {bu.label}.")
        b.status_action("budget", "resume", ("paused",), "active", f"Resume a paused {bu.label}.")
    if b.has("savings_goal"):
        g = b.ent("savings_goal")
        b.list_tool("savings_goal")
        b.add(b.names.action("savings_goal", "contribute"),
              f"Add money to an active {g.label}; when the saved amount reaches the target it is achieved.",
              [b.id_param("savings_goal"), Param("amount", number("amount to add", 0, True), True)],
              templates, "contribute_SAVINGS_GOAL", role="savings_goal", kind="action")
        b.status_action("savings_goal", "abandon", ("active",), "abandoned", f"Abandon an active {g.label}.")
    if b.has("payout"):
        po = b.ent("payout")
        b.list_tool("payout")
        b.status_action("payout", "hold", ("scheduled",), "held", f"Hold a scheduled {po.label} for review.",
                        [Param("reason", string("why it is held"), True)], '{"hold_reason": reason}')
        b.status_action("payout", "release", ("held",), "scheduled", f"Release a held {po.label}.",
                        extra='{"hold_reason": None}')
