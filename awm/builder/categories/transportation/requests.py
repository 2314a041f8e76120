"""Requests about the transportation category's own entities (awm/builder/modules/packs/transportation.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.transportation.entities import HOLD_DAYS, SERVICE_INTERVAL_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY
from awm.builder.phrasing import Say, count, money
from awm.contracts import Goal


def _parked(w: World, overdue: bool) -> list[dict]:
    """Fleet vehicles out of service whose service is (or is not) overdue."""
    return [v for v in w.rows["fleet_vehicle"] if v["status"] == "out_of_service"
            and (v["next_service_due"] < TODAY) == overdue]


@intent("infeasible", categories=("transportation",), needs=("fleet_vehicle",))
def trans_overdue_vehicle_to_service(w: World) -> Plan | None:
    vehicle = w.pick(_parked(w, overdue=True))
    if vehicle is None:
        return None
    due = vehicle["next_service_due"]
    say = Say("do", (
        "put {FLEET_VEHICLE} {unit} back in service",
        "we need {FLEET_VEHICLE} {unit} on the road today || return it to service",
    ), {"unit": vehicle["unit_number"]})
    return Plan([(w.n.list("fleet_vehicle"), {"unit_number": vehicle["unit_number"]})],
                [w.text_answer(due, [v["next_service_due"] for v in w.rows["fleet_vehicle"]])], say,
                answer=f"It was due for service on {due}; it cannot go back in service until it has been serviced.",
                targets={("fleet_vehicle", vehicle["id"])},
                refused=((w.n.action("fleet_vehicle", "return_to_service"), {w.pk("fleet_vehicle"): vehicle["id"]}),
                         "service_overdue"))


@intent("chained", categories=("transportation",), needs=("fleet_vehicle",))
def trans_service_then_return(w: World) -> Plan | None:
    vehicle = w.pick(_parked(w, overdue=True))
    if vehicle is None:
        return None
    pk = {w.pk("fleet_vehicle"): vehicle["id"]}
    calls = [(w.n.list("fleet_vehicle"), {"unit_number": vehicle["unit_number"]}),
             (w.n.action("fleet_vehicle", "record_service"), pk),
             (w.n.action("fleet_vehicle", "return_to_service"), pk)]
    due = (datetime.fromisoformat(TODAY) + timedelta(days=SERVICE_INTERVAL_DAYS)).date().isoformat()
    goal = Goal(kind="row_equals", table=w.table("fleet_vehicle"), pk=vehicle["id"],
                expect={"status": "in_service", "last_serviced_on": TODAY, "next_service_due": due})
    say = Say("do", (
        "{FLEET_VEHICLE} {unit} was serviced today || record the service and put it back in service",
        "log today's service on {FLEET_VEHICLE} {unit}, then return it to service",
    ), {"unit": vehicle["unit_number"]})
    return Plan(calls, [goal], say, targets={("fleet_vehicle", vehicle["id"])})


def _assessed(w: World) -> list[tuple[dict, dict]]:
    """(report, case) for assessed damage reports, the only assessed one on their case."""
    out = []
    for report in w.rows["damage_report"]:
        case = w.by_id("case", report[w.fk("case")])
        if report["status"] == "assessed" and sum(
                r["status"] == "assessed" for r in w.children("damage_report", "case", case["id"])) == 1:
            out.append((report, case))
    return out


@intent("action", categories=("transportation",), needs=("damage_report",))
def trans_settle_damage(w: World) -> Plan | None:
    pick = w.pick(_assessed(w))
    if pick is None:
        return None
    report, case = pick
    amount = w.pick([report["estimated_cost"], round(report["estimated_cost"] * 0.8, 2)])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("damage_report"), {w.fk("case"): case["id"], "status": "assessed"}),
             (w.n.action("damage_report", "settle"), {w.pk("damage_report"): report["id"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("damage_report"), pk=report["id"],
                expect={"status": "settled", "settled_amount": {"approx": amount}})
    say = Say("do", (
        "settle the assessed {DAMAGE_REPORT} on {CASE} {code} ({what}) for {amount}",
        "we agreed {amount} for the {what} after {CASE} {code} || settle its {DAMAGE_REPORT} for that amount",
    ), {"code": case["code"], "what": report["description"], "amount": money(amount)})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("transportation",), needs=("damage_report",))
def trans_settle_above_estimate(w: World) -> Plan | None:
    pick = w.pick(_assessed(w))
    if pick is None:
        return None
    report, case = pick
    amount = round(report["estimated_cost"] + w.pick([150.0, 400.0, 900.0]), 2)
    say = Say("do", (
        "settle the {DAMAGE_REPORT} on {CASE} {code} ({what}) for {amount}",
        "pay out {amount} on the assessed {DAMAGE_REPORT} for {CASE} {code}",
    ), {"code": case["code"], "what": report["description"], "amount": money(amount)})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("damage_report"), {w.fk("case"): case["id"], "status": "assessed"})],
                [w.money_answer(report["estimated_cost"])], say,
                answer=f"It was assessed at {money(report['estimated_cost'])}; it cannot be settled for more.",
                targets={("case", case["id"])},
                refused=((w.n.action("damage_report", "settle"), {w.pk("damage_report"): report["id"], "amount": amount}),
                         "over_limit"))


@intent("action", categories=("transportation",), needs=("lost_item",))
def trans_hand_over_lost_item(w: World) -> Plan | None:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=HOLD_DAYS)).date().isoformat()
    item = w.pick([x for x in w.rows["lost_item"] if x["status"] == "held" and x["found_on"] >= cutoff])
    party = w.pick(w.active_parties())
    if item is None or party is None:
        return None
    site = w.by_id("site", item[w.fk("site")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("lost_item"), {"tag": item["tag"]}),
             (w.n.action("lost_item", "hand_over"), {w.pk("lost_item"): item["id"], w.fk("party"): party["id"]})]
    goal = Goal(kind="row_equals", table=w.table("lost_item"), pk=item["id"],
                expect={"status": "claimed", w.fk("party"): party["id"]})
    say = Say("do", (
        "{they_have} come to {site} for {their} {thing}, tag {tag} || hand it over to {them}",
        "hand the {LOST_ITEM} tagged {tag} ({a thing}) over to {party}",
    ), {"site": site["name"], "thing": item["description"], "tag": item["tag"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("lost_item", item["id"])})


@intent("question", categories=("transportation",), needs=("disruption",))
def trans_active_disruptions(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if w.children("disruption", "site", s["id"])])
    if site is None:
        return None
    active = sum(d["status"] == "active" for d in w.children("disruption", "site", site["id"]))
    say = Say("ask", (
        "how many {DISRUPTION/pl} are active at {site} right now",
        "{PARTY/pl} at {site} are asking || how many active {DISRUPTION/pl} does it have",
    ), {"site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("disruption"), {w.fk("site"): site["id"], "status": "active"})],
                [w.number_answer(active)], say, answer=count(active, "active disruption"),
                targets={("site", site["id"])})
