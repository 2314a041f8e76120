"""Messages sent to parties."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "notifications"
ROLES = ("notification",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The notification tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["notification"] = Entity(
        "notification",
        L["notification"],
        [
            pk_col(),
            fk_col(L, "party"),
            Col("channel", "TEXT", enum=("email", "sms", "push")),
            Col("subject", "TEXT"),
            Col("body", "TEXT"),
            Col("sent_at", "TEXT"),
        ],
        f"Messages sent to {plural(L['party'])}.",
        filters=(party_fk, "channel"),
    )
    return ents


def fill_notifications(gen: RowGen) -> None:
    for _ in range(gen.rng.randint(15, 25)):
        party = gen.rng.choice(gen.rows["party"])
        subject, body = gen.texts.notification()
        gen.add(
            "notification",
            {
                gen.fk("party"): party["id"],
                "channel": gen.rng.choice(("email", "sms", "push")),
                "subject": subject,
                "body": body,
                "sent_at": iso(gen.between(max(party["created_at"], iso(gen.past(200, 200))))),
            },
        )


FILL = {"notification": fill_notifications}
