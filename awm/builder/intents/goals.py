"""Requests whose one goal chooses by a preference or a constraint and then acts on what it chose, as a customer
writes them in one message: "of my two open orders, cancel the bigger one, move everything on it onto the other and
let me pay for that one", "on my open order, swap the blue kettle for the best-rated one under 100.00 and settle what
the order then comes to", "my order came out too dear: swap its dearest item for the cheapest one of the same kind
and let me pay what it then comes to". The agent must compare (totals, ratings and prices, categories) to find the
one row the goal means, then make the several writes the goal needs; the depth comes from the goal itself, never
from a second, unrelated request or from reads the goal does not need.

Each request is planned only where one answer is right: the totals compared differ, the best-rated item under the
budget is strictly best and a runner-up meets the budget too, the dearest line is dearest however it is counted and
the cheapest item of its category is not the cheapest of all. Every write is one a customer may ask for themself
(adding and removing a case's lines, paying, refunding their own payment, cancelling)."""

from __future__ import annotations

from awm.builder.intents.base import BOTH, SELF, Plan, World, intent, or_words
from awm.builder.intents.preferences import top_rated_options
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    METHODS,
    PURCHASES,
    captured,
    find_category,
    get_case,
    method_words,
    record_payment,
    refund,
    status_goal,
    unique_name,
)
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal

GOAL_INTENTS = ("cancel_dearer_case_and_move_items", "swap_for_top_rated_under_budget",
                "swap_dearest_for_cheapest_alike")
ADD_CHEAPEST = "add_cheapest_of_category_and_settle"  # tested with the category preferences


def _paid(w: World, case: dict) -> float:
    return round(sum(p["amount"] for p in captured(w, case)), 2)


def _offered(w: World) -> tuple[list[dict], dict | None]:
    """The items still offered, and the one strictly cheapest of them (None where two share the lowest price)."""
    offered = [i for i in w.rows["item"] if i["active"]]
    cheapest = min(offered, key=lambda i: i["price"], default=None)
    unique = cheapest is not None and sum(i["price"] == cheapest["price"] for i in offered) == 1
    return offered, cheapest if unique else None


def _add_line(w: World, case_id: int, item_id: int, quantity: int) -> tuple[tuple[str, dict], Goal]:
    cfk = w.fk("case")
    call = (w.n.create("line"), {cfk: case_id, w.fk("item"): item_id, "quantity": quantity})
    goal = Goal(kind="rows_created", table=w.table("line"), count=1,
                expect={cfk: case_id, w.fk("item"): item_id, "quantity": quantity})
    return call, goal


# --- of two open cases, the dearer cancelled and its items moved onto the other ------------------------------


def move_dearer_options(w: World) -> list[tuple[dict, dict, dict, list[dict], float]]:
    """(party, the case cancelled, the case kept, the lines moved, what the kept case owes once they are on it)
    wherever the person has exactly two cases that can still be changed and cancelled, their totals differ by 1.00
    or more (which one is bigger is plain), the bigger holds two or more lines of distinct items still offered
    and none of them already on the other (no line to merge with), and the kept case then owes 1.00 or more."""
    cancel = w.fl.cancel
    options = []
    for party in w.active_parties("case"):
        both = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.editable
                       and c["status"] in cancel.sources), key=lambda c: c["id"])
        if len(both) != 2 or abs(both[0]["total_amount"] - both[1]["total_amount"]) < 1:
            continue
        dearer, kept = sorted(both, key=lambda c: c["total_amount"], reverse=True)
        lines = sorted(w.children("line", "case", dearer["id"]), key=lambda x: x["id"])
        items = [x[w.fk("item")] for x in lines]
        there = {x[w.fk("item")] for x in w.children("line", "case", kept["id"])}
        if len(lines) < 2 or len(set(items)) < len(items) or set(items) & there:
            continue
        if not all(w.by_id("item", i)["active"] for i in items):
            continue
        added = sum(x["quantity"] * w.by_id("item", x[w.fk("item")])["price"] for x in lines)
        due = round(kept["total_amount"] + added - _paid(w, kept), 2)
        if due >= 1:
            options.append((party, dearer, kept, lines, due))
    return options


