"""Stock of each item at each site."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "inventory"
ROLES = ("stock_level",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The stock_level tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["stock_level"] = Entity(
        "stock_level",
        L["stock_level"],
        [
            pk_col(),
            fk_col(L, "item"),
            fk_col(L, "site"),
            Col("quantity", "INTEGER", minimum=0),
            Col("reorder_level", "INTEGER", minimum=0),
        ],
        f"How many units of each {L['item']} each {L['site']} holds.",
        filters=(f"{snake(L['item'])}_id", f"{snake(L['site'])}_id"),
        indexes=[(f"{snake(L['item'])}_id", f"{snake(L['site'])}_id")],
    )
    return ents


def fill_stock(gen: RowGen) -> None:
    for item in gen.rows["item"]:
        for site in gen.rows["site"]:
            if gen.rng.random() < 0.15:
                continue
            gen.add(
                "stock_level",
                {
                    gen.fk("item"): item["id"],
                    gen.fk("site"): site["id"],
                    "quantity": gen.rng.randint(0, 80),
                    "reorder_level": gen.rng.choice((5, 10, 15)),
                },
            )


FILL = {"stock_level": fill_stock}
