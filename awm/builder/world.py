"""From (domain, slot) to a scenario, and from a scenario to a world plan.

A scenario fixes everything an environment is about: its sub-business, the
labels of its roles, its case lifecycle and its optional modules. The world plan
(entities with their columns) is a pure function of the scenario, so every
stage that needs it recomputes the same plan from scenario.json.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass, field

from awm.builder.catalogue import DOMAIN_SEEDS, PACKS
from awm.builder.catalogue.kinds import KIND_OF_FLAVOUR, MIN_SUBSCRIBABLE, module_misfit, subscribable
from awm.builder.catalogue.model import MODULES, DomainSeed, ExtraColumn, SubBusiness
from awm.builder.catalogue.nearest import nearest_domain
from awm.builder.catalogue.seeds import load_seed_domains
from awm.builder.entities import DEFAULT_LABELS, Col, Entity
from awm.builder.flavours import FLAVOURS, Flavour
from awm.builder.modules import MODULE_ROLES, build_entities
from awm.builder.modules.packs import PACK_MODULES, group_roles, groups_for
from awm.builder.naming import plural, snake, title, unique_code_prefixes
from awm.builder.phrasing import with_article
from awm.contracts import Scenario
from awm.domains import env_id_for, seeds_file_path, validate_domain_slug

CORE_TABLES = 9
MIN_TABLES = 15
MAX_TABLES = 21


def stable_seed(*parts: object) -> int:
    """A seed that is the same in every process (unlike hash())."""
    digest = hashlib.sha256(":".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:6], "big")


# --- unseen domains: compose from archetypes -----------------------------------

_ARCHETYPES: dict[str, dict[str, str]] = {
    "fulfillment": {"party": "customer", "staff": "sales associate", "site": "store", "category": "product line",
                    "item": "product", "case": "order", "line": "order item"},
    "digital": {"party": "subscriber", "staff": "account specialist", "site": "service region",
                "category": "product line", "item": "digital product", "case": "purchase", "line": "purchase item"},
    "appointment": {"party": "client", "staff": "specialist", "site": "location", "category": "service line",
                    "item": "service", "case": "appointment", "line": "booked service"},
    "application": {"party": "applicant", "staff": "case officer", "site": "office", "category": "program area",
                    "item": "program", "case": "application", "line": "application item"},
    "service": {"party": "client", "staff": "technician", "site": "depot", "category": "service type",
                "item": "service", "case": "work order", "line": "work order item"},
    "reservation": {"party": "guest", "staff": "coordinator", "site": "venue", "category": "offering type",
                    "item": "offering", "case": "reservation", "line": "reserved item"},
}
# the lifecycles a slug with no word in common with any domain is composed from (a digital purchase comes only from
# a nearest domain that sells one)
_COMPOSED_FLAVOURS = ("appointment", "application", "fulfillment", "reservation", "service")
_QUALIFIERS = ("boutique", "regional", "online", "family run", "premium", "discount", "mobile", "wholesale",
               "community", "franchise", "specialist", "nationwide")
_ITEM_NOUNS = ("Starter Package", "Standard Package", "Premium Package", "Consultation", "Annual Plan",
               "Express Service", "Maintenance Visit", "Deluxe Bundle", "Inspection", "Gift Voucher",
               "Add-on Kit", "Priority Upgrade")
_CATEGORY_NOUNS = ("Essentials", "Professional", "Seasonal", "Premium", "Accessories", "Services")


def compose_unseen_domain(slug: str) -> tuple[DomainSeed, str]:
    """A seed for a domain neither the catalogue nor the seeds file defines, and why it looks as it does.

    The lifecycle, modules, prices and category pack come from the built-in domain whose words the
    slug shares most (awm.builder.catalogue.nearest); the labels come from that lifecycle's archetype
    and the items are composed from the slug's own words. With no word in common, everything is
    drawn from the archetypes.
    """
    rng = random.Random(stable_seed("unseen", slug))
    nearest = nearest_domain(slug)
    if nearest.seed is not None:
        flavour, modules = nearest.seed.flavour, list(nearest.seed.modules)
        category, price_range = nearest.seed.category, nearest.seed.price_range
        item_kind = nearest.seed.item_kind
    else:
        flavour, modules = rng.choice(_COMPOSED_FLAVOURS), rng.sample(list(MODULES), 4)
        category, price_range = "composed", (10.0, 400.0)
        item_kind = KIND_OF_FLAVOUR[flavour]
        modules = [m for m in modules if not module_misfit(m, category, item_kind)]
    words = slug.replace("_", " ").strip()
    topic = title(words)
    subs = []
    qualifiers = list(_QUALIFIERS)
    rng.shuffle(qualifiers)
    for q in qualifiers[:10]:
        nouns = list(_ITEM_NOUNS)
        rng.shuffle(nouns)
        cats = list(_CATEGORY_NOUNS)
        rng.shuffle(cats)
        subs.append(
            SubBusiness(
                name=f"{q} {words} business",
                categories={f"{topic} {c}": tuple(f"{topic} {n}" for n in nouns[2 * i : 2 * i + 2])
                            for i, c in enumerate(cats[:4])},
            )
        )
    seed = DomainSeed(
        slug=slug,
        title=topic,
        category=category,
        flavour=flavour,
        roles=dict(_ARCHETYPES[flavour]),
        modules=tuple(modules),
        sub_businesses=tuple(subs),
        price_range=price_range,
        item_kind=item_kind,
    )
    return seed, f"composed from archetypes: {nearest.reason}"


@dataclass(frozen=True)
class DomainSource:
    """A domain's seed and where it came from: the honest flag recorded in scenario.json and the catalog."""

    seed: DomainSeed
    origin: str  # catalogue | seeds_file | composed
    reason: str


