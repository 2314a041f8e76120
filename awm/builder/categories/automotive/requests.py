"""Requests about the automotive category's own entities (awm/builder/modules/packs/automotive.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.automotive.entities import WARRANTY_LIMIT
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import (
    define,
    follow_up_booking,
    note_and_tell,
    notify_item_holders,
    reroute_to_quietest_site,
    rush,
)
from awm.builder.phrasing import Say
from awm.contracts import Goal


def _vehicles(w: World) -> list[tuple[dict, dict]]:
    return [(v, p) for v in w.rows["vehicle"] if (p := active_party(w, v)) is not None]


@intent("action", categories=("automotive",), needs=("vehicle",))
def auto_record_mileage(w: World) -> Plan | None:
    pick = w.pick(_vehicles(w))
    if pick is None:
        return None
    vehicle, party = pick
    mileage = vehicle["mileage"] + w.pick([812, 1450, 3020, 5275])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("vehicle"), {w.fk("party"): party["id"], "vin": vehicle["vin"]}),
             (w.n.action("vehicle", "record_mileage"), {w.pk("vehicle"): vehicle["id"], "mileage": mileage})]
    goal = Goal(kind="row_equals", table=w.table("vehicle"), pk=vehicle["id"], expect={"mileage": mileage})
    say = Say("do", (
        "record {mileage} miles on the odometer of {their} {VEHICLE} with VIN {vin}",
        "{their} {make} (VIN {vin}) came in showing {mileage} miles || record that mileage",
    ), {"mileage": mileage, "vin": vehicle["vin"], "make": vehicle["make"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("vehicle", vehicle["id"])})


@intent("infeasible", categories=("automotive",), needs=("vehicle",))
def auto_mileage_backwards(w: World) -> Plan | None:
    pick = w.pick([(v, p) for v, p in _vehicles(w) if v["mileage"] > 5000])
    if pick is None:
        return None
    vehicle, party = pick
    mileage = vehicle["mileage"] - w.pick([500, 1200, 2500])
    ref = w.party_ref(party)
    say = Say("do", (
        "record {mileage} miles for {their} {VEHICLE} with VIN {vin}",
        "set the mileage of {their} {make} (VIN {vin}) to {mileage}",
    ), {"mileage": mileage, "vin": vehicle["vin"], "make": vehicle["make"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("vehicle"), {w.fk("party"): party["id"], "vin": vehicle["vin"]})],
                [w.number_answer(vehicle["mileage"])], say,
                answer=f"The vehicle already shows {vehicle['mileage']} miles; a mileage can only go up.",
                targets={("vehicle", vehicle["id"])},
                refused=((w.n.action("vehicle", "record_mileage"), {w.pk("vehicle"): vehicle["id"], "mileage": mileage}),
                         "mileage_backwards"))


def _claims_of(w: World, within: bool) -> list[dict]:
    return [c for c in w.rows["warranty_claim"] if c["status"] == "submitted"
            and (c["amount"] <= WARRANTY_LIMIT) == within and sum(
                x["status"] == "submitted" and x["component"] == c["component"]
                for x in w.children("warranty_claim", "case", c[w.fk("case")])) == 1]


@intent("action", categories=("automotive",), needs=("warranty_claim",))
def auto_approve_warranty(w: World) -> Plan | None:
    claim = w.pick(_claims_of(w, within=True))
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("warranty_claim"), {w.fk("case"): case["id"], "status": "submitted"}),
             (w.n.action("warranty_claim", "approve"), {w.pk("warranty_claim"): claim["id"]})]
    goal = Goal(kind="row_equals", table=w.table("warranty_claim"), pk=claim["id"], expect={"status": "approved"})
    say = Say("do", (
        "approve the {component} {WARRANTY_CLAIM} on {CASE} {code}",
        "the {component} repair on {CASE} {code} is covered || approve its {WARRANTY_CLAIM}",
    ), {"component": claim["component"], "code": case["code"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("automotive",), needs=("warranty_claim",))
def auto_warranty_over_limit(w: World) -> Plan | None:
    claim = w.pick(_claims_of(w, within=False))
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    say = Say("do", (
        "approve the {component} {WARRANTY_CLAIM} on {CASE} {code}",
        "sign off the {component} {WARRANTY_CLAIM} for {CASE} {code}",
    ), {"component": claim["component"], "code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("warranty_claim"), {w.fk("case"): case["id"], "status": "submitted"})],
                [w.money_answer(claim["amount"])], say,
                answer=f"Claims above {WARRANTY_LIMIT:.2f} go to the manufacturer; this one is for {claim['amount']:.2f}.",
                targets={("case", case["id"])},
                refused=((w.n.action("warranty_claim", "approve"), {w.pk("warranty_claim"): claim["id"]}), "over_limit"))


@intent("action", categories=("automotive",), needs=("loaner",))
def auto_lend_loaner(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if any(x["status"] == "available" and x[w.fk("site")] == s["id"]
                                                     for x in w.rows["loaner"])])
    party = w.pick(w.active_parties())
    if site is None or party is None:
        return None
    loaner = next(x for x in w.rows["loaner"] if x["status"] == "available" and x[w.fk("site")] == site["id"])
    due = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([2, 3, 5, 7]))).date().isoformat()
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("loaner"), {"plate": loaner["plate"]}),
             (w.n.action("loaner", "lend"), {w.pk("loaner"): loaner["id"], w.fk("party"): party["id"], "due_back": due})]
    goal = Goal(kind="row_equals", table=w.table("loaner"), pk=loaner["id"],
                expect={"status": "out", w.fk("party"): party["id"], "due_back": due})
    say = Say("do", (
        "lend {them} {LOANER} {plate} from {site} until {due}",
        "{their} car is staying with {us} || give {them} {LOANER} {plate} ({site}), due back {due}",
    ), {"site": site["name"], "due": due, "plate": loaner["plate"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("loaner", loaner["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("auto_warranty_claim", "action", ("automotive",), lambda w: note_and_tell(
    w, ("Warranty claim filed", "Parts under warranty, claim filed"),
    ("Your warranty claim for {code}", "Warranty update on {code}"), (
        "add the note {note} to {case} and send {them} an email {NOTIFICATION} with the subject {subject}",
        "the work on {case} should be covered by the warranty || note {note} on it and email {them} a "
        "{NOTIFICATION} titled {subject}",
    )), needs=("notification",))
define("auto_safety_recall", "aggregate", ("automotive",), lambda w: notify_item_holders(
    w, ("Safety recall: {item}", "Important safety notice about {item}"), (
        "the manufacturer issued a safety recall for {item} || notify every {PARTY} with {a CASE} that is "
        "{open} and includes it, by {channel}, subject {subject}",
        "send {a via} {NOTIFICATION} with the subject {subject} to each {PARTY} with an open "
        "{CASE} ({open}) that includes {item}",
    )), needs=("notification",))
define("auto_seasonal_follow_up", "chained", ("automotive",), lambda w: follow_up_booking(
    w, 180, (
        "book {their} next seasonal service: a new {CASE} {days} after {their} next upcoming {CASE}, same time, "
        "same {SITE}, same {STAFF}, for {item}",
        "set up a follow-up {CASE} for {item} {days} after {their} upcoming one, at the same time and place and "
        "with the same {STAFF}",
    )), flavours=("appointment", "reservation"))
define("auto_rush_repair", "action", ("automotive",), lambda w: rush(
    w, ("start",), ("Customer waiting in the lounge", "Rush job approved", "Loan car not available"), (
        "the owner of {case} is waiting || start work on it now and note {note}",
        "get {case} going straight away (start it) and add the note {note}",
    )), flavours=("service",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("auto_full_workshop", "chained", ("automotive",), lambda w: reroute_to_quietest_site(
    w, ("Moved: workshop fully booked", "Rebooked at a quieter shop"), (
        "the workshop at {site} is fully booked || move {CASE} {code} to whichever other {SITE} has the fewest "
        "{CASE/pl} that are {open}, and note {note} on it",
        "transfer {CASE} {code} from {site}, which can't fit it in, to the other {SITE} with the lightest load of "
        "{open} {CASE/pl} and add the note {note}",
    )))
