"""What only a dealership or garage keeps: its customers' vehicles (an odometer never runs backwards), warranty
claims on repair work, and loaner cars; with the rules their tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "automotive"
LABELS = {"vehicle": "customer vehicle", "warranty_claim": "warranty claim", "loaner": "loaner car"}
ALT_LABELS = {"vehicle": "owner vehicle", "warranty_claim": "warranty submission", "loaner": "courtesy car"}
GROUPS = {
    "vehicles": Group(("vehicle",)),
    "warranty": Group(("warranty_claim",)),
    "loaners": Group(("loaner",)),
}
CODED = ()

MAKES = {"Toyota": ("Camry", "RAV4", "Corolla"), "Ford": ("F-150", "Escape", "Focus"), "Honda": ("Civic", "CR-V"),
         "Hyundai": ("Tucson", "Elantra"), "BMW": ("X3", "320i"), "Tesla": ("Model 3", "Model Y")}
COMPONENTS = ("transmission", "engine", "electrical", "infotainment", "brakes", "suspension", "battery")
WARRANTY_LIMIT = 5000.0  # a claim above this is approved by the manufacturer, not here
LOAN_DAYS = 14


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the vehicle, warranty_claim and loaner tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("vehicle"):
        ents["vehicle"] = Entity("vehicle", L["vehicle"], [
            pk_col(), fk_col(L, "party"), Col("vin", "TEXT", unique=True), Col("make", "TEXT"), Col("model", "TEXT"),
            Col("model_year", "INTEGER", minimum=1990), Col("mileage", "INTEGER", minimum=0),
        ], f"Vehicles of {plural(L['party'])}; a recorded mileage never goes down.", filters=(party_fk, "vin", "make"))
    if has("warranty_claim"):
        ents["warranty_claim"] = Entity("warranty_claim", L["warranty_claim"], [
            pk_col(), fk_col(L, "case"), Col("component", "TEXT", enum=COMPONENTS), Col("amount", "REAL", minimum=0),
            Col("status", "TEXT", enum=("submitted", "approved", "rejected")), Col("filed_on", "TEXT"),
        ], f"Claims to the manufacturer for work on {plural(L['case'])}; approved here up to {WARRANTY_LIMIT:.0f}.",
            filters=(f"{snake(L['case'])}_id", "component", "status"))
    if has("loaner"):
        ents["loaner"] = Entity("loaner", L["loaner"], [
            pk_col(), fk_col(L, "site"), Col("plate", "TEXT", unique=True),
            Col("status", "TEXT", enum=("available", "out", "maintenance")), fk_col(L, "party", nullable=True),
            Col("due_back", "TEXT", nullable=True),
        ], f"Cars lent to {plural(L['party'])} while theirs is in the shop, for at most {LOAN_DAYS} days.",
            filters=(f"{snake(L['site'])}_id", "status", "plate", party_fk))
    return ents


def fill_vehicles(gen: RowGen) -> None:
    for n, party in enumerate(gen.rows["party"]):
        for k in range(gen.rng.choice((1, 1, 2))):
            make = gen.rng.choice(sorted(MAKES))
            gen.add("vehicle", {gen.fk("party"): party["id"], "vin": f"1HG{(n * 7 + k) * 7919 % 10**8:08d}{k}X",
                                "make": make, "model": gen.rng.choice(MAKES[make]), "model_year": gen.rng.randint(2008, 2025),
                                "mileage": gen.rng.randint(3000, 160000)})


def fill_warranty(gen: RowGen) -> None:
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.7 or case["status"] == "cancelled":
            continue
        gen.add("warranty_claim", {gen.fk("case"): case["id"], "component": gen.rng.choice(COMPONENTS),
                                   "amount": gen.money(120, 7500),
                                   "status": gen.rng.choices(("submitted", "approved", "rejected"), (4, 4, 1))[0],
                                   "filed_on": day(gen.between(case["created_at"]))})


def fill_loaners(gen: RowGen) -> None:
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    for site in gen.rows["site"]:
        for k in range(gen.rng.randint(2, 4)):
            status = gen.rng.choices(("available", "out", "maintenance"), (5, 3, 1))[0]
            gen.add("loaner", {gen.fk("site"): site["id"], "plate": f"LN{site['id']}{k}{gen.rng.randint(100, 999)}",
                               "status": status, gen.fk("party"): gen.rng.choice(parties) if status == "out" else None,
                               "due_back": day(REFERENCE_NOW + timedelta(days=gen.rng.randint(-2, 10)))
                               if status == "out" else None})


FILL = {"vehicle": fill_vehicles, "warranty_claim": fill_warranty, "loaner": fill_loaners}