@intent("chained", flavours=("fulfillment", "digital", "service", "reservation"), item="refundable")
def cancel_dearer_case_and_move_items(w: World) -> Plan | None:
    """A customer with two open cases wants to keep only the smaller: the agent reads both, adds everything the
    bigger one holds to the smaller in the same quantities, cancels the bigger, refunds what was captured on it,
    and pays what the case kept then owes by the method named."""
    option = w.pick(move_dearer_options(w))
    if option is None:
        return None
    party, dearer, kept, lines, due = option
    ref = w.party_ref(party)
    cancel = w.fl.cancel
    reason = w.pick(list(CANCEL_REASONS))
    method = w.pick(list(METHODS))
    moves = [_add_line(w, kept["id"], x[w.fk("item")], x["quantity"]) for x in lines]
    refunds = [refund(w, p, reason) for p in captured(w, dearer)]
    pay_call, pay_goal = record_payment(w, kept, due, method)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in sorted((dearer, kept), key=lambda c: c["id"])), *(call for call, _ in moves),
             (w.n.action("case", cancel.verb), {w.fk("case"): dearer["id"]}), *(call for call, _ in refunds),
             pay_call]
    verb = cancel.verb.replace("_", " ")
    say = Say("do", (
        "{they} have two {CASE/pl} that are still {open} and want only the smaller one kept || move everything on "
        "the one with the larger total onto the other one in the same quantities, {cancel} the bigger one, refund "
        "anything captured on it (reason: {reason}), and pay what the remaining {CASE} then owes by {method}",
        "keep only the smaller of {their} two {open} {CASE/pl}: add the items of the one with the higher total to "
        "the other in the same quantities, {cancel} it, refund whatever was already paid on it with the reason "
        "{reason}, and record {a method} {PAYMENT} for what the {CASE} that stays still owes",
        "merge {their} two {CASE/pl} that are {open} into the cheaper one: put the items of the dearer {CASE} on it "
        "(same quantities), {cancel} the dearer one and refund its captured {PAYMENT/pl} (reason: {reason}), then "
        "settle the balance of the one that stays by {method}",
        "{they} would rather [have|deal with] one {CASE} than two || [bring|move] the [pricier|more expensive] of "
        "{their} two {open} {CASE/pl} into the [cheaper|less expensive] one ([each item|every line] in the same "
        "quantity), then {cancel} the [pricier|more expensive] one, [give back|refund] what was captured on it "
        "(reason {reason}) and [clear|pay off] what the [surviving|remaining] {CASE} owes by {method}",
        "[combine|merge] {their} two {open} {CASE/pl} [into one|onto the smaller one] || [transfer|move] "
        "[the items|everything] from the one with the [bigger|higher] total to the [smaller|lower] one, [keeping "
        "the quantities|in the same quantities], {cancel} the [bigger|higher] one with a refund of its captured "
        "{PAYMENT/pl} ([reason|refund reason]: {reason}), and [take|record] {a method} {PAYMENT} for whatever the "
        "[kept|remaining] {CASE} [then owes|still owes]",
    ), {"open": or_words(cancel.sources), "cancel": verb, "reason": quote(reason), "method": method_words(method)},
        party=ref, voices=BOTH)
    goals = [*(goal for _, goal in moves), status_goal(w, dearer, cancel.target), *(goal for _, goal in refunds),
             pay_goal]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", dearer["id"]), ("case", kept["id"])})
    for argument in (w.fk("case"), w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment")).derive(w.n.create("payment"), "amount")


# --- one item of an open case swapped for the best-rated one under a budget, and the case settled ---------------


def swap_top_rated_options(w: World) -> list[tuple[dict, dict, dict, float, dict, float]]:
    """(case, its line replaced, the item replaced, the budget, the best-rated item under it, what the case then
    owes) for each budget `top_rated_options` finds unambiguous (a strict best and a runner-up under it, a dearer
    item rated better still) and each case that can still be changed, of an active person, that holds an item
    other than the best whose name no other item has, does not hold the best already, and then owes 1.00 or
    more."""
    options = []
    for budget, best, _, _ in top_rated_options(w):
        for case in w.rows["case"]:
            if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
                continue
            lines = sorted(w.children("line", "case", case["id"]), key=lambda x: x["id"])
            items = [x[w.fk("item")] for x in lines]
            if best["id"] in items or len(set(items)) < len(items):
                continue
            for line in lines:
                old = w.by_id("item", line[w.fk("item")])
                due = round(case["total_amount"] - line["quantity"] * line["unit_price"]
                            + line["quantity"] * best["price"] - _paid(w, case), 2)
                kept = case["total_amount"] - line["quantity"] * line["unit_price"]  # the tools never go below 0
                if unique_name(w, old) and kept >= 0 and due >= 1:
                    options.append((case, line, old, budget, best, due))
    return options


@intent("chained", flavours=PURCHASES, needs=("review",),
        item="priced")
def swap_for_top_rated_under_budget(w: World) -> Plan | None:
    """A customer wants one item of an open case replaced by the best-rated item under their budget and the case
    settled: the agent finds the case, lists the items and their reviews, averages the ratings of those under the
    budget, adds the best in the quantity of the line it replaces, removes that line and pays what the case then
    owes by the method named."""
    option = w.pick(swap_top_rated_options(w))
    if option is None:
        return None
    case, line, old, budget, best, due = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, named=(old,))
    method = w.pick(list(METHODS))
    add_call, add_goal = _add_line(w, case["id"], best["id"], line["quantity"])
    pay_call, pay_goal = record_payment(w, case, due, method)
    # the new line first: a line removed first could hand its id to the new one (SQLite reuses the last rowid)
    calls = [*lookup, (w.n.list("item"), {"limit": 100}), (w.n.list("review"), {"limit": 100}), add_call,
             (w.n.delete("line"), {w.pk("line"): line["id"]}), pay_call]
    say = Say("do", (
        "on {case}, replace {old} with the {ITEM} that has the best average {REVIEW} rating among those priced "
        "under {budget}, in the same quantity, then pay whatever the {CASE} still owes by {method}",
        "{they} want {old} on {case} replaced by something well reviewed that stays under {budget} || swap it for "
        "the best-rated {ITEM} that costs less than {budget} (by average {REVIEW} rating), keeping the quantity, "
        "and settle what the {CASE} then comes to with {a method} {PAYMENT}",
        "take {old} off {case} and put on it, in the same quantity, whichever {ITEM} under {budget} has the "
        "highest average rating; then record {a method} {PAYMENT} for the balance left on the {CASE}",
    ), {"case": case_np, "old": quote(old["name"]), "budget": money(budget), "method": method_words(method)},
        party=ref, voices=SELF)
    goals = [add_goal, Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]), pay_goal]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.delete("line"), w.pk("line")).derive(w.n.create("payment"), "amount")


