"""What only an energy business keeps: the equipment it installed at customers' premises (repaired free only under
warranty; a charging network's are home chargers), rebate claims on its projects (never above the programme's cap), safety inspections (recorded on or
after their date), and a charging network's charge points and charging sessions (a charge point in use is not
taken offline); with the rules their tools enforce."""

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

CATEGORY = "energy"
LABELS = {"equipment_unit": "equipment unit", "rebate_claim": "rebate claim", "safety_inspection": "safety inspection",
          "charge_point": "charge point", "charging_session": "charging session"}
ALT_LABELS = {"equipment_unit": "installed unit", "rebate_claim": "incentive claim",
              "safety_inspection": "safety check", "charge_point": "charging port", "charging_session": "charge session"}
GROUPS = {
    "equipment": Group(("equipment_unit",)),
    # rebates are claimed on installations and audits, not on fuel deliveries or charging reservations
    "rebates": Group(("rebate_claim",), not_for=("propane_delivery", "ev_charging_network")),
    # a charging network inspects its own charge points, not its drivers' premises
    "inspections": Group(("safety_inspection",), not_for=("ev_charging_network",)),
    # only a charging network runs charge points
    "chargers": Group(("charge_point",), not_for=("solar_installation", "home_energy_audit", "propane_delivery")),
    "sessions": Group(("charge_point", "charging_session"),
                      not_for=("solar_installation", "home_energy_audit", "propane_delivery")),
}
CODED = ()

EQUIPMENT = {  # per kind of business: the kinds of equipment it installs, with makes
    "solar_installation": {"solar_array": ("REC Alpha", "Qcells Q.PEAK", "Canadian Solar HiKu"),
                           "inverter": ("Enphase IQ8", "SolarEdge SE7600", "SMA Sunny Boy"),
                           "battery": ("Tesla Powerwall 3", "Enphase IQ Battery 5P", "Franklin aPower")},
    "home_energy_audit": {"heat_pump": ("Mitsubishi Hyper-Heat", "Daikin Fit", "Carrier Infinity"),
                          "furnace": ("Lennox SL280", "Trane S9V2"), "water_heater": ("Rheem ProTerra", "AO Smith Voltex")},
    "propane_delivery": {"propane_tank": ("Worthington 500 gal", "Trinity 250 gal", "American 1000 gal"),
                         "furnace": ("Goodman GMVC96", "Rheem R96V"), "water_heater": ("Rinnai RU199", "Navien NPE-240A")},
    "ev_charging_network": {"wall_charger": ("ChargePoint Home Flex", "Wallbox Pulsar Plus", "Emporia Pro"),
                            "load_manager": ("Wallbox Power Boost", "Emporia Vue 3")},
}
EQUIPMENT_KINDS = tuple(dict.fromkeys(k for kinds in EQUIPMENT.values() for k in kinds))
EQUIPMENT_STATUSES = ("operating", "faulty", "decommissioned")
PROGRAMS = {  # rebate programme -> the most it pays on one claim
    "state_solar_rebate": 2500.0, "battery_storage_incentive": 5000.0, "utility_efficiency_rebate": 1500.0,
    "heat_pump_rebate": 8000.0, "insulation_rebate": 1200.0,
}
DOMAIN_PROGRAMS = {"solar_installation": ("state_solar_rebate", "battery_storage_incentive"),
                   "home_energy_audit": ("utility_efficiency_rebate", "heat_pump_rebate", "insulation_rebate")}
REBATE_STATUSES = ("draft", "submitted", "approved", "rejected")
INSPECTION_KINDS = {"solar_installation": ("electrical", "roof_attachment"),
                    "home_energy_audit": ("combustion", "carbon_monoxide"),
                    "propane_delivery": ("gas_leak", "tank_valve")}
