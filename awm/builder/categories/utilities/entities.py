"""What only a utility keeps: meters at customers' premises and their readings (a reading never runs backwards),
and service outages with their crews; with the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "utilities"
LABELS = {"meter": "meter", "meter_reading": "meter reading", "outage": "service outage"}
ALT_LABELS = {"meter": "service meter", "meter_reading": "meter read", "outage": "supply interruption"}
GROUPS = {
    "meters": Group(("meter",), not_for=("waste_collection",)),
    "readings": Group(("meter", "meter_reading"), not_for=("waste_collection",)),
    "outages": Group(("outage",)),
}
CODED = ()

OUTAGE_STATUSES = ("reported", "crew_dispatched", "restored")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the meter, meter_reading and outage tables."""
    ents: dict[str, Entity] = {}
    if has("meter"):
        ents["meter"] = Entity("meter", L["meter"], [
            pk_col(), fk_col(L, "party"), Col("serial", "TEXT", unique=True), Col("status", "TEXT", enum=("active", "removed")),
            Col("last_reading", "REAL", minimum=0), Col("last_read_on", "TEXT"),
        ], f"Meters at {plural(L['party'])}' premises, with their latest reading.",
            filters=(f"{snake(L['party'])}_id", "serial", "status"))
    if has("meter_reading"):
        ents["meter_reading"] = Entity("meter_reading", L["meter_reading"], [
            pk_col(), fk_col(L, "meter"), Col("reading", "REAL", minimum=0), Col("read_on", "TEXT"),
            Col("source", "TEXT", enum=("actual", "estimated", "customer")),
        ], f"Readings of each {L['meter']}; a reading is never below the one before it.",
            filters=(f"{snake(L['meter'])}_id", "source"))
    if has("outage"):
        ents["outage"] = Entity("outage", L["outage"], [
            pk_col(), fk_col(L, "site"), fk_col(L, "staff", nullable=True), Col("area", "TEXT"),
            Col("cause", "TEXT", enum=("storm", "equipment_failure", "planned_work", "third_party_damage", "unknown")),
            Col("customers_affected", "INTEGER", minimum=0), Col("status", "TEXT", enum=OUTAGE_STATUSES),
            Col("reported_at", "TEXT"), Col("restored_at", "TEXT", nullable=True),
        ], f"Interruptions of supply handled from each {L['site']}; a crew is dispatched before it is restored.",
            filters=(f"{snake(L['site'])}_id", "status", "cause"))
    return ents


def fill_meters(gen: RowGen) -> None:
    for n, party in enumerate(gen.rows["party"]):
        last = round(gen.rng.uniform(500, 90000), 1)
        meter = gen.add("meter", {gen.fk("party"): party["id"], "serial": f"M{480000 + n * 17}",
                                  "status": "removed" if gen.rng.random() < 0.05 else "active",
                                  "last_reading": last, "last_read_on": day(gen.past(3, 40))})
        if gen.has("meter_reading"):
            value = last
            readings = []
            for k in range(3):
                readings.append((value, day(REFERENCE_NOW - timedelta(days=3 + 30 * k))))
                value = round(value - gen.rng.uniform(80, 900), 1)
            for value, read_on in reversed(readings):
                gen.add("meter_reading", {gen.fk("meter"): meter["id"], "reading": max(value, 0.0), "read_on": read_on,
                                          "source": gen.rng.choices(("actual", "estimated", "customer"), (6, 2, 1))[0]})
            meter["last_read_on"] = readings[0][1]


def fill_outages(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    areas = ("North district", "Riverside", "Old town", "Industrial park", "Hillcrest", "East end", "Harbour")
    for _ in range(gen.rng.randint(6, 10)):
        status = gen.rng.choices(OUTAGE_STATUSES, (3, 2, 5))[0]
        reported = gen.past(0, 20)
        gen.add("outage", {
            gen.fk("site"): gen.rng.choice(gen.rows["site"])["id"],
            gen.fk("staff"): gen.rng.choice(staff) if status != "reported" else None, "area": gen.rng.choice(areas),
            "cause": gen.rng.choice(("storm", "equipment_failure", "planned_work", "third_party_damage", "unknown")),
            "customers_affected": gen.rng.randint(5, 4000), "status": status, "reported_at": iso(reported),
            "restored_at": iso(gen.between(reported)) if status == "restored" else None,
        })


FILL = {"meter": fill_meters, "outage": fill_outages}

