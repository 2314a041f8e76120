"""Discount codes applied to cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import day
from awm.builder.entities import Col, Entity, pk_col
from awm.builder.naming import plural

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "promotions"
ROLES = ("promotion",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The promotion tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["promotion"] = Entity(
        "promotion",
        L["promotion"],
        [
            pk_col(),
            Col("code", "TEXT", unique=True),
            Col("description", "TEXT"),
            Col("percent_off", "REAL", minimum=1, maximum=90),
            Col("valid_from", "TEXT"),
            Col("valid_to", "TEXT"),
            Col("active", "INTEGER", minimum=0, maximum=1),
        ],
        f"Discount codes that can be applied to {plural(L['case'])}.",
        search=("code", "description"),
        filters=("active",),
        code="code",
    )
    return ents


def fill_promotions(gen: RowGen) -> None:
    words = ("SPRING", "WELCOME", "LOYAL", "SUMMER", "VIP", "FLASH", "BUNDLE")
    for i, word in enumerate(gen.rng.sample(words, 6)):
        expired = i == 4
        gen.add(
            "promotion",
            {
                "code": f"{word}{gen.rng.randint(10, 40)}",
                "description": f"{word.title()} discount",
                "percent_off": float(gen.rng.choice((5, 10, 15, 20, 25))),
                "valid_from": day(gen.past(120, 200)),
                "valid_to": day(gen.past(5, 30) if expired else gen.future(30, 120)),
                "active": 0 if i == 5 else 1,
            },
        )


FILL = {"promotion": fill_promotions}
