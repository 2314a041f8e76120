"""What only a carrier or forwarder keeps: the carriers it books, shipments and their legs, rate quotes and
shipment exceptions; each with its lifecycle and the rules its tools enforce."""

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

CATEGORY = "logistics"
LABELS = {"carrier": "carrier", "shipment": "shipment", "leg": "shipment leg", "rate_quote": "rate quote",
          "exception": "shipment exception"}
ALT_LABELS = {"carrier": "linehaul carrier", "shipment": "consignment", "leg": "route leg",
              "rate_quote": "freight quote", "exception": "delivery exception"}
GROUPS = {
    "legs": Group(("carrier", "shipment", "leg")),
    "quotes": Group(("carrier", "rate_quote")),
    "exceptions": Group(("carrier", "shipment", "exception")),
}
CODED = ("shipment", "rate_quote")

MODES = ("truckload", "ltl", "parcel", "rail", "air", "ocean")
SHIPMENT_STATUSES = ("booked", "in_transit", "delivered", "exception", "cancelled")
LEG_STATUSES = ("planned", "departed", "arrived")
QUOTE_STATUSES = ("offered", "accepted", "declined", "expired")
EXCEPTION_KINDS = ("delay", "damage", "lost", "customs_hold", "address_issue", "refused")
CITIES = ("Chicago", "Dallas", "Atlanta", "Memphis", "Columbus", "Denver", "Phoenix", "Laredo", "Newark",
          "Savannah", "Seattle", "Kansas City", "Louisville", "Reno", "Charlotte", "Salt Lake City")
