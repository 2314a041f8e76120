"""Requests about the agriculture category's own entities (awm/builder/modules/packs/agriculture.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.agriculture.entities import MAX_RATES
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import call_off_day, define, notify_item_holders, reroute_to_quietest_site, rush
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal


def _fields(w: World) -> list[tuple[dict, dict]]:
    """(field, grower): active fields of active people, each named once among that person's fields."""
    out = []
    for f in w.rows["field"]:
        party = active_party(w, f)
        mine = [x for x in w.children("field", "party", f[w.fk("party")]) if x["name"] == f["name"]]
        if party is not None and f["status"] == "active" and len(mine) == 1:
            out.append((f, party))
    return out


def _application(w: World, over: bool) -> tuple[dict, dict, dict, str, float] | None:
    pick, member = w.pick(_fields(w)), w.pick(w.staff_pool())
    if pick is None or member is None:
        return None
    product = w.pick(sorted(MAX_RATES))
    unit, top = MAX_RATES[product]
    rate = round(top * (w.pick([1.5, 2.0]) if over else w.pick([0.5, 0.75, 1.0])), 2)
    return pick[0], pick[1], member, product, rate


@intent("action", categories=("agriculture",), needs=("field_application",))
def agri_record_application(w: World) -> Plan | None:
    pick = _application(w, over=False)
    if pick is None:
        return None
    field, party, member, product, rate = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("field"), {w.fk("party"): party["id"], "name": field["name"]}),
             w.find_staff(member),
             (w.n.create("field_application"), {w.fk("field"): field["id"], w.fk("staff"): member["id"],
                                                "product": product, "rate_per_acre": rate})]
    goal = Goal(kind="rows_created", table=w.table("field_application"), count=1, expect={
        w.fk("field"): field["id"], w.fk("staff"): member["id"], "product": product, "rate_per_acre": rate,
        "applied_on": TODAY, "status": "applied"})
    say = Say("do", (
        "{staff} applied {product} at {rate} {unit} per acre on {their} field {field} today || record that "
        "{FIELD_APPLICATION}",
        "record {a FIELD_APPLICATION} on {their} field {field}: {product}, {rate} {unit} per acre, applied today by "
        "{staff}",
    ), {"staff": w.person(member), "product": product, "rate": f"{rate:g}", "unit": MAX_RATES[product][0],
        "field": field["name"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("field", field["id"])})


@intent("infeasible", categories=("agriculture",), needs=("field_application",))
def agri_rate_over_label(w: World) -> Plan | None:
    pick = _application(w, over=True)
    if pick is None:
        return None
    field, party, member, product, rate = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "record {a FIELD_APPLICATION} of {product} at {rate} {unit} per acre on {their} field {field}, applied today "
        "by {staff}",
        "{staff} put {rate} {unit} of {product} per acre on {their} field {field} today || log it",
    ), {"staff": w.person(member), "product": product, "rate": f"{rate:g}", "unit": MAX_RATES[product][0],
        "field": field["name"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("field"), {w.fk("party"): party["id"], "name": field["name"]})],
                [w.number_answer(MAX_RATES[product][1])], say,
                answer=f"The label of {product} allows at most {MAX_RATES[product][1]:g} {MAX_RATES[product][0]} per acre.",
                targets={("field", field["id"])},
                refused=((w.n.create("field_application"), {w.fk("field"): field["id"], w.fk("staff"): member["id"],
                                                            "product": product, "rate_per_acre": rate}),
                         "over_limit"))


@intent("question", categories=("agriculture",), needs=("soil_sample",))
def agri_sample_ph(w: World) -> Plan | None:
    sample = w.pick([s for s in w.rows["soil_sample"] if s["status"] in ("analysed", "reported")])
    if sample is None:
        return None
    say = Say("ask", (
        "what pH did {SOIL_SAMPLE} {code} come back with",
        "what is the soil pH measured on {SOIL_SAMPLE} {code}",
    ), {"code": sample["sample_code"]})
    return Plan([(w.n.list("soil_sample"), {"sample_code": sample["sample_code"]})],
                [w.number_answer(sample["ph"])], say, answer=str(sample["ph"]),
                targets={("soil_sample", sample["id"])})


def _treated(w: World, cleared: bool) -> list[dict]:
    return [a for a in w.rows["animal"] if a["status"] == "treated" and (a["withdrawal_until"] < TODAY) == cleared]


