"""Requests whose one goal turns on what the agent finds, each way it can turn several steps long, as a customer
writes them in one message: "look at my order: if it was cancelled, place it again and pay for it; if it is still
open, pay what is left on it", "I don't want that order any more: cancel it if you still can, take it back as a
return if it was already delivered, and refund me either way", "cancel my latest order with the kettle in it and
refund me" (when that order has gone too far to cancel: the agent finds out and says why, changing nothing), "on my
newest order, swap the kettle for the toaster" (when that order can no longer change), "what has the kettle cost me
altogether on my orders that weren't cancelled?".

The agent reads the person's cases (and the items they hold) to find which way the request turns; the depth comes
from the goal itself, never from a second, unrelated request. Each is planned only where the request covers what
the agent finds (a case neither cancelled nor open is not asked about with "if cancelled, else open") and one
answer is right. Every write is one a customer may ask for themself (opening a case, adding its lines, paying,
cancelling, returning, refunding their own payment)."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents.base import BOTH, CASES_READ, Plan, World, intent, or_words
from awm.builder.intents.errands import owing_options
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    METHODS,
    PURCHASES,
    act,
    balance_due,
    captured,
    copy_case,
    copyable,
    either_way,
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

TURN_INTENTS = ("replace_or_settle_case", "cancel_or_return_and_refund", "cancel_latest_with_item_too_late",
                "swap_on_locked_case", "item_cost_question", "add_to_latest_or_new_case", "owed_question")


def _by_code(w: World, case: dict, ref) -> tuple[T, list[tuple[str, dict]]]:
    """A case named by its code (a description such as "your cancelled order" would give away which way the request
    turns), and the calls that find it: the person first, then the case."""
    return T(f"{{their}} {{CASE}} {case['code']}"), [w.find_party(ref), (w.n.list("case"), {"code": case["code"]})]


# --- a case placed again if it was cancelled, else paid off ------------------------------------------------------


def replace_or_settle_options(w: World) -> list[dict]:
    """Cases of an active person that are either cancelled with two or more lines that can be ordered again, or
    still open (lines may change) with 1.00 or more left to pay."""
    cancelled = w.fl.cancel.target
    return [c for c in w.rows["case"] if w.party_of(c)["status"] == "active" and (
        (c["status"] == cancelled and len(w.children("line", "case", c["id"])) >= 2
         and copyable(w, w.children("line", "case", c["id"])))
        or (c["status"] in w.fl.editable and c["status"] in w.fl.open and balance_due(w, c) >= 1))]


@intent("conditional", flavours=PURCHASES)
def replace_or_settle_case(w: World) -> Plan | None:
    """A customer is not sure what became of a case: if it was cancelled, the agent opens a new case at the same site
    with the same items and quantities and pays its total; if it is still open, it pays what the case still owes.
    Either way by the method the person names."""
    case = w.pick(either_way(w, replace_or_settle_options(w), lambda c: c["status"] == w.fl.cancel.target))
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = _by_code(w, case, ref)
    method = w.pick(list(METHODS))
    calls = [*lookup, get_case(w, case)]
    if case["status"] == w.fl.cancel.target:
        lines = w.children("line", "case", case["id"])
        order, order_goal, new_id = copy_case(w, party, case[w.fk("site")], lines)
        total = round(sum(x["quantity"] * w.by_id("item", x[w.fk("item")])["price"] for x in lines), 2)
        pay_call, pay_goal = record_payment(w, {"id": new_id}, total, method)
        calls += [*order, pay_call]
        goals = [order_goal, pay_goal]
    else:
        pay_call, pay_goal = record_payment(w, case, balance_due(w, case), method)
        calls.append(pay_call)
        goals = [pay_goal]
    say = Say("do", (
        "check {case}: if it was cancelled, place it again as a new {CASE} at the same {SITE} with the same items "
        "and quantities and pay that one in full by {method}; if it is still {open}, just pay by {method} whatever "
        "it still owes",
        "{they_are} not sure what happened to {case} || if it turns out to be cancelled, set it up again (a new "
        "{CASE}, same {SITE}, same items and quantities) and record {a method} {PAYMENT} for its whole total; if it "
        "is still {open}, record {a method} {PAYMENT} for what is left to pay on it",
        "[look into|find out about] {case} || if it was cancelled, repeat it in a new {CASE} at the same {SITE} "
        "(same items, same quantities) and pay the new total by {method}; if it is still {open}, settle its "
        "outstanding balance by {method} instead",
        "[see|check] where {case} stands || if it [turns out to be|was|has been] cancelled, [open|raise] a "
        "[fresh|new] {CASE} at the same {SITE} holding [exactly the same items and quantities|the same items in the "
        "same quantities] and pay [it in full|all of it] by {method}; if it [is|remains] {open}, [just |]pay [the "
        "rest of what it owes|its remaining balance] by {method}",
        "{they} [want|would like] {case} [sorted|settled] either way || if it has been cancelled, [re-create|rebuild] "
        "it as a new {CASE} (the same {SITE}, items and quantities) paid in full by {method}, and if it is still "
        "{open}, pay off [what is left on it|its balance] by {method}",
    ), {"case": case_np, "method": method_words(method), "open": or_words(w.fl.editable)}, party=ref, voices=BOTH)
    plan = Plan(calls, goals, say, targets={("case", case["id"]), ("party", party["id"])}, changes_either_way=True)
    for argument in (w.fk("item"), "quantity"):
        plan.derive(w.n.create("line"), argument)
    return plan.derive(w.n.create("payment"), "amount")


# --- a case no longer wanted: cancelled or returned, and refunded --------------------------------------------------


def cancel_or_return_options(w: World) -> list[dict]:
    """Cases of an active person with something captured on them that can either still be cancelled or, delivered,
    still be returned (inside the return window)."""
    back = w.fl.action("return")
    cutoff = (REFERENCE_NOW - timedelta(days=back.window_days or 30)).isoformat()
    return [c for c in w.rows["case"] if w.party_of(c)["status"] == "active" and captured(w, c) and (
        c["status"] in w.fl.cancel.sources or (c["status"] in back.sources and c["placed_at"] >= cutoff))]


@intent("conditional", flavours=("fulfillment",), item="refundable")
def cancel_or_return_and_refund(w: World) -> Plan | None:
    """A customer no longer wants a case: the agent reads it, cancels it if it can still be cancelled or records its
    return if it was delivered, and refunds every payment captured on it."""
    cancel, back = w.fl.cancel, w.fl.action("return")
    case = w.pick(either_way(w, cancel_or_return_options(w), lambda c: c["status"] in back.sources))
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = _by_code(w, case, ref)
    reason = w.pick(list(CANCEL_REASONS))
    verb, target = (cancel.verb, cancel.target) if case["status"] in cancel.sources else ("return", back.target)
    refunds = [refund(w, p, reason) for p in captured(w, case)]
    calls = [*lookup, get_case(w, case), act(w, case, verb), *(call for call, _ in refunds)]
    say = Say("do", (
        "{they} no longer want {case} || if it can still be cancelled, cancel it; if it has already been "
        "delivered, record its return; either way, refund every captured {PAYMENT} on it with the reason {reason}",
        "[sort out|take care of] {case}, which {they} [don't need any more|no longer need]: cancel it if that is still "
        "allowed, or, if it was delivered, take it back as a return, and then refund what was captured on it "
        "(reason: {reason})",
        "{they_have} changed {their} mind about {case} || cancel it, or record a return if it has been delivered "
        "already, and refund each captured {PAYMENT} on it, reason {reason}",
    ), {"case": case_np, "reason": quote(reason)}, party=ref, voices=BOTH)
    plan = Plan(calls, [status_goal(w, case, target), *(goal for _, goal in refunds)], say,
                targets={("case", case["id"]), ("party", party["id"])}, changes_either_way=True)
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))


# --- refusals found only after reading the person's cases ----------------------------------------------------------


def latest_with_item_options(w: World) -> list[tuple[dict, list[dict], dict]]:
    """(item, the person's cases newest first down to the latest one holding it, that case) wherever that case is
    not their newest (the agent must read past one), has gone too far to be cancelled (and was not cancelled), and no
    other item has the item's name."""
    cancel = w.fl.cancel
    options = []
    for party in w.active_parties("case"):
        mine = w.newest_first(party)
        for k, case in enumerate((mine or [])[:CASES_READ]):
            held = {x[w.fk("item")] for x in w.children("line", "case", case["id"])}
            newer = {x[w.fk("item")] for c in mine[:k] for x in w.children("line", "case", c["id"])}
            if not k or case["status"] in cancel.sources or case["status"] == cancel.target:
                continue
            for item_id in sorted(held - newer):
                item = w.by_id("item", item_id)
                if unique_name(w, item):
                    options.append((item, mine[:k + 1], case))
    return options


@intent("infeasible", flavours=PURCHASES, item="refundable")
def cancel_latest_with_item_too_late(w: World) -> Plan | None:
    """A customer wants out of the last case they placed with one item in it, which has gone too far to cancel: the
    agent reads their cases newest first until it finds that one, and says what status it is in, changing
    nothing."""
    option = w.pick(latest_with_item_options(w))
    if option is None:
        return None
    item, read, case = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    verb = w.fl.cancel.verb.replace("_", " ")
    say = Say("do", (
        "find {their} most recent {CASE} that has {item} in it, {cancel} it and refund what {they} paid on it",
        "{they_have} gone off {item} || find the latest {CASE} of {theirs} that includes it, {cancel} it and "
        "refund {them}",
        "look up the most recent {CASE} of {theirs} with {item} in it, {cancel} it, and give {them} back what was paid",
    ), {"item": quote(item["name"]), "cancel": verb}, party=ref, voices=BOTH)
    calls = [w.find_party(ref), w.find_item(item), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in read)]
    return Plan(calls, [w.status_answer(case["status"])], say,
                answer=f"That is not possible any more: its status is {case['status'].replace('_', ' ')}.", targets={("case", case["id"]), ("party", party["id"])},
                refused=(act(w, case, w.fl.cancel.verb), "invalid_state"))


