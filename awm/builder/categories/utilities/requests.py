"""Requests about the utilities category's own entities (awm/builder/modules/packs/utilities.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import TODAY
from awm.builder.intents.shapes import (
    define,
    notify_item_holders,
    reroute_to_quietest_site,
    split_invoice,
    ticket_for_case,
)
from awm.builder.phrasing import Say
from awm.contracts import Goal


@intent("action", categories=("utilities",), needs=("meter", "meter_reading"))
def util_record_reading(w: World) -> Plan | None:
    meter = w.pick([m for m in w.rows["meter"] if m["status"] == "active"])
    if meter is None:
        return None
    reading = round(meter["last_reading"] + w.pick([112.0, 240.5, 388.0, 615.5]), 1)
    source = w.pick(["actual", "customer"])
    calls = [(w.n.list("meter"), {"serial": meter["serial"]}),
             (w.n.action("meter", "record_reading"), {w.pk("meter"): meter["id"], "reading": reading, "source": source})]
    goals = [Goal(kind="row_equals", table=w.table("meter"), pk=meter["id"],
                  expect={"last_reading": {"approx": reading}, "last_read_on": TODAY}),
             Goal(kind="rows_created", table=w.table("meter_reading"), count=1, expect={
                 w.fk("meter"): meter["id"], "reading": {"approx": reading}, "source": source})]
    say = Say("do", (
        "{METER} {serial} reads {reading} today ({source} reading) || record it",
        "record a reading of {reading} for {METER} {serial}, source {source}",
    ), {"serial": meter["serial"], "reading": reading, "source": source})
    return Plan(calls, goals, say, targets={("meter", meter["id"])})


@intent("infeasible", categories=("utilities",), needs=("meter",))
def util_backwards_reading(w: World) -> Plan | None:
    meter = w.pick([m for m in w.rows["meter"] if m["status"] == "active" and m["last_reading"] > 500])
    if meter is None:
        return None
    reading = round(meter["last_reading"] - w.pick([50.0, 120.0, 300.0]), 1)
    # where the world keeps readings, the tool asks who read the meter: the request says it
    source = {"source": "actual"} if w.has("meter_reading") else {}
    say = Say("do", (
        "record a reading of {reading} for {METER} {serial}" + (", source actual" if source else ""),
        "{METER} {serial} shows {reading}" + (" (actual reading)" if source else "") + " || log that reading",
    ), {"serial": meter["serial"], "reading": reading})
    return Plan([(w.n.list("meter"), {"serial": meter["serial"]})], [w.number_answer(meter["last_reading"])], say,
                answer=f"The meter last read {meter['last_reading']}; a reading cannot go backwards.",
                targets={("meter", meter["id"])},
                refused=((w.n.action("meter", "record_reading"), {w.pk("meter"): meter["id"], "reading": reading, **source}),
                         "reading_backwards"))


@intent("action", categories=("utilities",), needs=("outage",))
def util_dispatch_crew(w: World) -> Plan | None:
    outage = w.pick([o for o in w.rows["outage"] if o["status"] == "reported"])
    member = w.pick(w.staff_pool())
    if outage is None or member is None:
        return None
    site = w.by_id("site", outage[w.fk("site")])
    same = [o for o in w.rows["outage"] if o["status"] == "reported" and o["area"] == outage["area"]
            and o[w.fk("site")] == site["id"]]
    if len(same) != 1:
        return None
    calls = [w.find_site(site), (w.n.list("outage"), {w.fk("site"): site["id"], "status": "reported"}),
             w.find_staff(member),
             (w.n.action("outage", "dispatch_crew"), {w.pk("outage"): outage["id"], w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("outage"), pk=outage["id"],
                expect={"status": "crew_dispatched", w.fk("staff"): member["id"]})
    say = Say("do", (
        "send {staff} to the reported {OUTAGE} in {area} (handled by {site})",
        "dispatch {staff} to the {area} {OUTAGE} that {site} has on record",
    ), {"staff": w.person(member), "area": outage["area"], "site": site["name"]})
    return Plan(calls, [goal], say, targets={("outage", outage["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("utility_payment_plan", "chained", ("utilities", "insurance", "real_estate"), lambda w: split_invoice(w, (
    "put {inv} on a payment plan: void it and issue two {INVOICE/pl} for the same {PARTY} and {CASE}, each for "
    "half (any odd cent on the second), due {d1} and {d2}",
    "{inv} is too much to pay at once || replace it with two half-amount {INVOICE/pl}, due on {d1} and {d2}, with "
    "the odd cent on the second, and void the original",
    "[spread|split] {inv} over two payments || void it, then [issue|raise] two {INVOICE/pl} to the same {PARTY} "
    "for the same {CASE}: the first for half, due {d1}, the second for the rest, due {d2}",
    "[set up|arrange] a two-part payment plan in place of {inv}: [cancel it by voiding it|void it], and bill half "
    "on {d1} and the remainder on {d2}, same {PARTY}, same {CASE}",
)), needs=("invoice",))
define("utility_outage_report", "action", ("utilities", "telecom", "energy"), lambda w: ticket_for_case(
    w, ("Outage reported on {code}", "No service at the property on {code}", "Supply interruption on {code}"),
    "urgent", ("Crew informed of the outage", "Customer reported loss of service"), (
        "{they} have no service || open an urgent {TICKET} with the subject {subject} and add the note {note} to "
        "{case}",
        "log an outage: {a TICKET} titled {subject} at urgent priority, and the note {note} on {case}",
    ), open_only=True), needs=("ticket",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("util_stretched_crews", "chained", ("utilities",), lambda w: reroute_to_quietest_site(
    w, ("Reassigned: crews stretched", "Moved to balance crew workload"), (
        "the crews at {site} are stretched || move {CASE} {code} to the other {SITE} with the fewest {open} "
        "{CASE/pl} and add the note {note}",
        "reassign {CASE} {code} from {site} to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "with the note {note}",
    )))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("util_rate_change_notice", "aggregate", ("utilities",), lambda w: notify_item_holders(
    w, ("Rate change: {item}", "Changes to {item}"), (
        "the rate for {item} is changing next month || let every {PARTY} with {a CASE} that is {open} and "
        "includes it know by {channel}, subject {subject}",
        "notify each {PARTY} with an open {CASE} ({open}) that includes {item}, by {channel}, subject {subject}",
    )), needs=("notification",))
