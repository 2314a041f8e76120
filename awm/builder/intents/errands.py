"""Requests whose one goal takes several steps, as a customer writes them in one message: "from my past orders find
the last one that had the blue kettle in it, order exactly the same again and pay for it the way I paid last time",
"clear everything I still owe on my open orders", "my delivery arrived damaged: send it back and send me the same
things again", "merge my two open orders into one", "renew my last approved permit", "I cancelled that order by
mistake: place it again", "cancel every order of mine that still has the blue kettle in it and refund me", "take these
two things off my order, put them on an order of their own and let me pay for that one now", "on all my open orders,
swap the blue kettle for the red one". The depth comes from the goal itself (finding the right row among the person's
own, copying what it held, paying what it comes to), never from a second, unrelated request or from reads the goal
does not need.

Every write is one a customer may ask for themself (opening a case, adding and removing its lines, paying, refunding
their own payment, returning, cancelling, submitting): the requests are written in the customer's own voice or by a
member of staff for them."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents.base import BOTH, CASES_READ, Plan, World, intent, or_words
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    MAX_LINES,
    METHODS,
    PURCHASES,
    act,
    balance_due,
    captured,
    copy_case,
    copyable,
    get_case,
    holds,
    method_words,
    record_payment,
    refund,
    status_goal,
    unique_name,
)
from awm.builder.phrasing import Say, T, money, quote
from awm.contracts import Goal

ERRAND_INTENTS = ("reorder_with_item_and_pay", "settle_open_balances", "exchange_damaged_order", "combine_open_cases",
                  "renew_approved_application", "replace_cancelled_case", "cancel_cases_with_item",
                  "split_off_items_and_pay", "swap_item_on_open_cases")
MAX_OWING = 4  # open cases paid off in one request


# --- the last purchase of one item, again, paid the same way --------------------------------------------------


def reorder_options(w: World) -> list[tuple[dict, list[dict], dict, dict, str]]:
    """(party, their cases newest first down to the one copied, that case, the item that identifies it, the method
    its payments used) wherever the person's most recent case holding that item is not their most recent
    case (so "the last one" alone would be another), every newer case lacks the item, its lines can be repeated
    and it was paid by one method."""
    options = []
    for party in w.active_parties("case"):
        mine = w.newest_first(party)
        if mine is None:
            continue
        newer_items: set[int] = set()
        for k, case in enumerate(mine[:3]):
            lines = w.children("line", "case", case["id"])
            methods = {p["method"] for p in w.children("payment", "case", case["id"])}
            if (k and case["status"] != w.fl.cancel.target and copyable(w, lines) and len(methods) == 1
                    and captured(w, case)):
                for item_id in sorted({x[w.fk("item")] for x in lines} - newer_items):
                    item = w.by_id("item", item_id)
                    if unique_name(w, item):
                        options.append((party, mine[:k + 1], case, item, next(iter(methods))))
            newer_items |= {x[w.fk("item")] for x in lines}
    return options


@intent("chained", flavours=PURCHASES, item="priced")
def reorder_with_item_and_pay(w: World) -> Plan | None:
    """A customer wants again what they bought the last time they bought one thing: the agent reads their cases newest
    first until it finds the latest one holding that item, opens a new case at the same site with the same items and
    quantities, and pays its total by the method that case was paid with. Not for applications: no one files the same
    application again."""
    option = w.pick(reorder_options(w))
    if option is None:
        return None
    party, read, case, item, method = option
    lines = w.children("line", "case", case["id"])
    ref = w.party_ref(party)
    order, order_goal, new_id = copy_case(w, party, case[w.fk("site")], lines)
    total = round(sum(x["quantity"] * w.by_id("item", x[w.fk("item")])["price"] for x in lines), 2)
    pay_call, pay_goal = record_payment(w, {"id": new_id}, total, method)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in read), *order, pay_call]
    say = Say("do", (
        "find {their} most recent {CASE} that had {item} in it, [place|open] a new {CASE} at the same {SITE} with "
        "exactly the same items and quantities, and pay its full total the same way {they} paid for that one",
        "{they} would like to repeat the last {CASE} {they} [placed|made] with {item} in it || set up a new {CASE} "
        "at the same {SITE} with the same items and quantities, then record {a PAYMENT} for its whole total by the "
        "same method as that {CASE} was paid",
        "look through {their} past {CASE/pl} for the latest one that included {item}, copy it into a new {CASE} "
        "(same {SITE}, same items, same quantities) and pay the new total with the payment method used last time",
        "{they_were} [happy|pleased] with {item} || [repeat|copy] the [last|latest|most recent] {CASE} "
        "{they} had it on, [as it was|line for line]: a new {CASE} at that {SITE} with the same items in the same "
        "quantities, [paid in full|its whole total paid] [with the method|by the same method] [{they} used on that "
        "one|as before]",
        "[place|open] the same {CASE} again for {them}: [go back to|take] the [newest|latest] {CASE} of {theirs} "
        "[with|that held] {item} [on it|in it], [copy|repeat] its items and quantities at the same {SITE}, then "
        "[record a payment of|pay] the [full|whole] new total [the same way|by the same method] as that {CASE}",
        "{they} [would like|want] {item} again, [together with|along with] whatever else was on the same {CASE} || "
        "[find|look up] the latest {CASE} of {theirs} that [had|held] it, [open|place] a copy of it at that {SITE} "
        "([every item|each line] in the same quantity) and [pay|settle] the whole new total [by the method used "
        "then|as that one was paid]",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    plan = Plan(calls, [order_goal, pay_goal], say, targets={("party", party["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.create("payment"), "amount").derive(w.n.create("payment"), "method")


# --- every open case's balance, paid off ------------------------------------------------------------------------


def owing_options(w: World) -> list[tuple[dict, list[dict], list[tuple[dict, float]]]]:
    """(party, their open cases, those of them with something left to pay and how much) wherever at least two open
    cases owe at least 1.00 each and none owes less (a cent left over is no balance a person means), and at most
    `MAX_OWING` are open."""
    options = []
    for party in w.active_parties("case"):
        open_cases = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.open), key=lambda c: c["id"])
        owing = [(c, balance_due(w, c)) for c in open_cases if balance_due(w, c) > 0]
        if len(open_cases) <= MAX_OWING and len(owing) >= 2 and all(d >= 1 for _, d in owing):
            options.append((party, open_cases, owing))
    return options


@intent("chained")
def settle_open_balances(w: World) -> Plan | None:
    """A customer wants to owe nothing on their open cases: the agent lists the person's cases, reads each open one
    (its total and captured payments), pays what is left on each that still owes, and says how much that came to."""
    option = w.pick(owing_options(w))
    if option is None:
        return None
    party, open_cases, owing = option
    ref = w.party_ref(party)
    method = w.pick(list(METHODS))
    payments = [record_payment(w, case, due, method) for case, due in owing]
    total = round(sum(d for _, d in owing), 2)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in open_cases), *(call for call, _ in payments)]
    open_words = or_words(w.fl.open)
    say = Say("do", (
        "pay off by {method} whatever {they} still owe on {their} {CASE/pl} that are {open}: for each one, record {a "
        "PAYMENT} for its total minus what has already been captured; then tell me how much was paid altogether",
        "{they} want to clear every balance on {their} {CASE/pl} that are still {open} || record {a method} {PAYMENT} "
        "for what is left on each of them and tell me the total paid",
        "settle all of {their} {open} {CASE/pl}, each with {a method} {PAYMENT} for exactly its outstanding balance, "
        "and let me know what that came to in total",
    ), {"open": open_words, "method": method_words(method)}, party=ref, voices=BOTH)
    plan = Plan(calls, [goal for _, goal in payments] + [w.money_answer(total)], say, answer=money(total),
                targets={("party", party["id"]), *(("case", c["id"]) for c, _ in owing)})
    return plan.derive(w.n.create("payment"), "amount")


# --- a damaged delivery sent back and sent again --------------------------------------------------------------


def exchange_options(w: World) -> list[dict]:
    """Delivered cases still inside the return window whose lines can be ordered again, of an active person."""
    cutoff = (REFERENCE_NOW - timedelta(days=w.fl.action("return").window_days or 30)).isoformat()
    return [c for c in w.rows["case"] if c["status"] in w.fl.action("return").sources and c["placed_at"] >= cutoff
            and w.party_of(c)["status"] == "active" and copyable(w, w.children("line", "case", c["id"]))]


@intent("chained", flavours=("fulfillment",), item="refundable")  # a donation is never sent back
def exchange_damaged_order(w: World) -> Plan | None:
    """A delivery arrived damaged and the customer wants it replaced: the agent finds the case, records its return,
    and opens a new case at the same site with the same items and quantities."""
    case = w.pick(exchange_options(w))
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    lines = w.children("line", "case", case["id"])
    order, order_goal, _ = copy_case(w, party, case[w.fk("site")], lines)
    calls = [*lookup, get_case(w, case), act(w, case, "return"), *order]
    why = w.pick(("arrived damaged", "was broken when it came", "came crushed in the box", "arrived with parts missing"))
    say = Say("do", (
        "{case} {why} || record its return and place a replacement {CASE} for {them} at the same {SITE} with "
        "exactly the same items and quantities",
        "{they} need {case} replaced because it {why} || send it back (record the return) and open a new {CASE} at "
        "the same {SITE} with the same items and quantities",
        "process the return of {case}, which {why}, and set up the same {CASE} again for {them} from the same "
        "{SITE}: same items, same quantities",
    ), {"case": case_np, "why": why}, party=ref, voices=BOTH)
    plan = Plan(calls, [status_goal(w, case, "returned"), order_goal], say, targets={("case", case["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan


# --- two open cases made one --------------------------------------------------------------------------------


def merge_options(w: World) -> list[tuple[dict, list[dict], list[tuple[int, int]]]]:
    """(party, their two cases that can still be cancelled, newest last, the merged lines as (item id, quantity))
    wherever those two are all the person's cancellable cases, made at different moments, with nothing captured on
    them (no refund owed), and their items, quantities added up where both hold one, make at most `MAX_LINES` + 1
    lines of items still offered."""
    options = []
    for party in w.active_parties("case"):
        cancellable = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.cancel.sources),
                             key=lambda c: c["created_at"])
        if len(cancellable) != 2 or cancellable[0]["created_at"] == cancellable[1]["created_at"]:
            continue
        if any(captured(w, c) for c in cancellable):
            continue
        merged: dict[int, int] = {}
        for case in cancellable:
            for x in w.children("line", "case", case["id"]):
                merged[x[w.fk("item")]] = merged.get(x[w.fk("item")], 0) + x["quantity"]
        if w.one_each and max(merged.values()) > 1:  # two legal defences of one kind are not one matter
            continue
        if 2 <= len(merged) <= MAX_LINES + 1 and all(w.by_id("item", i)["active"] for i in merged):
            options.append((party, cancellable, sorted(merged.items())))
    return options


@intent("chained", flavours=("fulfillment", "digital", "service"))
def combine_open_cases(w: World) -> Plan | None:
    """A customer has two cases still open and wants one: the agent reads both, opens a new case at the site of the
    newer one with everything they held (quantities added up where both hold an item) and cancels the two."""
    option = w.pick(merge_options(w))
    if option is None:
        return None
    party, cases, merged = option
    ref = w.party_ref(party)
    lines = [{w.fk("item"): item_id, "quantity": quantity} for item_id, quantity in merged]
    order, order_goal, _ = copy_case(w, party, cases[1][w.fk("site")], lines)
    cancel = w.fl.cancel
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in cases),
             *order, *(act(w, c, cancel.verb) for c in cases)]
    verb = cancel.verb.replace("_", " ")
    say = Say("do", (
        "{they} have two {CASE/pl} that are still {open} and would rather have one || place a single new {CASE} at "
        "the {SITE} of the newer one with everything from both (add the quantities up where an item is in both), "
        "then {cancel} the two old ones",
        "combine {their} two {open} {CASE/pl} into one: a new {CASE} at the same {SITE} as the more recent of them, "
        "holding all their items with the quantities added together for any item in both, and {cancel} the originals",
        "merge {their} two {CASE/pl} that are {open} into a single new {CASE} at the {SITE} of the later one (one "
        "line per item, quantities summed), and once it exists, {cancel} the two old {CASE/pl}",
    ), {"open": or_words(cancel.sources), "cancel": verb}, party=ref, voices=BOTH)
    plan = Plan(calls, [order_goal, *(status_goal(w, c, cancel.target) for c in cases)], say,
                targets={("party", party["id"]), *(("case", c["id"]) for c in cases)})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan


# --- an application filed again ------------------------------------------------------------------------------


def renewal_options(w: World) -> list[tuple[dict, dict]]:
    """(party, their most recent approved case) wherever its lines can be repeated and no other approved case of
    theirs was made at the same moment."""
    approved = w.fl.action("approve").target
    options = []
    for party in w.active_parties("case"):
        mine = [c for c in w.party_cases(party) if c["status"] == approved]
        if not mine:
            continue
        latest = max(mine, key=lambda c: c["created_at"])
        if sum(c["created_at"] == latest["created_at"] for c in mine) == 1 and copyable(
                w, w.children("line", "case", latest["id"])):
            options.append((party, latest))
    return options


@intent("chained", flavours=("application",))
def renew_approved_application(w: World) -> Plan | None:
    """A person renews what was approved last time: the agent finds their most recent approved case, opens a new one at
    the same site with the same items and quantities, and submits it."""
    option = w.pick(renewal_options(w))
    if option is None:
        return None
    party, case = option
    ref = w.party_ref(party)
    lines = w.children("line", "case", case["id"])
    order, order_goal, new_id = copy_case(w, party, case[w.fk("site")], lines)
    submit = w.fl.action("submit")
    order_goal.expect["status"] = submit.target
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), get_case(w, case), *order,
             (w.n.action("case", "submit"), {w.fk("case"): new_id})]
    say = Say("do", (
        "{they} want to file {their} most recent approved {CASE} again || start a new one at the same {SITE} with the "
        "same items and quantities as that one, and submit it",
        "file {their} last approved {CASE} again: a new {CASE} at the same {SITE}, the same items, the same "
        "quantities, submitted once it is complete",
        "look up the latest {CASE} of {theirs} that was approved, copy it into a new {CASE} (same {SITE}, items "
        "and quantities) and send the new one in (submit it)",
    ), {}, party=ref, voices=BOTH)
    plan = Plan(calls, [order_goal], say, targets={("party", party["id"]), ("case", case["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan


# --- a case cancelled by mistake, placed again ------------------------------------------------------------------


def replace_options(w: World) -> list[dict]:
    """Cancelled cases of an active person whose lines (two or more) can be ordered again."""
    return [c for c in w.rows["case"] if c["status"] == w.fl.cancel.target and w.party_of(c)["status"] == "active"
            and len(w.children("line", "case", c["id"])) >= 2 and copyable(w, w.children("line", "case", c["id"]))]


@intent("chained", flavours=PURCHASES)
def replace_cancelled_case(w: World) -> Plan | None:
    """A case was cancelled by mistake and the person wants it back: the agent finds it, reads what it held, and opens
    a new case at the same site with the same items and quantities (a cancelled case is not reopened)."""
    case = w.pick(replace_options(w))
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    # named by its code: "their order that is cancelled was cancelled by mistake" says nothing
    case_np = T(f"{{their}} {{CASE}} {case['code']}")
    lookup = [w.find_party(ref), (w.n.list("case"), {"code": case["code"]})]
    lines = w.children("line", "case", case["id"])
    order, order_goal, _ = copy_case(w, party, case[w.fk("site")], lines)
    say = Say("do", (
        "{case} was {done} by mistake || set it up again for {them} as a new {CASE} at the same {SITE} with exactly "
        "the same items and quantities",
        "{they} did not mean to cancel {case} || place a new {CASE} for {them} at the same {SITE} that repeats it "
        "item for item, with the same quantities",
        "put back {case}, which was {done} in error, as a new {CASE} at the same {SITE} with the same items and the "
        "same quantities",
    ), {"case": case_np, "done": "cancelled"}, party=ref, voices=BOTH)
    plan = Plan([*lookup, get_case(w, case), *order], [order_goal], say,
                targets={("case", case["id"]), ("party", party["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan


# --- every case holding one item, cancelled and refunded ---------------------------------------------------------


def item_cancel_options(w: World) -> list[tuple[dict, list[dict], dict, list[dict], list[dict]]]:
    """(party, their cases that can still be cancelled, the item named, those of them holding it, the payments
    captured on those) wherever two or more of at most `CASES_READ` cancellable cases hold the item (so stopping at the
    first is wrong), something was captured on those holding it (a refund to make and a sum to report) and no other
    item has the item's name."""
    options = []
    for party in w.active_parties("case"):
        cancellable = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.cancel.sources),
                             key=lambda c: c["id"])
        if not 2 <= len(cancellable) <= CASES_READ:
            continue
        held = {x[w.fk("item")] for c in cancellable for x in w.children("line", "case", c["id"])}
        for item in (w.by_id("item", i) for i in sorted(held)):
            holding = [c for c in cancellable if holds(w, c, item)]
            paid = [p for c in holding for p in captured(w, c)]
            if len(holding) >= 2 and paid and unique_name(w, item):
                options.append((party, cancellable, item, holding, paid))
    return options


