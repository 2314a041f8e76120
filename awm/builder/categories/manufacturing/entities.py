"""What only a manufacturer keeps: production runs on the floor (completed only once the planned quantity is
good), nonconformance reports (closed only with a disposition), measuring instruments (used only while in
calibration) and assets its customers own (handed back only from storage, to their owner); with the rules their
tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "manufacturing"
LABELS = {"production_run": "production run", "nonconformance": "nonconformance report",
          "instrument": "measuring instrument", "customer_asset": "customer asset"}
ALT_LABELS = {"production_run": "shop floor run", "nonconformance": "quality deviation",
              "instrument": "inspection gauge", "customer_asset": "consigned asset"}
GROUPS = {
    # a field service business repairs its customers' machines; it runs no production and raises no
    # nonconformances against production
    "production": Group(("production_run",), not_for=("industrial_equipment_service",)),
    "quality": Group(("nonconformance",), not_for=("industrial_equipment_service",)),
    "calibration": Group(("instrument",)),
    "assets": Group(("customer_asset",)),
}
CODED = ()

RUN_STATUSES = ("scheduled", "running", "completed", "on_hold")
DEFECTS = {  # what goes wrong in each kind of production
    "contract_manufacturing": ("colour mismatch", "short fill", "missing label", "leaking cap", "wrong lot code",
                               "foreign particle in batch"),
    "cnc_machine_shop": ("dimension out of tolerance", "burrs on edges", "surface scratches", "thread out of spec",
                         "wrong material certificate"),
    "electronics_assembly": ("solder bridge", "missing component", "reversed polarity", "cold solder joint",
                             "cracked housing"),
}
DISPOSITIONS = ("rework", "scrap", "use_as_is", "return_to_supplier")
NCR_STATUSES = ("open", "closed")
INSTRUMENTS = {"caliper": "Mitutoyo 500-196", "micrometer": "Starrett 436", "torque_wrench": "CDI 2503MFRMH",
               "height_gauge": "Mitutoyo 192-630", "multimeter": "Fluke 87V", "pressure_gauge": "Ashcroft 1009",
               "thread_gauge": "Vermont Gage 2B"}
INSTRUMENT_STATUSES = ("available", "checked_out", "quarantined")
CALIBRATION_DAYS = 365
ASSETS = {  # what customers leave in each kind of business's care
    "contract_manufacturing": ("injection mold", "filling nozzle set", "label die", "blister tooling"),
    "cnc_machine_shop": ("fixture plate", "drill jig", "soft jaw set", "cutting die"),
    "electronics_assembly": ("solder stencil", "test fixture", "programming jig", "conformal coating mask"),
    "industrial_equipment_service": ("air compressor", "chiller", "hydraulic press", "gearbox", "conveyor drive"),
}
ASSET_STATUSES = ("in_use", "in_storage", "under_repair", "returned")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the production_run, nonconformance, instrument and customer_asset tables."""
    site_fk, case_fk = f"{snake(L['site'])}_id", f"{snake(L['case'])}_id"
    ents: dict[str, Entity] = {}
    if has("production_run"):
        ents["production_run"] = Entity("production_run", L["production_run"], [
            pk_col(), Col("run_number", "TEXT", unique=True), fk_col(L, "case"), fk_col(L, "site"),
            Col("quantity_planned", "INTEGER", minimum=1), Col("quantity_good", "INTEGER", minimum=0),
            Col("quantity_scrap", "INTEGER", minimum=0), Col("status", "TEXT", enum=RUN_STATUSES),
            Col("started_at", "TEXT", nullable=True),
        ], f"Runs producing {plural(L['case'])}; a run is completed only once its good quantity reaches the plan.",
            filters=("run_number", case_fk, site_fk, "status"))
    if has("nonconformance"):
        ents["nonconformance"] = Entity("nonconformance", L["nonconformance"], [
            pk_col(), fk_col(L, "case"), Col("defect", "TEXT"), Col("quantity_affected", "INTEGER", minimum=1),
            Col("disposition", "TEXT", enum=DISPOSITIONS, nullable=True), Col("status", "TEXT", enum=NCR_STATUSES),
            Col("raised_on", "TEXT"),
        ], f"Defects found on {plural(L['case'])}; one is closed only once a disposition is decided.",
            filters=(case_fk, "status", "disposition"))
    if has("instrument"):
        ents["instrument"] = Entity("instrument", L["instrument"], [
            pk_col(), fk_col(L, "site"), Col("asset_tag", "TEXT", unique=True),
            Col("kind", "TEXT", enum=tuple(INSTRUMENTS)), Col("model", "TEXT"), Col("calibrated_on", "TEXT"),
            Col("calibration_due", "TEXT"), Col("status", "TEXT", enum=INSTRUMENT_STATUSES),
            fk_col(L, "staff", nullable=True),
        ], f"Gauges and meters of each {L['site']}; one past its calibration date is not used.",
            filters=(site_fk, "asset_tag", "kind", "status"))
    if has("customer_asset"):
        ents["customer_asset"] = Entity("customer_asset", L["customer_asset"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "site"), Col("asset_tag", "TEXT", unique=True),
            Col("description", "TEXT"), Col("status", "TEXT", enum=ASSET_STATUSES), Col("received_on", "TEXT"),
            Col("returned_on", "TEXT", nullable=True),
        ], f"Property of {plural(L['party'])} kept in the business's care; handed back only from storage.",
            filters=(f"{snake(L['party'])}_id", site_fk, "asset_tag", "status"))
    return ents


