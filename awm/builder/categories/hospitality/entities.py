"""What only a hotel, rental or venue keeps: its physical rooms and their housekeeping state, the incidental
charges posted to a stay, and blocks of rooms held for a group; each with the rules its tools enforce."""

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

CATEGORY = "hospitality"
LABELS = {"room": "room", "charge": "incidental charge", "room_block": "room block"}
ALT_LABELS = {"room": "guest room", "charge": "folio charge", "room_block": "group block"}
GROUPS = {
    "rooms": Group(("room",), not_for=("catering_company",)),
    "charges": Group(("charge",)),
    "blocks": Group(("room_block",), not_for=("catering_company",)),
}
CODED = ("room_block",)

HOUSEKEEPING = ("clean", "dirty", "inspected")
ROOM_STATUSES = ("available", "occupied", "out_of_service")
CHARGE_KINDS = ("minibar", "room_service", "parking", "spa", "laundry", "late_checkout", "damage")
MAX_CHARGE = 2000.0


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the room, charge and room_block tables."""
    site_fk, case_fk = f"{snake(L['site'])}_id", f"{snake(L['case'])}_id"
    ents: dict[str, Entity] = {}
    if has("room"):
        ents["room"] = Entity("room", L["room"], [
            pk_col(), fk_col(L, "site"), fk_col(L, "item"), Col("room_number", "TEXT"), Col("floor", "INTEGER"),
            Col("status", "TEXT", enum=ROOM_STATUSES), Col("housekeeping", "TEXT", enum=HOUSEKEEPING),
            Col("out_of_service_reason", "TEXT", nullable=True),
        ], f"The physical {plural(L['room'])} of each {L['site']}; an occupied one cannot be taken out of service.",
            filters=(site_fk, f"{snake(L['item'])}_id", "status", "housekeeping", "room_number"))
    if has("charge"):
        ents["charge"] = Entity("charge", L["charge"], [
            pk_col(), fk_col(L, "case"), Col("kind", "TEXT", enum=CHARGE_KINDS), Col("amount", "REAL", minimum=0),
            Col("description", "TEXT"), Col("status", "TEXT", enum=("posted", "voided")), Col("posted_at", "TEXT"),
        ], f"Extras charged to a {L['case']} on top of what was booked.", filters=(case_fk, "kind", "status"))
    if has("room_block"):
        ents["room_block"] = Entity("room_block", L["room_block"], [
            pk_col(), Col("code", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "site"), fk_col(L, "item"),
            Col("rooms_held", "INTEGER", minimum=1), Col("release_on", "TEXT"),
            Col("status", "TEXT", enum=("held", "released", "picked_up")),
        ], "Rooms held for a group; a block is released back on its release date at the latest.",
            filters=("code", f"{snake(L['party'])}_id", site_fk, "status"), code="code")
    return ents


def fill_rooms(gen: RowGen) -> None:
    items = [i for i in gen.rows["item"] if i["active"]]
    for site in gen.rows["site"]:
        for floor in range(1, gen.rng.randint(2, 4) + 1):
            for k in range(1, gen.rng.randint(3, 5) + 1):
                status = gen.rng.choices(ROOM_STATUSES, (6, 3, 1))[0]
                gen.add("room", {
                    gen.fk("site"): site["id"], gen.fk("item"): gen.rng.choice(items)["id"],
                    "room_number": f"{floor}{k:02d}", "floor": floor, "status": status,
                    "housekeeping": "dirty" if status == "occupied" else gen.rng.choice(HOUSEKEEPING),
                    "out_of_service_reason": gen.rng.choice(("Plumbing repair", "Repainting", "Broken air conditioning"))
                    if status == "out_of_service" else None,
                })


def fill_charges(gen: RowGen) -> None:
    for case in gen.rows["case"]:
        if case["status"] in ("cancelled", gen.plan.flavour.initial) or gen.rng.random() < 0.5:
            continue
        for _ in range(gen.rng.randint(1, 3)):
            kind = gen.rng.choice(CHARGE_KINDS)
            gen.add("charge", {
                gen.fk("case"): case["id"], "kind": kind, "amount": gen.money(8, 180),
                "description": kind.replace("_", " ").capitalize(),
                "status": gen.rng.choices(("posted", "voided"), (9, 1))[0],
                "posted_at": iso(min(gen.between(case["created_at"]), REFERENCE_NOW)),
            })


def fill_blocks(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["room_block"]
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    items = [i["id"] for i in gen.rows["item"] if i["active"]]
    for n in range(gen.rng.randint(5, 9)):
        release = REFERENCE_NOW + timedelta(days=gen.rng.choice((-10, -3, 4, 9, 15, 30, 45)))
        status = "held" if release > REFERENCE_NOW else gen.rng.choice(("released", "picked_up"))
        gen.add("room_block", {
            "code": f"{prefix}-{120 + n}", gen.fk("party"): gen.rng.choice(parties),
            gen.fk("site"): gen.rng.choice(gen.rows["site"])["id"], gen.fk("item"): gen.rng.choice(items),
            "rooms_held": gen.rng.randint(4, 30), "release_on": day(release), "status": status,
        })


FILL = {"room": fill_rooms, "charge": fill_charges, "room_block": fill_blocks}