@intent("chained", item="refundable")
def cancel_cases_with_item(w: World) -> Plan | None:
    """A customer has decided against one item and wants out of every case that still holds it: the agent finds the
    item, reads each of the person's cases that can still be cancelled, cancels those holding it, refunds what was
    captured on them, and says how much comes back."""
    option = w.pick(item_cancel_options(w))
    if option is None:
        return None
    party, cancellable, item, holding, paid = option
    ref = w.party_ref(party)
    cancel = w.fl.cancel
    reason = w.pick(list(CANCEL_REASONS))
    refunds = {p["id"]: refund(w, p, reason) for p in paid}
    writes = [call for c in holding for call in (act(w, c, cancel.verb), *(refunds[p["id"]][0] for p in captured(w, c)))]
    total = round(sum(p["amount"] for p in paid), 2)
    calls = [w.find_party(ref), w.find_item(item), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in cancellable), *writes]
    verb, done = cancel.verb.replace("_", " "), "withdrawn" if cancel.verb == "withdraw" else "cancelled"
    say = Say("do", (
        "go through {their} {CASE/pl} and {cancel} every one that has {item} in it and can still be {done}, refund "
        "whatever was captured on those with the reason {reason}, and tell me how much comes back altogether",
        "{they_have} decided against {item} || look through {their} {CASE/pl} that are still {open}, {cancel} each "
        "one that includes it, refund the captured {PAYMENT/pl} on them (reason: {reason}) and tell me the total "
        "refunded",
        "find all of {their} {CASE/pl} that are still {open} and contain {item}, {cancel} them, refund every "
        "captured {PAYMENT} on those with the reason {reason}, and let me know the total amount refunded",
        "{they} [no longer want|have gone off|have changed {their} mind about] {item} || [check|look through] [each|every one] "
        "of {their} {CASE/pl} [that can still be {done}|still {open}]; [wherever|where] {item} [is on it|appears], "
        "{cancel} [it|that {CASE}] and [give back|refund] [what was paid|the captured {PAYMENT/pl}] [on it|] "
        "[with the reason|giving the reason] {reason}; [at the end|finally|then], [tell me|give me] the [sum|total] "
        "[returned|refunded]",
        "get every [open |]{CASE} of {theirs} [with|holding|containing] {item} {done} [while they still can "
        "be|if it still can be], [refund|pay back] [the captured {PAYMENT/pl} on them|whatever was captured on them] "
        "([reason|refund reason] {reason}) and [report|tell me] [how much went back in total|the total refunded]",
    ), {"item": quote(item["name"]), "cancel": verb, "done": done, "open": or_words(cancel.sources),
        "reason": quote(reason)}, party=ref, voices=BOTH)
    goals = [*(status_goal(w, c, cancel.target) for c in holding), *(goal for _, goal in refunds.values()),
             w.money_answer(total)]
    plan = Plan(calls, goals, say, answer=money(total),
                targets={("party", party["id"]), *(("case", c["id"]) for c in cancellable)})
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))


