"""Goals one part of which the rules forbid, as a person writes them in one message: "I've moved to Omaha: change
my city, make 12 Elm Street my home address and move my order ORD-1012 to your Omaha branch" where ORD-1012 has
shipped; "I've had enough of my booking BOO-1012: log a complaint whatever happens, cancel it and refund me" where
the guest has checked in; "the kettle on my order was a letdown: post my 1-star review of it and take the order back
for a refund" where the return window has closed; "cancel my orders ORD-1012 and ORD-1020 and refund me" (or "move
them to your Omaha branch") where ORD-1020 has shipped and ORD-1012 has not.

The agent finds what the goal is about, does every part that stands on its own (the city and the address are the
person's whatever happens to the order; a complaint is logged and a review posted either way; of two cases, the one
that still can be is cancelled or moved) and refuses the part
the rules forbid, naming the fact that forbids it. Doing nothing fails the goal as surely as forcing the refused
part: the parts that stand on their own are judged like any write, the refusal like any refusal (the tools refuse
the call after the whole reference, with the error code the answer names).

Each part that stands on its own is one the person's words say they want either way, or one that is a fact about
them (where they live); the refused part is one a person may ask for (their case is theirs) but that its status or
its date no longer allows, and the case is one still under way (a shipped order, a checked-in booking: not one
long finished) or, for a return, one delivered before the window, so asking for it reads as a person who does not
yet know."""

from __future__ import annotations

import re
from datetime import timedelta

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents.base import BOTH, Plan, World, intent
from awm.builder.intents.standing import (
    COMPLAINT_REASONS,
    COMPLAINTS,
    LETDOWNS,
    NOT_COMPLAINTS,
    RETURN_REASONS,
    new_city,
    return_review_options,
)
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    PURCHASES,
    act,
    act_and_refund,
    captured,
    get_case,
    holds,
    unique_name,
)
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal

PARTIAL_INTENTS = ("move_city_case_locked", "complaint_too_late_to_cancel", "review_after_return_window",
                   "cancel_two_one_too_late", "move_two_one_locked", "add_to_two_one_locked", "swap_two_one_locked",
                   "return_two_one_too_late")


def under_way(w: World) -> tuple[str, ...]:
    """The statuses of a case still under way that can no longer be changed (an order shipped, a booking checked
    in, an application under review, a job in progress): a person asking to change it does not know it is too late."""
    return tuple(s for s in w.fl.open if s not in w.fl.editable)


# --- a person moving to another city, the case they name too far along to move ------------------------------------


def moved_locked_options(w: World) -> list[tuple[dict, dict, dict]]:
    """(party, the site in the city they move to, their case too far along to move) wherever an active person lives
    in another city than the site's, no other site's name holds the city (a search by the city finds that one
    site) and a case of theirs at another site is under way and can no longer change."""
    locked = under_way(w)
    options = []
    for party in w.active_parties("case"):
        cases = [c for c in w.party_cases(party) if c["status"] in locked]
        for site in w.rows["site"]:
            if site["city"] == party["city"] or sum(site["city"] in s["name"] for s in w.rows["site"]) != 1:
                continue
            options += [(party, site, c) for c in cases if c[w.fk("site")] != site["id"]]
    return sorted(options, key=lambda o: (o[0]["id"], o[1]["id"], o[2]["id"]))


@intent("infeasible", flavours=("fulfillment", "digital", "application", "service"))
def move_city_case_locked(w: World) -> Plan | None:
    """A person moves to the city of one of the business's sites and asks for one case of theirs to follow: the
    agent sets their city and (where the business keeps addresses) adds their primary home address there, reads the
    case, finds it too far along to move and says so. Not where the case is a time the person comes to (a booking
    they are checked in to does not follow them to another city)."""
    option = w.pick(moved_locked_options(w))
    if option is None:
        return None
    party, site, case = option
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    city = site["city"]
    slots = {"city": city, "case": case_np}
    # the case is read first (it decides what can be done), then the person's own details are changed
    moved, goals, home = new_city(w, party, city, slots)
    calls = [*lookup, *moved, (w.n.list("site"), {"query": city})]
    say = Say("do", (
        "{they_are} moving to {city} || change the city on {their} record to {city}" + home + ", and move {case} "
        "to [our|the] {SITE} in {city}",
        "{they_have} [relocated|just moved] to {city} || update {their} city to {city}" + home + ", then transfer "
        "{case} to the {SITE} in {city}",
        "record {their} move to {city}: set {their} city to {city}" + home + ", and hand {case} over to the {SITE} "
        "in {city}",
    ), slots, party=ref, voices=BOTH)
    return Plan(calls, [*goals, w.status_answer(case["status"])], say,
                answer=f"The city{' and the home address are' if home else ' is'} updated, but the {w.L['case']} "
                       f"cannot be moved: its status is {case['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", case["id"])},
                refused=((w.n.action("case", "transfer"), {w.fk("case"): case["id"], w.fk("site"): site["id"]}),
                         "invalid_state"))


