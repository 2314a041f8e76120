"""The shape of a built-in seed domain.

A domain names its generic roles in its own words (a clinic's `party` is a
patient, its `case` an appointment), picks the lifecycle its cases follow, and
lists the sub-businesses that its K scenarios are built around. Each
sub-business brings its own categories and catalogue items, so two scenarios of
one domain differ in what they sell or serve as well as in which modules
(tables) they carry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# Lifecycles a case can follow; each fixes the statuses and the actions.
FLAVOURS = ("fulfillment", "appointment", "application", "service", "reservation")

# Optional modules a scenario can add to the core tables (see awm.builder.modules).
MODULES = (
    "invoices",
    "accounts",
    "documents",
    "reviews",
    "promotions",
    "procurement",
    "inventory",
    "support",
    "notifications",
    "subscriptions",
    "shifts",
    "departments",
    "loyalty",
)

# Roles a domain may rename. Core roles are present in every environment.
CORE_ROLES = ("party", "staff", "site", "category", "item", "case", "line")
RENAMABLE_ROLES = CORE_ROLES + (
    "payment",
    "note",
    "address",
    "invoice",
    "account",
    "account_entry",
    "document",
    "review",
    "promotion",
    "vendor",
    "purchase_order",
    "purchase_line",
    "stock_level",
    "ticket",
    "ticket_comment",
    "notification",
    "subscription",
    "shift",
    "department",
    "loyalty_account",
    "loyalty_entry",
)

_LABEL = re.compile(r"[a-z][a-z ]{1,38}[a-z]")


@dataclass(frozen=True)
class SubBusiness:
    """One kind of business within a domain; one scenario is built around it."""

    name: str
    categories: tuple[str, ...]
    items: tuple[str, ...]

    def __post_init__(self) -> None:
        if len(self.categories) < 3:
            raise ValueError(f"sub-business {self.name!r}: needs at least 3 categories")
        if len(self.items) < 6:
            raise ValueError(f"sub-business {self.name!r}: needs at least 6 items")
        if len(set(self.items)) != len(self.items):
            raise ValueError(f"sub-business {self.name!r}: duplicate items")


@dataclass(frozen=True)
class DomainSeed:
    """A built-in seed domain."""

    slug: str
    title: str
    category: str
    flavour: str
    roles: dict[str, str]
    modules: tuple[str, ...]
    sub_businesses: tuple[SubBusiness, ...]
    price_range: tuple[float, float] = (5.0, 500.0)
    extra: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.flavour not in FLAVOURS:
            raise ValueError(f"domain {self.slug!r}: unknown flavour {self.flavour!r}")
        unknown = set(self.modules) - set(MODULES)
        if unknown:
            raise ValueError(f"domain {self.slug!r}: unknown modules {sorted(unknown)}")
        for role, label in self.roles.items():
            if role not in RENAMABLE_ROLES:
                raise ValueError(f"domain {self.slug!r}: unknown role {role!r}")
            if not _LABEL.fullmatch(label):
                raise ValueError(f"domain {self.slug!r}: bad label {label!r} for {role}")
        if len(self.sub_businesses) < 10:
            raise ValueError(f"domain {self.slug!r}: needs 10 sub-businesses")
