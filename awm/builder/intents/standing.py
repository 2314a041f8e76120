"""Requests whose one goal spans several records, as a person writes them in one message. A person's own: "I'm
moving to Omaha: change my city, make 12 Elm Street my home address and move my orders that are still pending or
confirmed to your Omaha branch", "the kettle on my order was a letdown: take it back, refund me and post my 1-star
review of it", "I've had enough of my booking BOO-1012: log a complaint, cancel it and refund me". A member of
staff's: "the Omaha branch can no longer offer the kettle: cancel every open order there that holds it, refund
them and email each customer", "the Omaha branch is closing for a few weeks: move its open orders to Lincoln, noted,
and email each customer", "Ann is on leave from today: hand her open orders to the least busy colleague at her
branch, noted". The agent finds what the goal is about, reads what it must act on (which cases can still move or be
cancelled, which colleague holds the fewest) and makes every write the goal needs; the depth comes from the goal
itself, never from a second, unrelated request.

Each is planned only where the goal means several writes the agent must find (two or more cases to move, payments to
refund) and one answer is right (the site by its city alone, the least busy colleague strictly least busy, the cases
of distinct people where each is told). A person's own requests make only writes a person may ask for about their
own record."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents.base import BOTH, STAFF_ONLY, Plan, World, intent, or_words
from awm.builder.intents.people import postal_code, street_address
from awm.builder.intents.steps import act, add_note, captured, get_case, holds, notify, refund, status_goal, unique_name
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal

STANDING_INTENTS = ("move_city_and_cases", "return_and_review", "cancel_with_complaint", "withdraw_item_at_site",
                    "close_site_move_cases", "hand_over_to_least_busy")


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


def new_city(w: World, party: dict, city: str, slots: dict) -> tuple[list, list[Goal], str]:
    """The writes of a person's move to `city`: their city set and, where the business keeps addresses and its
    customers are people (an organisation has no home), a primary home address there (its street and postal code
    added to `slots`). Returns the calls, their goals and the words asking for the address ("" where none is
    added)."""
    pfk = w.fk("party")
    calls = [(w.n.change("party", "update", "contact"), {w.pk("party"): party["id"], "city": city})]
    goals = [Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"city": city})]
    if not w.has("address") or w.organisation:
        return calls, goals, ""
    street, postal = street_address(w), postal_code(w)
    calls += [(w.n.list("address"), {pfk: party["id"]}),
              (w.n.create("address"), {pfk: party["id"], "kind": "home", "street": street, "city": city,
                                       "postal_code": postal, "is_primary": True})]
    goals.append(Goal(kind="rows_created", table=w.table("address"), count=1,
                      expect={pfk: party["id"], "kind": "home", "street": street, "city": city,
                              "postal_code": postal, "is_primary": 1}))
    slots.update(street=street, postal=postal)
    return calls, goals, (", [make {street}, {city} {postal} {their} primary home {ADDRESS}|add {street}, {city} "
                          "{postal} as {their} primary home {ADDRESS}]")


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
    slots = {"city": city, "open": or_words(w.fl.editable)}
    moved, goals, home = new_city(w, party, city, slots)
    calls = [w.find_party(ref), *moved]
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


def return_review_options(w: World, inside: bool = True) -> list[tuple[dict, dict]]:
    """(case, an item on it) wherever the case, of an active person, was delivered inside the return window (or,
    `inside=False`, before it opened) and has something captured on it, and no other item has the item's name."""
    back = w.fl.action("return")
    cutoff = (REFERENCE_NOW - timedelta(days=back.window_days or 30)).isoformat()
    options = []
    for case in w.rows["case"]:
        if (case["status"] not in back.sources or (case["placed_at"] >= cutoff) != inside or not captured(w, case)
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


def _email_each(w: World, cases: list[dict], subjects: list[str], body: str, calls: list, goals: list,
                slots: dict) -> str:
    """Where the business sends messages: an email to the person of each case, with a subject of `subjects` the
    request states (the calls and goals appended, the subject slotted); the request's words asking for it, or ""
    where the business sends none."""
    if not w.has("notification"):
        return ""
    subject = w.pick(subjects)
    for case in cases:
        call, goal = notify(w, w.party_of(case), "email", subject, body)
        calls.append(call)
        goals.append(goal)
    slots["subject"] = quote(subject)
    return ("[, and email the {PARTY} of each one with the subject {subject}|, and [let each {PARTY} know|tell each {PARTY}] "
            "by email, subject {subject}|; [then |]email [each {PARTY}|every {PARTY} concerned] with the subject "
            "{subject}]")


# --- an item no longer offered at one site: every case there still open that holds it cancelled, refunded, told ---

WITHDRAW_REASONS = ("no longer available here", "withdrawn at this location")


def withdraw_options(w: World) -> list[tuple[dict, dict, list[dict]]]:
    """(item, site, the cases at the site that hold the item and can still be cancelled, by id) wherever the item is
    offered, no other item has its name, two or three such cases are of distinct active people (one message each, to
    the person of each case) and another case holds the item elsewhere or can no longer be cancelled (the site and
    the status both decide which)."""
    options = []
    for item in w.rows["item"]:
        if not item["active"] or not unique_name(w, item):
            continue
        holding = [c for c in w.rows["case"] if holds(w, c, item)]
        for site in w.rows["site"]:
            cancelling = sorted((c for c in holding if c[w.fk("site")] == site["id"]
                                 and c["status"] in w.fl.cancel.sources), key=lambda c: c["id"])
            people = {w.party_of(c)["id"] for c in cancelling}
            if (2 <= len(cancelling) <= 3 and len(people) == len(cancelling) and len(holding) > len(cancelling)
                    and all(w.party_of(c)["status"] == "active" for c in cancelling)):
                options.append((item, site, cancelling))
    return options


@intent("chained", item="refundable")
def withdraw_item_at_site(w: World) -> Plan | None:
    """A site can no longer offer an item: the agent finds the item and the site, lists the lines that hold the item
    and the site's cases, cancels every case there that holds it and can still be cancelled, refunds what was
    captured on those and (where the business sends messages) tells each of their people by email with the subject
    the request gives."""
    option = w.pick(withdraw_options(w))
    if option is None:
        return None
    item, site, cancelling = option
    cancel = w.fl.cancel
    reason = w.pick(list(WITHDRAW_REASONS))
    calls = [w.find_item(item), w.find_site(site), (w.n.list("line"), {w.fk("item"): item["id"], "limit": 100}),
             (w.n.list("case"), {w.fk("site"): site["id"], "limit": 100})]
    goals = []
    for case in cancelling:
        refunds = [refund(w, p, reason) for p in captured(w, case)]
        calls += [act(w, case, cancel.verb), *(call for call, _ in refunds)]
        goals += [status_goal(w, case, cancel.target), *(goal for _, goal in refunds)]
    slots = {"item": quote(item["name"]), "site": site["name"], "cancel": cancel.verb.replace("_", " "),
             "open": or_words(cancel.sources), "reason": quote(reason)}
    tell = _email_each(w, cancelling, [f"Your {w.L['case']} was {cancel.target}", f"About your {w.L['case']}"],
                       f"{item['name']} is no longer available.", calls, goals, slots)
    slots["cancelled"] = cancel.target.replace("_", " ")
    say = Say("do", (
        "{site} [can no longer offer|has stopped offering|no longer has] {item} || [go through|work through|check] "
        "every {CASE} there that [holds|includes|has] it and is still {open}: {cancel} it and [refund|give back] "
        "what was captured on it [with the reason|giving the reason|, reason] {reason}" + tell,
        "[find|look up|pull up] each {CASE} at {site} that [holds|includes] {item} and is still {open}, {cancel} it "
        "and refund its captured {PAYMENT/pl} (reason: {reason}), [since|as|because] {item} is no longer "
        "[available|offered] there" + tell,
        "{item} is no longer [available|on offer|offered] at {site} || for [every|each] {CASE} there that "
        "[holds|includes] it and is still {open}, {cancel} the {CASE} and [refund|pay back] each captured {PAYMENT} "
        "[with the reason|giving the reason] {reason}" + tell,
        "[we have|we've] [withdrawn|pulled|stopped offering] {item} at {site} || [track down|look up] [every|each] "
        "{CASE} there that [holds|includes] it and is still {open}, then {cancel} [each of them|them all] and refund "
        "[their|the] captured {PAYMENT/pl} ([reason|refund reason]: {reason})" + tell,
        "[clear out|sort out] the {CASE/pl} at {site} that [still include|include|hold] {item}, which "
        "[is|has been] withdrawn there: [each one|every one] still {open} [gets|is to get] {cancelled}, with its "
        "captured {PAYMENT/pl} refunded [with the reason|under the reason] {reason}" + tell,
    ), slots, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={("item", item["id"]), *(("case", c["id"]) for c in cancelling),
                                            *(("party", w.party_of(c)["id"]) for c in cancelling)})
    plan.derive(w.n.action("case", cancel.verb), w.fk("case")).derive(w.n.action("payment", "refund"), w.pk("payment"))
    return plan.derive(w.n.create("notification"), w.fk("party")) if w.has("notification") else plan


# --- a site closing for a while: every case there that can still change moved to another, noted and told ----------

CLOSING_NOTES = ("Moved while the site is closed", "Transferred: site closing", "Site closed; moved here")


def closing_options(w: World) -> list[tuple[dict, list[dict]]]:
    """(site, its cases that can still change, by id) wherever there are two or three such cases, of distinct
    active people, and the site's other cases can no longer change (so which ones move is read off their status)."""
    options = []
    for site in w.rows["site"]:
        there = [c for c in w.rows["case"] if c[w.fk("site")] == site["id"]]
        moving = sorted((c for c in there if c["status"] in w.fl.editable), key=lambda c: c["id"])
        people = {w.party_of(c)["id"] for c in moving}
        if (2 <= len(moving) <= 3 and len(people) == len(moving) and len(there) > len(moving)
                and all(w.party_of(c)["status"] == "active" for c in moving)):
            options.append((site, moving))
    return options


@intent("chained")
def close_site_move_cases(w: World) -> Plan | None:
    """A site closes for a while: the agent finds it and the site its cases go to, lists its cases, moves every one
    that can still change to the other site, leaves the note the request gives on each and (where the business sends
    messages) tells each of their people by email with the subject the request gives."""
    option = w.pick(closing_options(w)) if len(w.rows["site"]) >= 2 else None
    if option is None:
        return None
    site, moving = option
    other = w.pick([s for s in w.rows["site"] if s["id"] != site["id"]])
    note = w.pick(list(CLOSING_NOTES))
    sfk = w.fk("site")
    calls = [w.find_site(site), w.find_site(other), (w.n.list("case"), {sfk: site["id"], "limit": 100})]
    goals = []
    for case in moving:
        note_call, note_goal = add_note(w, case, note)
        calls += [(w.n.action("case", "transfer"), {w.fk("case"): case["id"], sfk: other["id"]}), note_call]
        goals += [Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={sfk: other["id"]}), note_goal]
    slots = {"site": site["name"], "other": other["name"], "open": or_words(w.fl.editable), "note": quote(note)}
    tell = _email_each(w, moving, [f"Your {w.L['case']} has moved", f"A change to your {w.L['case']}"],
                       f"It is now handled at {other['name']}.", calls, goals, slots)
    say = Say("do", (
        "{site} is closing for [a few weeks|a while|some weeks] || [move|transfer] every {CASE} there that is still "
        "{open} to {other}, with the note {note} on each" + tell,
        "[transfer|move|shift] each {CASE} at {site} that is still {open} over to {other}, [since|as|because] "
        "{site} is closing for a while, and [add|put] the note {note} [to|on] each of them" + tell,
        "we are [shutting|closing] {site} for [refurbishment|repairs|a refit] || hand every {CASE} there that is "
        "still {open} over to {other} and note {note} on [each one|each of them]" + tell,
        "[with {site} closing|now that {site} is closing] for [a few weeks|a while], {other} [takes over|will "
        "handle] its {CASE/pl} || [move|reassign] [the ones|those] still {open} there, [noting|with the note] "
        "{note} on each" + tell,
        "[relocate|move] [all of|every one of] {site}'s {CASE/pl} that [are|remain] {open} to {other} [for the "
        "time being|while {site} is closed] and [note {note} on each|mark each with the note {note}]" + tell,
    ), slots, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={("site", site["id"]), *(("case", c["id"]) for c in moving),
                                            *(("party", w.party_of(c)["id"]) for c in moving)})
    plan.derive(w.n.action("case", "transfer"), w.fk("case")).derive(w.n.create("note"), w.fk("case"))
    return plan.derive(w.n.create("notification"), w.fk("party")) if w.has("notification") else plan