# --- a complaint logged either way, the case too far along to cancel ----------------------------------------------


@intent("infeasible", needs=("ticket",), item="refundable")
def complaint_too_late_to_cancel(w: World) -> Plan | None:
    """A person who has had enough of a case wants a complaint logged whatever happens, the case cancelled and what
    they paid refunded: the agent opens the ticket, reads the case, finds it under way past cancelling (and its
    payments past refunding) and says so."""
    if any(word in w.plan["ticket"].label for word in NOT_COMPLAINTS):
        return None
    cancel = w.fl.cancel
    locked = [s for s in under_way(w) if s not in cancel.sources and s not in w.fl.refundable]
    case = w.pick([c for c in w.rows["case"] if c["status"] in locked and captured(w, c)
                   and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    reason, subject = w.pick(list(COMPLAINT_REASONS)), w.pick(list(COMPLAINTS))
    priority = w.pick(["high", "urgent"])
    ticket = (w.n.create("ticket"), {w.fk("party"): party["id"], "subject": subject, "priority": priority})
    say = Say("do", (
        "{they_have} had enough of {case} || open {a TICKET} for {them} titled {subject} at {priority} priority "
        "[whatever happens|either way] so someone follows it up, and {cancel} the {CASE} and refund every captured "
        "{PAYMENT} on it with the reason {reason}",
        "log {a TICKET} in {their} name at {priority} priority with the subject {subject} [in any case|whatever "
        "else happens], then {cancel} {case} and refund what was paid on it (reason: {reason})",
        "{they_are} unhappy with {case} and want out || raise {a TICKET} for {them} (subject {subject}, priority "
        "{priority}) [either way|regardless], then {cancel} the {CASE} and give back each captured {PAYMENT} with "
        "the reason {reason}",
    ), {"case": case_np, "cancel": cancel.verb.replace("_", " "), "reason": quote(reason),
        "subject": quote(subject), "priority": priority}, party=ref, voices=BOTH)
    goals = [Goal(kind="rows_created", table=w.table("ticket"), count=1,
                  expect={w.fk("party"): party["id"], "subject": {"text": subject}, "priority": priority,
                          "status": "open"}), w.status_answer(case["status"])]
    return Plan([*lookup, ticket], goals, say,
                answer=f"The {w.L['ticket']} is logged, but it is too late to {cancel.verb.replace('_', ' ')} the "
                       f"{w.L['case']}: its status is {case['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", case["id"])},
                refused=(act(w, case, cancel.verb), "invalid_state"))


# --- a review posted either way, the return window closed ----------------------------------------------------------


@intent("infeasible", flavours=("fulfillment",), needs=("review",), item="refundable")
def review_after_return_window(w: World) -> Plan | None:
    """A customer let down by an item of a delivered case wants their low rating posted either way and the case
    taken back for a refund: the agent finds the case, reads it, posts the review and says the return window has
    closed (the date the case was placed)."""
    option = w.pick(return_review_options(w, inside=False))
    if option is None:
        return None
    case, item = option
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, named=(item,))
    rating = w.pick([1, 2])
    comment = w.pick(list(LETDOWNS[rating]))
    review = (w.n.create("review"), {w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                                     "comment": comment})
    say = Say("do", (
        "{they_were} let down by {item} from {case} || post {their} {rating}-star {REVIEW} of it with the comment "
        "{comment} [whatever happens|either way], and take the {CASE} back as a return with a refund (reason: "
        "{reason})",
        "[add|leave] a {rating}-star {REVIEW} of {item} from {them} saying {comment} [in any case|regardless]; "
        "then record the return of {case} and refund what {they} paid on it with the reason {reason}",
        "{item} from {case} [was not up to much|disappointed {them}] || post {their} {REVIEW} of it ({rating} out "
        "of 5, comment {comment}) [whatever else happens|either way], then process the return of the {CASE} and "
        "refund it (reason: {reason})",
    ), {"case": case_np, "item": quote(item["name"]), "rating": rating, "comment": quote(comment),
        "reason": quote(w.pick(list(RETURN_REASONS)))}, party=ref, voices=BOTH)
    goals = [Goal(kind="rows_created", table=w.table("review"), count=1,
                  expect={w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                          "comment": {"text": comment}}), w.text_answer(case["placed_at"][:10], [])]
    return Plan([*lookup, review], goals, say,
                answer=f"The {w.L['review']} is posted, but it was placed on {case['placed_at'][:10]}, more than "
                       f"{w.fl.action('return').window_days or 30} days ago, so the return window has closed.",
                targets={("party", party["id"]), ("case", case["id"])}, refused=(act(w, case, "return"), "window_closed"))