_CARRIER_WORDS = ("Freight", "Express", "Logistics", "Transport", "Lines", "Haulage", "Cargo")
_CARRIER_NAMES = ("Swift", "Prairie", "Summit", "Coastal", "Ironhorse", "Bluewater", "Redline", "Northstar",
                  "Keystone", "Granite", "Eagle", "Pioneer", "Silverline", "Lakeshore")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the carrier, shipment, leg, rate_quote and exception tables."""
    carrier_fk, ship_fk = f"{snake(L['carrier'])}_id", f"{snake(L['shipment'])}_id"
    ents: dict[str, Entity] = {}
    if has("carrier"):
        ents["carrier"] = Entity("carrier", L["carrier"], [
            pk_col(), Col("name", "TEXT"), Col("scac", "TEXT", unique=True), Col("mode", "TEXT", enum=MODES),
            Col("on_time_rate", "REAL", minimum=0, maximum=1), Col("active", "INTEGER", enum=None),
        ], f"{plural(L['carrier']).capitalize()} that move the freight.", search=("name", "scac"),
            filters=("mode", "active"))
    if has("shipment"):
        ents["shipment"] = Entity("shipment", L["shipment"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "case"), fk_col(L, "carrier", nullable=True),
            Col("origin_city", "TEXT"), Col("destination_city", "TEXT"), Col("weight_kg", "REAL", minimum=0),
            Col("status", "TEXT", enum=SHIPMENT_STATUSES), Col("ship_date", "TEXT"),
            Col("delivered_at", "TEXT", nullable=True),
        ], f"Freight moving for {plural(L['case'])}: statuses {', '.join(SHIPMENT_STATUSES)}.",
            filters=("number", f"{snake(L['case'])}_id", carrier_fk, "status"), code="number")
    if has("leg"):
        ents["leg"] = Entity("leg", L["leg"], [
            pk_col(), fk_col(L, "shipment"), Col("sequence", "INTEGER", minimum=1), fk_col(L, "carrier"),
            Col("from_city", "TEXT"), Col("to_city", "TEXT"), Col("status", "TEXT", enum=LEG_STATUSES),
            Col("departs_at", "TEXT"),
        ], f"The legs of each {L['shipment']}, in order; a leg departs once the one before it has arrived.",
            filters=(ship_fk, carrier_fk, "status"))
    if has("rate_quote"):
        ents["rate_quote"] = Entity("rate_quote", L["rate_quote"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "carrier"),
            Col("origin_city", "TEXT"), Col("destination_city", "TEXT"), Col("weight_kg", "REAL", minimum=0),
            Col("amount", "REAL", minimum=0), Col("valid_until", "TEXT"), Col("status", "TEXT", enum=QUOTE_STATUSES),
        ], f"Prices offered to {plural(L['party'])} for a lane; a quote can be accepted until it lapses.",
            filters=("number", f"{snake(L['party'])}_id", carrier_fk, "status", "origin_city", "destination_city"),
            code="number")
    if has("exception"):
        ents["exception"] = Entity("exception", L["exception"], [
            pk_col(), fk_col(L, "shipment"), Col("kind", "TEXT", enum=EXCEPTION_KINDS),
            Col("status", "TEXT", enum=("open", "resolved")), Col("reported_at", "TEXT"),
            Col("resolution", "TEXT", nullable=True),
        ], f"Problems reported on {plural(L['shipment'])}.", filters=(ship_fk, "kind", "status"))
    return ents


def fill_carriers(gen: RowGen) -> None:
    names = gen.rng.sample(_CARRIER_NAMES, gen.rng.randint(5, 8))
    for n, name in enumerate(names):
        word = gen.rng.choice(_CARRIER_WORDS)
        gen.add("carrier", {"name": f"{name} {word}", "scac": (name[:2] + word[:2]).upper(),
                            "mode": gen.rng.choice(MODES), "on_time_rate": round(gen.rng.uniform(0.82, 0.99), 3),
                            "active": 0 if n == len(names) - 1 else 1})


def fill_shipments(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["shipment"]
    carriers = [c["id"] for c in gen.rows["carrier"] if c["active"]]
    moving = {"shipped": "in_transit", "delivered": "delivered", "confirmed": "booked", "cancelled": "cancelled",
              "returned": "delivered"}
    n = 0
    for case in gen.rows["case"]:
        status = moving.get(case["status"])
        if status is None:
            continue
        n += 1
        shipped = gen.between(case["created_at"])
        if status == "in_transit" and gen.rng.random() < 0.2:
            status = "exception"
        origin, dest = gen.rng.sample(CITIES, 2)
        shipment = gen.add("shipment", {
            "number": f"{prefix}-{7001 + n}", gen.fk("case"): case["id"], gen.fk("carrier"): gen.rng.choice(carriers),
            "origin_city": origin, "destination_city": dest, "weight_kg": float(gen.rng.randint(5, 18000)),
            "status": status, "ship_date": day(shipped),
            "delivered_at": iso(gen.between(shipped)) if status == "delivered" else None,
        })
        if gen.has("leg"):
            stops = [origin, *gen.rng.sample([c for c in CITIES if c not in (origin, dest)], gen.rng.randint(0, 2)), dest]
            for seq, (a, b) in enumerate(zip(stops, stops[1:], strict=False), start=1):
                leg_status = {"delivered": "arrived", "booked": "planned", "cancelled": "planned"}.get(status)
                if leg_status is None:  # on the road: the earlier legs arrived, one departed, the rest planned
                    leg_status = "arrived" if seq < len(stops) - 1 else "departed"
                gen.add("leg", {gen.fk("shipment"): shipment["id"], "sequence": seq,
                                gen.fk("carrier"): gen.rng.choice(carriers), "from_city": a, "to_city": b,
                                "status": leg_status, "departs_at": iso(shipped + timedelta(hours=20 * seq))})
        if gen.has("exception") and (status == "exception" or gen.rng.random() < 0.1):
            resolved = status != "exception"
            gen.add("exception", {gen.fk("shipment"): shipment["id"], "kind": gen.rng.choice(EXCEPTION_KINDS),
                                  "status": "resolved" if resolved else "open", "reported_at": iso(gen.between(shipped)),
                                  "resolution": gen.rng.choice(("Redelivered", "Claim paid", "Released by customs"))
                                  if resolved else None})


    if gen.has("exception") and not gen.rows.get("exception") and gen.rows.get("shipment"):
        # a world that keeps exceptions has at least one: the first shipment on the road (or the first) had one
        shipment = next((s for s in gen.rows["shipment"] if s["status"] in ("in_transit", "delivered")),
                        gen.rows["shipment"][0])
        gen.add("exception", {gen.fk("shipment"): shipment["id"], "kind": gen.rng.choice(EXCEPTION_KINDS),
                              "status": "resolved", "reported_at": iso(gen.between(shipment["ship_date"] + "T08:00:00")),
                              "resolution": gen.rng.choice(("Redelivered", "Claim paid", "Released by customs"))})


def fill_quotes(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["rate_quote"]
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    carriers = [c["id"] for c in gen.rows["carrier"] if c["active"]]
    for n in range(gen.rng.randint(14, 22)):
        origin, dest = gen.rng.sample(CITIES[:6], 2)
        valid = gen.rng.choice((-20, -5, -1, 3, 7, 14, 30))
        status = "expired" if valid < 0 else gen.rng.choices(("offered", "accepted", "declined"), (5, 2, 1))[0]
        if valid < 0 and gen.rng.random() < 0.3:
            status = gen.rng.choice(("accepted", "declined"))
        gen.add("rate_quote", {
            "number": f"{prefix}-{9100 + n}", gen.fk("party"): gen.rng.choice(parties),
            gen.fk("carrier"): gen.rng.choice(carriers), "origin_city": origin, "destination_city": dest,
            "weight_kg": float(gen.rng.randint(100, 20000)), "amount": gen.money(180, 6500),
            "valid_until": day(REFERENCE_NOW + timedelta(days=valid)), "status": status,
        })


FILL = {"carrier": fill_carriers, "shipment": fill_shipments, "rate_quote": fill_quotes}