def domain_source(slug: str) -> DomainSource:
    """The built-in domain, else the seeds file's definition, else one composed from the slug's words."""
    validate_domain_slug(slug)
    if slug in DOMAIN_SEEDS:
        seed = DOMAIN_SEEDS[slug]
        return DomainSource(seed, "catalogue", f"built-in domain of category pack {seed.category!r}")
    path = seeds_file_path()
    if path.exists():
        defined = load_seed_domains(path)
        if slug in defined:
            return DomainSource(defined[slug], "seeds_file", f"defined in the seeds file {path}")
    seed, reason = compose_unseen_domain(slug)
    return DomainSource(seed, "composed", reason)


# --- scenarios ----------------------------------------------------------------


def _labels(seed: DomainSeed) -> dict[str, str]:
    labels = dict(DEFAULT_LABELS)
    labels.update(seed.roles)
    # Two roles must never share a table: a later duplicate falls back to a qualified label.
    seen: dict[str, str] = {}
    for role in labels:
        table = snake(plural(labels[role]))
        if table in seen:
            labels[role] = f"{seed.roles.get('case', 'case')} {DEFAULT_LABELS[role]}"
            if snake(plural(labels[role])) in seen:
                labels[role] = f"{role.replace('_', ' ')} record"
        seen[snake(plural(labels[role]))] = role
    # the category's own entities keep their label unless a domain table already has it (then the alternative)
    module = PACK_MODULES.get(seed.category)
    for role, label in (module.LABELS.items() if module else ()):
        if snake(plural(label)) in seen:
            label = module.ALT_LABELS[role]
        labels[role] = label
        seen[snake(plural(label))] = role
    return labels


def curated_modules(seed: DomainSeed) -> tuple[str, ...]:
    """Every module an environment of this domain may carry: its own, then those of its category pack's that fit
    what its items are (a repair shop of a pack that sells goods keeps no stock: awm/builder/catalogue/kinds.py)."""
    pack = PACKS[seed.category].modules if seed.category in PACKS else MODULES
    return tuple(m for m in dict.fromkeys(seed.modules + pack)
                 if not module_misfit(m, seed.category, seed.item_kind))


def _pick_entity_groups(seed: DomainSeed, slot: int) -> list[str]:
    """The category's own entity groups a scenario carries: two of them (one where only one fits), a different
    pair in each slot of a round, so sibling scenarios of one domain differ in schema."""
    names = sorted(groups_for(seed.category, seed.slug))
    if len(names) <= 1:
        return names
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    random.Random(stable_seed("entity groups", seed.slug)).shuffle(pairs)
    return sorted(pairs[slot % len(pairs)])


SIBLING_SLOTS = 10  # the slots of one domain whose module windows spread over its curated modules
WINDOW_SHARE = 0.6  # at most this share of the curated modules' tables in one scenario (unless 15 tables need more)