# --- two cases of one person, one of them too far along -----------------------------------------------------------


def two_cases_options(w: World, may: tuple[str, ...], locked: tuple[str, ...]) -> list[tuple[dict, dict, dict]]:
    """(party, the case whose status is in `may`, the case whose status is in `locked`) of every active person
    with both."""
    options = []
    for party in w.active_parties("case"):
        mine = w.party_cases(party)
        options += [(party, a, b) for a in mine if a["status"] in may for b in mine if b["status"] in locked]
    return options


_RECENT = re.compile(r"latest|most recent|newest")


def _both(w: World, party: dict, a: dict, b: dict, named_first: dict, named: tuple[dict, ...] = ()
          ) -> tuple[dict, list]:
    """The person's reference and the two cases' words (`x` the one named first, `y` the other) with the calls that
    find and read each: the case whose status is the answer is never described by it, nor either by an item the
    request names (`named`)."""
    ref = w.party_ref(party)
    words = {}
    calls = []
    for case in (a, b):
        text, lookup = w.case_ref(case, ref, by_status=case is a, named=named)
        if case is b and _RECENT.search(str(text)) and _RECENT.search(str(words[a["id"]])):
            # not "my latest order and my latest order that included 'Kettle'": the second by its code
            text, lookup = w.case_ref(case, ref, coded=True)
        words[case["id"]] = text
        calls += [*lookup, get_case(w, case)]
    second = b if named_first is a else a
    return {"ref": ref, "x": words[named_first["id"]], "y": words[second["id"]]}, calls


@intent("infeasible", item="refundable")
def cancel_two_one_too_late(w: World) -> Plan | None:
    """A person asks for two of their cases to be cancelled and refunded: one still can be (the agent cancels it and
    refunds what was captured on it), the other is under way past cancelling and past refunding (the agent says so,
    naming its status)."""
    cancel = w.fl.cancel
    locked = tuple(s for s in under_way(w) if s not in cancel.sources and s not in w.fl.refundable)
    option = w.pick([o for o in two_cases_options(w, cancel.sources, locked) if captured(w, o[1])])
    if option is None:
        return None
    party, a, b = option
    said, calls = _both(w, party, a, b, w.pick([a, b]))
    reason = w.pick(list(CANCEL_REASONS))
    acted, done = act_and_refund(w, a, cancel.verb, cancel.target, reason)
    calls = [*calls, *acted]
    verb = cancel.verb.replace("_", " ")
    say = Say("do", (
        "see that {x} and {y} are both {done}, with every captured {PAYMENT} on them refunded (reason: {reason})",
        "{they} no longer [need|want] {x} or {y} || [see that|make sure] both are {done}, and refund what {they} "
        "paid on them (reason: {reason})",
        "{they_have} changed {their} mind about {x} and {y} || [see that|make sure] [they are both|both of them "
        "are] {done}, and give back each captured {PAYMENT}, reason {reason}",
        "[make sure|see to it that] both {x} and {y} [get|are] {done} for {them}, refunding [every|each] captured "
        "{PAYMENT} on them with the reason {reason}",
    ), {"x": said["x"], "y": said["y"], "done": cancel.target.replace("_", " "),
        "reason": quote(reason)}, party=said["ref"], voices=BOTH)
    goals = [*done, w.status_answer(b["status"])]
    plan = Plan(calls, goals, say,
                answer=f"One {w.L['case']} is taken care of, but it is too late to {verb} the other: its status is "
                       f"{b['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", a["id"]), ("case", b["id"])},
                refused=(act(w, b, cancel.verb), "invalid_state"))
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))


