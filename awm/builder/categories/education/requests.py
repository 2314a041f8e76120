"""Requests about the education category's own entities (awm/builder/modules/packs/education.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import (
    call_off_day,
    define,
    follow_up_booking,
    note_every_open_case,
    notify_item_holders,
    reroute_to_quietest_site,
    split_invoice,
)
from awm.builder.phrasing import Say
from awm.contracts import Goal


def _on_hold(w: World, party: dict) -> dict | None:
    if not w.has("registration_hold"):
        return None
    return next((h for h in w.children("registration_hold", "party", party["id"]) if h["status"] == "active"), None)


@intent("action", categories=("education",), needs=("section",))
def edu_enrol_in_section(w: World) -> Plan | None:
    sections = [s for s in w.rows["section"] if s["status"] == "open" and s["enrolled"] < s["capacity"]]
    section = w.pick(sections)
    if section is None:
        return None
    taken = {e[w.fk("party")] for e in w.children("enrolment", "section", section["id"])}
    party = w.pick([p for p in w.active_parties() if p["id"] not in taken and _on_hold(w, p) is None])
    if party is None:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("section"), {"code": section["code"]}),
             (w.n.create("enrolment"), {w.fk("party"): party["id"], w.fk("section"): section["id"]})]
    goals = [Goal(kind="rows_created", table=w.table("enrolment"), count=1, expect={
                 w.fk("party"): party["id"], w.fk("section"): section["id"], "status": "enrolled"}),
             Goal(kind="row_delta", table=w.table("section"), pk=section["id"], column="enrolled", delta=1)]
    say = Say("do", (
        "enrol {them} in {SECTION} {code}",
        "{they} would like a seat in {SECTION} {code} || enrol {them}",
    ), {"code": section["code"]}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("section", section["id"])})


@intent("infeasible", categories=("education",), needs=("section", "registration_hold"))
def edu_enrol_while_on_hold(w: World) -> Plan | None:
    options = [(p, _on_hold(w, p)) for p in w.active_parties()]
    pick = w.pick([(p, h) for p, h in options if h is not None])
    section = w.pick([s for s in w.rows["section"] if s["status"] == "open"])
    if pick is None or section is None:
        return None
    party, hold = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "enrol {them} in {SECTION} {code}",
        "sign {them} up for {SECTION} {code}",
    ), {"code": section["code"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("registration_hold"), {w.fk("party"): party["id"], "status": "active"})],
                [w.text_answer(hold["reason"], ["unpaid_fees", "missing_documents", "advising_required",
                                                "conduct_review"])], say,
                answer=f"There is an active {w.L['registration_hold']} on the record ({hold['reason']}), so no "
                       "enrolment can be made until it is lifted.", targets={("party", party["id"])},
                refused=((w.n.create("enrolment"), {w.fk("party"): party["id"], w.fk("section"): section["id"]}),
                         "on_hold"))


@intent("action", categories=("education",), needs=("transcript_request",))
def edu_send_transcript(w: World) -> Plan | None:
    options = []
    for t in w.rows["transcript_request"]:
        party = active_party(w, t)
        unpaid = party is not None and (h := _on_hold(w, party)) is not None and h["reason"] == "unpaid_fees"
        mine = [x for x in w.children("transcript_request", "party", t[w.fk("party")]) if x["status"] == "requested"]
        if t["status"] == "requested" and party is not None and not unpaid and len(mine) == 1:
            options.append((t, party))
    pick = w.pick(options)
    if pick is None:
        return None
    request, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("transcript_request"), {w.fk("party"): party["id"], "status": "requested"}),
             (w.n.action("transcript_request", "mail"), {w.pk("transcript_request"): request["id"]})]
    goal = Goal(kind="row_equals", table=w.table("transcript_request"), pk=request["id"],
                expect={"status": "sent", "sent_on": TODAY})
    say = Say("do", (
        "send {their} pending transcript to {destination}",
        "{their} {TRANSCRIPT_REQUEST} for {destination} is waiting || send it today",
    ), {"destination": request["destination"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------


@intent("chained", categories=("education",))
def edu_sibling_enrolment(w: World) -> Plan | None:
    """A new person registered with the phone and city of an existing one (learnt from their record), and a case
    opened for them at the site of the existing person's latest case."""
    items = [i for i in w.rows["item"] if i["active"]]
    options = [p for p in w.active_parties("case")
               if sum(c["created_at"] == max(x["created_at"] for x in w.party_cases(p)) for c in w.party_cases(p)) == 1]
    if not options or not items:
        return None
    sibling = w.pick(options)
    latest = max(w.party_cases(sibling), key=lambda c: c["created_at"])
    item = w.pick(items)
    first = w.pick(["Lily", "Noah", "Ava", "Ethan", "Mia", "Leo", "Zoe", "Max", "Isla", "Sam"])
    email = f"{first}.{sibling['last_name']}@{sibling['email'].split('@')[1]}".lower().replace("'", "").replace(" ", "")
    if email in {p["email"] for p in w.rows["party"]}:
        return None
    ref = w.party_ref(sibling)
    party_id, case_id = len(w.rows["party"]) + 1, len(w.rows["case"]) + 1
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): sibling["id"]}),
             (w.n.create("party"), {"first_name": first, "last_name": sibling["last_name"], "email": email,
                                    "phone": sibling["phone"], "city": sibling["city"]}),
             w.find_item(item),
             (w.n.create("case"), {w.fk("party"): party_id, w.fk("site"): latest[w.fk("site")]}),
             (w.n.create("line"), {w.fk("case"): case_id, w.fk("item"): item["id"], "quantity": 1})]
    goals = [Goal(kind="rows_created", table=w.table("party"), count=1,
                  expect={"first_name": first, "last_name": sibling["last_name"], "email": email,
                          "phone": sibling["phone"], "city": sibling["city"]}),
             Goal(kind="rows_created", table=w.table("case"), count=1,
                  expect={w.fk("party"): party_id, w.fk("site"): latest[w.fk("site")]},
                  child_table=w.table("line"), child_fk=w.fk("case"), children=[{w.fk("item"): item["id"],
                                                                                  "quantity": 1}])]
    say = Say("do", (
        "register {first} {last}, a sibling of {party}, with the email {email} and the same phone and city as "
        "{them}, then open {a CASE} for {first} with {item} at the {SITE} of {their} latest {CASE}",
        "{party} would like to enrol a sibling too || create a record for {first} {last} ({email}) using "
        "{their} phone and city, and start {a CASE} for {item} at the same {SITE} as {their} most recent one",
        "[add|register] {first} {last} ({email}) [as a brother or sister of|as a sibling of] {party} || copy the "
        "phone and city from {their} record, then [open|start] {a CASE} for {item} at the {SITE} where {their} "
        "newest {CASE} is",
        "[the family of|the household of] {party} has a second [child|member] to sign up, {first} {last} || "
        "create that record with {email} and the same phone and city, and open {a CASE} for {first} ({item}) "
        "at the {SITE} of {their} latest {CASE}",
    ), {"first": first, "last": sibling["last_name"], "email": email, "item": w.line_words(item, 1)}, party=ref)
    plan = Plan(calls, goals, say, targets={("party", sibling["id"])})
    return plan.derive(w.n.create("party"), "phone").derive(w.n.create("party"), "city")