# --- two items of a case moved to a case of their own, and paid ---------------------------------------------------


def split_options(w: World) -> list[tuple[dict, dict, dict]]:
    """(case, the two lines moved) for each case that can still be changed, of an active person, with nothing
    captured on it (the new case's payment is the only one the items get), three or more lines each of another item
    (one stays behind), and two of them of items still offered whose names no other item has."""
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active" or captured(w, case):
            continue
        lines = sorted(w.children("line", "case", case["id"]), key=lambda x: x["id"])
        if len(lines) < 3 or len({x[w.fk("item")] for x in lines}) < len(lines):
            continue
        movable = [x for x in lines if copyable(w, [x]) and unique_name(w, w.by_id("item", x[w.fk("item")]))]
        options += [(case, a, b) for k, a in enumerate(movable) for b in movable[k + 1:]]
    return options


@intent("chained", flavours=PURCHASES)
def split_off_items_and_pay(w: World) -> Plan | None:
    """A customer wants two things of a case dealt with on their own and paid for now: the agent finds the case and
    the two items, opens a new case at the same site with those items in the same quantities, takes them off the
    old case, and pays the new case's total by the method named."""
    option = w.pick(split_options(w))
    if option is None:
        return None
    case, *moved = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    items = [w.by_id("item", x[w.fk("item")]) for x in moved]
    case_np, lookup = w.case_ref(case, ref, named=tuple(items))
    order, order_goal, new_id = copy_case(w, party, case[w.fk("site")], moved)
    total = round(sum(x["quantity"] * item["price"] for x, item in zip(moved, items, strict=True)), 2)
    method = w.pick(list(METHODS))
    pay_call, pay_goal = record_payment(w, {"id": new_id}, total, method)
    # the new lines first: a line removed first could hand its id to a new one (SQLite reuses the last rowid)
    removals = [(w.n.delete("line"), {w.pk("line"): x["id"]}) for x in moved]
    calls = [*lookup, *(w.find_item(i) for i in items), *order, *removals, pay_call]
    say = Say("do", (
        "{they} would like {items} from {case} dealt with separately || move them to a new {CASE} at the same "
        "{SITE} in the same quantities, take them off the old one, and pay the new {CASE} in full by {method}",
        "split {case}: take {items} off it, put them on a new {CASE} at the same {SITE} with the same quantities, "
        "and record {a method} {PAYMENT} for the new {CASE}'s whole total",
        "move {items} out of {case} into a separate {CASE} at the same {SITE} (same quantities, and no longer on "
        "the original), then pay that new {CASE}'s full total by {method}",
    ), {"case": case_np, "items": " and ".join(quote(i["name"]) for i in items), "method": method_words(method)},
        party=ref, voices=BOTH)
    goals = [order_goal, *(Goal(kind="row_deleted", table=w.table("line"), pk=x["id"]) for x in moved), pay_goal]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.delete("line"), w.pk("line")).derive(w.n.create("payment"), "amount")


