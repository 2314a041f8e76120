"""Loyalty point balances and the points earned and redeemed."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "loyalty"
ROLES = ("loyalty_account", "loyalty_entry")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The loyalty_account, loyalty_entry tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["loyalty_account"] = Entity(
        "loyalty_account",
        L["loyalty_account"],
        [
            pk_col(),
            Col(party_fk, "INTEGER", unique=True, ref="party", description=f"the {L['party']}"),
            Col("points", "INTEGER", minimum=0),
            Col("tier", "TEXT", enum=("bronze", "silver", "gold", "platinum")),
        ],
        f"Loyalty point balances of {plural(L['party'])}.",
        filters=(party_fk, "tier"),
    )
    ents["loyalty_entry"] = Entity(
        "loyalty_entry",
        L["loyalty_entry"],
        [
            pk_col(),
            fk_col(L, "loyalty_account"),
            Col("points", "INTEGER", description="positive earned, negative redeemed"),
            Col("reason", "TEXT"),
            Col("posted_at", "TEXT"),
        ],
        f"Points earned and redeemed on each {L['loyalty_account']}.",
        filters=(f"{snake(L['loyalty_account'])}_id",),
    )
    return ents


def fill_loyalty(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        if gen.rng.random() < 0.3:
            continue
        account = gen.add(
            "loyalty_account",
            {
                gen.fk("party"): party["id"],
                "points": 0,
                "tier": gen.rng.choice(("bronze", "silver", "gold", "platinum")),
            },
        )
        points = 0
        for _ in range(gen.rng.randint(1, 3)):
            earned = gen.rng.randint(5, 60) * 10
            points += earned
            gen.add(
                "loyalty_entry",
                {
                    gen.fk("loyalty_account"): account["id"],
                    "points": earned,
                    "reason": gen.texts.loyalty(),
                    "posted_at": iso(gen.between(max(party["created_at"], iso(gen.past(300, 300))))),
                },
            )
        account["points"] = points


FILL = {"loyalty_account": fill_loyalty}
