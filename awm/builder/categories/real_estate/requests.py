"""Requests about the real estate category's own entities (awm/builder/modules/packs/real_estate.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.real_estate.entities import NOTICE_DAYS
from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import call_off_day, define, follow_up_booking, notify_item_holders, ticket_for_case
from awm.builder.phrasing import Say
from awm.contracts import Goal


def _month_end(after: str) -> str:
    d = datetime.fromisoformat(after) + timedelta(days=1)
    while (d + timedelta(days=1)).month == d.month:
        d += timedelta(days=1)
    return d.date().isoformat()


@intent("action", categories=("real_estate",), needs=("lease",))
def realestate_give_notice(w: World) -> Plan | None:
    earliest = (datetime.fromisoformat(TODAY) + timedelta(days=NOTICE_DAYS)).date().isoformat()
    end = _month_end(earliest)
    lease = w.pick([x for x in w.rows["lease"] if x["status"] == "active" and x["ends_on"] > end and active_party(w, x)])
    if lease is None:
        return None
    ref = w.party_ref(w.party_of(lease))
    calls = [w.find_party(ref), (w.n.list("lease"), {w.fk("party"): lease[w.fk("party")]}),
             (w.n.action("lease", "terminate"), {w.pk("lease"): lease["id"], "ends_on": end})]
    goal = Goal(kind="row_equals", table=w.table("lease"), pk=lease["id"], expect={"status": "terminated", "ends_on": end})
    say = Say("do", (
        "{they_are} moving out || end {LEASE} {number} on {end}",
        "terminate {their} {LEASE} {number} with effect from {end}",
    ), {"number": lease["number"], "end": end}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("lease", lease["id"])})


@intent("infeasible", categories=("real_estate",), needs=("lease",))
def realestate_short_notice(w: World) -> Plan | None:
    lease = w.pick([x for x in w.rows["lease"] if x["status"] == "active" and active_party(w, x)])
    if lease is None:
        return None
    end = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([7, 10, 14]))).date().isoformat()
    if end >= lease["ends_on"]:
        return None
    ref = w.party_ref(w.party_of(lease))
    say = Say("do", (
        "end {LEASE} {number} on {end}",
        "{they} want to leave early || terminate {LEASE} {number} as of {end}",
    ), {"number": lease["number"], "end": end}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("lease"), {w.fk("party"): lease[w.fk("party")]})],
                [w.number_answer(NOTICE_DAYS)], say,
                answer=f"A lease can only end at least {NOTICE_DAYS} days after notice is given.",
                targets={("lease", lease["id"])},
                refused=((w.n.action("lease", "terminate"), {w.pk("lease"): lease["id"], "ends_on": end}),
                         "notice_too_short"))


@intent("action", categories=("real_estate",), needs=("repair_request",))
def realestate_schedule_repair(w: World) -> Plan | None:
    request = w.pick([r for r in w.rows["repair_request"] if r["status"] == "open" and active_party(w, r)])
    member = w.pick(w.staff_pool())
    if request is None or member is None:
        return None
    when = f"2025-06-0{w.pick([2, 3, 4])}T{w.pick(['09', '11', '14'])}:00:00"
    ref = w.party_ref(w.party_of(request))
    calls = [w.find_party(ref), (w.n.list("repair_request"), {w.fk("party"): request[w.fk("party")], "status": "open"}),
             w.find_staff(member),
             (w.n.action("repair_request", "schedule"), {w.pk("repair_request"): request["id"],
                                                         w.fk("staff"): member["id"], "scheduled_for": when})]
    goal = Goal(kind="row_equals", table=w.table("repair_request"), pk=request["id"],
                expect={"status": "scheduled", w.fk("staff"): member["id"], "scheduled_for": {"prefix": when[:16]}})
    say = Say("do", (
        "send {staff} to fix {their} {kind} problem on {long} at {time}",
        "schedule {their} open {kind} {REPAIR_REQUEST} with {staff} for {long}, {time}",
    ), {"staff": w.person(member), "kind": request["kind"], "long": long_date(when), "time": when[11:16]},
        party=ref, voices=BOTH)
    if sum(r["status"] == "open" for r in w.children("repair_request", "party", request[w.fk("party")])) != 1:
        return None
    return Plan(calls, [goal], say, targets={("repair_request", request["id"])})


@intent("aggregate", categories=("real_estate",), needs=("showing",))
def realestate_cancel_agent_showings(w: World) -> Plan | None:
    pool = {s["id"] for s in w.staff_pool()}
    by_staff: dict[int, list[dict]] = {}
    for s in w.rows["showing"]:
        if s["status"] == "scheduled" and s[w.fk("staff")] in pool:
            by_staff.setdefault(s[w.fk("staff")], []).append(s)
    options = [(k, v) for k, v in by_staff.items() if len(v) <= 4]
    if not options:
        return None
    staff_id, showings = w.rng.choice(options)
    member = w.by_id("staff", staff_id)
    calls = [w.find_staff(member), (w.n.list("showing"), {w.fk("staff"): staff_id, "status": "scheduled"}),
             *[(w.n.action("showing", "cancel"), {w.pk("showing"): s["id"]}) for s in showings]]
    goals = [Goal(kind="row_equals", table=w.table("showing"), pk=s["id"], expect={"status": "cancelled"})
             for s in showings]
    say = Say("do", (
        "{staff} is leaving us || cancel every {SHOWING} still scheduled with them",
        "cancel all of {staff}'s scheduled {SHOWING/pl}",
    ), {"staff": w.person(member)})
    return Plan(calls, goals, say, targets={("staff", staff_id)})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

# a fault where the person stays or the business maintains (a booked room or space, a work order on a managed
# property): not on a rental application, a catering order or an inspection appointment
define("realestate_maintenance_request", "action", ("real_estate", "hospitality"), lambda w: ticket_for_case(
    w, ("Leaking tap reported on {code}", "Heating fault on {code}", "Broken lock on {code}"), "high",
    ("Maintenance visit requested", "Resident reported a fault"), (
        "{they} reported a fault || open a high-priority {TICKET} with the subject {subject}, assigned to {staff}, "
        "and add the note {note} to {case}",
        "log {a TICKET} titled {subject} at high priority for {staff} to handle, and note {note} on {case}",
    ), assign=True, open_only=True), needs=("ticket",), flavours=("reservation", "service"))
define("realestate_reinspection", "chained", ("real_estate",), lambda w: follow_up_booking(w, 30, (
    "book a re-inspection for {item} {days} after {their} next {CASE}, same time, same {STAFF}, same {SITE}",
    "{their} next visit will need a check-back a month later || create {a CASE} for {item} {days} after it, with "
    "the same {STAFF} at the same time and {SITE}",
)), flavours=("appointment", "reservation"))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("realestate_offering_withdrawn_notice", "aggregate", ("real_estate",), lambda w: notify_item_holders(
    w, ("{item} is being withdrawn", "About {item}"), (
        "{item} is being withdrawn next month || let every {PARTY} with {a CASE} that is {open} and includes it "
        "know by {channel}, subject {subject}",
        "tell each {PARTY} who has {item} on {a CASE} that is {open}, by {channel}, subject {subject}",
    )), needs=("notification",))


# a site closed for a day: its bookings that day cancelled, refunded and their people told (shapes.call_off_day)
define("realestate_closed_day", "aggregate", ("real_estate",), lambda w: call_off_day(
    w, ("Cancelled: closed for maintenance", "Cancelled: maintenance closure"), (
        "{site} is closed for maintenance on {long} || cancel every {CASE} there that day that can still be "
        "cancelled, and note {note} on each",
        "call off the {CASE/pl} at {site} on {date} that are not past the point of cancelling, each with the note"
        " {note}",
    )), flavours=("appointment", "reservation"))