# --- a member of staff going on leave: their open cases handed to the least busy colleague, each noted ----------

HANDOVER_NOTES = ("Handed over: colleague on leave", "Reassigned during leave", "Covering while colleague is away")


def handover_options(w: World) -> list[tuple[dict, list[dict], dict]]:
    """(member going on leave, their open cases by id, the active colleague at their site holding strictly the
    fewest open cases, fewer than the member) wherever the member holds two or three open cases, each of a status
    the assign tool takes."""
    from awm.builder.intents.lifecycle import _assignable, _least_busy

    options = []
    for member in w.staff_pool():
        held = sorted(w.open_cases(member["id"]), key=lambda c: c["id"])
        if not 2 <= len(held) <= 3 or any(c["status"] not in _assignable(w) for c in held):
            continue
        least = _least_busy(w, member[w.fk("site")], but=member["id"])
        if least is not None and w.unique_person("staff", least[1]) and len(w.open_cases(least[1]["id"])) < len(held):
            options.append((member, held, least[1]))
    return options


@intent("chained")
def hand_over_to_least_busy(w: World) -> Plan | None:
    """A member of staff goes on leave: the agent finds them and their open cases, lists the active staff of their
    site and each one's open cases, assigns every one of the member's open cases to the colleague holding the fewest
    and leaves the note the request gives on each."""
    option = w.pick(handover_options(w))
    if option is None:
        return None
    member, held, heir = option
    stfk = w.fk("staff")
    note = w.pick(list(HANDOVER_NOTES))
    site = w.by_id("site", member[w.fk("site")])
    colleagues = [s for s in w.rows["staff"] if s["active"] and s["id"] != member["id"] and s[w.fk("site")] == site["id"]]
    calls = [w.find_staff(member), (w.n.list("case"), {stfk: member["id"]}),
             (w.n.list("staff"), {w.fk("site"): site["id"]}),
             *((w.n.list("case"), {stfk: s["id"]}) for s in colleagues)]
    goals = []
    for case in held:
        note_call, note_goal = add_note(w, case, note)
        calls += [(w.n.action("case", "assign"), {w.fk("case"): case["id"], stfk: heir["id"]}), note_call]
        goals += [Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={stfk: heir["id"]}), note_goal]
    say = Say("do", (
        "{leaver} is [off on leave|away on leave|on leave] from today || hand every {CASE} of theirs that is {open} "
        "to the other active {STAFF} at their {SITE} who has the fewest {open} {CASE/pl} right now, and note {note} "
        "on each",
        "[find|work out] the active colleague at {leaver}'s {SITE} carrying the fewest {CASE/pl} that are {open}, "
        "give them all of {leaver}'s {open} {CASE/pl} while {leaver} is [on leave|away], and [add|put] the note "
        "{note} [to|on] each one",
        "[cover|arrange cover] for {leaver}, who starts [leave|a leave of absence] today: every {CASE} of theirs "
        "still {open} goes to whichever other active {STAFF} at the same {SITE} [holds|has] the fewest {open} "
        "{CASE/pl}, with the note {note} on it",
        "[while|as long as] {leaver} is [on leave|away], [the least busy|the least loaded] of the other active "
        "{STAFF/pl} at their {SITE} (the fewest {CASE/pl} {open}) [takes|should take] over [each|every] {CASE} of "
        "theirs that is {open} || [reassign|move] them and [note|record] {note} on each",
        "[reassign|redistribute] {leaver}'s {open} {CASE/pl}, since {leaver} [starts leave|is going on leave] today: "
        "[all of them|every one] to the colleague at the same {SITE} with the [smallest|lightest] load of {open} "
        "{CASE/pl}, [each noted|each with the note] {note}",
    ), {"leaver": w.person(member), "open": or_words(w.fl.open), "note": quote(note)}, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={("staff", member["id"]), ("staff", heir["id"]),
                                            *(("case", c["id"]) for c in held)})
    return plan.derive(w.n.action("case", "assign"), stfk).derive(w.n.action("case", "assign"), w.fk("case"))
