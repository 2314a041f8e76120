"""Category entity modules: the tables only one kind of business has.

A category pack (awm/builder/categories/<category>/pack.yaml) says which generic modules its businesses may
carry; a category entity module, one per pack that has one, brings what only that kind of business keeps: a
bank's cards, disputes, standing orders and holds; a clinic's appointment slots, procedures and insurance
claims; a carrier's shipments, legs, rate quotes and exceptions. Each module declares

- `CATEGORY`: the pack it belongs to (its entities appear in that category's environments and nowhere else);
- `LABELS`: role -> label (the table's name in the business's words), and `ALT_LABELS` for a role whose label
  a domain already uses for one of its own tables;
- `GROUPS`: the entity groups a scenario picks from (`Group`: its roles, the generic modules it needs, the
  domains it is not for), so sibling scenarios of one domain carry different tables;
- `entities(L, has, flavour)`: the tables of the chosen groups (`has(role)` says whether a role is chosen);
- `FILL`: role -> filler of the row generator, like the generic concern modules.

Its tools (get, list, create and the actions with their business rules) are declared in
awm/builder/tools/<category>.py and written as templates in awm/builder/templates/tools/<category>.py, like every
concern's; its requests are in awm/builder/intents/entities/<category>.py.
"""

from __future__ import annotations

from types import ModuleType

from awm.builder.categories.agriculture import entities as agriculture
from awm.builder.categories.automotive import entities as automotive
from awm.builder.categories.banking import entities as banking
from awm.builder.categories.commerce import entities as commerce
from awm.builder.categories.education import entities as education
from awm.builder.categories.energy import entities as energy
from awm.builder.categories.fintech import entities as fintech
from awm.builder.categories.fitness import entities as fitness
from awm.builder.categories.food_and_beverage import entities as food_and_beverage
from awm.builder.categories.government import entities as government
from awm.builder.categories.healthcare import entities as healthcare
from awm.builder.categories.hospitality import entities as hospitality
from awm.builder.categories.human_resources import entities as human_resources
from awm.builder.categories.insurance import entities as insurance
from awm.builder.categories.logistics import entities as logistics
from awm.builder.categories.manufacturing import entities as manufacturing
from awm.builder.categories.marketing import entities as marketing
from awm.builder.categories.media import entities as media
from awm.builder.categories.nonprofit import entities as nonprofit
from awm.builder.categories.professional_services import entities as professional_services
from awm.builder.categories.real_estate import entities as real_estate
from awm.builder.categories.technology import entities as technology
from awm.builder.categories.telecom import entities as telecom
from awm.builder.categories.transportation import entities as transportation
from awm.builder.categories.travel import entities as travel
from awm.builder.categories.utilities import entities as utilities
from awm.builder.modules.packs.group import Group

PACK_MODULES: dict[str, ModuleType] = {
    m.CATEGORY: m
    for m in (commerce, banking, insurance, fintech, real_estate, healthcare, education, human_resources, utilities,
              hospitality, travel, logistics, telecom, automotive, transportation, fitness, food_and_beverage,
              agriculture, energy, media, marketing, technology, manufacturing, government,
              professional_services, nonprofit)
}

# role -> the pack module declaring it; a role belongs to exactly one pack
PACK_ROLE_OWNER: dict[str, ModuleType] = {}
for _module in PACK_MODULES.values():
    for _role in _module.LABELS:
        if _role in PACK_ROLE_OWNER:
            raise RuntimeError(f"role {_role!r} is declared by two category modules")
        PACK_ROLE_OWNER[_role] = _module
    for _name, _group in _module.GROUPS.items():
        if set(_group.roles) - set(_module.LABELS):
            raise RuntimeError(f"{_module.__name__}: group {_name!r} has roles without a label")

# Tables of category entities come after every generic one (they point at parties, accounts, cases...).
PACK_ROLE_ORDER: tuple[str, ...] = tuple(PACK_ROLE_OWNER)


def groups_for(category: str, domain: str) -> dict[str, Group]:
    """The entity groups an environment of `domain` (in `category`) may carry, by name."""
    module = PACK_MODULES.get(category)
    if module is None:
        return {}
    return {name: g for name, g in module.GROUPS.items() if domain not in g.not_for}


def group_roles(category: str, groups: list[str]) -> tuple[str, ...]:
    """The roles of the chosen groups, in table order."""
    module = PACK_MODULES.get(category)
    if module is None:
        if groups:
            raise ValueError(f"category {category!r} has no entity module but groups {groups} were chosen")
        return ()
    unknown = sorted(set(groups) - set(module.GROUPS))
    if unknown:
        raise ValueError(f"category {category!r} has no entity groups {unknown}; known: {', '.join(module.GROUPS)}")
    chosen = {role for g in groups for role in module.GROUPS[g].roles}
    return tuple(role for role in PACK_ROLE_ORDER if role in chosen)
