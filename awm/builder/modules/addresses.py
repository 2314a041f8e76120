"""Postal addresses of the business's parties: kept where it delivers, visits, bills or writes to people."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "addresses"
ROLES = ("address",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The address table, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["address"] = Entity(
        "address",
        L["address"],
        [
            pk_col(),
            fk_col(L, "party"),
            Col("kind", "TEXT", enum=("home", "work", "billing")),
            Col("street", "TEXT"),
            Col("city", "TEXT"),
            Col("postal_code", "TEXT"),
            Col("is_primary", "INTEGER", minimum=0, maximum=1),
        ],
        f"Postal addresses of {plural(L['party'])}.",
        filters=(f"{snake(L['party'])}_id",),
    )
    return ents


def fill_addresses(gen: RowGen) -> None:
    # a person's first address is their home; an organisation's (a client company, a shipper) is its office
    kinds = ("work", "billing") if gen.sc.party_kind == "organisation" else ("home", "billing")
    for party in gen.rows["party"]:
        for n in range(gen.rng.choice((1, 1, 2))):
            gen.add(
                "address",
                {
                    gen.fk("party"): party["id"],
                    "kind": kinds[n],
                    "street": gen.fake.street_address(),
                    "city": party["city"],
                    "postal_code": gen.fake.zipcode(),
                    "is_primary": 1 if n == 0 else 0,
                },
            )


FILL = {"address": fill_addresses}
