"""Steps several intents share: a note on a case, a message to a person, a refund, a payment, a case copied line
by line; each as the tool call that makes it and the goal that checks it; and what the requests read off a case
(what is left to pay, whether it holds an item)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from awm.builder.phrasing import quote
from awm.contracts import Goal

if TYPE_CHECKING:  # annotations only: base imports these steps
    from awm.builder.intents.base import Plan, World

Call = tuple[str, dict[str, Any]]

NOTES = ("Customer contacted by phone", "Handled at the front desk", "Requested by email",
         "Confirmed with the customer", "Escalated by the duty manager", "Customer will call back tomorrow",
         "Agreed over the phone", "Follow-up booked for next week", "Details checked against the file",
         "Customer asked for a written confirmation", "Discussed with the team lead", "Left a voicemail")
# Notes and reasons for a request either voice may make: a customer asks to have these written on their own case as
# readily as staff write them ("add the note 'Escalated by the duty manager'", "refund it with the reason
# 'goodwill gesture'" are not a customer's request), each fitting what is done to the case.
CANCEL_NOTES = ("Plans changed", "Booked elsewhere", "No longer needed", "Contact by email only")
MOVE_NOTES = ("Closer to home", "Moving house soon", "Easier to reach", "Call before any change",
              "Contact by email only")
# where the customers are organisations (a client company, a shipper), which have offices, not homes
OFFICE_MOVE_NOTES = ("Closer to our offices", "Our office is moving soon", "Easier to reach", "Call before any change",
                     "Contact by email only")
MAX_LINES = 3  # a case copied line by line holds at most this many lines
# what a person buys or books (an application is filed, not bought: no one goes off an item of a permit application)
PURCHASES = ("fulfillment", "digital", "service", "reservation", "appointment")
REASONS = ("customer request", "service not delivered", "duplicate booking", "billing error",
           "charged twice", "changed plans", "goodwill gesture", "item unavailable")
# A cancellation's refund reason agrees with why the person cancels ("as I've changed my mind" is not refunded
# for "item unavailable")
CANCEL_REASONS = ("no longer needed", "changed plans", "customer request")


def refund_reasons(w: World, customer: bool = False) -> tuple[str, ...]:
    """The refund reasons that fit the world's cases: "item unavailable" only of an order (the fulfillment
    lifecycle), "duplicate booking" only of a case one books (Flavour.attended), and a customer's own never
    "goodwill gesture"."""
    misfits = {"item unavailable"} if w.fl.name != "fulfillment" else set()
    misfits |= set() if w.fl.attended else {"duplicate booking"}
    misfits |= {"goodwill gesture"} if customer else set()
    return tuple(r for r in REASONS if r not in misfits)


def cancel_notes(w: World) -> tuple[str, ...]:
    """The notes a cancellation may leave: "Booked elsewhere" only on a case one books (Flavour.attended)."""
    return CANCEL_NOTES if w.fl.attended else tuple("Went elsewhere" if n == "Booked elsewhere" else n
                                                      for n in CANCEL_NOTES)


def add_note(w: World, case: dict, text: str) -> tuple[Call, Goal]:
    call = (w.n.create("note"), {w.fk("case"): case["id"], "body": text})
    goal = Goal(kind="rows_created", table=w.table("note"), count=1,
                expect={w.fk("case"): case["id"], "body": {"text": text}})
    return call, goal


def add_staff_note(w: World, case: dict, member: dict, text: str) -> tuple[Call, Goal]:
    """A note written by a named staff member."""
    call = (w.n.create("note"), {w.fk("case"): case["id"], "body": text, w.fk("staff"): member["id"]})
    goal = Goal(kind="rows_created", table=w.table("note"), count=1,
                expect={w.fk("case"): case["id"], "body": {"text": text}, w.fk("staff"): member["id"]})
    return call, goal


# The channels a message with a subject line goes by, as a request names them: (a noun, a modifier). A text message
# has no subject line, so a request that states one never sends it by SMS.
MESSAGE_CHANNELS = {"email": ("email", "email"), "push": ("push notification", "push")}


def message_channel(w: World, prefix: str = "") -> tuple[str, dict[str, str]]:
    """A channel for a message with a subject, and the request's slots naming it: `{channel}` ("by email", "by push
    notification") and `{via}` ("an email notice", "a push message"), each name after `prefix`."""
    channel = w.pick(sorted(MESSAGE_CHANNELS))
    noun, via = MESSAGE_CHANNELS[channel]
    return channel, {f"{prefix}channel": noun, f"{prefix}via": via}


def notify(w: World, party: dict, channel: str, subject: str, body: str) -> tuple[Call, Goal]:
    call = (w.n.create("notification"), {w.fk("party"): party["id"], "channel": channel, "subject": subject,
                                         "body": body})
    goal = Goal(kind="rows_created", table=w.table("notification"), count=1,
                expect={w.fk("party"): party["id"], "channel": channel, "subject": {"text": subject}})
    return call, goal


# the words a request adds to each of its clauses to have the case's person told (`tell_its_party`)
TELL_ITS_PARTY = ", [then|and then] [let its {PARTY} know|tell its {PARTY}] by {channel}, subject {subject}"


def tell_its_party(w: World, party: dict, subjects: list[str], body: str, calls: list[Call], goals: list[Goal],
                   slots: dict, clauses: tuple[str, ...]) -> tuple[str, ...]:
    """A case's person told of a change made to it by the business: a channel and a subject (one of `subjects`)
    the request states, the message's call and goal appended, the request's slots named; `clauses` with the words
    that ask for it (`TELL_ITS_PARTY`)."""
    channel, named = message_channel(w)
    subject = w.pick(subjects)
    call, goal = notify(w, party, channel, subject, body)
    calls.append(call)
    goals.append(goal)
    slots.update(named, subject=quote(subject))
    return tuple(c + TELL_ITS_PARTY for c in clauses)