INSPECTION_STATUSES = ("scheduled", "passed", "failed")
CONNECTORS = ("CCS", "CHAdeMO", "J1772", "NACS")
CHARGER_STATUSES = ("available", "in_use", "faulted", "offline")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the equipment_unit, rebate_claim, safety_inspection, charge_point and charging_session
    tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("equipment_unit"):
        ents["equipment_unit"] = Entity("equipment_unit", L["equipment_unit"], [
            pk_col(), fk_col(L, "party"), Col("kind", "TEXT", enum=EQUIPMENT_KINDS), Col("model", "TEXT"),
            Col("serial", "TEXT", unique=True), Col("installed_on", "TEXT"), Col("warranty_until", "TEXT"),
            Col("status", "TEXT", enum=EQUIPMENT_STATUSES),
        ], f"Equipment installed at {plural(L['party'])}' premises; repaired free of charge while under warranty.",
            filters=(party_fk, "kind", "serial", "status"))
    if has("rebate_claim"):
        ents["rebate_claim"] = Entity("rebate_claim", L["rebate_claim"], [
            pk_col(), fk_col(L, "case"), Col("program", "TEXT", enum=tuple(PROGRAMS)), Col("amount", "REAL", minimum=0),
            Col("status", "TEXT", enum=REBATE_STATUSES), Col("submitted_on", "TEXT", nullable=True),
        ], f"Rebates claimed for {plural(L['case'])}; a claim is never above its programme's cap "
           f"({', '.join(f'{p} {c:.0f}' for p, c in PROGRAMS.items())}).",
            filters=(f"{snake(L['case'])}_id", "program", "status"))
    if has("safety_inspection"):
        ents["safety_inspection"] = Entity("safety_inspection", L["safety_inspection"], [
            pk_col(), fk_col(L, "party"), Col("kind", "TEXT", enum=tuple(k for ks in INSPECTION_KINDS.values()
                                                                        for k in ks)),
            Col("due_on", "TEXT"), Col("status", "TEXT", enum=INSPECTION_STATUSES), fk_col(L, "staff", nullable=True),
            Col("inspected_on", "TEXT", nullable=True),
        ], f"Safety inspections at {plural(L['party'])}' premises; a result is recorded on or after the due date.",
            filters=(party_fk, "kind", "status"))
    if has("charge_point"):
        ents["charge_point"] = Entity("charge_point", L["charge_point"], [
            pk_col(), fk_col(L, "site"), Col("code", "TEXT", unique=True), Col("connector", "TEXT", enum=CONNECTORS),
            Col("power_kw", "REAL", minimum=0), Col("status", "TEXT", enum=CHARGER_STATUSES),
        ], f"The charge points of each {L['site']}; one in use is not taken offline.",
            filters=(f"{snake(L['site'])}_id", "code", "connector", "status"))
    if has("charging_session"):
        ents["charging_session"] = Entity("charging_session", L["charging_session"], [
            pk_col(), fk_col(L, "charge_point"), fk_col(L, "party"), Col("started_at", "TEXT"),
            Col("ended_at", "TEXT", nullable=True), Col("energy_kwh", "REAL", minimum=0),
            Col("status", "TEXT", enum=("active", "completed")),
        ], f"Sessions of {plural(L['party'])} at each {L['charge_point']}; an active one has no end yet.",
            filters=(f"{snake(L['charge_point'])}_id", party_fk, "status"))
    return ents


def fill_equipment(gen: RowGen) -> None:
    kinds = EQUIPMENT.get(gen.sc.domain, EQUIPMENT["solar_installation"])
    years = {"solar_array": 12, "inverter": 10, "battery": 10, "propane_tank": 10, "wall_charger": 3}  # warranty
    n = 0
    for k, party in enumerate(gen.rows["party"]):
        if gen.sc.domain == "ev_charging_network" and k > 2 and gen.rng.random() < 0.6:
            continue  # only some drivers had a home charger installed
        for kind in gen.rng.sample(sorted(kinds), gen.rng.choice((1, 1, 2))):
            n += 1
            term = 365 * years.get(kind, 5)
            # the first unit is past its warranty; the rest were installed within the last nine years
            installed = gen.past(term + 30, term + 400) if n == 1 else gen.past(60, 365 * 9)
            until = installed + timedelta(days=term)
            status = gen.rng.choices(EQUIPMENT_STATUSES, (6, 3, 1))[0] if n > 2 else "faulty"
            gen.add("equipment_unit", {
                gen.fk("party"): party["id"], "kind": kind, "model": gen.rng.choice(kinds[kind]),
                "serial": f"{kind[:2].upper()}{740000 + n * 37}", "installed_on": day(installed),
                "warranty_until": day(until), "status": status,
            })


