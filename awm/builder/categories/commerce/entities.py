"""What only a shop keeps: return authorisations for delivered orders, gift cards, and shoppers' wishlists; with
the rules its tools enforce (a return within 30 days of delivery and never more than was bought, a gift card
redeemed only up to its balance and before it expires)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "commerce"
LABELS = {"return_request": "return authorisation", "gift_card": "gift card", "wishlist_item": "wishlist item"}
ALT_LABELS = {"return_request": "merchandise return", "gift_card": "store gift card", "wishlist_item": "saved item"}
GROUPS = {
    "returns": Group(("return_request",)),
    "gift_cards": Group(("gift_card",)),
    "wishlists": Group(("wishlist_item",)),
}
CODED = ("return_request", "gift_card")

RETURN_WINDOW_DAYS = 30
RETURN_REASONS = ("wrong_size", "damaged", "not_as_described", "changed_mind", "late_delivery")
RETURN_STATUSES = ("requested", "approved", "received", "rejected")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the return_request, gift_card and wishlist_item tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("return_request"):
        ents["return_request"] = Entity("return_request", L["return_request"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "case"), fk_col(L, "item"),
            Col("quantity", "INTEGER", minimum=1), Col("reason", "TEXT", enum=RETURN_REASONS),
            Col("status", "TEXT", enum=RETURN_STATUSES), Col("requested_at", "TEXT"),
        ], f"Returns of delivered {plural(L['case'])}, within {RETURN_WINDOW_DAYS} days and never more than was "
           "bought.", filters=("number", f"{snake(L['case'])}_id", "status"), code="number")
    if has("gift_card"):
        ents["gift_card"] = Entity("gift_card", L["gift_card"], [
            pk_col(), Col("code", "TEXT", unique=True), fk_col(L, "party", nullable=True),
            Col("initial_value", "REAL", minimum=0), Col("balance", "REAL", minimum=0),
            Col("status", "TEXT", enum=("active", "void")), Col("expires_on", "TEXT"),
        ], "Stored-value cards; redeemed up to their balance before they expire.",
            filters=("code", party_fk, "status"), code="code")
    if has("wishlist_item"):
        ents["wishlist_item"] = Entity("wishlist_item", L["wishlist_item"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "item"), Col("added_at", "TEXT"),
        ], f"What {plural(L['party'])} saved for later; an item is on a wishlist once.",
            filters=(party_fk, f"{snake(L['item'])}_id"))
    return ents


def fill_returns(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["return_request"]
    n = 0
    for case in gen.rows["case"]:
        if case["status"] not in ("delivered", "returned") or gen.rng.random() < 0.5:
            continue
        line = next(x for x in gen.rows["line"] if x[gen.fk("case")] == case["id"])
        n += 1
        status = "received" if case["status"] == "returned" else gen.rng.choice(("requested", "approved", "rejected"))
        gen.add("return_request", {
            "number": f"{prefix}-{5501 + n}", gen.fk("case"): case["id"], gen.fk("item"): line[gen.fk("item")],
            "quantity": 1, "reason": gen.rng.choice(RETURN_REASONS), "status": status,
            "requested_at": iso(min(gen.between(case["created_at"]), REFERENCE_NOW)),
        })


def fill_gift_cards(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["gift_card"]
    parties = [p["id"] for p in gen.rows["party"]]
    for n in range(gen.rng.randint(10, 16)):
        value = float(gen.rng.choice((25, 50, 75, 100, 150, 200)))
        expires = REFERENCE_NOW + timedelta(days=gen.rng.choice((-30, -5, 40, 120, 300, 700)))
        gen.add("gift_card", {
            "code": f"{prefix}-{8800 + n * 11}", gen.fk("party"): gen.rng.choice(parties) if gen.rng.random() < 0.7 else None,
            "initial_value": value, "balance": round(value * gen.rng.choice((1, 1, 0.5, 0.2, 0)), 2),
            "status": "void" if gen.rng.random() < 0.08 else "active", "expires_on": day(expires),
        })


def fill_wishlists(gen: RowGen) -> None:
    items = [i["id"] for i in gen.rows["item"] if i["active"]]
    for party in gen.rows["party"]:
        for item in gen.rng.sample(items, min(len(items), gen.rng.choice((0, 0, 1, 2, 3)))):
            gen.add("wishlist_item", {gen.fk("party"): party["id"], gen.fk("item"): item,
                                      "added_at": iso(gen.between(party["created_at"]))})


FILL = {"return_request": fill_returns, "gift_card": fill_gift_cards, "wishlist_item": fill_wishlists}


def _window_start() -> str:
    return (REFERENCE_NOW - timedelta(days=RETURN_WINDOW_DAYS)).isoformat()

