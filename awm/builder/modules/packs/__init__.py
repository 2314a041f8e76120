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

from awm.builder import categories
from awm.builder.categories.group import Group

# discovers: awm.builder.categories.*.entities
PACK_MODULES: dict[str, ModuleType] = categories.modules("entities")  # by category, in name order

# role -> the pack module declaring it; a role belongs to exactly one pack
PACK_ROLE_OWNER: dict[str, ModuleType] = {}
for _module in PACK_MODULES.values():
    for _role in _module.LABELS:
        if _role in PACK_ROLE_OWNER:
            raise categories.CategoryError(f"role {_role!r} is declared by two categories' entities.py: "
                                           f"{PACK_ROLE_OWNER[_role].__name__} and {_module.__name__}")
        PACK_ROLE_OWNER[_role] = _module

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
