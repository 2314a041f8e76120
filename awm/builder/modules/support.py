"""Support tickets raised by parties and the comments on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "support"
ROLES = ("ticket", "ticket_comment")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The ticket, ticket_comment tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["ticket"] = Entity(
        "ticket",
        L["ticket"],
        [
            pk_col(),
            Col("number", "TEXT", unique=True),
            fk_col(L, "party"),
            fk_col(L, "staff", nullable=True),
            Col("subject", "TEXT"),
            Col("priority", "TEXT", enum=("low", "normal", "high", "urgent")),
            Col("status", "TEXT", enum=("open", "in_progress", "escalated", "resolved", "closed")),
            Col("opened_at", "TEXT"),
        ],
        f"Support requests raised by {plural(L['party'])}.",
        filters=("number", party_fk, f"{snake(L['staff'])}_id", "status", "priority"),
        search=("subject",),
        code="number",
    )
    ents["ticket_comment"] = Entity(
        "ticket_comment",
        L["ticket_comment"],
        [
            pk_col(),
            fk_col(L, "ticket"),
            fk_col(L, "staff", nullable=True),
            Col("body", "TEXT"),
            Col("created_at", "TEXT"),
        ],
        f"Comments on {plural(L['ticket'])}.",
        filters=(f"{snake(L['ticket'])}_id",),
    )
    return ents


def fill_tickets(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["ticket"]
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    parties = gen.rows["party"]
    for n in range(gen.rng.randint(14, 20)):
        status = gen.rng.choices(("open", "in_progress", "escalated", "resolved", "closed"), (4, 2, 1, 2, 2))[0]
        party = gen.rng.choice(parties)
        ticket = gen.add(
            "ticket",
            {
                "number": f"{prefix}-{801 + n}",
                gen.fk("party"): party["id"],
                gen.fk("staff"): None if status == "open" else gen.rng.choice(staff),
                "subject": gen.texts.ticket_subject(),
                "priority": gen.rng.choice(("low", "normal", "normal", "high", "urgent")),
                "status": status,
                "opened_at": iso(gen.between(max(party["created_at"], iso(gen.past(120, 120))), gen.past(1, 1))),
            },
        )
        for _ in range(gen.rng.choice((0, 1, 2))):
            gen.add(
                "ticket_comment",
                {
                    gen.fk("ticket"): ticket["id"],
                    gen.fk("staff"): ticket[gen.fk("staff")],
                    "body": gen.texts.ticket_comment(),
                    "created_at": ticket["opened_at"],
                },
            )


FILL = {"ticket": fill_tickets}