# --- one item swapped for another on every case that can still change -----------------------------------------


def swap_everywhere_options(w: World) -> list[tuple[dict, list[dict], dict, dict, list[dict]]]:
    """(party, their cases that can still be changed, the item replaced, the item it is replaced with, the lines of
    the first on those cases) wherever the first is on two or more of at most `CASES_READ` such cases, the second is
    offered, of the same category where items have one (a lodge is not swapped for a pet fee) and on none of those
    cases (no line to merge with), and no other item has either name."""
    options = []
    for party in w.active_parties("case"):
        editable = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.editable), key=lambda c: c["id"])
        if not 2 <= len(editable) <= CASES_READ:
            continue
        lines = [x for c in editable for x in w.children("line", "case", c["id"])]
        held = sorted({x[w.fk("item")] for x in lines})
        for old in (w.by_id("item", i) for i in held):
            mine = [x for x in lines if x[w.fk("item")] == old["id"]]
            cases = {x[w.fk("case")] for x in mine}
            if len(mine) < 2 or len(cases) < len(mine) or not unique_name(w, old):
                continue
            cat = w.fk("category")  # where items have categories, one takes the place of another of its kind
            for new in w.rows["item"]:
                beside = {x[w.fk("item")] for x in lines if x[w.fk("case")] in cases}
                if (new["active"] and new["id"] not in beside and unique_name(w, new)
                        and (cat not in old or new.get(cat) == old[cat])):
                    options.append((party, editable, old, new, mine))
    return options