def fill_runs(gen: RowGen) -> None:
    """Runs of confirmed orders are under way (the first two running, the third scheduled); those of shipped and
    delivered orders are completed."""
    sites = [s["id"] for s in gen.rows["site"]]
    open_cases = [c for c in gen.rows["case"] if c["status"] == "confirmed"]
    done_cases = [c for c in gen.rows["case"] if c["status"] in ("shipped", "delivered")]
    for n, case in enumerate(open_cases[:10] + done_cases[:8]):
        if case["status"] != "confirmed":
            status = "completed"
        else:
            status = ("running", "running", "scheduled")[n] if n < 3 else gen.rng.choices(RUN_STATUSES[:2] + ("on_hold",), (2, 4, 1))[0]
        planned = gen.rng.choice((50, 100, 200, 250, 500, 1000, 2500))
        good = {"scheduled": 0, "completed": planned}.get(status, int(planned * gen.rng.uniform(0.2, 0.9)))
        scrap = 0 if status == "scheduled" else int(planned * gen.rng.uniform(0, 0.04))
        gen.add("production_run", {
            "run_number": f"PR-{4100 + n * 3}", gen.fk("case"): case["id"], gen.fk("site"): gen.rng.choice(sites),
            "quantity_planned": planned, "quantity_good": good, "quantity_scrap": scrap, "status": status,
            "started_at": None if status == "scheduled" else iso(gen.between(case["created_at"])),
        })


def fill_nonconformances(gen: RowGen) -> None:
    defects = DEFECTS.get(gen.sc.domain, DEFECTS["cnc_machine_shop"])
    cases = [c for c in gen.rows["case"] if c["status"] != "cancelled"]
    for n, case in enumerate(cases):
        if n > 2 and gen.rng.random() < 0.65:
            continue
        status = "open" if n < 2 else gen.rng.choice(NCR_STATUSES)
        gen.add("nonconformance", {
            gen.fk("case"): case["id"], "defect": gen.rng.choice(defects), "quantity_affected": gen.rng.randint(1, 60),
            "disposition": gen.rng.choice(DISPOSITIONS) if status == "closed" or n == 1 else None, "status": status,
            "raised_on": day(gen.between(case["created_at"])),
        })


def fill_instruments(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    n = 0
    for site in gen.rows["site"]:
        for k in range(gen.rng.randint(3, 6)):
            n += 1
            kind = gen.rng.choice(sorted(INSTRUMENTS))
            # the first at a site is in calibration, the second past due
            calibrated = gen.past(10, 300) if k != 1 else gen.past(CALIBRATION_DAYS + 5, CALIBRATION_DAYS + 90)
            status = "available" if k < 2 else gen.rng.choices(INSTRUMENT_STATUSES, (4, 3, 1))[0]
            gen.add("instrument", {
                gen.fk("site"): site["id"], "asset_tag": f"GA-{500 + n * 11}", "kind": kind, "model": INSTRUMENTS[kind],
                "calibrated_on": day(calibrated), "calibration_due": day(calibrated + timedelta(days=CALIBRATION_DAYS)),
                "status": status, gen.fk("staff"): gen.rng.choice(staff) if status == "checked_out" else None,
            })


def fill_assets(gen: RowGen) -> None:
    kinds = ASSETS.get(gen.sc.domain, ASSETS["contract_manufacturing"])
    sites = [s["id"] for s in gen.rows["site"]]
    for n, party in enumerate(gen.rows["party"]):
        if n > 2 and gen.rng.random() < 0.5:
            continue
        received = gen.between(party["created_at"])
        status = ("in_storage", "under_repair", "in_use")[n] if n < 3 else gen.rng.choices(ASSET_STATUSES, (4, 3, 1, 2))[0]
        gen.add("customer_asset", {
            gen.fk("party"): party["id"], gen.fk("site"): gen.rng.choice(sites), "asset_tag": f"CA-{2000 + n * 7}",
            "description": gen.rng.choice(kinds), "status": status, "received_on": day(received),
            "returned_on": day(gen.between(received)) if status == "returned" else None,
        })


FILL = {"production_run": fill_runs, "nonconformance": fill_nonconformances, "instrument": fill_instruments,
        "customer_asset": fill_assets}
