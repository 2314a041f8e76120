"""Requests whose one goal spans a person's several records (their details, their address, their cases, what they
paid, what they think of what they bought), as a person writes them in one message: "I'm moving to Omaha: change my
city, make 12 Elm Street my home address and move my orders that are still pending or confirmed to your Omaha
branch", "the kettle on my latest order was a letdown: take that order back, refund me and post my 1-star review of
it", "I've had enough of my booking BOO-1012: cancel it, refund me and log a complaint so someone looks into it".
The agent finds the person, reads what it must act on (which of their cases can still move, which case is the
latest, what was captured on it) and makes every write the goal needs; the depth comes from the goal itself, never
from a second, unrelated request.

Each is planned only where the goal means several writes the agent must find (two or more cases to move, one or
more payments to refund) and one answer is right. Every write is one a person may ask for about their own record."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents.base import BOTH, Plan, World, intent, or_words
from awm.builder.intents.people import _postal, _street
from awm.builder.intents.steps import act, captured, get_case, refund, status_goal, unique_name
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal

STANDING_INTENTS = ("move_city_and_cases", "return_and_review", "cancel_with_complaint")


# --- a person moving to another city, their open cases moved to the site there ------------------------------------


def move_options(w: World) -> list[tuple[dict, dict, list[dict]]]:
    """(party, the site in the city they move to, their cases moved there, by id) wherever an active person lives in
    another city than the site's, two or more of their cases can still change and are at other sites, and no other
    site's name holds the city's (a search by the city finds that one site)."""
    options = []
    for party in w.active_parties("case"):
        editable = [c for c in w.party_cases(party) if c["status"] in w.fl.editable]
        for site in w.rows["site"]:
            if site["city"] == party["city"] or sum(site["city"] in s["name"] for s in w.rows["site"]) != 1:
                continue
            moving = sorted((c for c in editable if c[w.fk("site")] != site["id"]), key=lambda c: c["id"])
            if len(moving) >= 2:
                options.append((party, site, moving))
    return options


@intent("chained")
def move_city_and_cases(w: World) -> Plan | None:
    """A person moves to the city of one of the business's sites: the agent sets their city, gives them a primary
    home address there (where the business keeps addresses), finds the site in that city, lists their cases and
    moves every one that can still change and is elsewhere to that site."""
    option = w.pick(move_options(w))
    if option is None:
        return None
    party, site, moving = option
    ref = w.party_ref(party)
    city, pfk, sfk = site["city"], w.fk("party"), w.fk("site")
    calls = [w.find_party(ref), (w.n.change("party", "update", "contact"), {w.pk("party"): party["id"], "city": city})]
    goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"city": city})]
    slots = {"city": city, "open": or_words(w.fl.editable)}
    home = ""
    if w.has("address"):
        street, postal = _street(w), _postal(w)
        calls += [(w.n.list("address"), {pfk: party["id"]}),
                  (w.n.create("address"), {pfk: party["id"], "kind": "home", "street": street, "city": city,
                                           "postal_code": postal, "is_primary": True})]
        goals.append(Goal(kind="rows_created", table=w.table("address"), count=1,
                          expect={pfk: party["id"], "kind": "home", "street": street, "city": city,
                                  "postal_code": postal, "is_primary": 1}))
        slots.update(street=street, postal=postal)
        home = (", [make {street}, {city} {postal} {their} primary home {ADDRESS}|add {street}, {city} {postal} as "
                "{their} primary home {ADDRESS}]")
    calls += [(w.n.list("site"), {"query": city}), (w.n.list("case"), {pfk: party["id"]})]
    for case in moving:
        calls.append((w.n.action("case", "transfer"), {w.fk("case"): case["id"], sfk: site["id"]}))
        goals.append(Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={sfk: site["id"]}))
    say = Say("do", (
        "{they_are} moving to {city} || change the city on {their} record to {city}" + home + ", and move every "
        "{CASE} of {theirs} that is still {open} to [our|the] {SITE} in {city}",
        "{they_have} [relocated|just moved] to {city} || update {their} city to {city}" + home + ", then transfer "
        "each of {their} {CASE/pl} that is still {open} to the {SITE} in {city}",
        "record {their} move to {city}: set {their} city to {city}" + home + ", and hand every {CASE} of {theirs} "
        "that is still {open} over to the {SITE} in {city}",
    ), slots, party=ref, voices=BOTH)
    plan = Plan(calls, goals, say, targets={("party", party["id"]), *(("case", c["id"]) for c in moving)})
    return plan.derive(w.n.action("case", "transfer"), w.fk("case")).derive(w.n.action("case", "transfer"), sfk)


# --- a disappointing purchase returned, refunded and reviewed ---------------------------------------------------

LETDOWNS = {1: ("Very disappointing", "Would not buy again"), 2: ("Below expectations", "Not worth the price")}
RETURN_REASONS = ("not as described", "customer request", "did not meet expectations")


def return_review_options(w: World) -> list[tuple[dict, dict]]:
    """(case, an item on it) wherever the case, of an active person, was delivered inside the return window and has
    something captured on it, and no other item has the item's name."""
    back = w.fl.action("return")
    cutoff = (REFERENCE_NOW - timedelta(days=back.window_days or 30)).isoformat()
    options = []
    for case in w.rows["case"]:
        if (case["status"] not in back.sources or case["placed_at"] < cutoff or not captured(w, case)
                or w.party_of(case)["status"] != "active"):
            continue
        for line in sorted(w.children("line", "case", case["id"]), key=lambda x: x["id"]):
            item = w.by_id("item", line[w.fk("item")])
            if unique_name(w, item):
                options.append((case, item))
    return options


