"""Requests about the food and beverage category's own entities (awm/builder/modules/packs/food_and_beverage.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.food_and_beverage.entities import SAFE_RANGES
from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import TODAY
from awm.builder.intents.shapes import cover_shortage, define, note_every_open_case, reroute_to_quietest_site
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal


def _lots(w: World, statuses: tuple[str, ...], expired: bool) -> list[dict]:
    return [x for x in w.rows["product_lot"] if x["status"] in statuses and (x["best_before"] < TODAY) == expired]


@intent("action", categories=("food_and_beverage",), needs=("product_lot",))
def fnb_recall_lot(w: World) -> Plan | None:
    lot = w.pick(_lots(w, ("released", "on_hold"), expired=False))
    if lot is None:
        return None
    calls = [(w.n.list("product_lot"), {"lot_code": lot["lot_code"]}),
             (w.n.action("product_lot", "recall"), {w.pk("product_lot"): lot["id"]})]
    goal = Goal(kind="row_equals", table=w.table("product_lot"), pk=lot["id"], expect={"status": "recalled"})
    say = Say("do", (
        "recall {PRODUCT_LOT} {code} of {item}",
        "the supplier flagged a problem with {item} || recall {PRODUCT_LOT} {code}",
    ), {"code": lot["lot_code"], "item": quote(w.by_id("item", lot[w.fk("item")])["name"])})
    return Plan(calls, [goal], say, targets={("product_lot", lot["id"])})


@intent("infeasible", categories=("food_and_beverage",), needs=("product_lot",))
def fnb_release_expired_lot(w: World) -> Plan | None:
    lot = w.pick(_lots(w, ("on_hold",), expired=True))
    if lot is None:
        return None
    say = Say("do", (
        "release {PRODUCT_LOT} {code} from hold",
        "take {PRODUCT_LOT} {code} of {item} off hold and release it",
    ), {"code": lot["lot_code"], "item": quote(w.by_id("item", lot[w.fk("item")])["name"])})
    return Plan([(w.n.list("product_lot"), {"lot_code": lot["lot_code"]})],
                [w.text_answer(lot["best_before"], [x["best_before"] for x in w.rows["product_lot"]])], say,
                answer=f"It was best before {lot['best_before']}, so it cannot be released.",
                targets={("product_lot", lot["id"])},
                refused=((w.n.action("product_lot", "release"), {w.pk("product_lot"): lot["id"]}), "expired"))


CHECK_ACTIONS = {"cold": ("moved the stock to the backup cooler", "called out the refrigeration engineer",
                          "discarded the affected product"),
                 "freezer": ("moved the stock to the backup freezer", "called out the refrigeration engineer"),
                 "hot_holding": ("reheated the food to 75 °C", "discarded the affected product")}
UNIT_WORDS = {"walk_in_cooler": "walk in cooler", "prep_fridge": "prep fridge", "freezer": "freezer",
              "hot_holding": "hot holding unit"}


@intent("action", categories=("food_and_beverage",), needs=("temperature_check",))
def fnb_log_failed_check(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if w.staff_pool(s["id"])])
    if site is None:
        return None
    member = w.pick(w.staff_pool(site["id"]))
    unit = w.pick(list(SAFE_RANGES))
    low, high = SAFE_RANGES[unit]
    reading = round(low - w.pick([4.0, 6.5, 9.0]) if unit == "hot_holding" else high + w.pick([2.5, 3.5, 6.0]), 1)
    action = w.pick(CHECK_ACTIONS.get(unit, CHECK_ACTIONS["cold"]))
    calls = [w.find_site(site), w.find_staff(member),
             (w.n.create("temperature_check"), {w.fk("site"): site["id"], w.fk("staff"): member["id"], "unit": unit,
                                                "temperature_c": reading, "corrective_action": action})]
    goal = Goal(kind="rows_created", table=w.table("temperature_check"), count=1, expect={
        w.fk("site"): site["id"], w.fk("staff"): member["id"], "unit": unit, "temperature_c": reading,
        "result": "fail", "corrective_action": {"text": action}})
    say = Say("do", (
        "{staff} just read {reading} °C on the {unit} at {site} and {action} || log that {TEMPERATURE_CHECK}",
        "log {a TEMPERATURE_CHECK} for {site}: {unit} at {reading} °C, taken by {staff}, who {action}",
    ), {"staff": w.person(member), "reading": reading, "unit": UNIT_WORDS[unit], "site": site["name"],
        "action": action})
    return Plan(calls, [goal], say, targets={("site", site["id"])})


@intent("question", categories=("food_and_beverage",), needs=("temperature_check",))
def fnb_failed_checks(w: World) -> Plan | None:
    since = w.pick(["2025-05-25", "2025-05-28"])
    site = w.pick(w.rows["site"])
    failed = [c for c in w.children("temperature_check", "site", site["id"])
              if c["result"] == "fail" and c["checked_at"][:10] >= since]
    say = Say("ask", (
        "how many {TEMPERATURE_CHECK/pl} at {site} have failed since {long}",
        "since {long}, how many failed {TEMPERATURE_CHECK/pl} has {site} logged",
    ), {"site": site["name"], "long": long_date(since)})
    return Plan([w.find_site(site), (w.n.list("temperature_check"), {w.fk("site"): site["id"], "result": "fail"})],
                [w.number_answer(len(failed))], say, answer=str(len(failed)), targets={("site", site["id"])})


def _tables(w: World, fits: bool) -> list[tuple[dict, dict, int]]:
    """(table, restaurant, party size) for available tables the party fits at, or is one too many for."""
    out = []
    for t in w.rows["dining_table"]:
        site = w.by_id("site", t[w.fk("site")])
        same = [x for x in w.children("dining_table", "site", site["id"]) if x["table_number"] == t["table_number"]]
        if t["status"] == "available" and len(same) == 1:
            out.append((t, site, t["seats"] - (t["seats"] > 2) if fits else t["seats"] + w.pick([1, 2])))
    return out


@intent("action", categories=("food_and_beverage",), needs=("dining_table",))
def fnb_seat_party(w: World) -> Plan | None:
    pick = w.pick(_tables(w, fits=True))
    if pick is None:
        return None
    table, site, size = pick
    calls = [w.find_site(site), (w.n.list("dining_table"), {w.fk("site"): site["id"], "table_number": table["table_number"]}),
             (w.n.action("dining_table", "seat"), {w.pk("dining_table"): table["id"], "party_size": size})]
    goal = Goal(kind="row_equals", table=w.table("dining_table"), pk=table["id"],
                expect={"status": "occupied", "party_size": size})
    say = Say("do", (
        "seat a party of {size} at table {number} in {site}",
        "a party of {size} just walked into {site} || put them at table {number}",
    ), {"size": size, "number": table["table_number"], "site": site["name"]})
    return Plan(calls, [goal], say, targets={("dining_table", table["id"])})


@intent("infeasible", categories=("food_and_beverage",), needs=("dining_table",))
def fnb_seat_too_many(w: World) -> Plan | None:
    pick = w.pick(_tables(w, fits=False))
    if pick is None:
        return None
    table, site, size = pick
    say = Say("do", (
        "seat a party of {size} at table {number} in {site}",
        "a party of {size} is waiting at {site} || give them table {number}",
    ), {"size": size, "number": table["table_number"], "site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("dining_table"), {w.fk("site"): site["id"],
                                                                "table_number": table["table_number"]})],
                [w.number_answer(table["seats"])], say, answer=f"That table seats only {table['seats']}.",
                targets={("dining_table", table["id"])},
                refused=((w.n.action("dining_table", "seat"), {w.pk("dining_table"): table["id"], "party_size": size}),
                         "over_capacity"))


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("food_allergy_note", "aggregate", ("food_and_beverage", "hospitality"), lambda w: note_every_open_case(
    w, ("Severe nut allergy", "Gluten-free only", "Shellfish allergy: no exceptions"), (
        "{they_have} told {us} about an allergy || add the note {note} to every {CASE} of {theirs} that is "
        "{open}",
        "put the note {note} on each of {their} {open} {CASE/pl}",
    )))
define("food_ingredient_shortage", "chained", ("food_and_beverage", "manufacturing", "healthcare"),
       lambda w: cover_shortage(w, (
           "{site} is short of {item} || order enough from {vendor} to bring it to twice its reorder level: "
           "create the {PURCHASE_ORDER}, add the line and submit it",
           "place a submitted {PURCHASE_ORDER} with {vendor} for {site} covering {item}: the quantity should "
           "take the stock there to exactly twice its reorder level",
           "[top up|restock] {item} at {site} through {vendor} || [order|buy] exactly what takes the stock to "
           "double its reorder level, on a new {PURCHASE_ORDER} that you then submit",
           "[we have run low on|stocks are low for] {item} at {site} || [raise|create] {a PURCHASE_ORDER} with "
           "{vendor} for the amount that brings it up to twice the reorder level, and submit it",
       )), needs=("stock_level", "purchase_order"))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("fnb_site_at_capacity", "chained", ("food_and_beverage",), lambda w: reroute_to_quietest_site(
    w, ("Moved: site at capacity", "Rerouted for capacity"), (
        "{site} can't keep up this week || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} "
        "that are {open}, and note {note} on it",
        "shift {CASE} {code} from {site} to the other {SITE} with the lightest load of {open} {CASE/pl}, noting "
        "{note}",
    )), flavours=("fulfillment",))
