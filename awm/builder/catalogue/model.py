"""The shape of a seed domain, as the catalogue's data files and the user's seeds file give it.

A domain names its generic roles in its own words (a clinic's `party` is a
patient, its `case` an appointment), picks the lifecycle its cases follow, and
lists the sub-businesses that its K scenarios are built around. Each
sub-business brings its own categories and catalogue items, so two scenarios of
one domain differ in what they sell or serve as well as in which modules
(tables) they carry.

The built-in domains live in YAML files, one per category pack
(`awm/builder/categories/<category>/pack.yaml`); these pydantic models validate
every entry when the catalogue is loaded.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from awm.builder.catalogue.kinds import ITEM_KINDS, KIND_OF_FLAVOUR, module_misfit, price_misfit

# Lifecycles a case can follow; each fixes the statuses and the actions.
FLAVOURS = ("fulfillment", "digital", "appointment", "application", "service", "reservation")

# Optional modules a scenario can add to the core tables (see awm.builder.entities.MODULE_ROLES).
MODULES = (
    "addresses",
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
_SLUG = re.compile(r"[a-z][a-z0-9_]{1,40}")


def known_modules(modules: tuple[str, ...]) -> tuple[str, ...]:
    unknown = set(modules) - set(MODULES)
    if unknown:
        raise ValueError(f"unknown modules {sorted(unknown)}; known: {', '.join(MODULES)}")
    return modules


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SubBusiness(_Frozen):
    """One kind of business within a domain; one scenario is built around it.

    `categories` maps each category to the items filed under it, so an item's category is part of
    the data (the checking accounts line holds checking accounts), never assigned by position.
    """

    name: str = Field(min_length=3, max_length=80)
    categories: dict[str, tuple[str, ...]]

    @property
    def items(self) -> tuple[str, ...]:
        return tuple(item for items in self.categories.values() for item in items)

    @property
    def category_names(self) -> tuple[str, ...]:
        return tuple(self.categories)

    def category_of(self, item: str) -> str:
        return next(category for category, items in self.categories.items() if item in items)

    @model_validator(mode="after")
    def _enough_and_distinct(self) -> SubBusiness:
        if len(self.categories) < 3:
            raise ValueError(f"sub-business {self.name!r}: needs at least 3 categories")
        empty = [c for c, items in self.categories.items() if not items]
        if empty:
            raise ValueError(f"sub-business {self.name!r}: category {empty[0]!r} has no items")
        if len(self.items) < 6:
            raise ValueError(f"sub-business {self.name!r}: needs at least 6 items")
        if len(set(self.items)) != len(self.items):
            raise ValueError(f"sub-business {self.name!r}: duplicate items")
        return self


class DomainSeed(_Frozen):
    """A seed domain: a built-in one from a category pack, or one from the user's seeds file."""

    slug: str
    title: str = Field(min_length=2, max_length=80)
    category: str
    flavour: str
    roles: dict[str, str]
    modules: tuple[str, ...]
    sub_businesses: tuple[SubBusiness, ...]
    price_range: tuple[float, float] = (5.0, 500.0)
    # what its items are (awm/builder/catalogue/kinds.py): decides which modules and requests fit; by default its
    # lifecycle's usual kind
    item_kind: str = ""
    # who its customers are: people, or organisations a person speaks for (a client company, a shipper, an
    # exhibitor), which have an office, not a home, and relocate rather than move house
    party_kind: Literal["person", "organisation"] = "person"

    @model_validator(mode="before")
    @classmethod
    def _default_item_kind(cls, data: object) -> object:
        if isinstance(data, dict) and not data.get("item_kind") and data.get("flavour") in KIND_OF_FLAVOUR:
            data = {**data, "item_kind": KIND_OF_FLAVOUR[data["flavour"]]}
        return data

    @field_validator("item_kind")
    @classmethod
    def _item_kind(cls, item_kind: str) -> str:
        if item_kind not in ITEM_KINDS:
            raise ValueError(f"unknown item_kind {item_kind!r}; one of {', '.join(ITEM_KINDS)}")
        return item_kind

    @model_validator(mode="after")
    def _fits_its_kind(self) -> DomainSeed:
        reasons = [r for m in self.modules if (r := module_misfit(m, self.category, self.item_kind))]
        reasons += [r for r in (price_misfit(self.item_kind, self.price_range),) if r]
        if reasons:
            raise ValueError(f"does not fit a business whose items are {self.item_kind}: " + "; ".join(reasons))
        return self

    @field_validator("slug")
    @classmethod
    def _slug(cls, slug: str) -> str:
        if not _SLUG.fullmatch(slug) or "__" in slug:
            raise ValueError(f"bad slug {slug!r}: use lowercase letters, digits and single underscores")
        return slug

    @field_validator("flavour")
    @classmethod
    def _flavour(cls, flavour: str) -> str:
        if flavour not in FLAVOURS:
            raise ValueError(f"unknown flavour {flavour!r}; one of {', '.join(FLAVOURS)}")
        return flavour

    @field_validator("modules")
    @classmethod
    def _modules(cls, modules: tuple[str, ...]) -> tuple[str, ...]:
        return known_modules(modules)

    @field_validator("roles")
    @classmethod
    def _roles(cls, roles: dict[str, str]) -> dict[str, str]:
        for role, label in roles.items():
            if role not in RENAMABLE_ROLES:
                raise ValueError(f"unknown role {role!r}; known: {', '.join(RENAMABLE_ROLES)}")
            if not _LABEL.fullmatch(label):
                raise ValueError(f"bad label {label!r} for {role}: 3-40 lowercase letters and spaces")
        return roles

    @field_validator("price_range")
    @classmethod
    def _price_range(cls, price_range: tuple[float, float]) -> tuple[float, float]:
        low, high = price_range
        if not 0 <= low < high:
            raise ValueError(f"price_range {list(price_range)} must be [low, high] with 0 <= low < high")
        return price_range

    @field_validator("sub_businesses")
    @classmethod
    def _enough_sub_businesses(cls, subs: tuple[SubBusiness, ...], info: ValidationInfo) -> tuple[SubBusiness, ...]:
        # the catalogue's domains have ten (one per scenario slot); a seeds-file domain may have fewer
        needed = (info.context or {}).get("min_sub_businesses", 10)
        if len(subs) < needed:
            raise ValueError(f"needs {needed} sub-businesses, got {len(subs)}")
        if len({s.name for s in subs}) != len(subs):
            raise ValueError("two sub-businesses share a name")
        return subs


