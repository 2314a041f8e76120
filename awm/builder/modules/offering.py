"""What the business offers: categories and the catalogue items in them."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("category", "item")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The category, item tables, named in the domain's words."""
    ents: dict[str, Entity] = {}
    ents["category"] = Entity(
        "category",
        L["category"],
        [pk_col(), Col("name", "TEXT", unique=True), Col("description", "TEXT")],
        f"How {plural(L['item'])} are grouped.",
        search=("name",),
    )
    ents["item"] = Entity(
        "item",
        L["item"],
        [
            pk_col(),
            Col("sku", "TEXT", unique=True, description="stock-keeping code"),
            Col("name", "TEXT"),
            fk_col(L, "category"),
            Col("price", "REAL", minimum=0),
            Col("active", "INTEGER", minimum=0, maximum=1, description="1 if offered"),
            Col("description", "TEXT"),
        ],
        f"The {plural(L['item'])} offered, with their current price.",
        search=("name", "sku"),
        filters=(f"{snake(L['category'])}_id", "active"),
        code="sku",
    )
    return ents


# What an item's name says about its price within the domain's range: a fee, an exam or a refill sits
# in the bottom third (log scale), a package, an installation or a surgery in the top third.
_LOW_WORDS = frozenset(
    """
    fee fees replacement card exam cleaning consultation consult check checkup inspection test screening visit pass
    ticket kit refill sample pack filter bulb sticker print copy notary postage label voucher trial session class
    lesson drop wash trim rental day hour single basic starter mini swab shot vaccine sealant fluoride adjustment
    tune top-up topup add-on addon report certificate letter transcript badge permit
""".split()
)
_HIGH_WORDS = frozenset(
    """
    package plan annual premium suite renovation installation system mortgage loan implant surgery crown braces
    aligners gown membership bundle tour retreat vehicle tractor engine machine remodel replacement-system roof
    overhaul transplant veneers bridge denture wedding estate expedition cruise unlimited enterprise platinum
    lifetime semester tuition degree residency conversion commercial fleet full complete rebuild
""".split()
)


def price_band(name: str, low: float, high: float) -> tuple[float, float]:
    """The part of [low, high] an item of this name is priced in (log scale: cheap, ordinary, expensive)."""
    words = {w.strip(".,()").lower() for w in name.split()}
    low = max(low, 1.0)
    span = math.log(high) - math.log(low)
    third = 0 if words & _LOW_WORDS else 2 if words & _HIGH_WORDS else 1
    return (
        round(math.exp(math.log(low) + span * third / 3), 2),
        round(math.exp(math.log(low) + span * (third + 1) / 3), 2),
    )


def _category_by_words(name: str, categories: list[str], position: int, count: int) -> str:
    """For a scenario that gives no category per item: the one category its name shares a word with,
    else the block its listing position falls in."""
    words = {w.lower().rstrip("s") for w in name.split() if len(w) > 2}
    hits = [c for c in categories if words & {w.lower().rstrip("s") for w in c.split() if len(w) > 2}]
    return hits[0] if len(hits) == 1 else categories[position * len(categories) // count]


def fill_categories(gen: RowGen) -> None:
    for name in gen.sc.item_categories:
        gen.add("category", {"name": name, "description": f"{name} offered by the business"})


def fill_items(gen: RowGen) -> None:
    lo, hi = gen.sc.price_range
    prefix = gen.plan.code_prefixes["item"]
    category_ids = {row["name"]: row["id"] for row in gen.rows["category"]}
    names = gen.sc.items
    for i, name in enumerate(names):
        category = (
            gen.sc.item_category[i]
            if gen.sc.item_category
            else _category_by_words(name, gen.sc.item_categories, i, len(names))
        )
        band_low, band_high = price_band(name, lo, hi)
        gen.add(
            "item",
            {
                "sku": f"{prefix}-{101 + i}",
                "name": name,
                gen.fk("category"): category_ids[category],
                "price": round(math.exp(gen.rng.uniform(math.log(band_low), math.log(band_high))), 2),
                "active": 0 if i == len(names) - 1 else 1,
                "description": f"{name}, part of our {category} range",
            },
        )


FILL = {"category": fill_categories, "item": fill_items}
