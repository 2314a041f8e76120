"""Requests about the commerce category's own entities (awm/builder/modules/packs/commerce.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.commerce.entities import RETURN_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import change_quantity, define, exchange, notify_item_holders
from awm.builder.intents.steps import get_case
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
    case_np, lookup = w.case_ref(case, ref, named=(item,))
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


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("retail_exchange", "chained", ("commerce", "media"), lambda w: exchange(w, (
    "{they} would like to exchange {case} || record the return, refund its {PAYMENT} with the reason {reason}, "
    "and open a new {CASE} at the same {SITE} with the same quantity of {new} instead of {old}",
    "swap what {they} received in {case} for {new}: take the return, refund the {PAYMENT} (reason {reason}), "
    "then create a new {CASE} at that {SITE} with {new} in the quantity {they} had of {old}",
)), flavours=("fulfillment",))


@intent("conditional", categories=("commerce", "food_and_beverage"), flavours=("fulfillment",), needs=("stock_level",))
def retail_drop_out_of_stock(w: World) -> Plan | None:
    """If the order's site holds none of one of its items, that line removed and the new total answered; otherwise
    the stock there answered."""
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable:
            continue
        lines = w.children("line", "case", case["id"])
        if len(lines) < 2:
            continue
        for line in lines:
            level = next((s for s in w.rows["stock_level"] if s[w.fk("item")] == line[w.fk("item")]
                          and s[w.fk("site")] == case[w.fk("site")]), None)
            if level is not None and sum(x[w.fk("item")] == line[w.fk("item")] for x in lines) == 1:
                options.append((case, line, level))
    empty = [o for o in options if o[2]["quantity"] == 0]
    stocked = [o for o in options if o[2]["quantity"] > 0]
    if not empty and not stocked:
        return None
    case, line, level = w.rng.choice(empty if empty and (w.chance(0.6) or not stocked) else stocked)
    item = w.by_id("item", line[w.fk("item")])
    calls = [(w.n.list("case"), {"code": case["code"]}), get_case(w, case),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): case[w.fk("site")]})]
    if level["quantity"] == 0:
        total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0), 2)
        calls += [(w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
        goals = [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]), w.money_answer(total)]
        answer = money(total)
    else:
        goals, answer = [w.number_answer(level["quantity"])], str(level["quantity"])
    say = Say("do", (
        "if the {SITE} handling {CASE} {code} has no {item} in stock at all, remove it from the {CASE} and tell me "
        "the new total; if it has some, tell me how many units it holds",
        "check whether {item} is out of stock at the {SITE} of {CASE} {code} || if it is, take it off the {CASE} "
        "and give me the new total, and if not, tell me the number of units there",
        "[we can't ship|we may not be able to ship] {item} on {CASE} {code} || [if|when] its {SITE} holds none, "
        "[drop|remove] it from the {CASE} and [tell me|report] the new total; otherwise [tell me|report] how many "
        "units the {SITE} has",
        "[look up|check] the stock of {item} where {CASE} {code} is [handled|fulfilled] || if it is zero, remove "
        "that item from the {CASE} and give me the new total, and if not, give me the stock count",
    ), {"code": case["code"], "item": quote(item["name"])})
    return Plan(calls, goals, say, answer=answer, targets={("case", case["id"])})
define("retail_product_recall", "aggregate", ("commerce", "healthcare", "food_and_beverage"),
       lambda w: notify_item_holders(w, ("Recall notice: {item}", "Please do not use {item}"), (
           "{item} is being recalled || send {a via} {NOTIFICATION} with the subject {subject} to every "
           "{PARTY} who has {a CASE} that is {open} and contains it",
           "notify all {PARTY/pl} with {open} {CASE/pl} that include {item}: {channel}, subject {subject}",
       )), needs=("notification",))
define("retail_quantity_change", "action", ("commerce", "hospitality", "manufacturing", "media"),
       lambda w: change_quantity(w, (
           "change the quantity of {item} on {case} from {old} to {new} and tell me the new total",
           "{they} need {new} of {item} on {case} rather than {old} || update it and give me the new total",
           "bump {item} on {case} up to {new} (it is {old} now), then tell me what the {CASE} comes to",
       )))
