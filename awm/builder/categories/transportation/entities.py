"""What only a transport operator keeps: its fleet vehicles (none back in service while a service is overdue),
damage reports on trips and moves (settled at most at their assessed cost), lost property found at its sites
(handed back only within the holding period) and service disruptions (planned works announced in advance);
with the rules their tools enforce."""

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

CATEGORY = "transportation"
LABELS = {"fleet_vehicle": "fleet vehicle", "damage_report": "damage report", "lost_item": "lost property item",
          "disruption": "service disruption"}
ALT_LABELS = {"fleet_vehicle": "fleet unit", "damage_report": "damage claim", "lost_item": "found item",
              "disruption": "service alert"}
GROUPS = {
    # a ride-hailing platform's cars belong to its drivers
    "fleet": Group(("fleet_vehicle",), not_for=("ride_hailing_service",)),
    # a transit rider's fare order has no vehicle or belongings in the operator's care
    "damage": Group(("damage_report",), not_for=("public_transit_agency",)),
    # a mover's customers are at home with their belongings
    "lost_property": Group(("lost_item",), not_for=("household_moving_company",)),
    # only a network riders wait on (stations, zones) announces disruptions
    "disruptions": Group(("disruption",), not_for=("car_rental_agency", "household_moving_company")),
}
CODED = ()

VEHICLE_STATUSES = ("in_service", "out_of_service", "retired")
MAKES = {  # what each kind of operator runs, by make
    "car_rental_agency": {"Toyota": ("Corolla", "RAV4", "Camry"), "Nissan": ("Altima", "Leaf"), "Ford": ("Escape",
                          "Transit"), "Chevrolet": ("Malibu", "Tahoe"), "Hyundai": ("Elantra", "Tucson")},
    "public_transit_agency": {"Gillig": ("Low Floor",), "New Flyer": ("Xcelsior",), "Nova Bus": ("LFS",),
                              "Proterra": ("ZX5",), "Ford": ("E-450 paratransit",)},
    "household_moving_company": {"Isuzu": ("NPR",), "Ford": ("E-450", "Transit"), "Freightliner": ("M2 106",),
                                 "Hino": ("268",), "Mercedes-Benz": ("Sprinter",)},
}
SERVICE_INTERVAL_DAYS = 90  # a service is good for this long
DAMAGE_STATUSES = ("reported", "assessed", "settled", "denied")
SEVERITIES = ("minor", "moderate", "major")
HOLD_DAYS = 60  # found property is kept this long, then disposed of
LOST_STATUSES = ("held", "claimed", "disposed")
LOST_THINGS = ("black umbrella", "blue backpack", "leather wallet", "phone in a red case", "set of house keys",
               "grey laptop bag", "child's car seat", "pair of sunglasses", "silver water bottle", "denim jacket",
               "reading glasses", "wireless earbuds case", "brown handbag", "tablet in a black sleeve")
