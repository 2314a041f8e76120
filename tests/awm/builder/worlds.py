"""Test worlds found by what they contain, not by hard-coded slots: adding an entity group to a category
changes which groups a slot draws, and a test that named the slot would silently stop covering what it meant to."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.modules.packs import PACK_MODULES, PACK_ROLE_OWNER, group_roles
from awm.builder.world import make_scenario, plan_world

SLOTS = 8  # the slots of each domain searched


@cache
def _drawn(domain: str, slot: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    scenario = make_scenario(domain, slot)
    return tuple(scenario.entity_groups), group_roles(scenario.category, list(scenario.entity_groups))


def worlds_with(group: str, n: int = 1, category: str | None = None) -> list[tuple[str, int]]:
    """The first `n` built-in worlds (domain, slot), in catalogue and slot order, whose scenario carries the
    entity group `group` (a name in some category's GROUPS) or, if no group has that name, the role `group`
    (a table of a category's entities). `category` narrows the search where a group name is shared."""
    owners = {c for c, m in PACK_MODULES.items() if group in m.GROUPS}
    is_role = not owners
    if is_role:
        if group not in PACK_ROLE_OWNER:
            raise ValueError(f"{group!r} is neither an entity group nor a role of any category")
        owners = {PACK_ROLE_OWNER[group].CATEGORY}
    if category is not None:
        owners &= {category}
    found = []
    for domain, seed in DOMAIN_SEEDS.items():
        if seed.category not in owners:
            continue
        for slot in range(SLOTS):
            groups, roles = _drawn(domain, slot)
            if group in (roles if is_role else groups):
                found.append((domain, slot))
                if len(found) == n:
                    return found
    if not found:
        raise LookupError(f"no built-in world in slots 0-{SLOTS - 1} carries {group!r}")
    return found


def worlds_planning(names, builds: Callable[[str, str, int], bool], per_intent: int) -> tuple[tuple[str, int], ...]:
    """For each intent of `names`, the first worlds (catalogue and slot order) where `builds(name, domain, slot)`,
    one per lifecycle, up to `per_intent`: found by what they contain, never named by hand."""
    found: list[tuple[str, int]] = []
    for name in names:
        flavours: set[str] = set()
        for slot in range(SLOTS):
            for domain in builtin_domains():
                if len(flavours) >= per_intent:
                    break
                flavour = plan_world(make_scenario(domain, slot)).flavour.name
                if flavour not in flavours and builds(name, domain, slot):
                    flavours.add(flavour)
                    if (domain, slot) not in found:
                        found.append((domain, slot))
        assert flavours, f"no world of slots 0-{SLOTS - 1} can plan {name}"
    return tuple(found)
