"""Who the business serves: parties and their postal addresses."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import FULL_NAME, Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("party", "address")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The party, address tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["party"] = Entity(
        "party",
        L["party"],
        [
            pk_col(),
            Col("first_name", "TEXT"),
            Col("last_name", "TEXT"),
            Col("email", "TEXT", unique=True),
            Col("phone", "TEXT"),
            Col("city", "TEXT"),
            Col("tier", "TEXT", enum=("standard", "silver", "gold")),
            Col("status", "TEXT", enum=("active", "suspended", "closed")),
            Col("created_at", "TEXT", description="ISO timestamp"),
        ],
        f"The {plural(L['party'])} the business serves.",
        search=(FULL_NAME, "email", "phone"),
        filters=("status", "tier", "city"),
    )
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


def fill_parties(gen: RowGen) -> None:
    for _ in range(gen.rng.randint(24, 34)):
        first, last = gen.fake.first_name(), gen.fake.last_name()
        gen.add(
            "party",
            {
                "first_name": first,
                "last_name": last,
                "email": gen.email(first, last),
                "phone": gen.phone(),
                "city": gen.fake.city(),
                "tier": gen.rng.choices(("standard", "silver", "gold"), (6, 3, 1))[0],
                "status": gen.rng.choices(("active", "suspended", "closed"), (18, 1, 1))[0],
                "created_at": iso(gen.past(30, 1500)),
            },
        )


def fill_addresses(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        for n in range(gen.rng.choice((1, 1, 2))):
            gen.add(
                "address",
                {
                    gen.fk("party"): party["id"],
                    "kind": ("home", "billing", "work")[n] if n else "home",
                    "street": gen.fake.street_address(),
                    "city": party["city"],
                    "postal_code": gen.fake.zipcode(),
                    "is_primary": 1 if n == 0 else 0,
                },
            )


FILL = {"party": fill_parties, "address": fill_addresses}
