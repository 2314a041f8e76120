"""Organisational units within a site."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "departments"
ROLES = ("department",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The department tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["department"] = Entity(
        "department",
        L["department"],
        [
            pk_col(),
            Col("name", "TEXT"),
            fk_col(L, "site"),
            Col("budget", "REAL", minimum=0),
        ],
        f"Organisational units within a {L['site']}.",
        search=("name",),
        filters=(f"{snake(L['site'])}_id",),
    )
    return ents


def fill_departments(gen: RowGen) -> None:
    names = ("Operations", "Customer Care", "Finance", "Quality", "Sales")
    for site in gen.rows["site"]:
        for name in gen.rng.sample(names, 2):
            gen.add(
                "department",
                {"name": name, gen.fk("site"): site["id"], "budget": float(gen.rng.randint(20, 400) * 1000)},
            )


FILL = {"department": fill_departments}