@intent("action", categories=("agriculture",), needs=("animal",))
def agri_return_to_milking(w: World) -> Plan | None:
    animal = w.pick(_treated(w, cleared=True))
    if animal is None:
        return None
    calls = [(w.n.list("animal"), {"tag": animal["tag"]}),
             (w.n.action("animal", "return_to_milking"), {w.pk("animal"): animal["id"]})]
    goal = Goal(kind="row_equals", table=w.table("animal"), pk=animal["id"], expect={"status": "milking"})
    say = Say("do", (
        "the {species} tagged {tag} has finished her course of {treatment} || put her back in the milking string",
        "return {ANIMAL} {tag} to milking",
    ), {"species": animal["species"], "tag": animal["tag"], "treatment": animal["treatment"]})
    return Plan(calls, [goal], say, targets={("animal", animal["id"])})


@intent("infeasible", categories=("agriculture",), needs=("animal",))
def agri_milk_during_withdrawal(w: World) -> Plan | None:
    animal = w.pick(_treated(w, cleared=False))
    if animal is None:
        return None
    say = Say("do", (
        "put the {species} tagged {tag} back in the milking string",
        "return {ANIMAL} {tag} to milking today",
    ), {"species": animal["species"], "tag": animal["tag"]})
    return Plan([(w.n.list("animal"), {"tag": animal["tag"]})],
                [w.text_answer(animal["withdrawal_until"], [a["withdrawal_until"] for a in w.rows["animal"]
                                                            if a["withdrawal_until"]])], say,
                answer=f"She is under a withdrawal period until {animal['withdrawal_until']}.",
                targets={("animal", animal["id"])},
                refused=((w.n.action("animal", "return_to_milking"), {w.pk("animal"): animal["id"]}), "withdrawal_period"))


@intent("action", categories=("agriculture",), needs=("crop_batch",))
def agri_allocate_plants(w: World) -> Plan | None:
    batch = w.pick([b for b in w.rows["crop_batch"] if b["status"] == "ready" and b["quantity"] >= 48])
    if batch is None:
        return None
    item = w.by_id("item", batch[w.fk("item")])
    if sum(b[w.fk("item")] == item["id"] for b in w.rows["crop_batch"]) != 1:
        return None
    quantity = w.pick([12, 24, 36])
    calls = [w.find_item(item), (w.n.list("crop_batch"), {w.fk("item"): item["id"], "status": "ready"}),
             (w.n.action("crop_batch", "allocate"), {w.pk("crop_batch"): batch["id"], "quantity": quantity})]
    goal = Goal(kind="row_equals", table=w.table("crop_batch"), pk=batch["id"],
                expect={"quantity": batch["quantity"] - quantity, "status": "ready"})
    say = Say("do", (
        "allocate {quantity} plants from the ready {CROP_BATCH} of {item}",
        "a trade order needs {quantity} of {item} || take them from its ready {CROP_BATCH}",
    ), {"quantity": quantity, "item": quote(item["name"])})
    return Plan(calls, [goal], say, targets={("crop_batch", batch["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("farm_rush_planting_order", "action", ("agriculture",), lambda w: rush(
    w, ("confirm", "ship"), ("Rush for planting season", "Needed before sowing starts", "Field crew waiting"), (
        "planting starts next week || confirm {case} and ship it today, with the note {note}",
        "push {case} through: confirm it, ship it, and note {note}",
        "the grower needs {case} before sowing || get it confirmed and shipped now and add the note {note}",
    )), flavours=("fulfillment",))
define("farm_frost_cancellations", "aggregate", ("agriculture",), lambda w: call_off_day(
    w, ("Cancelled: frost warning", "Cancelled due to frost"), (
        "a frost warning has been issued for {long} || cancel every {CASE} at {site} that day that can still "
        "be cancelled and add the note {note} to each",
        "call off all the {CASE/pl} at {site} on {date} that are not past the point of cancelling, noting "
        "{note} on each",
    )), flavours=("appointment", "reservation"))
define("farm_input_recall", "aggregate", ("agriculture",), lambda w: notify_item_holders(
    w, ("Product recall: {item}", "Recall notice for {item}"), (
        "{item} has been recalled by the manufacturer || send every {PARTY} with an open {CASE} ({open}) "
        "that includes it {a via} {NOTIFICATION} with the subject {subject}",
        "warn each {PARTY} with an open {CASE} ({open}) that contains {item}: one {via} {NOTIFICATION} each, subject "
        "{subject}",
    )), needs=("notification",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("agri_busy_season_reroute", "chained", ("agriculture",), lambda w: reroute_to_quietest_site(
    w, ("Moved for the busy season", "Rerouted: overloaded for the season"), (
        "it's the busy season at {site} || transfer {CASE} {code} to whichever other {SITE} has the fewest "
        "{CASE/pl} that are {open}, noting {note}",
        "move {CASE} {code} from {site}, which is overloaded, to the other {SITE} with the lightest load of "
        "{open} {CASE/pl} and add the note {note}",
    )))
