"""What the requests about category entities share: the reference day, the voices they are asked in, and the
active person a row belongs to."""

from __future__ import annotations

from awm.builder.clock import REFERENCE_NOW_ISO as NOW
from awm.builder.clock import TODAY
from awm.builder.intents.base import World

__all__ = ["BOTH", "NOW", "TODAY", "active_party"]
BOTH = ("staff", "self")


def active_party(w: World, row: dict, role: str = "party") -> dict | None:
    party = w.by_id("party", row[w.fk(role)]) if role == "party" else None
    return party if party is not None and party["status"] == "active" else None