@intent("chained", flavours=("fulfillment",), needs=("review",), item="refundable")
def return_and_review(w: World) -> Plan | None:
    """A customer let down by an item of a delivered case sends the case back: the agent finds the case, reads it,
    records its return, refunds every payment captured on it and posts the person's low rating of the
    item with their comment."""
    option = w.pick(return_review_options(w))
    if option is None:
        return None
    case, item = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, named=(item,))
    rating = w.pick([1, 2])
    comment, reason = w.pick(list(LETDOWNS[rating])), w.pick(list(RETURN_REASONS))
    refunds = [refund(w, p, reason) for p in captured(w, case)]
    review = (w.n.create("review"), {w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                                     "comment": comment})
    calls = [*lookup, get_case(w, case), act(w, case, "return"), *(call for call, _ in refunds), review]
    say = Say("do", (
        "{they_were} let down by {item} from {case} || take it back as a return, refund what {they} paid on it "
        "with the reason {reason}, and post {their} {rating}-star {REVIEW} of {item} with the comment {comment}",
        "{they_are} sending back {case} because {item} on it [was not up to much|disappointed {them}] || record the "
        "return, refund every captured {PAYMENT} on it (reason: {reason}) and add {their} {REVIEW} of {item}: "
        "{rating} out of 5, comment {comment}",
        "[process|record] the return of {case}, refund each {PAYMENT} captured on it with the reason {reason}, and "
        "leave a {rating}-star {REVIEW} of {item} from {them} saying {comment}",
    ), {"case": case_np, "item": quote(item["name"]), "rating": rating, "comment": quote(comment), "reason": quote(reason)},
        party=ref, voices=BOTH)
    goals = [status_goal(w, case, w.fl.action("return").target), *(goal for _, goal in refunds),
             Goal(kind="rows_created", table=w.table("review"), count=1,
                  expect={w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                          "comment": {"text": comment}})]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})
    return plan.derive(w.n.action("case", "return"), w.fk("case")).derive(
        w.n.action("payment", "refund"), w.pk("payment"))


# --- a case cancelled in a complaint: refunded, and a ticket logged ---------------------------------------------

COMPLAINTS = ("Complaint about the service", "Unhappy with how this was handled", "Please look into my cancellation")
COMPLAINT_REASONS = ("customer request", "unhappy with the service", "poor experience")
# tickets that are not where a complaint goes (a hotel's maintenance requests, a library's reference questions)
NOT_COMPLAINTS = ("maintenance", "reference")


@intent("action", needs=("ticket",), item="refundable")
def cancel_with_complaint(w: World) -> Plan | None:
    """A person who has had enough of a case: the agent finds it, cancels it, refunds every payment captured on it
    and opens a ticket in their name with the subject and priority they give, so someone follows the complaint up."""
    if any(word in w.plan["ticket"].label for word in NOT_COMPLAINTS):
        return None
    cancel = w.fl.cancel
    case = w.pick([c for c in w.rows["case"] if c["status"] in cancel.sources and captured(w, c)
                   and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    reason, subject = w.pick(list(COMPLAINT_REASONS)), w.pick(list(COMPLAINTS))
    priority = w.pick(["high", "urgent"])
    refunds = [refund(w, p, reason) for p in captured(w, case)]
    ticket = (w.n.create("ticket"), {w.fk("party"): party["id"], "subject": subject, "priority": priority})
    calls = [*lookup, get_case(w, case), act(w, case, cancel.verb), *(call for call, _ in refunds), ticket]
    say = Say("do", (
        "{they_have} had enough of {case} || open {a TICKET} for {them} titled {subject} at {priority} priority so "
        "someone follows it up, {cancel} the {CASE} and refund every captured {PAYMENT} on it with the reason "
        "{reason}",
        "log {a TICKET} in {their} name at {priority} priority with the subject {subject}, {cancel} {case} and refund "
        "what was paid on it (reason: {reason})",
        "{they_are} unhappy with {case} and want out || raise {a TICKET} for {them} (subject {subject}, priority "
        "{priority}), then {cancel} the {CASE} and give back each captured {PAYMENT} with the reason {reason}",
    ), {"case": case_np, "cancel": cancel.verb.replace("_", " "), "reason": quote(reason),
        "subject": quote(subject), "priority": priority}, party=ref, voices=BOTH)
    goals = [status_goal(w, case, cancel.target), *(goal for _, goal in refunds),
             Goal(kind="rows_created", table=w.table("ticket"), count=1,
                  expect={w.fk("party"): party["id"], "subject": {"text": subject}, "priority": priority,
                          "status": "open"})]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), ("case", case["id"])})
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))