def fill_rebates(gen: RowGen) -> None:
    programs = DOMAIN_PROGRAMS.get(gen.sc.domain, tuple(PROGRAMS))
    cases = [c for c in gen.rows["case"] if c["status"] != "cancelled"]
    for n, case in enumerate(cases):
        if n > 2 and gen.rng.random() < 0.55:
            continue
        program = gen.rng.choice(programs)
        cap = PROGRAMS[program]
        status = "draft" if n < 3 else gen.rng.choices(REBATE_STATUSES, (3, 3, 3, 1))[0]
        # one draft was written for more than its programme pays (it would be refused on submission)
        amount = gen.money(cap * 1.05, cap * 1.6) if n == 2 else gen.money(cap * 0.2, cap)
        gen.add("rebate_claim", {
            gen.fk("case"): case["id"], "program": program, "amount": amount, "status": status,
            "submitted_on": None if status == "draft" else day(gen.between(case["created_at"])),
        })


def fill_inspections(gen: RowGen) -> None:
    kinds = INSPECTION_KINDS.get(gen.sc.domain, INSPECTION_KINDS["propane_delivery"])
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    for n, party in enumerate(gen.rows["party"]):
        if n > 3 and gen.rng.random() < 0.5:
            continue
        due = gen.past(1, 60) if n % 3 == 0 else gen.future(3, 90) if n % 3 == 1 else gen.past(60, 400)
        status = "scheduled" if n % 3 < 2 else gen.rng.choices(("passed", "failed"), (5, 1))[0]
        gen.add("safety_inspection", {
            gen.fk("party"): party["id"], "kind": gen.rng.choice(kinds), "due_on": day(due), "status": status,
            gen.fk("staff"): None if status == "scheduled" else gen.rng.choice(staff),
            "inspected_on": None if status == "scheduled" else day(due),
        })


def fill_chargers(gen: RowGen) -> None:
    power = {"CCS": (150.0, 350.0), "CHAdeMO": (50.0,), "J1772": (7.2, 11.5, 19.2), "NACS": (72.0, 250.0)}
    n = 0
    for site in gen.rows["site"]:
        for k in range(gen.rng.randint(4, 6)):
            n += 1
            connector = gen.rng.choice(CONNECTORS)
            status = ("available", "in_use", "faulted")[k] if k < 3 else gen.rng.choices(CHARGER_STATUSES, (5, 3, 1, 1))[0]
            gen.add("charge_point", {gen.fk("site"): site["id"], "code": f"CP-{site['id']}{k + 1:02d}",
                                     "connector": connector, "power_kw": gen.rng.choice(power[connector]),
                                     "status": status})
    if gen.has("charging_session"):
        fill_sessions(gen)


def fill_sessions(gen: RowGen) -> None:
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    for point in gen.rows["charge_point"]:
        if point["status"] == "in_use":
            gen.add("charging_session", {gen.fk("charge_point"): point["id"], gen.fk("party"): gen.rng.choice(parties),
                                         "started_at": iso(REFERENCE_NOW - timedelta(minutes=gen.rng.randint(5, 90))),
                                         "ended_at": None, "energy_kwh": round(gen.rng.uniform(2, 40), 2),
                                         "status": "active"})
        for _ in range(gen.rng.randint(1, 4)):
            started = gen.past(1, 45)
            kwh = round(gen.rng.uniform(4, min(90.0, point["power_kw"] * 2)), 2)
            gen.add("charging_session", {gen.fk("charge_point"): point["id"], gen.fk("party"): gen.rng.choice(parties),
                                         "started_at": iso(started),
                                         "ended_at": iso(started + timedelta(minutes=gen.rng.randint(20, 240))),
                                         "energy_kwh": kwh, "status": "completed"})


FILL = {"equipment_unit": fill_equipment, "rebate_claim": fill_rebates, "safety_inspection": fill_inspections,
        "charge_point": fill_chargers}
