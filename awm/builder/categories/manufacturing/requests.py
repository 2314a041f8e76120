"""Requests about the manufacturing category's own entities (awm/builder/modules/packs/manufacturing.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import STAFF_ONLY, Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, note_every_open_case, reroute_to_quietest_site, rush
from awm.builder.phrasing import Say, count
from awm.contracts import Goal


def _short_runs(w: World) -> list[dict]:
    return [r for r in w.rows["production_run"] if r["status"] == "running"
            and r["quantity_good"] < r["quantity_planned"]]


@intent("question", categories=("manufacturing",), needs=("production_run",))
def mfg_units_to_go(w: World) -> Plan | None:
    run = w.pick(_short_runs(w))
    if run is None:
        return None
    to_go = run["quantity_planned"] - run["quantity_good"]
    say = Say("ask", (
        "how many more good units does {PRODUCTION_RUN} {run} need to reach its planned quantity",
        "{PRODUCTION_RUN} {run} is still going || how many good units short of its plan is it",
    ), {"run": run["run_number"]})
    return Plan([(w.n.list("production_run"), {"run_number": run["run_number"]})], [w.number_answer(to_go)], say,
                answer=count(to_go, "unit"), targets={("production_run", run["id"])})


@intent("infeasible", categories=("manufacturing",), needs=("production_run",))
def mfg_complete_short_run(w: World) -> Plan | None:
    run = w.pick(_short_runs(w))
    if run is None:
        return None
    say = Say("do", (
        "mark {PRODUCTION_RUN} {run} (planned for {planned} units) as completed",
        "{PRODUCTION_RUN} {run} for {planned} units is done || complete it",
    ), {"run": run["run_number"], "planned": run["quantity_planned"]})
    return Plan([(w.n.list("production_run"), {"run_number": run["run_number"]})],
                [w.number_answer(run["quantity_good"]), w.number_answer(run["quantity_planned"])], say,
                answer=f"It has only {run['quantity_good']} good units of the {run['quantity_planned']} planned, so it "
                       "cannot be completed yet.", targets={("production_run", run["id"])},
                refused=((w.n.action("production_run", "complete"), {w.pk("production_run"): run["id"]}),
                         "short_quantity"))


@intent("chained", categories=("manufacturing",), needs=("nonconformance",))
def mfg_disposition_and_close(w: World) -> Plan | None:
    options = []
    for ncr in w.rows["nonconformance"]:
        mine = w.children("nonconformance", "case", ncr[w.fk("case")])
        if ncr["status"] == "open" and ncr["disposition"] is None and sum(n["status"] == "open" for n in mine) == 1:
            options.append(ncr)
    ncr = w.pick(options)
    if ncr is None:
        return None
    case = w.by_id("case", ncr[w.fk("case")])
    disposition = w.pick(["rework", "scrap", "use_as_is"])
    pk = {w.pk("nonconformance"): ncr["id"]}
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("nonconformance"), {w.fk("case"): case["id"], "status": "open"}),
             (w.n.action("nonconformance", "set_disposition"), {**pk, "disposition": disposition}),
             (w.n.action("nonconformance", "close"), pk)]
    goal = Goal(kind="row_equals", table=w.table("nonconformance"), pk=ncr["id"],
                expect={"status": "closed", "disposition": disposition})
    say = Say("do", (
        "the review board decided {words} for the {defect} on {CASE} {code} || set that disposition ({disposition}) "
        "on its open {NONCONFORMANCE} and close it",
        "close the open {NONCONFORMANCE} on {CASE} {code} with the disposition {disposition}",
    ), {"code": case["code"], "defect": ncr["defect"], "disposition": disposition,
        "words": {"rework": "to rework the parts", "scrap": "to scrap the parts", "use_as_is": "to use the parts as they are"}[disposition]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


def _instruments(w: World, calibrated: bool) -> list[dict]:
    return [i for i in w.rows["instrument"] if i["status"] == "available"
            and (i["calibration_due"] >= TODAY) == calibrated]


@intent("action", categories=("manufacturing",), needs=("instrument",))
def mfg_check_out_instrument(w: World) -> Plan | None:
    instrument = w.pick(_instruments(w, calibrated=True))
    member = w.pick(w.staff_pool())
    if instrument is None or member is None:
        return None
    calls = [(w.n.list("instrument"), {"asset_tag": instrument["asset_tag"]}), w.find_staff(member),
             (w.n.action("instrument", "check_out"), {w.pk("instrument"): instrument["id"], w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("instrument"), pk=instrument["id"],
                expect={"status": "checked_out", w.fk("staff"): member["id"]})
    say = Say("do", (
        "check out {INSTRUMENT} {tag} (the {kind}) to {staff}",
        "{staff} needs the {kind} {tag} for an inspection || check it out to them",
    ), {"tag": instrument["asset_tag"], "kind": instrument["kind"].replace("_", " "), "staff": w.person(member)})
    return Plan(calls, [goal], say, targets={("instrument", instrument["id"])})


@intent("infeasible", categories=("manufacturing",), needs=("instrument",))
def mfg_uncalibrated_instrument(w: World) -> Plan | None:
    instrument = w.pick(_instruments(w, calibrated=False))
    member = w.pick(w.staff_pool())
    if instrument is None or member is None:
        return None
    due = instrument["calibration_due"]
    say = Say("do", (
        "check out {INSTRUMENT} {tag} to {staff}",
        "{staff} wants the {kind} {tag} for a job today || check it out to them",
    ), {"tag": instrument["asset_tag"], "kind": instrument["kind"].replace("_", " "), "staff": w.person(member)})
    return Plan([(w.n.list("instrument"), {"asset_tag": instrument["asset_tag"]})],
                [w.text_answer(due, [i["calibration_due"] for i in w.rows["instrument"]])], say,
                answer=f"It was due for calibration on {due}; it cannot be used until it is recalibrated.",
                targets={("instrument", instrument["id"])},
                refused=((w.n.action("instrument", "check_out"), {w.pk("instrument"): instrument["id"],
                                                                  w.fk("staff"): member["id"]}), "calibration_due"))


@intent("action", categories=("manufacturing",), needs=("customer_asset",))
def mfg_return_asset(w: World) -> Plan | None:
    asset = w.pick([a for a in w.rows["customer_asset"] if a["status"] == "in_storage" and active_party(w, a)])
    if asset is None:
        return None
    party = w.party_of(asset)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("customer_asset"), {w.fk("party"): party["id"], "asset_tag": asset["asset_tag"]}),
             (w.n.action("customer_asset", "return_to_owner"), {w.pk("customer_asset"): asset["id"]})]
    goal = Goal(kind="row_equals", table=w.table("customer_asset"), pk=asset["id"],
                expect={"status": "returned", "returned_on": TODAY})
    say = Say("do", (
        "{they_are} collecting {their} {thing} today (tag {tag}) || record it as returned to {them}",
        "hand {their} {thing}, tag {tag}, back to {them}",
    ), {"thing": asset["description"], "tag": asset["asset_tag"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("customer_asset", asset["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("mfg_rush_order", "action", ("manufacturing", "marketing"), lambda w: rush(
    w, ("confirm", "ship"), ("Rush approved by the plant manager", "Expedited at the client's request"), (
        "expedite {case}: confirm it, ship it, and add the note {note}",
        "the client needs {case} this week || confirm and ship it now, noting {note}",
    )), flavours=("fulfillment",))
define("mfg_quality_hold", "aggregate", ("manufacturing", "logistics"), lambda w: note_every_open_case(
    w, ("Quality hold: inspect before dispatch", "Hold for batch inspection"), (
        "a batch problem was found || put the note {note} on every {CASE} of {theirs} that is {open}",
        "add {note} as a note to each of {their} {CASE/pl} that are {open}",
    ), voices=STAFF_ONLY))  # a hold is placed by staff, never asked for by the customer whose orders it holds


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("mfg_plant_at_capacity", "chained", ("manufacturing",), lambda w: reroute_to_quietest_site(
    w, ("Moved: plant at capacity", "Rerouted to free capacity"), (
        "{site} has no spare capacity this month || move {CASE} {code} to the other {SITE} with the fewest {open}"
        " {CASE/pl} and add the note {note}",
        "re-route {CASE} {code} from {site} to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "and record {note} on it",
    )))
