"""Work shifts of staff."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "shifts"
ROLES = ("shift",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The shift tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["shift"] = Entity(
        "shift",
        L["shift"],
        [
            pk_col(),
            fk_col(L, "staff"),
            fk_col(L, "site"),
            Col("shift_date", "TEXT"),
            Col("start_time", "TEXT"),
            Col("end_time", "TEXT"),
            Col("status", "TEXT", enum=("scheduled", "completed", "missed", "cancelled")),
        ],
        f"Work shifts of {plural(L['staff'])}.",
        filters=(f"{snake(L['staff'])}_id", f"{snake(L['site'])}_id", "shift_date", "status"),
    )
    return ents


def fill_shifts(gen: RowGen) -> None:
    staff = gen.rows["staff"]
    for _ in range(gen.rng.randint(24, 36)):
        person = gen.rng.choice(staff)
        past = gen.rng.random() < 0.6
        when = gen.past(1, 30) if past else gen.future(1, 21)
        start = gen.rng.choice((7, 8, 9, 12, 14))
        gen.add(
            "shift",
            {
                gen.fk("staff"): person["id"],
                gen.fk("site"): person[gen.fk("site")],
                "shift_date": day(when),
                "start_time": f"{start:02d}:00",
                "end_time": f"{start + 8:02d}:00",
                "status": gen.rng.choices(("completed", "missed"), (9, 1))[0] if past else "scheduled",
            },
        )


FILL = {"shift": fill_shifts}