def _item_misfits(seed: DomainSeed, items: tuple[str, ...], labels: dict[str, str]) -> frozenset[str]:
    """The curated modules a sub-business's items do not fit: subscriptions where fewer than `MIN_SUBSCRIBABLE` of
    its items may be subscribed to (a veterinary hospital's emergency exams, a courier's delivery runs)."""
    label = labels.get("subscription", "subscription")
    if sum(subscribable(item, seed.item_kind, label) for item in items) < MIN_SUBSCRIBABLE:
        return frozenset({"subscriptions"})
    return frozenset()


def _pick_modules(seed: DomainSeed, slot: int, rng: random.Random, groups: list[str] = (),
                  unfit: frozenset[str] = frozenset()) -> list[str]:
    """The generic modules the entity groups need, then a window of the domain's curated modules up to the
    target size.

    The curated modules (the domain's own, then its pack's) are put in one order per domain; each slot starts
    its window at a different point of that cycle, so every module is in about as many sibling scenarios as any
    other and siblings share as few as the short curated list allows (a random pick per slot shares more, and
    preferring the domain's own modules in every slot shares most). A window covers at most WINDOW_SHARE of the
    curated tables, unless MIN_TABLES needs more: a window spanning the whole cycle would give every sibling
    every module. A module of `unfit` is left out (the sub-business's items do not fit it: `_item_misfits`)."""
    target = rng.randint(MIN_TABLES, MAX_TABLES - 2)
    needed = list(dict.fromkeys(m for g in groups for m in groups_for(seed.category, seed.slug)[g].needs))
    order_rng = random.Random(stable_seed("module order", seed.slug))
    own = [m for m in seed.modules if m not in needed]
    order_rng.shuffle(own)
    # beyond its own modules, a scenario only adds what its kind of business has (the pack's curated list)
    pack = [m for m in curated_modules(seed) if m not in needed and m not in own]
    order_rng.shuffle(pack)
    cycle = own + pack
    start = round((slot % SIBLING_SLOTS) * len(cycle) / SIBLING_SLOTS) if cycle else 0
    chosen: list[str] = []
    tables = CORE_TABLES + len(group_roles(seed.category, list(groups)))
    pool = sum(len(MODULE_ROLES[m]) for m in cycle)
    target = max(MIN_TABLES, min(target, tables + math.ceil(pool * WINDOW_SHARE)))
    for module in needed + cycle[start:] + cycle[:start]:
        if tables >= target and module not in needed:
            break
        if module in unfit and module not in needed:
            continue
        size = len(MODULE_ROLES[module])
        if tables + size > MAX_TABLES:
            continue
        chosen.append(module)
        tables += size
    return sorted(chosen, key=MODULES.index)


def _describe(seed: DomainSeed, sub: SubBusiness, labels: dict[str, str], modules: list[str],
              flavour: Flavour, city: str, groups: list[str] = ()) -> str:
    L = labels
    parts = [
        f"A {sub.name} based in {city} ({seed.title.lower()}).",
        f"Its {plural(L['staff'])} work across several {plural(L['site'])} and handle "
        f"{plural(L['case'])} for {plural(L['party'])}; each {L['case']} moves through "
        f"{', '.join(s.replace('_', ' ') for s in flavour.statuses)}.",
        f"It offers {plural(L['item'])} in {', '.join(sub.category_names)}.",
    ]
    extras = {
        "addresses": f"keeps {plural(L['address'])} of its {plural(L['party'])} on file",
        "invoices": f"issues {plural(L['invoice'])}",
        "accounts": f"keeps {plural(L['account'])} with balances",
        "documents": f"collects {plural(L['document'])}",
        "reviews": f"gathers {plural(L['review'])}",
        "promotions": f"runs {plural(L['promotion'])}",
        "procurement": f"buys from {plural(L['vendor'])}",
        "inventory": "tracks stock per location",
        "support": f"answers {plural(L['ticket'])}",
        "notifications": f"sends {plural(L['notification'])}",
        "subscriptions": f"sells {plural(L['subscription'])}",
        "shifts": f"schedules {plural(L['shift'])}",
        "departments": f"is organised in {plural(L['department'])}",
        "loyalty": "runs a loyalty programme",
    }
    if modules:
        parts.append("It also " + ", ".join(extras[m] for m in modules) + ".")
    own = group_roles(seed.category, list(groups))
    if own:
        parts.append(f"As {with_article(seed.title.lower())} business it keeps "
                     + ", ".join(plural(labels[r]) for r in own) + ".")
    return " ".join(parts)