def locked_swap_options(w: World) -> list[tuple[dict, dict, dict]]:
    """(the person's newest case, a line of it, the item to put in its place) wherever that case can no longer
    change (its lines are fixed) and was not cancelled, the other item is offered, of the same category where items
    have one, and not already on it, and no other item has either name."""
    options = []
    cat = w.fk("category")
    for party in w.active_parties("case"):
        mine = w.newest_first(party)
        if not mine or mine[0]["status"] in w.fl.editable or mine[0]["status"] == w.fl.cancel.target:
            continue
        case = mine[0]
        lines = w.children("line", "case", case["id"])
        held = {x[w.fk("item")] for x in lines}
        for line in lines:
            old = w.by_id("item", line[w.fk("item")])
            if not unique_name(w, old):
                continue
            options += [(case, line, new) for new in w.rows["item"]
                        if new["active"] and new["id"] not in held and unique_name(w, new)
                        and (cat not in old or new.get(cat) == old[cat])]
    return options


@intent("infeasible", flavours=PURCHASES)
def swap_on_locked_case(w: World) -> Plan | None:
    """A customer wants one item of their newest case swapped for another, but that case can no longer change: the
    agent finds the case and the items and says what status the case is in, changing nothing."""
    option = w.pick(locked_swap_options(w))
    if option is None:
        return None
    case, line, new = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    old = w.by_id("item", line[w.fk("item")])
    say = Say("do", (
        "on {their} most recent {CASE}, put {new} in place of {old}, keeping the quantity",
        "{they} would rather have {new} than {old} || swap it on {their} newest {CASE}, same quantity",
        "change {their} latest {CASE} so that it has {new} instead of {old}, in the same quantity",
    ), {"old": quote(old["name"]), "new": quote(new["name"])}, party=ref, voices=BOTH)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), get_case(w, case),
             w.find_item(new)]
    refused = (w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): new["id"], "quantity": line["quantity"]})
    return Plan(calls, [w.status_answer(case["status"])], say,
                answer=f"It can no longer be changed: its status is {case['status'].replace('_', ' ')}.",
                targets={("case", case["id"]), ("party", party["id"])}, refused=(refused, "invalid_state"))


