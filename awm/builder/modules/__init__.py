"""The concerns an environment is built from, one module each.

Four core concerns are in every environment (`sites`, `offering`, `parties`,
`cases`); each optional module (postal addresses are one) of the catalogue (`MODULES` in
awm.builder.catalogue.model) adds its own tables. Every concern module declares
its tables (`entities(labels, has, flavour)`) and fills them (`FILL`: role ->
function of the row generator), so one concern is read and changed in one place.
"""

from __future__ import annotations

from awm.builder.catalogue.model import MODULES
from awm.builder.entities import ROLE_ORDER, Entity
from awm.builder.flavours import Flavour
from awm.builder.modules import (
    accounts,
    addresses,
    cases,
    departments,
    documents,
    inventory,
    invoices,
    loyalty,
    notifications,
    offering,
    parties,
    procurement,
    promotions,
    reviews,
    shifts,
    sites,
    subscriptions,
    support,
)
from awm.builder.modules.packs import PACK_MODULES, PACK_ROLE_ORDER, group_roles

CORE_CONCERNS = (sites, offering, parties, cases)
OPTIONAL_CONCERNS = {
    m.MODULE: m
    for m in (
        addresses,
        departments,
        promotions,
        invoices,
        accounts,
        documents,
        reviews,
        procurement,
        inventory,
        support,
        notifications,
        subscriptions,
        shifts,
        loyalty,
    )
}
if set(OPTIONAL_CONCERNS) != set(MODULES):
    raise RuntimeError(f"modules without a concern module: {sorted(set(MODULES) ^ set(OPTIONAL_CONCERNS))}")

MODULE_ROLES: dict[str, tuple[str, ...]] = {name: OPTIONAL_CONCERNS[name].ROLES for name in MODULES}

FILLERS = {
    role: filler
    for concern in CORE_CONCERNS + tuple(OPTIONAL_CONCERNS.values()) + tuple(PACK_MODULES.values())
    for role, filler in concern.FILL.items()
}
# Tables are created in this order: the generic roles, then the category entities (which point at them).
TABLE_ORDER = ROLE_ORDER + PACK_ROLE_ORDER
# Rows are generated in table order (each filler reads rows generated before it); a filler
# fills its concern's dependent roles too (the case filler makes the lines).
FILL_ORDER = tuple(role for role in TABLE_ORDER if role in FILLERS)


def build_entities(labels: dict[str, str], modules: list[str], flavour: Flavour, category: str = "",
                   entity_groups: list[str] = ()) -> dict[str, Entity]:
    """The entities of one environment, keyed by role, in creation order: the core and generic modules' tables,
    then the chosen entity groups of its category (awm.builder.modules.packs)."""
    has = set(modules).__contains__
    ents: dict[str, Entity] = {}
    for concern in CORE_CONCERNS + tuple(OPTIONAL_CONCERNS[m] for m in modules):
        ents.update(concern.entities(labels, has, flavour))
    if entity_groups:
        chosen = set(group_roles(category, list(entity_groups)))
        ents.update(PACK_MODULES[category].entities(labels, chosen.__contains__, flavour))
    return {role: ents[role] for role in TABLE_ORDER if role in ents}