DISRUPTION_KINDS = ("delay", "closure", "detour", "planned_works", "weather")
DISRUPTION_STATUSES = ("planned", "active", "resolved")
NOTICE_DAYS = 7  # planned works are announced at least this far ahead
_DAMAGE = {  # per kind of operator: what gets damaged, by severity, and what each severity costs to put right
    "car_rental_agency": ({"minor": ("scratch on the rear bumper", "kerbed alloy wheel", "chipped windscreen"),
                           "moderate": ("dent in the driver's door", "cracked windscreen", "broken wing mirror"),
                           "major": ("crushed front wing", "damaged rear axle")},
                          {"minor": (80, 400), "moderate": (400, 1500), "major": (1500, 6000)}),
    "ride_hailing_service": ({"minor": ("spilled drink on the back seat", "stained floor mat"),
                              "moderate": ("torn seat cover", "broken window switch"),
                              "major": ("cracked rear window", "smashed door panel")},
                             {"minor": (25, 150), "moderate": (150, 500), "major": (500, 2000)}),
    "household_moving_company": ({"minor": ("scuffed bookcase", "broken lamp", "chipped stair banister"),
                                  "moderate": ("scratched dining table", "cracked mirror", "torn sofa cushion"),
                                  "major": ("dented fridge door", "gouged hardwood floor", "broken piano leg")},
                                 {"minor": (40, 300), "moderate": (300, 1200), "major": (1200, 4000)}),
}


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the fleet_vehicle, damage_report, lost_item and disruption tables."""
    site_fk = f"{snake(L['site'])}_id"
    ents: dict[str, Entity] = {}
    if has("fleet_vehicle"):
        ents["fleet_vehicle"] = Entity("fleet_vehicle", L["fleet_vehicle"], [
            pk_col(), fk_col(L, "site"), Col("unit_number", "TEXT", unique=True), Col("plate", "TEXT", unique=True),
            Col("make", "TEXT"), Col("model", "TEXT"), Col("model_year", "INTEGER", minimum=1995),
            Col("odometer", "INTEGER", minimum=0), Col("status", "TEXT", enum=VEHICLE_STATUSES),
            Col("last_serviced_on", "TEXT"), Col("next_service_due", "TEXT"),
        ], f"Vehicles the business runs from each {L['site']}; one whose service is overdue stays off the road.",
            filters=(site_fk, "unit_number", "plate", "status"))
    if has("damage_report"):
        ents["damage_report"] = Entity("damage_report", L["damage_report"], [
            pk_col(), fk_col(L, "case"), Col("description", "TEXT"), Col("severity", "TEXT", enum=SEVERITIES),
            Col("estimated_cost", "REAL", minimum=0), Col("status", "TEXT", enum=DAMAGE_STATUSES),
            Col("reported_on", "TEXT"), Col("settled_amount", "REAL", nullable=True, minimum=0),
        ], f"Damage found after {plural(L['case'])}; settled at most at its assessed cost.",
            filters=(f"{snake(L['case'])}_id", "severity", "status"))
    if has("lost_item"):
        ents["lost_item"] = Entity("lost_item", L["lost_item"], [
            pk_col(), fk_col(L, "site"), Col("tag", "TEXT", unique=True), Col("description", "TEXT"),
            Col("found_on", "TEXT"), Col("status", "TEXT", enum=LOST_STATUSES), fk_col(L, "party", nullable=True),
        ], f"Belongings left behind, kept at each {L['site']} for {HOLD_DAYS} days and then disposed of.",
            search=("description", "tag"), filters=(site_fk, "status", "tag"))
    if has("disruption"):
        ents["disruption"] = Entity("disruption", L["disruption"], [
            pk_col(), fk_col(L, "site"), Col("kind", "TEXT", enum=DISRUPTION_KINDS),
            Col("status", "TEXT", enum=DISRUPTION_STATUSES), Col("starts_at", "TEXT"),
            Col("ends_at", "TEXT", nullable=True), Col("message", "TEXT"),
        ], f"Delays, closures and works affecting a {L['site']}; planned works are announced {NOTICE_DAYS} days "
           "ahead.", filters=(site_fk, "kind", "status"))
    return ents


def fill_fleet(gen: RowGen) -> None:
    makes = MAKES.get(gen.sc.domain, MAKES["car_rental_agency"])
    n = 0
    for site in gen.rows["site"]:
        for _ in range(gen.rng.randint(3, 5)):
            n += 1
            make = gen.rng.choice(sorted(makes))
            serviced, year = gen.past(20, 150), gen.rng.randint(2012, 2025)
            status = gen.rng.choices(VEHICLE_STATUSES, (7, 3, 1))[0]
            gen.add("fleet_vehicle", {
                gen.fk("site"): site["id"], "unit_number": f"U-{100 + n * 7}",
                "plate": f"{gen.rng.choice('BCDFGHJKLM')}{gen.rng.choice('NPRSTVWXYZ')}{n:02d}-{gen.rng.randint(100, 999)}",
                "make": make, "model": gen.rng.choice(makes[make]), "model_year": year,
                "odometer": (2026 - year) * gen.rng.randint(9000, 28000), "status": status, "last_serviced_on": day(serviced),
                "next_service_due": day(serviced + timedelta(days=SERVICE_INTERVAL_DAYS)),
            })


def fill_damage(gen: RowGen) -> None:
    done = {"delivered", "completed", "checked_out", "resolved", "closed", "returned"}
    descriptions, costs = _DAMAGE.get(gen.sc.domain, _DAMAGE["car_rental_agency"])
    cases = [c for c in gen.rows["case"] if c["status"] in done] or gen.rows["case"][:3]
    for n, case in enumerate(cases):
        if n > 1 and gen.rng.random() < 0.6:
            continue
        status = gen.rng.choices(DAMAGE_STATUSES, (3, 4, 3, 1))[0] if n > 1 else ("reported", "assessed")[n]
        severity = gen.rng.choices(SEVERITIES, (5, 3, 1))[0]
        cost = gen.money(*costs[severity])
        gen.add("damage_report", {
            gen.fk("case"): case["id"], "description": gen.rng.choice(descriptions[severity]), "severity": severity,
            "estimated_cost": cost, "status": status, "reported_on": day(gen.between(case["created_at"])),
            "settled_amount": round(cost * gen.rng.choice((1.0, 0.9, 0.75)), 2) if status == "settled" else None,
        })


def fill_lost(gen: RowGen) -> None:
    parties = [p["id"] for p in gen.rows["party"]]
    n = 0
    for site in gen.rows["site"]:
        for k in range(gen.rng.randint(3, 5)):
            n += 1
            # the first ones at a site are recent and still held; one is past the holding period, not yet disposed
            found = gen.past(1, 40) if k < 2 else gen.past(HOLD_DAYS + 5, HOLD_DAYS + 60) if k == 2 else gen.past(2, 120)
            status = "held" if k < 3 else gen.rng.choice(("claimed", "disposed"))
            if status == "disposed" and (REFERENCE_NOW - found).days <= HOLD_DAYS:
                status = "claimed"
            gen.add("lost_item", {
                gen.fk("site"): site["id"], "tag": f"LP-{3000 + n * 13}", "description": gen.rng.choice(LOST_THINGS),
                "found_on": day(found), "status": status,
                gen.fk("party"): gen.rng.choice(parties) if status == "claimed" else None,
            })


def fill_disruptions(gen: RowGen) -> None:
    messages = {"delay": "Services are running up to 20 minutes late", "closure": "Closed until further notice",
                "detour": "Pick-ups moved to the next street", "planned_works": "Maintenance works, replacement "
                "service in place", "weather": "Reduced service because of the weather"}
    for site in gen.rows["site"]:
        for k in range(gen.rng.randint(2, 4)):
            status = ("active", "planned", "resolved")[k] if k < 3 else gen.rng.choice(DISRUPTION_STATUSES)
            kind = "planned_works" if status == "planned" else gen.rng.choice(DISRUPTION_KINDS)
            starts = gen.future(8, 30) if status == "planned" else gen.past(0, 30)
            gen.add("disruption", {
                gen.fk("site"): site["id"], "kind": kind, "status": status, "starts_at": iso(starts),
                "ends_at": iso(gen.between(starts)) if status == "resolved" else None, "message": messages[kind],
            })


FILL = {"fleet_vehicle": fill_fleet, "damage_report": fill_damage, "lost_item": fill_lost,
        "disruption": fill_disruptions}