@intent("chained", flavours=PURCHASES)
def swap_item_on_open_cases(w: World) -> Plan | None:
    """A customer would rather have one item than another from now on: the agent finds both items, reads each of the
    person's cases that can still be changed, and on every one holding the first adds the second in the same
    quantity and removes the first."""
    option = w.pick(swap_everywhere_options(w))
    if option is None:
        return None
    party, editable, old, new, lines = option
    ref = w.party_ref(party)
    cfk = w.fk("case")
    swaps, goals = [], []
    for x in sorted(lines, key=lambda x: x[cfk]):
        # per case, the new line first: a line removed first could hand its id to the new one
        swaps += [(w.n.create("line"), {cfk: x[cfk], w.fk("item"): new["id"], "quantity": x["quantity"]}),
                  (w.n.delete("line"), {w.pk("line"): x["id"]})]
        goals += [Goal(kind="rows_created", table=w.table("line"), count=1,
                       expect={cfk: x[cfk], w.fk("item"): new["id"], "quantity": x["quantity"]}),
                  Goal(kind="row_deleted", table=w.table("line"), pk=x["id"])]
    calls = [w.find_party(ref), w.find_item(old), w.find_item(new), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in editable), *swaps]
    say = Say("do", (
        "replace {old} with {new}, in the same quantity, on every {CASE} of {theirs} that is still {open}",
        "{they} would rather have {new} than {old} from now on || put {new} in place of {old} on each of {their} "
        "{CASE/pl} that are still {open}, keeping the quantity",
        "go through {their} {CASE/pl} that are still {open} and, on each one that includes {old}, put {new} in "
        "its place with the same quantity",
    ), {"old": quote(old["name"]), "new": quote(new["name"]), "open": or_words(w.fl.editable)},
        party=ref, voices=BOTH)
    plan = Plan(calls, goals, say, targets={("party", party["id"]), *(("case", c["id"]) for c in editable)})
    return plan.derive(w.n.create("line"), "quantity").derive(w.n.delete("line"), w.pk("line"))
