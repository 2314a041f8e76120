"""Ratings parties give items."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "reviews"
ROLES = ("review",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The review tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["review"] = Entity(
        "review",
        L["review"],
        [
            pk_col(),
            fk_col(L, "party"),
            fk_col(L, "item"),
            Col("rating", "INTEGER", minimum=1, maximum=5),
            Col("comment", "TEXT"),
            Col("created_at", "TEXT"),
        ],
        f"Ratings {plural(L['party'])} gave {plural(L['item'])}.",
        filters=(f"{snake(L['item'])}_id", party_fk, "rating"),
    )
    return ents


def fill_reviews(gen: RowGen) -> None:
    parties = gen.rows["party"]
    items = gen.rows["item"]
    for _ in range(gen.rng.randint(30, 45)):
        rating = gen.rng.choices((1, 2, 3, 4, 5), (1, 1, 2, 4, 4))[0]
        party, item = gen.rng.choice(parties), gen.rng.choice(items)
        gen.add(
            "review",
            {
                gen.fk("party"): party["id"],
                gen.fk("item"): item["id"],
                "rating": rating,
                "comment": gen.texts.review(rating, item["name"]),
                "created_at": iso(gen.between(max(party["created_at"], iso(gen.past(365, 365))), gen.past(1, 1))),
            },
        )


FILL = {"review": fill_reviews}
