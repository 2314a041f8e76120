"""The tools of a bank's own entities (awm/builder/modules/packs/banking.py): cards, disputes, standing orders,
holds; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.banking import templates
from awm.builder.categories.banking.entities import (
    BLOCK_REASONS,
    DISPUTE_WINDOW_DAYS,
    FREQUENCIES,
    HOLD_REASONS,
    MAX_CARD_LIMIT,
)
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("card", "dispute", "standing_order", "hold")
ISO_DATE = {"pattern": r"^\d{4}-\d{2}-\d{2}$"}


def declare(b: ToolBuilder) -> None:
    a = b.ent("account")
    if b.has("card"):
        c = b.ent("card")
        b.get_tool("card")
        b.list_tool("card")
        b.status_action("card", "block", ("active",), "blocked", f"Block an active {c.label}, giving the reason.",
                        [Param("reason", string("why it is blocked", BLOCK_REASONS), True)], '{"block_reason": reason}')
        b.add(b.names.action("card", "unblock"),
              f"Unblock a blocked {c.label} that has not expired and whose {a.label} is active. "
              "A card blocked as lost or stolen cannot be unblocked: it must be replaced.",
              [b.id_param("card")], templates, "unblock_CARD", role="card", kind="action")
        b.add(b.names.action("card", "set_limit"),
              f"Change the daily spending limit of an active {c.label} (at most {MAX_CARD_LIMIT:.0f}).",
              [b.id_param("card"),
               Param("daily_limit", {**number("the new daily limit", 0, True), "maximum": MAX_CARD_LIMIT}, True)],
              templates, "set_limit_CARD", role="card", kind="update", MAX_LIMIT=MAX_CARD_LIMIT)
    if b.has("dispute"):
        d, e = b.ent("dispute"), b.ent("account_entry")
        b.get_tool("dispute")
        b.list_tool("dispute")
        b.add(b.names.create("dispute"),
              f"Dispute a charge (a withdrawal or fee) on an {a.label}, within {DISPUTE_WINDOW_DAYS} days of its "
              "posting; a charge can be disputed once.",
              [Param(e.fk, {"type": "integer", "minimum": 1, "description": f"id of the {e.label} disputed"}, True),
               Param("reason", string("why it is disputed", ("unrecognised", "duplicate", "not_received",
                                                             "wrong_amount")), True)],
              templates, "create_DISPUTE", role="dispute", kind="create",
              CODE_PREFIX=b.plan.code_prefixes["dispute"], WINDOW_TEXT=str(DISPUTE_WINDOW_DAYS),
              CUTOFF=day(REFERENCE_NOW - timedelta(days=DISPUTE_WINDOW_DAYS)))
        b.status_action("dispute", "investigate", ("open",), "investigating", f"Start investigating an open {d.label}.")
        b.status_action("dispute", "decline", ("open", "investigating"), "declined",
                        f"Decline a {d.label} (the charge stands).", extra='{"resolved_at": REFERENCE_NOW}')
        b.add(b.names.action("dispute", "uphold"),
              f"Uphold a {d.label} that is open or being investigated: the disputed amount is credited back to its "
              f"{a.label} as a deposit with the memo 'Dispute <number> upheld'.",
              [b.id_param("dispute")], templates, "uphold_DISPUTE", role="dispute", kind="action")
    if b.has("standing_order"):
        s = b.ent("standing_order")
        b.get_tool("standing_order")
        b.list_tool("standing_order")
        b.add(b.names.create("standing_order"),
              f"Set up a {s.label}: a fixed amount moved from one active {a.label} to another on a schedule, first on "
              "a date after today.",
              [Param(f"from_{a.fk}", {"type": "integer", "minimum": 1, "description": f"id of the {a.label} to debit"}, True),
               Param(f"to_{a.fk}", {"type": "integer", "minimum": 1, "description": f"id of the {a.label} to credit"}, True),
               Param("amount", number("amount each time", 0, True), True),
               Param("frequency", string("how often", FREQUENCIES), True),
               Param("first_run_on", {**string("ISO date of the first transfer"), **ISO_DATE}, True),
               Param("reference", string("reference shown on both accounts"))],
              templates, "create_STANDING_ORDER", role="standing_order", kind="create",
              CODE_PREFIX=b.plan.code_prefixes["standing_order"])
        b.status_action("standing_order", "pause", ("active",), "paused", f"Pause an active {s.label}.")
        b.status_action("standing_order", "resume", ("paused",), "active", f"Resume a paused {s.label}.")
        b.status_action("standing_order", "cancel", ("active", "paused"), "cancelled", f"Cancel a {s.label} for good.")
    if b.has("hold"):
        h = b.ent("hold")
        b.list_tool("hold")
        b.add(b.names.create("hold"),
              f"Hold back an amount on an active {a.label}; active holds together may not exceed its balance.",
              [b.id_param("account"), Param("amount", number("amount to hold", 0, True), True),
               Param("reason", string("why", HOLD_REASONS), True),
               Param("expires_on", {**string("ISO date the hold lapses"), **ISO_DATE}, True)],
              templates, "create_HOLD", role="hold", kind="create")
        b.status_action("hold", "release", ("active",), "released", f"Release an active {h.label}.")