_CITIES = ("Springfield", "Riverton", "Lakeside", "Fairview", "Brookhaven", "Oakridge", "Maple Falls",
           "Cedar Point", "Harborview", "Westfield", "Northgate", "Pinecrest")


def make_scenario(domain: str, slot: int, base_seed: int = 0) -> Scenario:
    source = domain_source(domain)
    seed = source.seed
    rng = random.Random(stable_seed("scenario", domain, slot, base_seed))
    sub = seed.sub_businesses[slot % len(seed.sub_businesses)]
    round_ = slot // len(seed.sub_businesses)
    name = title(sub.name) if round_ == 0 else f"{title(sub.name)} ({rng.choice(_CITIES)} branch network {round_})"
    labels = _labels(seed)
    unfit = _item_misfits(seed, sub.items, labels)
    # an entity group that needs a module this sub-business's items do not fit is not kept (a golf course's
    # membership freezes where it sells no membership)
    available = groups_for(seed.category, seed.slug)
    groups = [g for g in _pick_entity_groups(seed, slot) if not set(available[g].needs) & unfit]
    modules = _pick_modules(seed, slot, rng, groups, unfit)
    flavour = FLAVOURS[seed.flavour]
    city = rng.choice(_CITIES)
    return Scenario(
        env_id=env_id_for(domain, slot),
        domain=domain,
        slot=slot,
        seed=stable_seed("env", domain, slot, base_seed),
        name=name,
        description=_describe(seed, sub, labels, modules, flavour, city, groups),
        category=seed.category,
        flavour=seed.flavour,
        sub_business=sub.name,
        labels=labels,
        modules=modules,
        entity_groups=groups,
        item_categories=list(sub.category_names),
        items=list(sub.items),
        item_category=[sub.category_of(item) for item in sub.items],
        price_range=seed.price_range,
        item_kind=seed.item_kind,
        party_kind=seed.party_kind,
        builtin=source.origin == "catalogue",
        origin=source.origin,
        origin_reason=source.reason,
    )


# --- world plan ---------------------------------------------------------------


# Roles whose rows carry a '<PREFIX>-<number>' code; the case comes first so it keeps its label's own
# prefix (its create tool numbers new cases with it).
CODED_ROLES = ("case", "item", "invoice", "purchase_order", "ticket")


@dataclass
class WorldPlan:
    scenario: Scenario
    flavour: Flavour
    entities: dict[str, Entity]
    code_prefixes: dict[str, str]
    extra_columns: dict[str, tuple[ExtraColumn, ...]] = field(default_factory=dict)  # the category's own columns

    def has(self, role: str) -> bool:
        return role in self.entities

    def __getitem__(self, role: str) -> Entity:
        return self.entities[role]

    def table_of(self, role: str) -> str:
        return self.entities[role].table


def plan_world(scenario: Scenario) -> WorldPlan:
    flavour = FLAVOURS[scenario.flavour]
    entities = build_entities(scenario.labels, scenario.modules, flavour, scenario.category, scenario.entity_groups)
    tables = [e.table for e in entities.values()]
    if len(tables) != len(set(tables)):
        raise ValueError(f"{scenario.env_id}: two roles map to one table: {sorted(tables)}")
    pack = PACK_MODULES.get(scenario.category)
    coded_roles = CODED_ROLES + (pack.CODED if pack else ())
    coded = {role: entities[role].label for role in coded_roles if role in entities}
    extra = PACKS[scenario.category].columns if scenario.category in PACKS else {}
    for role, columns in extra.items():
        _add_columns(scenario, entities[role], columns)
    return WorldPlan(scenario, flavour, entities, unique_code_prefixes(coded), dict(extra))


def _add_columns(scenario: Scenario, entity: Entity, columns: tuple[ExtraColumn, ...]) -> None:
    """The category's own columns on a core table (nullable: a row created through a tool may not know them yet);
    a column with set values is a filter of the table's list tool."""
    for column in columns:
        if entity.has(column.name):
            raise ValueError(f"{scenario.env_id}: category pack {scenario.category!r} adds a column {column.name!r} "
                             f"that {entity.table} already has")
        entity.columns.append(Col(column.name, column.sql_type, nullable=True, enum=column.values,
                                  description=column.description or column.name.replace("_", " ")))
        if column.values:
            entity.filters = (*entity.filters, column.name)
