"""What a category's entities.py declares its entity groups with (apart from awm.builder.modules, whose package
imports every category's entities)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Group:
    """Entities a scenario takes together: `roles` in creation order, `needs` the generic modules they point at."""

    roles: tuple[str, ...]
    needs: tuple[str, ...] = ()
    not_for: tuple[str, ...] = ()  # domains (slugs) whose business has no such thing (a pawn shop issues no cards)
