"""Who the business serves: its parties (their postal addresses are the addresses module's)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import FULL_NAME, Col, Entity, pk_col
from awm.builder.naming import plural

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("party",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The party table, named in the domain's words."""
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


FILL = {"party": fill_parties}