define("edu_tuition_installments", "chained", ("education", "professional_services"), lambda w: split_invoice(w, (
    "split {inv} into two installments: void it and issue two {INVOICE/pl} to the same {PARTY} for the same "
    "{CASE}, half each (the second takes any odd cent), due on {d1} and {d2}",
    "the family asked to pay {inv} in two parts || void it and raise two new {INVOICE/pl} for half the amount "
    "each, due {d1} and {d2}, with any odd cent on the second",
    "[turn|convert] {inv} into two installments || [void|cancel] the original and bill the same {PARTY} for the "
    "same {CASE} twice: half due {d1}, the rest due {d2}",
    "[let|allow] {inv} to be paid in halves: [issue|create] one {INVOICE} for half due {d1} and one for the "
    "remainder due {d2}, both for the same {PARTY} and {CASE}, then void the original",
)), needs=("invoice",))
define("edu_learning_plan_note", "aggregate", ("education",), lambda w: note_every_open_case(
    w, ("Needs extra time in assessments", "Learning plan on file", "Requires accessible seating"), (
        "add the note {note} to every {CASE} of {theirs} that is {open}",
        "{they_have} a new learning plan || put the note {note} on each of {their} {open} {CASE/pl}",
    )))
define("edu_tutoring_follow_up", "chained", ("education",), lambda w: follow_up_booking(w, 7, (
    "book a follow-up {CASE} for {item} {days} after {their} next one, at the same time with the same {STAFF} "
    "and {SITE}",
    "{they} would like a weekly rhythm || set up another {CASE} for {item} exactly {days} after the next one "
    "{they_have} booked, same time, same {STAFF}, same {SITE}",
)), flavours=("appointment",))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("edu_schedule_change_notice", "aggregate", ("education",), lambda w: notify_item_holders(
    w, ("New schedule for {item}", "Schedule change: {item}"), (
        "the schedule for {item} has changed || let every {PARTY} with {a CASE} that is {open} and includes it "
        "know by {channel}, subject {subject}",
        "send {a via} {NOTIFICATION} with the subject {subject} to each {PARTY} whose {CASE} ({open}) includes {item}",
    )), needs=("notification",))


# a site closed for a day: its bookings that day cancelled, refunded and their people told (shapes.call_off_day)
define("edu_centre_closed_day", "aggregate", ("education",), lambda w: call_off_day(
    w, ("Cancelled: staff training day", "Cancelled: centre closed"), (
        "{site} is closed on {long} for a staff training day || cancel each {CASE} there that day that can still "
        "be cancelled, with the note {note}",
        "cancel the cancellable {CASE/pl} at {site} on {date}, noting {note} on each",
    )), flavours=("appointment", "reservation"))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("edu_centre_at_capacity", "chained", ("education",), lambda w: reroute_to_quietest_site(
    w, ("Moved: centre at capacity", "Moved to a quieter centre"), (
        "{site} has no free rooms || move {CASE} {code} to the other {SITE} with the fewest {open} {CASE/pl}, "
        "noting {note}",
        "transfer {CASE} {code} from {site} to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "and add the note {note}",
    )), flavours=("appointment",))
