"""Requests about the human resources category's own entities (awm/builder/modules/packs/human_resources.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.shapes import define, notify_item_holders, reroute_to_quietest_site
from awm.builder.phrasing import Say
from awm.contracts import Goal


@intent("action", categories=("human_resources",), needs=("leave_request",))
def hr_approve_leave(w: World) -> Plan | None:
    options = []
    pool = {s["id"] for s in w.staff_pool()}
    for lr in w.rows["leave_request"]:
        member = lr[w.fk("staff")]
        mine = w.children("leave_request", "staff", member)
        clash = any(o["status"] == "approved" and o["starts_on"] <= lr["ends_on"] and o["ends_on"] >= lr["starts_on"]
                    for o in mine)
        if lr["status"] == "pending" and member in pool and not clash and sum(
                o["status"] == "pending" for o in mine) == 1:
            options.append(lr)
    lr = w.pick(options)
    if lr is None:
        return None
    member = w.by_id("staff", lr[w.fk("staff")])
    calls = [w.find_staff(member), (w.n.list("leave_request"), {w.fk("staff"): member["id"], "status": "pending"}),
             (w.n.action("leave_request", "approve"), {w.pk("leave_request"): lr["id"]})]
    goal = Goal(kind="row_equals", table=w.table("leave_request"), pk=lr["id"], expect={"status": "approved"})
    span = (f"on {lr['starts_on']}" if lr["starts_on"] == lr["ends_on"]
            else f"from {lr['starts_on']} to {lr['ends_on']}")  # one day is not 'from 2025-06-25 to 2025-06-25'
    say = Say("do", (
        "approve {staff}'s pending {kind} leave {span}",
        "{staff} asked for {kind} leave {span} || approve it",
    ), {"staff": w.person(member), "kind": lr["kind"], "span": span})
    return Plan(calls, [goal], say, targets={("leave_request", lr["id"])})


@intent("aggregate", categories=("human_resources",), needs=("timesheet",))
def hr_approve_timesheets(w: World) -> Plan | None:
    pool = [s for s in w.staff_pool() if any(t["status"] == "submitted"
                                             for t in w.children("timesheet", "staff", s["id"]))]
    member = w.pick(pool)
    if member is None:
        return None
    sheets = [t for t in w.children("timesheet", "staff", member["id"]) if t["status"] == "submitted"]
    calls = [w.find_staff(member), (w.n.list("timesheet"), {w.fk("staff"): member["id"], "status": "submitted"}),
             *[(w.n.action("timesheet", "approve"), {w.pk("timesheet"): t["id"]}) for t in sheets]]
    goals = [Goal(kind="row_equals", table=w.table("timesheet"), pk=t["id"], expect={"status": "approved"})
             for t in sheets]
    say = Say("do", (
        "approve every submitted {TIMESHEET} of {staff}",
        "{staff}'s hours are checked || approve all of their submitted {TIMESHEET/pl}",
    ), {"staff": w.person(member)})
    return Plan(calls, goals, say, targets={("staff", member["id"])})


@intent("aggregate", categories=("human_resources",), needs=("background_check",))
def hr_cancel_checks(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        ordered = [c for c in w.children("background_check", "party", party["id"]) if c["status"] == "ordered"]
        if ordered:
            options.append((party, ordered))
    pick = w.pick(options)
    if pick is None:
        return None
    party, ordered = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("background_check"), {w.fk("party"): party["id"], "status": "ordered"}),
             *[(w.n.action("background_check", "cancel"), {w.pk("background_check"): c["id"]}) for c in ordered]]
    goals = [Goal(kind="row_equals", table=w.table("background_check"), pk=c["id"], expect={"status": "cancelled"})
             for c in ordered]
    say = Say("do", (
        "{they} withdrew || cancel every {BACKGROUND_CHECK} still ordered for {them}",
        "cancel all the ordered {BACKGROUND_CHECK/pl} on {party}",
    ), {}, party=ref, voices=("staff",))
    return Plan(calls, goals, say, targets={("party", party["id"])})


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("hr_balance_centre_load", "chained", ("human_resources",), lambda w: reroute_to_quietest_site(
    w, ("Transferred: office at capacity", "Moved to balance the workload"), (
        "{site} is over capacity this month || transfer {CASE} {code} to the other {SITE} with the fewest {open} "
        "{CASE/pl} and add the note {note}",
        "move {CASE} {code} away from {site} to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "noting {note}",
    )))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("hr_plan_change_notice", "aggregate", ("human_resources",), lambda w: notify_item_holders(
    w, ("Changes to {item}", "An update on {item}"), (
        "{item} is changing at the next renewal || let every {PARTY} with {a CASE} that is {open} and includes it"
        " know by {channel}, subject {subject}",
        "send each {PARTY} whose {CASE} ({open}) includes {item} {a via} {NOTIFICATION} with the subject {subject}",
    )), needs=("notification",))