# --- what one item came to across a person's cases -----------------------------------------------------------------


def item_cost_options(w: World) -> list[tuple[dict, dict, list[dict], float]]:
    """(party, item, their cases that were not cancelled, what the item came to on them: quantity times the unit
    price on each line) wherever two to `CASES_READ` + 1 such cases are read, two or more of them hold the item, and
    no other item has its name."""
    options = []
    for party in w.active_parties("case"):
        kept = sorted((c for c in w.party_cases(party) if c["status"] != w.fl.cancel.target), key=lambda c: c["id"])
        if not 2 <= len(kept) <= CASES_READ + 1:
            continue
        held = sorted({x[w.fk("item")] for c in kept for x in w.children("line", "case", c["id"])})
        for item in (w.by_id("item", i) for i in held):
            holding = [c for c in kept if holds(w, c, item)]
            if len(holding) >= 2 and unique_name(w, item):
                total = round(sum(x["quantity"] * x["unit_price"] for c in holding
                                  for x in w.children("line", "case", c["id"]) if x[w.fk("item")] == item["id"]), 2)
                options.append((party, item, kept, total))
    return options


@intent("aggregate", flavours=PURCHASES, item="priced")
def item_cost_question(w: World) -> Plan | None:
    """How much one item came to across the person's cases that were not cancelled: the agent finds the item, reads
    each such case and adds up quantity times unit price on the lines of that item."""
    option = w.pick(item_cost_options(w))
    if option is None:
        return None
    party, item, kept, total = option
    ref = w.party_ref(party)
    say = Say("ask", (
        "what has {item} come to altogether on {their} {CASE/pl} that were not cancelled, counting the quantity "
        "times the unit price on each one",
        "how much did {item} add up to across all of {their} {CASE/pl} except the cancelled ones (quantity times "
        "unit price, summed)",
        "how much has {item} come to over {their} {CASE/pl}, leaving out any that were cancelled, at the unit prices "
        "on those {CASE/pl}",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    calls = [w.find_party(ref), w.find_item(item), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in kept)]
    return Plan(calls, [w.money_answer(total)], say, answer=money(total),
                targets={("party", party["id"]), ("item", item["id"])})


# --- an item added to the newest case if it can still change, else ordered on a new case; paid either way --------


def add_or_new_options(w: World) -> list[tuple[dict, dict]]:
    """(the person's newest case, an item to add) wherever that case was not cancelled, the item is offered, not on
    that case already (no line to merge with) and no other item has its name."""
    options = []
    for party in w.active_parties("case"):
        mine = w.newest_first(party)
        if not mine or mine[0]["status"] == w.fl.cancel.target:
            continue
        held = {x[w.fk("item")] for x in w.children("line", "case", mine[0]["id"])}
        options += [(mine[0], item) for item in w.rows["item"]
                    if item["active"] and item["id"] not in held and item["price"] >= 1 and unique_name(w, item)]
    return options


@intent("conditional", flavours=PURCHASES, item="priced")
def add_to_latest_or_new_case(w: World) -> Plan | None:
    """A customer wants one more item: on their newest case if it can still change, else on a new case at the same
    site; either way they pay what that case then owes. The agent finds the person, reads their newest case and
    the item, and takes the way the case's status allows."""
    editable = w.fl.editable
    option = w.pick(either_way(w, add_or_new_options(w), lambda o: o[0]["status"] not in editable))
    if option is None:
        return None
    case, item = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    quantity = w.units(w.pick([1, 2, 3]))
    method = w.pick(list(METHODS))
    cfk = w.fk("case")
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), get_case(w, case), w.find_item(item)]
    if case["status"] in editable:
        target, due, goals = case, round(balance_due(w, case) + quantity * item["price"], 2), []
    else:
        new_id = len(w.rows["case"]) + 1
        calls.append((w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): case[w.fk("site")]}))
        goals = [Goal(kind="rows_created", table=w.table("case"), count=1,
                      expect={w.fk("party"): party["id"], w.fk("site"): case[w.fk("site")]})]
        target, due = {"id": new_id}, round(quantity * item["price"], 2)
    calls.append((w.n.create("line"), {cfk: target["id"], w.fk("item"): item["id"], "quantity": quantity}))
    goals.append(Goal(kind="rows_created", table=w.table("line"), count=1,
                      expect={cfk: target["id"], w.fk("item"): item["id"], "quantity": quantity}))
    pay_call, pay_goal = record_payment(w, target, due, method)
    calls.append(pay_call)
    say = Say("do", (
        "add {items} to {their} most recent {CASE} if it can still be changed; if it can't, place a new "
        "{CASE} for {items} at the same {SITE}; either way, pay by {method} what that {CASE} then owes",
        "{they} would like {items} as well || add that to {their} newest {CASE} if it is still {open}, "
        "or else open a new {CASE} for it at the same {SITE}, and then record {a method} {PAYMENT} for the full "
        "balance of whichever {CASE} it went on",
        "if {their} latest {CASE} is still {open}, add {items} to it, and if it is too late for that, "
        "order {items} on a new {CASE} from the same {SITE}; then settle what that {CASE} owes by {method}",
        "{they} forgot {items} || [put that on|add that to] {their} [newest|latest] {CASE} [if that one can still "
        "take it|while it is still {open}]; [should it be|if it is] past that, [start|open] a [fresh|new] {CASE} for "
        "it at the same {SITE} instead; [after that|then], [pay off|clear] [the balance of that {CASE}|"
        "whatever that {CASE} owes] by {method}",
        "add {items} to {their} [most recent|last] {CASE} [provided|as long as] it is still {open}; [otherwise|failing "
        "that], [raise|open] a new {CASE} at its {SITE} with {items} on it; [in both cases|whichever it is], "
        "[record|take] {a method} {PAYMENT} for [everything|all] that {CASE} [still owes|has left to pay]",
    ), {"items": w.line_words(item, quantity), "method": method_words(method),
        "open": or_words(editable)}, party=ref, voices=BOTH)
    plan = Plan(calls, [*goals, pay_goal], say, targets={("case", case["id"]), ("party", party["id"])},
                changes_either_way=True)
    return plan.derive(w.n.create("line"), cfk).derive(w.n.create("payment"), "amount")


# --- what a person still owes on their open cases -----------------------------------------------------------------


@intent("aggregate", flavours=PURCHASES)
def owed_question(w: World) -> Plan | None:
    """How much a person still owes altogether on their open cases: the agent lists their cases, reads each open one
    (its total and what was captured on it) and adds up what is left."""
    option = w.pick(owing_options(w))
    if option is None:
        return None
    party, open_cases, owing = option
    ref = w.party_ref(party)
    total = round(sum(d for _, d in owing), 2)
    say = Say("ask", (
        "how much {do_they} still owe altogether on {their} {CASE/pl} that are {open}",
        "what is the total left to pay on {their} {CASE/pl} that are still {open}, once what was already captured "
        "is taken off",
        "how much is outstanding in all across {their} {open} {CASE/pl}",
    ), {"open": or_words(w.fl.open)}, party=ref, voices=BOTH)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in open_cases)]
    return Plan(calls, [w.money_answer(total)], say, answer=money(total), targets={("party", party["id"])})
