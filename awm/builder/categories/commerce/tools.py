"""The tools of a shop's own entities (awm/builder/modules/packs/commerce.py): return authorisations, gift cards,
wishlists; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.commerce import templates
from awm.builder.categories.commerce.entities import RETURN_REASONS, RETURN_WINDOW_DAYS
from awm.builder.clock import REFERENCE_NOW
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLES = ("return_request", "gift_card", "wishlist_item")


def declare(b: ToolBuilder) -> None:
    if b.has("return_request"):
        rr, c, i = b.ent("return_request"), b.ent("case"), b.ent("item")
        b.list_tool("return_request")
        b.add(b.names.create("return_request"),
              f"Authorise the return of a {i.label} from a delivered {c.label} placed within the last "
              f"{RETURN_WINDOW_DAYS} days; at most the quantity bought, less what is already being returned.",
              [b.id_param("case"), b.id_param("item"), Param("quantity", {**integer("how many", 1), "maximum": 100}, True),
               Param("reason", string("why", RETURN_REASONS), True)],
              templates, "create_RETURN_REQUEST", role="return_request", kind="create",
              CODE_PREFIX=b.plan.code_prefixes["return_request"], TIME_COLUMN=b.plan.flavour.time_column,
              CUTOFF=(REFERENCE_NOW - timedelta(days=RETURN_WINDOW_DAYS)).isoformat(),
              WINDOW_TEXT=str(RETURN_WINDOW_DAYS))
        b.status_action("return_request", "approve", ("requested",), "approved", f"Approve a requested {rr.label}.")
        b.status_action("return_request", "reject", ("requested",), "rejected", f"Reject a requested {rr.label}.")
        b.status_action("return_request", "receive", ("approved",), "received",
                        f"Record that an approved {rr.label} came back to the warehouse.")
    if b.has("gift_card"):
        g = b.ent("gift_card")
        b.list_tool("gift_card")
        b.add(b.names.action("gift_card", "redeem"),
              f"Take an amount off an active {g.label} that has not expired; at most its balance.",
              [Param("code", string(f"the {g.label}'s code"), True), Param("amount", number("amount to redeem", 0, True), True)],
              templates, "redeem_GIFT_CARD", role="gift_card", kind="action")
        b.status_action("gift_card", "void", ("active",), "void", f"Void an active {g.label}.")
    if b.has("wishlist_item"):
        wi, p, i = b.ent("wishlist_item"), b.ent("party"), b.ent("item")
        b.list_tool("wishlist_item")
        b.add(b.names.create("wishlist_item"), f"Save an active {i.label} to a {p.label}'s wishlist (once).",
              [b.id_param("party"), b.id_param("item")], templates, "create_WISHLIST_ITEM", role="wishlist_item",
              kind="create")
        b.delete_tool("wishlist_item", f"Take an entry off a wishlist ({wi.label}).")
