"""Requests about the energy category's own entities (awm/builder/modules/packs/energy.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.energy.entities import PROGRAMS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import (
    call_off_day,
    define,
    follow_up_booking,
    notify_item_holders,
    reroute_to_quietest_site,
)
from awm.builder.intents.steps import act, add_note, status_goal
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal


def _faulty(w: World, covered: bool) -> list[tuple[dict, dict]]:
    """(unit, party) for faulty equipment of active people, under warranty or not, unique by kind for its owner."""
    out = []
    for unit in w.rows["equipment_unit"]:
        party = active_party(w, unit)
        if unit["status"] != "faulty" or party is None or (unit["warranty_until"] >= TODAY) != covered:
            continue
        if sum(u["kind"] == unit["kind"] for u in w.children("equipment_unit", "party", party["id"])) == 1:
            out.append((unit, party))
    return out


@intent("action", categories=("energy",), needs=("equipment_unit",))
def energy_warranty_repair(w: World) -> Plan | None:
    pick = w.pick(_faulty(w, covered=True))
    if pick is None:
        return None
    unit, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("equipment_unit"), {w.fk("party"): party["id"], "kind": unit["kind"]}),
             (w.n.action("equipment_unit", "repair_under_warranty"), {w.pk("equipment_unit"): unit["id"]})]
    goal = Goal(kind="row_equals", table=w.table("equipment_unit"), pk=unit["id"], expect={"status": "operating"})
    say = Say("do", (
        "{their} faulty {kind} ({model}) was fixed today || record it as a warranty repair",
        "record a warranty repair on {their} {model} {kind}, serial {serial}",
    ), {"kind": unit["kind"].replace("_", " "), "model": unit["model"], "serial": unit["serial"]}, party=ref,
        voices=BOTH)
    return Plan(calls, [goal], say, targets={("equipment_unit", unit["id"])})


@intent("infeasible", categories=("energy",), needs=("equipment_unit",))
def energy_repair_out_of_warranty(w: World) -> Plan | None:
    pick = w.pick(_faulty(w, covered=False))
    if pick is None:
        return None
    unit, party = pick
    ref = w.party_ref(party)
    until = unit["warranty_until"]
    say = Say("do", (
        "repair {their} faulty {kind} (serial {serial}) under warranty",
        "{their} {model} {kind} has stopped working || book the fix as a free warranty repair",
    ), {"kind": unit["kind"].replace("_", " "), "model": unit["model"], "serial": unit["serial"]}, party=ref,
        voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("equipment_unit"), {w.fk("party"): party["id"], "kind": unit["kind"]})],
                [w.text_answer(until, [u["warranty_until"] for u in w.rows["equipment_unit"]])], say,
                answer=f"Its warranty ran out on {until}, so the repair is not free.",
                targets={("equipment_unit", unit["id"])},
                refused=((w.n.action("equipment_unit", "repair_under_warranty"), {w.pk("equipment_unit"): unit["id"]}),
                         "out_of_warranty"))


@intent("action", categories=("energy",), needs=("rebate_claim",))
def energy_submit_rebate(w: World) -> Plan | None:
    options = []
    for claim in w.rows["rebate_claim"]:
        drafts = [c for c in w.children("rebate_claim", "case", claim[w.fk("case")]) if c["status"] == "draft"]
        if claim["status"] == "draft" and claim["amount"] <= PROGRAMS[claim["program"]] and len(drafts) == 1:
            options.append(claim)
    claim = w.pick(options)
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("rebate_claim"), {w.fk("case"): case["id"], "status": "draft"}),
             (w.n.action("rebate_claim", "submit"), {w.pk("rebate_claim"): claim["id"]})]
    goal = Goal(kind="row_equals", table=w.table("rebate_claim"), pk=claim["id"],
                expect={"status": "submitted", "submitted_on": TODAY})
    say = Say("do", (
        "submit the draft {REBATE_CLAIM} for {CASE} {code} to the {program} programme",
        "the paperwork for {CASE} {code} is complete || send its draft {REBATE_CLAIM} in to the {program} programme",
    ), {"program": claim["program"].replace("_", " "), "code": case["code"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("action", categories=("energy",), needs=("safety_inspection",))
def energy_record_inspection(w: World) -> Plan | None:
    options = []
    for insp in w.rows["safety_inspection"]:
        party = active_party(w, insp)
        if insp["status"] == "scheduled" and insp["due_on"] <= TODAY and party is not None and sum(
                i["status"] == "scheduled" for i in w.children("safety_inspection", "party", party["id"])) == 1:
            options.append((insp, party))
    pick = w.pick(options)
    member = w.pick(w.staff_pool())
    if pick is None or member is None:
        return None
    insp, party = pick
    result = w.pick(["passed", "passed", "failed"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("safety_inspection"), {w.fk("party"): party["id"], "status": "scheduled"}),
             w.find_staff(member),
             (w.n.action("safety_inspection", "record_result"), {w.pk("safety_inspection"): insp["id"],
                                                                 "result": result, w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("safety_inspection"), pk=insp["id"],
                expect={"status": result, w.fk("staff"): member["id"], "inspected_on": TODAY})
    say = Say("do", (
        "{staff} did the {kind} {SAFETY_INSPECTION} at {their} premises today and it {result} || record that",
        "record that {their} scheduled {kind} {SAFETY_INSPECTION} {result} today, carried out by {staff}",
    ), {"staff": w.person(member), "kind": insp["kind"].replace("_", " "), "result": result}, party=ref,
        voices=("staff",))
    return Plan(calls, [goal], say, targets={("safety_inspection", insp["id"])})


@intent("infeasible", categories=("energy",), needs=("charge_point",))
def energy_offline_while_charging(w: World) -> Plan | None:
    point = w.pick([p for p in w.rows["charge_point"] if p["status"] == "in_use"])
    if point is None:
        return None
    site = w.by_id("site", point[w.fk("site")])
    say = Say("do", (
        "take {CHARGE_POINT} {code} at {site} offline for maintenance",
        "the technician is on the way to {site} || take {CHARGE_POINT} {code} offline",
    ), {"code": point["code"], "site": site["name"]})
    return Plan([(w.n.list("charge_point"), {"code": point["code"]})], [w.status_answer("in_use")], say,
                answer="A vehicle is charging at it right now (in_use); that has to finish first.",
                targets={("charge_point", point["id"])},
                refused=((w.n.action("charge_point", "take_offline"), {w.pk("charge_point"): point["id"]}), "in_use"))


@intent("aggregate", categories=("energy",), needs=("charging_session",))
def energy_delivered_kwh(w: World) -> Plan | None:
    point = w.pick([p for p in w.rows["charge_point"]
                    if any(s["status"] == "completed" for s in w.children("charging_session", "charge_point", p["id"]))])
    if point is None:
        return None
    total = round(sum(s["energy_kwh"] for s in w.children("charging_session", "charge_point", point["id"])
                      if s["status"] == "completed"), 2)
    say = Say("ask", (
        "how many kWh has {CHARGE_POINT} {code} delivered across its completed {CHARGING_SESSION/pl}",
        "what is the total energy, in kWh, of the completed {CHARGING_SESSION/pl} at {CHARGE_POINT} {code}",
    ), {"code": point["code"]})
    return Plan([(w.n.list("charge_point"), {"code": point["code"]}),
                 (w.n.list("charging_session"), {w.fk("charge_point"): point["id"], "status": "completed"})],
                [w.number_answer(total)], say, answer=f"{total} kWh", targets={("charge_point", point["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("energy_charger_outage", "aggregate", ("energy", "transportation"), lambda w: call_off_day(
    w, ("Cancelled: equipment out of service", "Cancelled: site outage"), (
        "{site} will be out of service on {long} || cancel every {CASE} there that day that can still be "
        "cancelled, adding the note {note} to each",
        "cancel all the {CASE/pl} at {site} on {date} that are not too far along to cancel, each with the "
        "note {note}",
    )), flavours=("reservation", "appointment"))


@intent("conditional", categories=("energy", "government"), flavours=("service",), needs=("document",))
def energy_permit_hold(w: World) -> Plan | None:
    """If a project still has a permit document that is not verified, a hold note; otherwise work started."""
    action = w.fl.action("start")
    options = []
    for case in w.rows["case"]:
        docs = w.children("document", "case", case["id"])
        if case["status"] in action.sources and docs and w.party_of(case)["status"] == "active":
            options.append((case, any(d["status"] != "verified" for d in docs)))
    if not options:
        return None
    case, pending = w.rng.choice(options)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    note = "On hold: paperwork not verified"
    if pending:
        call, goal = add_note(w, case, note)
        calls.append(call)
        goals = [goal]
    else:
        calls.append(act(w, case, "start"))
        goals = [status_goal(w, case, action.target)]
    say = Say("do", (
        "if any {DOCUMENT} on {CASE} {code} is not verified yet, add the note {note} to it; if they are all "
        "verified, start work on it",
        "check the {DOCUMENT/pl} of {CASE} {code} || start the work if every one is verified, and otherwise leave "
        "the note {note}",
    ), {"code": case["code"], "note": quote(note)})
    return Plan(calls, goals, say, targets={("case", case["id"])})


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("energy_service_notice", "aggregate", ("energy",), lambda w: notify_item_holders(
    w, ("Service notice: {item}", "About {item}"), (
        "there is a service notice for {item} || tell every {PARTY} with {a CASE} that is {open} and includes it,"
        " by {channel}, subject {subject}",
        "send {a via} {NOTIFICATION} titled {subject} to each {PARTY} whose {CASE} ({open}) includes {item}",
    )), needs=("notification",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("energy_depot_at_capacity", "chained", ("energy",), lambda w: reroute_to_quietest_site(
    w, ("Moved: depot at capacity", "Rerouted to balance deliveries"), (
        "{site} is short of drivers || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} that"
        " are {open}, and note {note} on it",
        "re-route {CASE} {code} from {site} to the other {SITE} with the lightest load of {open} {CASE/pl}, "
        "noting {note}",
    )), flavours=("fulfillment",))


# the next booking of a series, a set time after the upcoming one (shapes.follow_up_booking)
define("energy_annual_check_booking", "chained", ("energy",), lambda w: follow_up_booking(w, 365, (
    "book {their} next yearly check: a new {CASE} for {item} {days} after {their} upcoming one, same time, "
    "same {STAFF}, same {SITE}",
    "{they} want the same visit again next year || set up {a CASE} for {item} {days} after {their} next one, "
    "at the same time and {SITE} and with the same {STAFF}",
)), flavours=("appointment",))