def refund(w: World, payment: dict, reason: str) -> tuple[Call, Goal]:
    call = (w.n.action("payment", "refund"), {w.pk("payment"): payment["id"], "reason": reason})
    goal = Goal(kind="row_equals", table=w.table("payment"), pk=payment["id"],
                expect={"status": "refunded", "refund_reason": {"text": reason}})
    return call, goal


def record_payment(w: World, case: dict, amount: float, method: str) -> tuple[Call, Goal]:
    call = (w.n.create("payment"), {w.fk("case"): case["id"], "amount": amount, "method": method})
    goal = Goal(kind="rows_created", table=w.table("payment"), count=1,
                expect={w.fk("case"): case["id"], "amount": {"approx": amount}, "method": method,
                        "status": "captured"})
    return call, goal


def act(w: World, case: dict, verb: str) -> Call:
    return (w.n.action("case", verb), {w.fk("case"): case["id"]})


def status_goal(w: World, case: dict, status: str, **more: Any) -> Goal:
    return Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={"status": status, **more})


def act_and_refund(w: World, case: dict, verb: str, target: str, reason: str, refunds: bool = True
                   ) -> tuple[list[Call], list[Goal]]:
    """The calls that move the case by `verb` and (with `refunds`) refund every payment captured on it with
    `reason`, and the goals that check them: the case at `target`, each payment refunded."""
    back = [refund(w, p, reason) for p in captured(w, case)] if refunds else []
    return [act(w, case, verb), *(c for c, _ in back)], [status_goal(w, case, target), *(g for _, g in back)]


def get_case(w: World, case: dict) -> Call:
    return (w.n.get("case"), {w.pk("case"): case["id"]})


def find_category(w: World, category: dict) -> list[Call]:
    """The calls that learn a category's items from its name: the category found by name, its items listed."""
    return [(w.n.list("category"), {"query": category["name"]}),
            (w.n.list("item"), {w.fk("category"): category["id"], "limit": 100})]


def captured(w: World, case: dict) -> list[dict]:
    return [p for p in w.children("payment", "case", case["id"]) if p["status"] == "captured"]


def method_words(method: str) -> str:
    return {"bank_transfer": "bank transfer", "card": "card", "cash": "cash", "wallet": "wallet"}[method]


METHODS = ("card", "bank_transfer", "wallet")  # how a customer pays in a request that names the method


def unique_name(w: World, item: dict) -> bool:
    """No other item has this item's name (a request naming it names one row)."""
    return sum(i["name"] == item["name"] for i in w.rows["item"]) == 1


def copy_case(w: World, party: dict, site_id: int, lines: list[dict]) -> tuple[list[tuple[str, dict]], Goal, int]:
    """The calls that open a new case for `party` at the site with the same items and quantities as `lines`, the goal
    that checks it, and the new case's id."""
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [(w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): site_id})]
    calls += [(w.n.create("line"), {cfk: new_id, w.fk("item"): x[w.fk("item")], "quantity": x["quantity"]})
              for x in lines]
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): party["id"], w.fk("site"): site_id}, child_table=w.table("line"),
                child_fk=cfk, children=[{w.fk("item"): x[w.fk("item")], "quantity": x["quantity"]} for x in lines])
    return calls, goal, new_id


def copyable(w: World, lines: list[dict]) -> bool:
    """Lines a new case can repeat: a few, each of an item still offered, no item twice."""
    items = [x[w.fk("item")] for x in lines]
    return (0 < len(lines) <= MAX_LINES and len(set(items)) == len(items)
            and all(w.by_id("item", i)["active"] for i in items))


def balance_due(w: World, case: dict) -> float:
    """What is left to pay on a case: its total less what was captured on it."""
    return round(case["total_amount"] - sum(p["amount"] for p in captured(w, case)), 2)


def holds(w: World, case: dict, item: dict) -> bool:
    """Whether a line of the case is of the item."""
    return any(x[w.fk("item")] == item["id"] for x in w.children("line", "case", case["id"]))


PAY_SHARE = 0.5  # how often a person who opens a new case (by preference, or on registering) pays it at once


def paid_at_once(w: World, plan: Plan, lines: list[tuple[dict, int]]) -> Plan:
    """Now and then (`PAY_SHARE`) the person pays for the new case in the same message: the agent pays its total
    (each item's price it found, times its quantity) by the method the request names, on the case it has just
    opened."""
    if not w.chance(PAY_SHARE):
        return plan
    method = w.pick(list(METHODS))
    total = round(sum(quantity * item["price"] for item, quantity in lines), 2)
    call, goal = record_payment(w, {"id": len(w.rows["case"]) + 1}, total, method)
    plan.calls.append(call)
    plan.goals.append(goal)
    plan.say.slots["method"] = method_words(method)
    plan.say.clauses = tuple(c + ", [then|and] pay [the {CASE}'s total|what the new {CASE} comes to] by {method}"
                             for c in plan.say.clauses)
    return plan.derive(w.n.create("payment"), "amount")


def either_way(w: World, options: list[dict], rare) -> list[dict]:
    """The options of one way or the other, each way as often where the world has both (the way fewer cases take is
    not then the rare answer, and neither is the one to guess)."""
    one = [c for c in options if rare(c)]
    other = [c for c in options if not rare(c)]
    return one if one and (not other or w.chance(0.5)) else other
