"""Whether a world fits its kind of business, measured on what a trainer sees: its modules and its tasks.

A domain's items have a kind (awm/builder/catalogue/kinds.py: goods, a service, a booking, a plan, a programme, a
financial product, a gift, unpaid work), and each rule below names a world or a task that does not fit it:

  module       the world carries a module its business does not have: stock levels of items that are not held in
               stock (an inspection, a hosting plan), checking, savings and wallet accounts outside a business
               that holds its customers' money (an IT firm, a library)
  price range  the domain prices its items below what their kind plausibly costs (a degree programme at 126.72)
  stock        a task counts, adds or moves stock of items that are not held in stock
  price        a task sets, compares or quotes the price of items that have none (a savings account, a donation,
               a volunteer day)
  refund       a task refunds, or takes back as a return, what is never refunded (a donation, a volunteer
               application: "gift order GIF-1013 arrived damaged: record its return")
  account      a task names a checking, savings or wallet account at a business that keeps none
  household    a task gives a home, a household or a family to a customer that is an organisation (a client
               company's "primary home address", a shipper who "moved house" or whose "spouse usually handles
               these things")

The rules read the task's words, not the intent that wrote it, so they measure the old corpus as well as the
new (benchmarks/bench_fit.py: before and after), and the data tests assert zero over every domain's worlds.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from awm.builder.catalogue.kinds import ACCOUNT_HOLDERS, ITEM_KINDS, SHOPS, module_misfit, price_misfit

RULES = ("module", "price range", "stock", "price", "refund", "account", "household")

# a task about stock: counting, adding or moving units held at a site
STOCK = re.compile(r"(?i)\b(?:to|from|in) (?:the |our )?(?:stock|inventory)\b|\bstock (?:level|count|record)s?\b|"
                   r"\brestock|\bin stock\b|\breorder level\b|\bquantity on hand\b|\bunits? of\b[^.?!]{0,60}\b(?:stock|inventory)\b")
# a task about an item's price
PRICE = re.compile(r"(?i)\b(?:price[sd]?|pricing|costs?|cheapest|least expensive|most expensive|priciest)\b")
REFUND = re.compile(r"(?i)\brefund|\b(?:record|process)\w* (?:a |its |the |both |their )?returns?\b|\bsend it back\b")
ACCOUNT = re.compile(r"(?i)\b(?:savings|checking|wallet) (?:account|balance)s?\b")
# a person's home, household or family, said of (or by) a customer
HOUSEHOLD = re.compile(r"(?i)\bhome (?:[a-z]+ )?address|\(home, primary\)|\bmoved house\b|\bmoving house\b|"
                       r"\bwon't be home\b|\bhousehold\b|\bmy (?:spouse|partner|child|son|daughter|niece|family|"
                       r"sibling|parent|flatmate)\b|\bour family\b|\bat home\b")


@dataclass(frozen=True)
class Misfit:
    rule: str
    env_id: str
    what: str  # the module, or the task's instruction


@dataclass(frozen=True)
class World:
    """What the rules read of one environment: its scenario's fields and its tasks' instructions."""

    env_id: str
    category: str
    item_kind: str
    modules: tuple[str, ...]
    price_range: tuple[float, float]
    instructions: tuple[str, ...] = field(default=())
    items: tuple[str, ...] = field(default=())  # the catalogue's item names, masked before the rules read a task
    party_kind: str = "person"  # who its customers are (Scenario.party_kind): people, or organisations


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PERSON = re.compile(r"\b[A-Z][a-z]+ [A-Z][a-z]+(?:'s)?\b")  # a person's name ('Tara Price', 'Ann Cost's')


def _masked(text: str, items: tuple[str, ...]) -> str:
    """A task without the names and addresses it quotes ('Beverage Cart Restock', trevor.price@example.org), and
    without people's names (a customer called Tara Price)."""
    for name in sorted(items, key=len, reverse=True):
        text = text.replace(name, "ITEM")
    return _PERSON.sub("PERSON", _EMAIL.sub("EMAIL", text))


def world_misfits(world: World) -> list[Misfit]:
    """Every rule a world or one of its tasks breaks, once per module or task and rule."""
    out = [Misfit("module", world.env_id, reason) for m in world.modules
           if (reason := module_misfit(m, world.category, world.item_kind))]
    if reason := price_misfit(world.item_kind, world.price_range):
        out.append(Misfit("price range", world.env_id, reason))
    kind = ITEM_KINDS.get(world.item_kind)
    for text, masked in ((t, _masked(t, world.items)) for t in world.instructions):
        # who the customers are is known whatever the items are; the item rules need a catalogued kind
        if world.party_kind == "organisation" and HOUSEHOLD.search(masked):
            out.append(Misfit("household", world.env_id, text))
        if kind is None:
            continue
        if not kind.stocked and STOCK.search(masked):
            out.append(Misfit("stock", world.env_id, text))
        if not kind.priced and PRICE.search(masked):
            out.append(Misfit("price", world.env_id, text))
        if not kind.refundable and REFUND.search(masked):
            out.append(Misfit("refund", world.env_id, text))
        if (world.category not in ACCOUNT_HOLDERS or world.item_kind in SHOPS) and ACCOUNT.search(masked):
            out.append(Misfit("account", world.env_id, text))
    return out


def fit_report(worlds: list[World], examples: int = 3) -> dict:
    """Misfits per rule over a corpus, the worlds and tasks with any, and a few examples of each rule."""
    found = [m for w in worlds for m in world_misfits(w)]
    by_rule = Counter(m.rule for m in found)
    shown: dict[str, list[str]] = {}
    for m in found:
        if len(shown.setdefault(m.rule, [])) < examples:
            shown[m.rule].append(f"{m.env_id}: {m.what}")
    task_rules = {"stock", "price", "refund", "account", "household"}
    return {
        "environments": len(worlds),
        "tasks": sum(len(w.instructions) for w in worlds),
        "misfits": len(found),
        "by_rule": {rule: by_rule.get(rule, 0) for rule in RULES},
        "environments_with_misfits": len({m.env_id for m in found}),
        "tasks_with_misfits": len({(m.env_id, m.what) for m in found if m.rule in task_rules}),
        "examples": shown,
    }
