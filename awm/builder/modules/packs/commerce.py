"""What only a shop keeps: return authorisations for delivered orders, gift cards, and shoppers' wishlists; with
the rules its tools enforce (a return within 30 days of delivery and never more than was bought, a gift card
redeemed only up to its balance and before it expires)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.modules.packs import Group
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour
    from awm.builder.toolgen import _Builder

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


def tools(b: _Builder) -> None:
    """Tools of the chosen commerce tables."""
    from awm.builder.toolgen import Param, ToolDef, _int, _num, _str

    if b.plan.has("return_request"):
        rr, c, i, ln = b.ent("return_request"), b.ent("case"), b.ent("item"), b.ent("line")
        tc = b.plan.flavour.time_column
        prefix = b.plan.code_prefixes["return_request"]
        b.list_tool("return_request")
        b.add(ToolDef(
            b.names.create("return_request"),
            f"Authorise the return of a {i.label} from a delivered {c.label} placed within the last "
            f"{RETURN_WINDOW_DAYS} days; at most the quantity bought, less what is already being returned.",
            [Param(c.fk, _int(f"id of the {c.label}"), True), Param(i.fk, _int(f"id of the {i.label}"), True),
             Param("quantity", {**_int("how many", 1), "maximum": 100}, True),
             Param("reason", _str("why", RETURN_REASONS), True)],
            [*b.require("case", c.fk),
             f"if {c.name}[\"status\"] != \"delivered\":",
             f"    return error(\"invalid_state\", \"{c.label} \" + {c.name}[\"code\"] + \" is \" + {c.name}[\"status\"])",
             f"if {c.name}[\"{tc}\"] < \"{_window_start()}\":",
             f"    return error(\"window_closed\", \"{c.label} \" + {c.name}[\"code\"] + \" is older than {RETURN_WINDOW_DAYS} days\")",
             f"bought = db.one(\"SELECT COALESCE(SUM(quantity), 0) AS n FROM {ln.table} WHERE {c.fk} = ? AND {i.fk} = ?\", [{c.fk}, {i.fk}])[\"n\"]",
             f"pending = db.one(\"SELECT COALESCE(SUM(quantity), 0) AS n FROM {rr.table} WHERE {c.fk} = ? AND {i.fk} = ? AND status != 'rejected'\", [{c.fk}, {i.fk}])[\"n\"]",
             "if quantity > bought - pending:",
             "    return error(\"invalid_argument\", \"only \" + str(bought - pending) + \" can still be returned\")",
             f"return insert_row(db, \"{rr.table}\", {{\"number\": next_code(db, \"{rr.table}\", \"number\", \"{prefix}\", 5502), "
             f"\"{c.fk}\": {c.fk}, \"{i.fk}\": {i.fk}, \"quantity\": quantity, \"reason\": reason, \"status\": \"requested\", "
             "\"requested_at\": REFERENCE_NOW})"],
            role="return_request", kind="create"))
        b.status_action("return_request", "approve", ("requested",), "approved", f"Approve a requested {rr.label}.")
        b.status_action("return_request", "reject", ("requested",), "rejected", f"Reject a requested {rr.label}.")
        b.status_action("return_request", "receive", ("approved",), "received", f"Record that an approved {rr.label} "
                        "came back to the warehouse.")
    if b.plan.has("gift_card"):
        g = b.ent("gift_card")
        b.list_tool("gift_card")
        b.add(ToolDef(
            b.names.action("gift_card", "redeem"),
            f"Take an amount off an active {g.label} that has not expired; at most its balance.",
            [Param("code", _str(f"the {g.label}'s code"), True), Param("amount", _num("amount to redeem", 0, True), True)],
            [f"card = db.one(\"SELECT * FROM {g.table} WHERE code = ?\", [code])",
             "if card is None:",
             f"    return error(\"not_found\", \"no {g.label} with code \" + code)",
             "if card[\"status\"] != \"active\":",
             f"    return error(\"invalid_state\", \"{g.label} \" + code + \" is \" + card[\"status\"])",
             "if card[\"expires_on\"] < TODAY:",
             f"    return error(\"expired\", \"{g.label} \" + code + \" expired on \" + card[\"expires_on\"])",
             "if round(amount, 2) > card[\"balance\"]:",
             f"    return error(\"insufficient_funds\", \"{g.label} \" + code + \" holds only \" + str(card[\"balance\"]))",
             f"return update_row(db, \"{g.table}\", card[\"id\"], {{\"balance\": round(card[\"balance\"] - amount, 2)}})"],
            role="gift_card", kind="action"))
        b.status_action("gift_card", "void", ("active",), "void", f"Void an active {g.label}.")
    if b.plan.has("wishlist_item"):
        wi, p, i = b.ent("wishlist_item"), b.ent("party"), b.ent("item")
        b.list_tool("wishlist_item")
        b.add(ToolDef(
            b.names.create("wishlist_item"),
            f"Save an active {i.label} to a {p.label}'s wishlist (once).",
            [Param(p.fk, _int(f"id of the {p.label}"), True), Param(i.fk, _int(f"id of the {i.label}"), True)],
            [*b.require("party", p.fk), *b.require("item", i.fk),
             f"if not {i.name}[\"active\"]:",
             f"    return error(\"invalid_state\", \"{i.label} \" + {i.name}[\"name\"] + \" is no longer sold\")",
             f"if db.one(\"SELECT id FROM {wi.table} WHERE {p.fk} = ? AND {i.fk} = ?\", [{p.fk}, {i.fk}]) is not None:",
             "    return error(\"conflict\", \"already on the wishlist\")",
             f"return insert_row(db, \"{wi.table}\", {{\"{p.fk}\": {p.fk}, \"{i.fk}\": {i.fk}, \"added_at\": REFERENCE_NOW}})"],
            role="wishlist_item", kind="create"))
        b.add(ToolDef(
            b.names.delete("wishlist_item"), "Take an entry off a wishlist.",
            [Param(wi.fk, _int(f"id of the {wi.label}"), True)],
            [*b.require("wishlist_item", wi.fk), f"db.execute(\"DELETE FROM {wi.table} WHERE id = ?\", [{wi.fk}])",
             f"return {{\"deleted\": {wi.fk}}}"],
            role="wishlist_item", kind="delete", destructive=True))