@intent("infeasible", flavours=("fulfillment", "digital", "application", "service"))
def move_two_one_locked(w: World) -> Plan | None:
    """A person would rather deal with another site and asks for two of their cases to move there: one still can
    (the agent moves it), the other is under way and can no longer change (the agent says so, naming its status).
    Not where a case is a time the person comes to."""
    if len(w.rows["site"]) < 2:
        return None
    sfk = w.fk("site")
    options = [(party, a, b, site) for party, a, b in two_cases_options(w, w.fl.editable, under_way(w))
               for site in w.rows["site"] if site["id"] not in (a[sfk], b[sfk])]
    option = w.pick(options)
    if option is None:
        return None
    party, a, b, site = option
    said, calls = _both(w, party, a, b, w.pick([a, b]))
    transfer = w.n.action("case", "transfer")
    calls = [*calls, w.find_site(site), (transfer, {w.fk("case"): a["id"], sfk: site["id"]})]
    say = Say("do", (
        "move {x} and {y} to {site}",
        "{they} would rather deal with {site} from now on || transfer {x} and {y} there",
        "hand {x} and {y} over to {site}, which suits {them} better",
        "[let|have] {site} [handle|deal with] {x} and {y} from now on || move them both there",
    ), {"x": said["x"], "y": said["y"], "site": site["name"]}, party=said["ref"], voices=BOTH)
    goals = [Goal(kind="row_equals", table=w.table("case"), pk=a["id"], expect={sfk: site["id"]}),
             w.status_answer(b["status"])]
    return Plan(calls, goals, say,
                answer=f"One {w.L['case']} is moved, but the other cannot be: its status is "
                       f"{b['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", a["id"]), ("case", b["id"])},
                refused=((transfer, {w.fk("case"): b["id"], sfk: site["id"]}), "invalid_state"))


@intent("infeasible", flavours=PURCHASES)
def add_to_two_one_locked(w: World) -> Plan | None:
    """A person wants one more item on two of their cases: one can still change (the agent adds it there), the
    other is under way and can no longer change (the agent says so, naming its status). The item is on neither
    case (no line to merge with) and no other item has its name."""
    option = w.pick(two_cases_options(w, w.fl.editable, under_way(w)))
    if option is None:
        return None
    party, a, b = option
    item = w.pick([i for i in w.rows["item"] if i["active"] and i["price"] >= 1 and unique_name(w, i)
                   and not holds(w, a, i) and not holds(w, b, i)])
    if item is None:
        return None
    qty = 1 if w.one_each else w.pick([1, 2])
    said, calls = _both(w, party, a, b, w.pick([a, b]), named=(item,))
    add = w.n.create("line")
    calls = [*calls, w.find_item(item), (add, {w.fk("case"): a["id"], w.fk("item"): item["id"], "quantity": qty})]
    say = Say("do", (
        "add {line} to both {x} and {y}",
        "{they} forgot something || put {line} on {x} and on {y} as well",
        "[include|put] {line} in both {x} and {y}",
        "{they} [need|want] a little more || add {line} to {x}, and the same to {y}",
    ), {"x": said["x"], "y": said["y"], "line": w.line_words(item, qty, "{n} x {item}")}, party=said["ref"],
        voices=BOTH)
    goals = [Goal(kind="rows_created", table=w.table("line"), count=1,
                  expect={w.fk("case"): a["id"], w.fk("item"): item["id"], "quantity": qty}),
             w.status_answer(b["status"])]
    return Plan(calls, goals, say,
                answer=f"It is added to one {w.L['case']}, but the other can no longer be changed: its status is "
                       f"{b['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", a["id"]), ("case", b["id"])},
                refused=((add, {w.fk("case"): b["id"], w.fk("item"): item["id"], "quantity": qty}), "invalid_state"))


def swap_two_options(w: World) -> list[tuple[dict, dict, dict, dict, dict, dict]]:
    """(party, the case that can still change, the case under way, the item on one line of each, the item to put
    in its place, the first case's line of it) wherever the item replacing it is offered, of the same category
    where items have one, on neither case, and no other item has either name."""
    cat, ifk = w.fk("category"), w.fk("item")
    options = []
    for party, a, b in two_cases_options(w, w.fl.editable, under_way(w)):
        for line in sorted(w.children("line", "case", a["id"]), key=lambda x: x["id"]):
            old = w.by_id("item", line[ifk])
            if not holds(w, b, old) or not unique_name(w, old):
                continue
            for new in w.rows["item"]:
                if (new["active"] and new["id"] != old["id"] and unique_name(w, new) and not holds(w, a, new)
                        and not holds(w, b, new) and (cat not in old or new.get(cat) == old[cat])):
                    options.append((party, a, b, old, new, line))
    return options