# --- the dearest item of an open case swapped for the cheapest of its kind, and the case settled ------------------


def downgrade_options(w: World) -> list[tuple[dict, dict, dict, dict, float]]:
    """(case, its dearest line, the cheapest item still offered of the same category as that line's item, the
    cheapest item still offered of all, what the case then owes) for each case that can still be changed, of an
    active person, with two or more lines of distinct items, one of them strictly dearest both by unit price and by
    line total, wherever the cheapest other item of its category is unique, still offered, cheaper than it and not
    on the case already, the cheapest item of all is of another category (so ignoring the category is wrong) and
    the case then owes 1.00 or more."""
    cat = w.fk("category")
    offered, cheapest_all = _offered(w)
    if cheapest_all is None:
        return []
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        lines = w.children("line", "case", case["id"])
        items = [x[w.fk("item")] for x in lines]
        if len(lines) < 2 or len(set(items)) < len(items):
            continue
        top = max(lines, key=lambda x: x["unit_price"])
        if (sum(x["unit_price"] == top["unit_price"] for x in lines) > 1
                or any(x["quantity"] * x["unit_price"] >= top["quantity"] * top["unit_price"]
                       for x in lines if x is not top)):
            continue
        dear = w.by_id("item", top[w.fk("item")])
        alike = [i for i in offered if i[cat] == dear[cat] and i["id"] != dear["id"]]
        new = min(alike, key=lambda i: i["price"], default=None)
        if (new is None or sum(i["price"] == new["price"] for i in alike) > 1 or new["id"] in items
                or new["price"] >= top["unit_price"] or cheapest_all[cat] == dear[cat]):
            continue
        due = round(case["total_amount"] - top["quantity"] * top["unit_price"] + top["quantity"] * new["price"]
                    - _paid(w, case), 2)
        if due >= 1 and case["total_amount"] >= top["quantity"] * top["unit_price"]:  # the tools never go below 0
            options.append((case, top, new, cheapest_all, due))
    return options


