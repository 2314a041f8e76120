"""Buying from vendors: vendors, purchase orders and their lines."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "procurement"
ROLES = ("vendor", "purchase_order", "purchase_line")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The vendor, purchase_order, purchase_line tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["vendor"] = Entity(
        "vendor",
        L["vendor"],
        [
            pk_col(),
            Col("name", "TEXT", unique=True),
            Col("email", "TEXT"),
            Col("phone", "TEXT"),
            Col("rating", "INTEGER", minimum=1, maximum=5),
        ],
        f"Suppliers the business buys {plural(L['item'])} from.",
        search=("name", "email"),
    )
    ents["purchase_order"] = Entity(
        "purchase_order",
        L["purchase_order"],
        [
            pk_col(),
            Col("number", "TEXT", unique=True),
            fk_col(L, "vendor"),
            fk_col(L, "site"),
            Col("status", "TEXT", enum=("draft", "submitted", "approved", "received", "cancelled")),
            Col("total_cost", "REAL", minimum=0),
            Col("ordered_on", "TEXT"),
        ],
        "Orders placed with vendors: draft, submitted, approved, received or cancelled.",
        filters=("number", f"{snake(L['vendor'])}_id", f"{snake(L['site'])}_id", "status"),
        code="number",
    )
    ents["purchase_line"] = Entity(
        "purchase_line",
        L["purchase_line"],
        [
            pk_col(),
            fk_col(L, "purchase_order"),
            fk_col(L, "item"),
            Col("quantity", "INTEGER", minimum=1),
            Col("unit_cost", "REAL", minimum=0),
        ],
        f"What each {L['purchase_order']} contains.",
        filters=(f"{snake(L['purchase_order'])}_id",),
    )
    return ents


def fill_procurement(gen: RowGen) -> None:
    for _ in range(5):
        name = gen.fake.company()
        while any(v["name"] == name for v in gen.rows.get("vendor", [])):
            name = gen.fake.company()
        gen.add(
            "vendor",
            {
                "name": name,
                "email": f"sales@{name.split()[0].lower().strip(',')}.example",
                "phone": gen.phone(),
                "rating": gen.rng.randint(2, 5),
            },
        )
    prefix = gen.plan.code_prefixes["purchase_order"]
    items = gen.rows["item"]
    statuses = ("draft", "submitted", "submitted", "approved", "received", "cancelled")
    for n in range(gen.rng.randint(10, 14)):
        po = gen.add(
            "purchase_order",
            {
                "number": f"{prefix}-{301 + n}",
                gen.fk("vendor"): gen.rng.choice(gen.ids("vendor")),
                gen.fk("site"): gen.rng.choice(gen.ids("site")),
                "status": statuses[n % len(statuses)],
                "total_cost": 0.0,
                "ordered_on": day(gen.past(1, 90)),
            },
        )
        total = 0.0
        for item in gen.rng.sample(items, gen.rng.choice((1, 2, 3))):
            qty = gen.rng.choice((5, 10, 12, 20, 24))
            cost = round(item["price"] * 0.55, 2)
            gen.add(
                "purchase_line",
                {gen.fk("purchase_order"): po["id"], gen.fk("item"): item["id"], "quantity": qty, "unit_cost": cost},
            )
            total += qty * cost
        po["total_cost"] = round(total, 2)


FILL = {"vendor": fill_procurement}