# Roles whose tables every environment has: a pack's own columns go on these.
COLUMN_ROLES = ("party", "staff", "site", "item", "case")
_COLUMN = re.compile(r"[a-z][a-z0-9_]{1,38}[a-z0-9]")


class ExtraColumn(_Frozen):
    """A column a kind of business keeps on one of its core tables (a patient's date of birth, a bank customer's KYC
    status), and how its values are drawn: one of `values` (a text column with those values), a number in
    `range` (whole numbers if `integer`), or a date `days` from the reference date (negative: in the past)."""

    name: str
    values: tuple[str, ...] | None = Field(default=None, min_length=2)
    range: tuple[float, float] | None = None
    integer: bool = False
    days: tuple[int, int] | None = None
    description: str = ""

    @field_validator("name")
    @classmethod
    def _name(cls, name: str) -> str:
        if not _COLUMN.fullmatch(name) or "__" in name:
            raise ValueError(f"bad column name {name!r}: use lowercase letters, digits and single underscores")
        return name

    @model_validator(mode="after")
    def _one_source(self) -> ExtraColumn:
        given = [k for k in ("values", "range", "days") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(f"column {self.name!r}: give exactly one of values, range, days (got {given or 'none'})")
        for bounds in (self.range, self.days):
            if bounds is not None and not bounds[0] < bounds[1]:
                raise ValueError(f"column {self.name!r}: {list(bounds)} must be [low, high] with low < high")
        return self

    @property
    def sql_type(self) -> str:
        if self.range is not None:
            return "INTEGER" if self.integer else "REAL"
        return "TEXT"


class Pack(_Frozen):
    """A category pack: what every business of one kind shares (its domains are listed beside it)."""

    category: str
    modules: tuple[str, ...] = Field(min_length=1, description="the generic modules this kind of business may have")
    note_topics: tuple[str, ...] = Field(min_length=3, description="what notes and comments are about")
    refund_reasons: tuple[str, ...] = Field(min_length=2, description="why a payment is refunded")
    columns: dict[str, tuple[ExtraColumn, ...]] = Field(
        default_factory=dict, description="role -> the columns this kind of business keeps on that core table")

    @field_validator("columns")
    @classmethod
    def _column_roles(cls, columns: dict[str, tuple[ExtraColumn, ...]]) -> dict[str, tuple[ExtraColumn, ...]]:
        for role, cols in columns.items():
            if role not in COLUMN_ROLES:
                raise ValueError(f"columns for unknown role {role!r}; one of {', '.join(COLUMN_ROLES)}")
            names = [c.name for c in cols]
            if len(set(names)) != len(names):
                raise ValueError(f"columns of {role}: a name is given twice")
        return columns

    @field_validator("modules")
    @classmethod
    def _modules(cls, modules: tuple[str, ...]) -> tuple[str, ...]:
        return known_modules(modules)