@intent("chained", flavours=PURCHASES, needs=("category",),
        item="chosen")
def swap_dearest_for_cheapest_alike(w: World) -> Plan | None:
    """A customer finds an open case too dear and wants its dearest item replaced by the cheapest of the same
    category, then the case settled: the agent reads the case, finds its dearest line and that item's category,
    lists the items of the category still offered, adds the cheapest in the same quantity, removes the dearest line
    and pays what the case then owes by the method named."""
    option = w.pick(downgrade_options(w))
    if option is None:
        return None
    case, top, new, _, due = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    dear = w.by_id("item", top[w.fk("item")])
    case_np, lookup = w.case_ref(case, ref, named=(dear,))
    method = w.pick(list(METHODS))
    add_call, add_goal = _add_line(w, case["id"], new["id"], top["quantity"])
    pay_call, pay_goal = record_payment(w, case, due, method)
    # the new line first: a line removed first could hand its id to the new one (SQLite reuses the last rowid)
    calls = [*lookup, (w.n.get("item"), {w.pk("item"): dear["id"]}),
             (w.n.list("item"), {w.fk("category"): dear[w.fk("category")], "limit": 100}),
             add_call, (w.n.delete("line"), {w.pk("line"): top["id"]}), pay_call]
    say = Say("do", (
        "{case} has come out too dear || replace the most expensive {ITEM} on it with the cheapest {ITEM} of the "
        "same {CATEGORY} that is still offered, in the same quantity, and then pay what the {CASE} still owes by "
        "{method}",
        "on {case}, swap the priciest {ITEM} for the lowest-priced {ITEM} still offered in its {CATEGORY}, keeping "
        "the quantity, and settle the balance of the {CASE} with {a method} {PAYMENT}",
        "{they} want to spend less on {case} || take the {ITEM} with the highest price off it and put on instead "
        "the cheapest {ITEM} still offered from the same {CATEGORY} (same quantity), then record {a method} "
        "{PAYMENT} for whatever the {CASE} then comes to",
        "[cut the cost of {case}|bring down the cost of {case}|make {case} cheaper]: [its|the] [dearest|priciest|most expensive] "
        "{ITEM} [goes|comes off] and [the cheapest|the lowest-priced] {ITEM} [still on offer|we still offer] in [the "
        "same|its] {CATEGORY} [takes its place|replaces it] [in the same quantity|at the same quantity]; [then|after "
        "that], [settle|pay off] [its balance|what it owes] [by {method}|with {a method} {PAYMENT}]",
        "{they} [want|would like] a cheaper version of {case} || [swap|replace] [its|the] [most expensive|"
        "priciest] {ITEM} [for|with] the [cheapest|least expensive] [one|{ITEM}] [of|from] the same {CATEGORY} that "
        "is still offered, [same quantity|keeping the quantity], and [record|take] {a method} {PAYMENT} for "
        "[the rest|what is then owed|the balance]",
    ), {"case": case_np, "method": method_words(method)}, party=ref, voices=BOTH)
    goals = [add_goal, Goal(kind="row_deleted", table=w.table("line"), pk=top["id"]), pay_goal]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})
    plan.derive(w.n.get("item"), w.pk("item")).derive(w.n.list("item"), w.fk("category"))
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.delete("line"), w.pk("line")).derive(w.n.create("payment"), "amount")


