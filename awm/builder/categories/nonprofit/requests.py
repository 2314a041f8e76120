"""Requests about the nonprofit category's own entities (awm/builder/modules/packs/nonprofit.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, note_every_open_case, notify_item_holders
from awm.builder.phrasing import Say, money
from awm.contracts import Goal


@intent("action", categories=("nonprofit",), needs=("grant_application",))
def np_record_grant_award(w: World) -> Plan | None:
    grant = w.pick([g for g in w.rows["grant_application"] if g["status"] == "submitted"])
    if grant is None:
        return None
    amount = round(grant["amount_requested"] * w.pick([0.6, 0.75, 1.0]), 2)
    calls = [(w.n.list("grant_application"), {"number": grant["number"]}),
             (w.n.action("grant_application", "record_award"),
              {w.pk("grant_application"): grant["id"], "amount_awarded": amount})]
    goal = Goal(kind="row_equals", table=w.table("grant_application"), pk=grant["id"],
                expect={"status": "awarded", "amount_awarded": {"approx": amount}})
    say = Say("do", (
        "{funder} has awarded {amount} on {GRANT_APPLICATION} {number} || record the award",
        "record an award of {amount} from {funder} on {GRANT_APPLICATION} {number}",
    ), {"funder": grant["funder"], "amount": money(amount), "number": grant["number"]})
    return Plan(calls, [goal], say, targets={("grant_application", grant["id"])})


@intent("infeasible", categories=("nonprofit",), needs=("grant_application",))
def np_submit_late_grant(w: World) -> Plan | None:
    grant = w.pick([g for g in w.rows["grant_application"] if g["status"] == "drafting" and g["deadline"] < TODAY])
    if grant is None:
        return None
    say = Say("do", (
        "submit {GRANT_APPLICATION} {number} to {funder}",
        "the draft of {GRANT_APPLICATION} {number} is finished || submit it to {funder}",
    ), {"funder": grant["funder"], "number": grant["number"]})
    return Plan([(w.n.list("grant_application"), {"number": grant["number"]})],
                [w.text_answer(grant["deadline"], [])], say,
                answer=f"The funder's deadline was {grant['deadline']}; the application can no longer be submitted.",
                targets={("grant_application", grant["id"])},
                refused=((w.n.action("grant_application", "submit"), {w.pk("grant_application"): grant["id"]}),
                         "window_closed"))


@intent("action", categories=("nonprofit",), needs=("pledge",))
def np_pay_off_pledge(w: World) -> Plan | None:
    pick = w.pick([(p, party) for p in w.rows["pledge"] if p["status"] == "open"
                   and (party := active_party(w, p)) is not None])
    if pick is None:
        return None
    pledge, party = pick
    owed = round(pledge["amount_pledged"] - pledge["amount_paid"], 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("pledge"), {"number": pledge["number"]}),
             (w.n.action("pledge", "record_payment"), {w.pk("pledge"): pledge["id"], "amount": owed})]
    goal = Goal(kind="row_equals", table=w.table("pledge"), pk=pledge["id"],
                expect={"amount_paid": {"approx": pledge["amount_pledged"]}, "status": "fulfilled"})
    say = Say("do", (
        "{they_have} paid the {owed} left on {their} {PLEDGE} {number} || record that payment",
        "record a payment of {owed} on {their} {PLEDGE} {number}, which settles it",
    ), {"owed": money(owed), "number": pledge["number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("pledge", pledge["id"])})


def _open_events(w: World, full: bool) -> list[tuple[dict, dict]]:
    out = []
    for event in w.rows["charity_event"]:
        taken = sum(s["status"] == "registered" for s in w.children("event_signup", "charity_event", event["id"]))
        if event["status"] == "scheduled" and event["starts_on"] > TODAY and (taken >= event["capacity"]) == full:
            out.append((event, w.by_id("site", event[w.fk("site")])))
    return out


def _event_and_newcomer(w: World, full: bool) -> tuple[dict, dict, dict] | None:
    """An upcoming event (full or not), its site, and an active person not yet registered for it."""
    pick = w.pick(_open_events(w, full))
    if pick is None:
        return None
    event, site = pick
    booked = {s[w.fk("party")] for s in w.children("event_signup", "charity_event", event["id"])}
    party = w.pick([p for p in w.active_parties() if p["id"] not in booked])
    return None if party is None else (event, site, party)


@intent("action", categories=("nonprofit",), needs=("event_signup",))
def np_register_for_event(w: World) -> Plan | None:
    pick = _event_and_newcomer(w, full=False)
    if pick is None:
        return None
    event, site, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("charity_event"), {w.fk("site"): site["id"], "name": event["name"]}),
             (w.n.create("event_signup"), {w.fk("charity_event"): event["id"], w.fk("party"): party["id"]})]
    goal = Goal(kind="rows_created", table=w.table("event_signup"), count=1,
                expect={w.fk("charity_event"): event["id"], w.fk("party"): party["id"], "status": "registered"})
    say = Say("do", (
        "add {their} name to the list for the {event} at {site} on {long}",
        "{they} would like to come to the {event} at {site} on {long} || put {their} name down for it",
    ), {"event": event["name"], "site": site["name"], "long": long_date(event["starts_on"])}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("charity_event", event["id"])})


@intent("infeasible", categories=("nonprofit",), needs=("event_signup",))
def np_register_for_full_event(w: World) -> Plan | None:
    pick = _event_and_newcomer(w, full=True)
    if pick is None:
        return None
    event, site, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "add {their} name to the list for the {event} at {site} on {long}",
        "put {their} name down for the {event} at {site} on {long}",
    ), {"event": event["name"], "site": site["name"], "long": long_date(event["starts_on"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("charity_event"), {w.fk("site"): site["id"], "name": event["name"]}),
                 (w.n.list("event_signup"), {w.fk("charity_event"): event["id"], "status": "registered"})],
                [w.number_answer(event["capacity"])], say,
                answer=f"All {event['capacity']} places at that event are taken.", targets={("charity_event", event["id"])},
                refused=((w.n.create("event_signup"), {w.fk("charity_event"): event["id"], w.fk("party"): party["id"]}),
                         "event_full"))


@intent("aggregate", categories=("nonprofit",), needs=("service_log",))
def np_approved_hours(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        logs = [x for x in w.children("service_log", "party", party["id"]) if x["status"] == "approved"]
        if len(logs) >= 2:
            options.append((party, logs))
    pick = w.pick(options)
    if pick is None:
        return None
    party, logs = pick
    hours = round(sum(x["hours"] for x in logs), 2)
    ref = w.party_ref(party)
    say = Say("ask", (
        "how many approved hours of service do {they} have on record",
        "what do {their} approved {SERVICE_LOG/pl} add up to, in hours",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("service_log"), {w.fk("party"): party["id"], "status": "approved"})],
                [w.number_answer(hours)], say, answer=f"{hours:g} hours", targets={("party", party["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("nonprofit_placement_preference", "aggregate", ("nonprofit", "human_resources"), lambda w:
       note_every_open_case(w, ("Prefers weekend placements", "Available evenings only", "Remote interviews only"), (
           "note {note} on each of {their} {CASE/pl} that are {open}",
           "{their} availability changed || add the note {note} to every {CASE} of {theirs} that is {open}",
       )), flavours=("application",))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("np_programme_change_notice", "aggregate", ("nonprofit",), lambda w: notify_item_holders(
    w, ("A change to {item}", "An update on {item}"), (
        "there is a change to {item} || let every {PARTY} with {a CASE} that is {open} and includes it know by "
        "{channel}, subject {subject}",
        "send each {PARTY} whose {CASE} ({open}) includes {item} {a via} {NOTIFICATION} titled {subject}",
    )), needs=("notification",))