@intent("infeasible", flavours=PURCHASES)
def swap_two_one_locked(w: World) -> Plan | None:
    """A person would rather have one item than another on two of their cases that hold it: on the one that can
    still change the agent adds the new item in the same quantity and removes the old one; the other is under way
    and can no longer change (the agent says so, naming its status)."""
    option = w.pick(swap_two_options(w))
    if option is None:
        return None
    party, a, b, old, new, line = option
    said, calls = _both(w, party, a, b, w.pick([a, b]), named=(old, new))
    cfk = w.fk("case")
    other = next(x for x in w.children("line", "case", b["id"]) if x[w.fk("item")] == old["id"])
    # the new line first: a line removed first could hand its id to the new one
    calls = [*calls, w.find_item(new),
             (w.n.create("line"), {cfk: a["id"], w.fk("item"): new["id"], "quantity": line["quantity"]}),
             (w.n.delete("line"), {w.pk("line"): line["id"]})]
    say = Say("do", (
        "on {x} and on {y}, put {new} in place of {old}, keeping the quantity",
        "{they} would rather have {new} than {old} || swap it on both {x} and {y}, same quantity",
        "change {x} and {y} so that each has {new} instead of {old}, in the same quantity",
        "[replace|switch] {old} with {new} on {x}, and do the same on {y} (quantities as they are)",
    ), {"x": said["x"], "y": said["y"], "old": quote(old["name"]), "new": quote(new["name"])}, party=said["ref"],
        voices=BOTH)
    goals = [Goal(kind="rows_created", table=w.table("line"), count=1,
                  expect={cfk: a["id"], w.fk("item"): new["id"], "quantity": line["quantity"]}),
             Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]), w.status_answer(b["status"])]
    plan = Plan(calls, goals, say,
                answer=f"The swap is made on one {w.L['case']}, but the other can no longer be changed: its status "
                       f"is {b['status'].replace('_', ' ')}.",
                targets={("party", party["id"]), ("case", a["id"]), ("case", b["id"])},
                refused=((w.n.create("line"), {cfk: b["id"], w.fk("item"): new["id"],
                                               "quantity": other["quantity"]}), "invalid_state"))
    return plan.derive(w.n.create("line"), "quantity").derive(w.n.delete("line"), w.pk("line"))


@intent("infeasible", flavours=("fulfillment",), item="refundable")
def return_two_one_too_late(w: World) -> Plan | None:
    """A person sends back two delivered cases for a refund: one was placed inside the return window (the agent
    records its return and refunds what was captured on it), the other before the window opened (the agent says
    so, naming the date it was placed)."""
    back = w.fl.action("return")
    days = back.window_days or 30
    cutoff = (REFERENCE_NOW - timedelta(days=days)).isoformat()
    options = [(party, a, b) for party, a, b in two_cases_options(w, back.sources, back.sources)
               if a["placed_at"] >= cutoff > b["placed_at"] and captured(w, a) and captured(w, b)
               and a["placed_at"][:10] != b["placed_at"][:10]]
    option = w.pick(options)
    if option is None:
        return None
    party, a, b = option
    said, calls = _both(w, party, a, b, w.pick([a, b]))
    reason = w.pick(list(RETURN_REASONS))
    acted, done = act_and_refund(w, a, "return", back.target, reason)
    calls = [*calls, *acted]
    say = Say("do", (
        "take back {x} and {y} as returns and refund what {they} paid on them (reason: {reason})",
        "[{they_are} sending|{they} want to send] back {x} and {y} || record both returns and refund each captured "
        "{PAYMENT} with the reason {reason}",
        "process the return of {x} and of {y}, and give back every captured {PAYMENT} on them, reason {reason}",
        "[neither|none of] {x} [nor|or] {y} worked out for {them} || [record|log] the returns and refund [them|what "
        "was paid] (reason: {reason})",
    ), {"x": said["x"], "y": said["y"], "reason": quote(reason)}, party=said["ref"], voices=BOTH)
    goals = [*done, w.text_answer(b["placed_at"][:10], [])]
    plan = Plan(calls, goals, say,
                answer=f"One {w.L['case']} is returned and refunded, but the other was placed on "
                       f"{b['placed_at'][:10]}, more than {days} days ago, so its return window has closed.",
                targets={("party", party["id"]), ("case", a["id"]), ("case", b["id"])},
                refused=(act(w, b, "return"), "window_closed"))
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment"))
