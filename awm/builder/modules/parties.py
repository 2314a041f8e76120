"""Who the business serves: its parties (their postal addresses are the addresses module's)."""

from __future__ import annotations

import random
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
            Col("representative_id", "INTEGER", nullable=True, ref="party",
                description=f"the {L['party']} authorised to act for this one (a guardian or delegate), if any"),
        ],
        f"The {plural(L['party'])} the business serves.",
        search=(FULL_NAME, "email", "phone"),
        filters=("status", "tier", "city"),
    )
    return ents


def fill_parties(gen: RowGen) -> None:
    for _ in range(gen.rng.randint(24, 34)):
        first, last = gen.person()
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
    _fill_representatives(gen)


REPRESENTED_SHARE = 0.25  # how many parties have named another one as their authorised representative


def _fill_representatives(gen: RowGen) -> None:
    """Some parties have an authorised representative on file (a guardian, a delegate): another party of the
    business, drawn from their own rng so the other rows do not move."""
    rng = random.Random(f"representatives:{gen.sc.seed}")
    parties = gen.rows["party"]
    for party in parties:
        party["representative_id"] = None
    for n, party in enumerate(parties):
        # one named before them (rows are inserted in order, so the key points backwards)
        if n and rng.random() < REPRESENTED_SHARE:
            party["representative_id"] = rng.choice(parties[:n])["id"]


FILL = {"party": fill_parties}
