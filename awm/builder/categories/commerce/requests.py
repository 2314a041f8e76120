"""Requests about the commerce category's own entities (awm/builder/modules/packs/commerce.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.commerce.entities import RETURN_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


def _delivered(w: World, recent: bool) -> list[tuple[dict, dict]]:
    start = (datetime.fromisoformat(TODAY) - timedelta(days=RETURN_WINDOW_DAYS)).isoformat()
    tc = w.fl.time_column
    out = []
    for case in w.rows["case"]:
        if case["status"] != "delivered" or (case[tc] >= start) != recent or case[tc][:10] == start[:10]:
            continue
        returned = {r[w.fk("item")] for r in w.children("return_request", "case", case["id"])}
        lines = [x for x in w.children("line", "case", case["id"]) if x[w.fk("item")] not in returned]
        if lines and active_party(w, case) is not None:
            out.append((case, lines[0]))
    return out


@intent("action", categories=("commerce",), needs=("return_request",), flavours=("fulfillment",))
def shop_authorise_return(w: World) -> Plan | None:
    pick = w.pick(_delivered(w, recent=True))
    if pick is None:
        return None
    case, line = pick
    item = w.by_id("item", line[w.fk("item")])
    reason = w.pick(["wrong_size", "damaged", "not_as_described", "changed_mind"])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("return_request"), {w.fk("case"): case["id"], w.fk("item"): item["id"],
                                                      "quantity": 1, "reason": reason})]
    goal = Goal(kind="rows_created", table=w.table("return_request"), count=1, expect={
        w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": 1, "reason": reason, "status": "requested"})
    say = Say("do", (
        "{they} want to send back 1 x {item} from {case} || authorise the return, reason {reason}",
        "open {a RETURN_REQUEST} for 1 x {item} from {case} with the reason {reason}",
    ), {"item": quote(item["name"]), "case": case_np, "reason": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("case", case["id"])})


def _cards(w: World, expired: bool) -> list[dict]:
    return [g for g in w.rows["gift_card"] if g["status"] == "active" and g["balance"] >= 10
            and (g["expires_on"] < TODAY) == expired and g["expires_on"] != TODAY]


@intent("action", categories=("commerce",), needs=("gift_card",))
def shop_redeem_gift_card(w: World) -> Plan | None:
    card = w.pick(_cards(w, expired=False))
    if card is None:
        return None
    amount = float(w.pick([x for x in (5.0, 10.0, 15.0, 20.0, 25.0) if x <= card["balance"]]))
    calls = [(w.n.list("gift_card"), {"code": card["code"]}),
             (w.n.action("gift_card", "redeem"), {"code": card["code"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("gift_card"), pk=card["id"],
                expect={"balance": {"approx": round(card["balance"] - amount, 2)}})
    say = Say("do", (
        "take {amount} off {GIFT_CARD} {code}",
        "the customer is paying {amount} with {GIFT_CARD} {code} || redeem it",
    ), {"amount": money(amount), "code": card["code"]})
    return Plan(calls, [goal], say, targets={("gift_card", card["id"])})


@intent("infeasible", categories=("commerce",), needs=("gift_card",))
def shop_redeem_expired_card(w: World) -> Plan | None:
    card = w.pick(_cards(w, expired=True))
    if card is None:
        return None
    amount = w.pick([5.0, 10.0])
    say = Say("do", (
        "take {amount} off {GIFT_CARD} {code}",
        "redeem {amount} from {GIFT_CARD} {code}",
    ), {"amount": money(amount), "code": card["code"]})
    return Plan([(w.n.list("gift_card"), {"code": card["code"]})], [w.text_answer(card["expires_on"], [])], say,
                answer=f"That card expired on {card['expires_on']}, so it can no longer be used.",
                targets={("gift_card", card["id"])},
                refused=((w.n.action("gift_card", "redeem"), {"code": card["code"], "amount": amount}), "expired"))


@intent("action", categories=("commerce",), needs=("wishlist_item",))
def shop_save_to_wishlist(w: World) -> Plan | None:
    party = w.pick(w.active_parties())
    if party is None:
        return None
    saved = {x[w.fk("item")] for x in w.children("wishlist_item", "party", party["id"])}
    item = w.pick([i for i in w.rows["item"] if i["active"] and i["id"] not in saved])
    if item is None:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), w.find_item(item),
             (w.n.create("wishlist_item"), {w.fk("party"): party["id"], w.fk("item"): item["id"]})]
    goal = Goal(kind="rows_created", table=w.table("wishlist_item"), count=1,
                expect={w.fk("party"): party["id"], w.fk("item"): item["id"]})
    say = Say("do", (
        "save {item} to {their} wishlist",
        "{they} like {item} but are not buying yet || add it to {their} wishlist",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])})
