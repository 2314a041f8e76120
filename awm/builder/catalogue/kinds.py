"""What a business's catalogue items are, and which modules and requests fit them.

Every domain says what kind of item it offers (`item_kind` in its pack entry): goods held in stock, a service done
for someone, a booking of a room or a seat, a plan (a subscription, a policy, a licence), a programme one enrols in,
a financial product (an account, a loan), a gift, or unpaid volunteer work. The kind decides what its worlds may
carry and ask: only goods are counted in stock (no stock levels of an inspection), a savings account or a
volunteer shift has no price to set or match, a donation or a volunteer day is not refunded, a degree programme
costs what tuition costs. A module that keeps balances for parties (checking, savings, credit and wallet accounts)
fits only a business that holds its customers' money.

The catalogue refuses a domain whose modules or price range do not fit its kind (awm/builder/catalogue/model.py),
the builder offers a world only the requests its kind allows (awm.builder.intents.base.Intent.item), and
awm/quality/fit.py measures what a corpus's worlds and tasks still do not fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ItemKind:
    name: str
    meaning: str
    stocked: bool  # units are held at a site and counted (the inventory module fits)
    priced: bool  # it has a price a person sets, compares or matches
    refundable: bool  # what was paid for it may be refunded
    price_floor: float = 0.0  # the lowest plausible price of one (a domain's price range starts at or above it)
    several: bool = False  # a case may hold several of one (3 x a product, 2 rooms); a repair or a plan is had once
    most: int = 1  # the most of one a case plausibly holds: goods by the dozen, rooms or seats a few at a time


ITEM_KINDS: dict[str, ItemKind] = {k.name: k for k in (
    ItemKind("goods", "things sold that are held in stock (a product, a tire, a phone)", True, True, True,
             several=True, most=50),
    ItemKind("made_to_order", "things made for one order, never held in stock (a print job, a catering tray)",
             False, True, True, several=True, most=50),
    ItemKind("service", "work done for someone (a repair, a consultation, a delivery)", False, True, True),
    ItemKind("booking", "a room, seat, table, space or slot reserved for a time", False, True, True, several=True,
             most=4),
    ItemKind("plan", "a subscription, policy, licence or plan paid by the period", False, True, True),
    ItemKind("program", "a degree, school or training programme one enrols in, paid by tuition", False, True, True,
             price_floor=500.0),
    ItemKind("financial", "an account, loan or card a financial institution opens for a customer", False, False, True),
    ItemKind("gift", "a donation or pledge a donor gives", False, False, False),
    ItemKind("unpaid", "volunteer work, given and taken without payment", False, False, False),
)}

def most_of_one(item_kind: str) -> int:
    """The most of one item a case plausibly holds (ItemKind.most); a kind not catalogued: as goods."""
    kind = ITEM_KINDS.get(item_kind)
    return ITEM_KINDS["goods"].most if kind is None else kind.most


def one_of_each(item_kind: str, once: bool) -> bool:
    """Whether a case holds one of each item: its lifecycle takes each once (`once`: Flavour.once, no "3 x Teeth
    Cleaning" on an appointment) or its items are not had in units (ItemKind.several: no "2 x DUI Defense")."""
    kind = ITEM_KINDS.get(item_kind)
    return once or (kind is not None and not kind.several)


# What a domain's items are when its entry does not say (a seeds-file or composed domain): by its lifecycle.
KIND_OF_FLAVOUR = {"fulfillment": "goods", "digital": "plan", "appointment": "service", "service": "service",
                   "reservation": "booking", "application": "plan"}

# Categories whose businesses hold their customers' money in accounts (checking, savings, credit, wallet), unless
# what they sell is goods held in stock (`SHOPS`: a pawn shop or a seller of card terminals keeps no one's savings).
ACCOUNT_HOLDERS = ("banking", "fintech")
SHOPS = ("goods",)


# What a subscription may hold (awm/builder/modules/subscriptions.py): a plan, goods delivered by the period (a coffee
# or a milk subscription), any session of a label that bundles them ('lesson package', 'class pass'), and otherwise
# only an item sold by the period ('Monthly Bookkeeping Basic', 'Thirty Day Adult Pass', 'Essentials Seat License'),
# not a one-off ('Emergency Exam', 'Booking Fee', 'Idle Fee Per Minute', 'Hot Desk Day Pass').
SUBSCRIBED_KINDS = ("goods", "plan")
_BUNDLING_LABEL = re.compile(r"\b(?:package|pass)\b", re.I)
_BY_THE_PERIOD = re.compile(
    r"\b(?:monthly|annual|annually|yearly|weekly|biweekly|quarterly|per (?:month|year|week|quarter)|thirty day|"
    r"plan|membership|(?<!day )pass|subscription|licen[cs]e|contract|retainer|season)\b", re.I)
MIN_SUBSCRIBABLE = 2  # a world carries subscriptions only where at least this many of its items may be subscribed to


def subscribable(item_name: str, item_kind: str, label: str) -> bool:
    """Whether a subscription (called `label` in the domain's words) may be to the item `item_name`; any item of a
    world whose item kind is not catalogued (a scenario a model wrote without one)."""
    if item_kind not in ITEM_KINDS or item_kind in SUBSCRIBED_KINDS:
        return True
    return bool(_BUNDLING_LABEL.search(label) or _BY_THE_PERIOD.search(item_name))


def module_misfit(module: str, category: str, item_kind: str) -> str | None:
    """Why an optional module does not fit a business of this category and item kind, or None when it fits."""
    kind = ITEM_KINDS.get(item_kind)
    if module == "inventory" and kind is not None and not kind.stocked:
        return f"inventory: stock levels of {kind.meaning.split(' (')[0]}, which is not held in stock"
    if module == "accounts" and category not in ACCOUNT_HOLDERS:
        return (f"accounts: checking, savings, credit and wallet balances held for customers, which only a "
                f"{' or '.join(ACCOUNT_HOLDERS)} business keeps (not {category or 'this kind of business'})")
    if module == "accounts" and item_kind in SHOPS:
        return (f"accounts: checking, savings, credit and wallet balances held for customers, which a business "
                f"selling {ITEM_KINDS[item_kind].meaning.split(' (')[0]} does not keep, even of the "
                f"{category} kind (a pawn shop, a seller of card terminals)")
    return None


def price_misfit(item_kind: str, price_range: tuple[float, float]) -> str | None:
    """Why a domain's price range does not fit its item kind, or None."""
    kind = ITEM_KINDS.get(item_kind)
    if kind is not None and kind.price_floor and price_range[0] < kind.price_floor:
        return (f"price_range starts at {price_range[0]:g}, below the {kind.price_floor:g} a {kind.name} "
                f"({kind.meaning.split(' (')[0]}) plausibly costs")
    return None