# --- the cheapest item of a named category added to an open case, and the case settled -------------------------


def add_cheapest_options(w: World) -> list[tuple[dict, dict, dict, dict]]:
    """(case, category, the cheapest item still offered of that category, the cheapest item still offered of all)
    for each case that can still be changed, of an active person, and each category with two or more items still
    offered, the cheapest of them unique and not on the case, where the cheapest item of all is of another category
    (an agent that ignores the category takes that one)."""
    cat = w.fk("category")
    offered, cheapest_all = _offered(w)
    if cheapest_all is None:
        return []
    options = []
    for category in w.rows["category"]:
        alike = sorted((i for i in offered if i[cat] == category["id"]), key=lambda i: i["price"])
        if len(alike) < 2 or alike[0]["price"] == alike[1]["price"] or cheapest_all[cat] == category["id"]:
            continue
        for case in w.rows["case"]:
            if (case["status"] in w.fl.editable and w.party_of(case)["status"] == "active"
                    and alike[0]["id"] not in {x[w.fk("item")] for x in w.children("line", "case", case["id"])}):
                options.append((case, category, alike[0], cheapest_all))
    return options


@intent("chained", flavours=PURCHASES, needs=("category",), item="chosen")
def add_cheapest_of_category_and_settle(w: World) -> Plan | None:
    """A person wants the cheapest item of a named category added to their open case and the case settled: the
    agent finds the case, finds the category and lists its items still offered, adds the cheapest in the quantity
    asked, and pays what the case then owes (its total with the new line, less what was captured on it) by the
    method named."""
    option = w.pick(add_cheapest_options(w))
    if option is None:
        return None
    case, category, item, _ = option
    quantity = w.units(w.pick([1, 2, 3]))
    due = round(case["total_amount"] + quantity * item["price"] - _paid(w, case), 2)
    if due < 1:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    method = w.pick(list(METHODS))
    add_call, add_goal = _add_line(w, case["id"], item["id"], quantity)
    pay_call, pay_goal = record_payment(w, case, due, method)
    calls = [*lookup, *find_category(w, category), add_call,
             get_case(w, case), pay_call]
    say = Say("do", (
        "add the cheapest {ITEM} we still offer in {category} to {case}, {q}, then pay what the {CASE} owes by "
        "{method}",
        "{they} need something from {category} on {case}, the cheaper the better || add the lowest-priced {ITEM} "
        "still on offer there, {q}, and settle the {CASE}'s balance with {a method} {PAYMENT}",
        "put whichever {ITEM} in the {category} {CATEGORY} is cheapest (of those still offered) on {case}, {q}; "
        "[then|after that], [pay off|clear] what the {CASE} [then owes|still owes] by {method}",
    ), {"case": case_np, "category": quote(category["name"]), "method": method_words(method),
        "q": "just the one" if w.one_each else f"quantity {quantity}"},
        party=ref, voices=BOTH)
    plan = Plan(calls, [add_goal, pay_goal], say, targets={("party", party["id"]), ("case", case["id"])})
    plan.derive(w.n.list("item"), w.fk("category")).derive(w.n.create("line"), w.fk("item"))
    return plan.derive(w.n.create("payment"), "amount")
