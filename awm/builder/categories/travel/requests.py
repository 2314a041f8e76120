"""Requests about the travel category's own entities (awm/builder/modules/packs/travel.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.travel.entities import VALIDITY_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import call_off_day, define, notify_item_holders
from awm.builder.intents.steps import add_note, get_case, status_goal
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal


def _documents(w: World, valid: bool) -> list[tuple[dict, dict]]:
    cutoff = (datetime.fromisoformat(TODAY) + timedelta(days=VALIDITY_DAYS)).date().isoformat()
    return [(d, p) for d in w.rows["travel_document"] if d["status"] == "pending" and d["expires_on"] != cutoff
            and (d["expires_on"] > cutoff) == valid and (p := active_party(w, d)) is not None]


@intent("action", categories=("travel",), needs=("travel_document",))
def travel_verify_document(w: World) -> Plan | None:
    pick = w.pick(_documents(w, valid=True))
    if pick is None:
        return None
    doc, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("travel_document"), {w.fk("party"): party["id"],
                                                               "document_number": doc["document_number"]}),
             (w.n.action("travel_document", "verify"), {w.pk("travel_document"): doc["id"]})]
    goal = Goal(kind="row_equals", table=w.table("travel_document"), pk=doc["id"], expect={"status": "verified"})
    say = Say("do", (
        "verify {their} {kind} {number}",
        "{their} {kind} {number} has been checked || mark the {TRAVEL_DOCUMENT} as verified",
    ), {"kind": doc["kind"].replace("_", " "), "number": doc["document_number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("travel_document", doc["id"])})


@intent("infeasible", categories=("travel",), needs=("travel_document",))
def travel_verify_expiring_document(w: World) -> Plan | None:
    pick = w.pick(_documents(w, valid=False))
    if pick is None:
        return None
    doc, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "verify {their} {kind} {number}",
        "mark {their} {kind} {number} as verified",
    ), {"kind": doc["kind"].replace("_", " "), "number": doc["document_number"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("travel_document"), {w.fk("party"): party["id"],
                                                                   "document_number": doc["document_number"]})],
                [w.text_answer(doc["expires_on"][:10], [])], say,
                answer=f"A document must stay valid at least {VALIDITY_DAYS} days from today to be verified; this one "
                       f"expires on {doc['expires_on'][:10]}.", targets={("travel_document", doc["id"])},
                refused=((w.n.action("travel_document", "verify"), {w.pk("travel_document"): doc["id"]}),
                         "expires_too_soon"))


@intent("action", categories=("travel",), needs=("special_request",))
def travel_special_meal(w: World) -> Plan | None:
    kind = w.pick(["special_meal", "wheelchair", "extra_bag"])
    cases = [c for c in w.rows["case"] if c["status"] != "cancelled" and active_party(w, c) is not None
             and not any(r["kind"] == kind and r["status"] != "declined"
                         for r in w.children("special_request", "case", c["id"]))]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("special_request"), {w.fk("case"): case["id"], "kind": kind})]
    goal = Goal(kind="rows_created", table=w.table("special_request"), count=1,
                expect={w.fk("case"): case["id"], "kind": kind, "status": "requested"})
    say = Say("do", (
        "note {a SPECIAL_REQUEST} of the kind {kind} on {case}",
        "{they} will need {words} || add a request of the kind {kind} to {case}",
    ), {"kind": kind, "case": case_np, "words": {"special_meal": "a special meal", "wheelchair": "wheelchair help",
                                                 "extra_bag": "an extra bag"}[kind]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("aggregate", categories=("travel",), needs=("segment",))
def travel_confirm_waitlisted(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        waiting = [s for s in w.children("segment", "case", case["id"]) if s["status"] == "waitlisted"]
        if waiting and case["status"] != "cancelled":
            options.append((case, waiting))
    pick = w.pick(options)
    if pick is None:
        return None
    case, waiting = pick
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("segment"), {w.fk("case"): case["id"],
                                                                                "status": "waitlisted"}),
             *[(w.n.action("segment", "confirm"), {w.pk("segment"): s["id"]}) for s in waiting]]
    goals = [Goal(kind="row_equals", table=w.table("segment"), pk=s["id"], expect={"status": "confirmed"})
             for s in waiting]
    say = Say("do", (
        "space opened up || confirm every waitlisted {SEGMENT} of {CASE} {code}",
        "confirm all the waitlisted {SEGMENT/pl} on {CASE} {code}",
    ), {"code": case["code"]})
    return Plan(calls, goals, say, targets={("case", case["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------


@intent("action", categories=("travel", "transportation"), flavours=("reservation", "appointment"))
def travel_rebook_next_day(w: World) -> Plan | None:
    """A booking moved to the same time on the next day, with a note saying why."""
    action = w.fl.action("reschedule")
    tc = w.fl.time_column
    case = w.pick([c for c in w.rows["case"] if c["status"] in action.sources and c[tc] > TODAY
                   and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    when = (datetime.fromisoformat(case[tc]) + timedelta(days=1)).isoformat()
    note = w.pick(("Rebooked: original departure cancelled", "Moved one day at the traveller's request",
                   "Rebooked after a weather delay"))
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), (w.n.action("case", "reschedule"), {w.fk("case"): case["id"], tc: when}),
             note_call]
    say = Say("do", (
        "move {case} to the same time on the following day and add the note {note}",
        "{their} original slot fell through || push {case} back by exactly one day, same time, and note {note}",
    ), {"case": case_np, "note": quote(note)}, party=ref, voices=BOTH)
    goals = [status_goal(w, case, action.target, **{tc: {"prefix": when[:16]}}), note_goal]
    return Plan(calls, goals, say, targets={("case", case["id"])}).derive(w.n.action("case", "reschedule"), tc)


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("travel_schedule_change_notice", "aggregate", ("travel",), lambda w: notify_item_holders(
    w, ("Schedule change: {item}", "Important change to {item}"), (
        "{item} has a schedule change || notify every {PARTY} with {a CASE} that is {open} and includes it, by "
        "{channel}, subject {subject}",
        "let each {PARTY} whose {CASE} ({open}) includes {item} know about the schedule change, by {channel}, "
        "subject {subject}",
    )), needs=("notification",))


# a site closed for a day: its bookings that day cancelled, refunded and their people told (shapes.call_off_day)
define("travel_weather_cancellations", "aggregate", ("travel",), lambda w: call_off_day(
    w, ("Cancelled: severe weather", "Cancelled: site closed"), (
        "severe weather has closed {site} on {long} || cancel every {CASE} there that day that can still be "
        "cancelled, noting {note} on each",
        "cancel all the {CASE/pl} at {site} on {date} that can still be cancelled, each with the note {note}",
    )), flavours=("appointment", "reservation"))
