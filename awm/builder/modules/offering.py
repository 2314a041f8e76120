"""What the business offers: categories and the catalogue items in them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import code_prefix, plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("category", "item")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The category, item tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["category"] = Entity(
        "category",
        L["category"],
        [pk_col(), Col("name", "TEXT", unique=True), Col("description", "TEXT")],
        f"How {plural(L['item'])} are grouped.",
        search=("name",),
    )
    ents["item"] = Entity(
        "item",
        L["item"],
        [
            pk_col(),
            Col("sku", "TEXT", unique=True, description="stock-keeping code"),
            Col("name", "TEXT"),
            fk_col(L, "category"),
            Col("price", "REAL", minimum=0),
            Col("active", "INTEGER", minimum=0, maximum=1, description="1 if offered"),
            Col("description", "TEXT"),
        ],
        f"The {plural(L['item'])} offered, with their current price.",
        search=("name", "sku"),
        filters=(f"{snake(L['category'])}_id", "active"),
        code="sku",
    )
    return ents


def fill_categories(gen: RowGen) -> None:
    for name in gen.sc.item_categories:
        gen.add("category", {"name": name, "description": f"{name} offered by the business"})


def fill_items(gen: RowGen) -> None:
    lo, hi = gen.sc.price_range
    prefix = code_prefix(gen.plan["item"].label)
    cats = gen.ids("category")
    for i, name in enumerate(gen.sc.items):
        gen.add(
            "item",
            {
                "sku": f"{prefix}-{101 + i}",
                "name": name,
                gen.fk("category"): cats[i % len(cats)],
                "price": gen.money(lo, hi),
                "active": 0 if i == len(gen.sc.items) - 1 else 1,
                "description": f"{name}, part of our {gen.sc.item_categories[i % len(cats)]} range",
            },
        )


FILL = {"category": fill_categories, "item": fill_items}
