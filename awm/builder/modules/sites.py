"""Where the business operates and who works there: sites and staff."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import day
from awm.builder.entities import FULL_NAME, Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake
from awm.builder.texts import TITLES

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("site", "staff")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The site, staff tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["site"] = Entity(
        "site",
        L["site"],
        [
            pk_col(),
            Col("name", "TEXT", unique=True),
            Col("city", "TEXT"),
            Col("street", "TEXT"),
            Col("phone", "TEXT"),
            Col("opened_on", "TEXT", description="ISO date"),
        ],
        f"Each {L['site']} where the business operates.",
        search=("name", "city"),
        filters=("city",),
    )
    staff_cols = [
        pk_col(),
        Col("first_name", "TEXT"),
        Col("last_name", "TEXT"),
        Col("email", "TEXT", unique=True),
        Col("title", "TEXT"),
        fk_col(L, "site"),
    ]
    if has("departments"):
        staff_cols.append(fk_col(L, "department", nullable=True))
    staff_cols += [Col("active", "INTEGER", minimum=0, maximum=1), Col("hired_on", "TEXT")]
    ents["staff"] = Entity(
        "staff",
        L["staff"],
        staff_cols,
        f"{plural(L['staff']).capitalize()} who handle {plural(L['case'])}.",
        search=(FULL_NAME, "email"),
        filters=(f"{snake(L['site'])}_id", "active"),
    )
    return ents


def fill_sites(gen: RowGen) -> None:
    used = set()
    for _ in range(gen.rng.randint(4, 6)):
        city = gen.fake.city()
        while city in used:
            city = gen.fake.city()
        used.add(city)
        gen.add(
            "site",
            {
                "name": f"{city} {gen.plan['site'].label.title()}",
                "city": city,
                "street": gen.fake.street_address(),
                "phone": gen.phone(),
                "opened_on": day(gen.past(400, 3650)),
            },
        )


def fill_staff(gen: RowGen) -> None:
    label = gen.plan["staff"].label
    sites = gen.ids("site")
    depts = gen.rows.get("department", [])
    for i in range(gen.rng.randint(9, 14)):
        first, last = gen.person()
        site = sites[i % len(sites)]
        opened = gen.rows["site"][site - 1]["opened_on"]
        row = {
            "first_name": first,
            "last_name": last,
            "email": gen.email(first, last),
            "title": f"{gen.rng.choice(TITLES)} {label.title()}",
            gen.fk("site"): site,
        }
        if gen.has("department"):
            local = [d["id"] for d in depts if d[gen.fk("site")] == site]
            row[gen.fk("department")] = gen.rng.choice(local)
        row["active"] = 0 if i == 5 else 1
        row["hired_on"] = day(gen.between(opened, gen.past(60, 60)))  # hired once the site had opened
        gen.add("staff", row)


FILL = {"site": fill_sites, "staff": fill_staff}
