"""Entity archetypes: the tables an environment can have, named in the domain's words.

Every environment has the core roles (party, staff, site, category, item, case,
line, payment, note); each optional module (postal addresses are one) adds one to three tables.
Column names are derived from the domain's labels, so a clinic's case table is
`appointments` with a `patient_id`, and a freight broker's is `shipments` with a
`shipper_id`. This module holds the vocabulary (labels, roles, columns); the
tables of each concern are declared, and filled, in `awm.builder.modules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from awm.builder.naming import plural, snake

DEFAULT_LABELS: dict[str, str] = {
    "party": "customer",
    "staff": "agent",
    "site": "branch",
    "category": "category",
    "item": "product",
    "case": "order",
    "line": "order line",
    "payment": "payment",
    "note": "case note",
    "address": "address",
    "invoice": "invoice",
    "account": "account",
    "account_entry": "account entry",
    "document": "document",
    "review": "review",
    "promotion": "promotion",
    "vendor": "vendor",
    "purchase_order": "purchase order",
    "purchase_line": "purchase order line",
    "stock_level": "stock level",
    "ticket": "support ticket",
    "ticket_comment": "ticket comment",
    "notification": "notification",
    "subscription": "subscription",
    "shift": "shift",
    "department": "department",
    "loyalty_account": "loyalty account",
    "loyalty_entry": "loyalty entry",
}

# A search "column" that matches "First Last" as well as either part.
FULL_NAME = "first_name || ' ' || last_name"

CORE_ROLES = ("site", "category", "item", "party", "staff", "case", "line", "payment", "note")

# Tables are created (and filled) in this order, so foreign keys always point backwards.
ROLE_ORDER = (
    "site",
    "department",
    "category",
    "item",
    "party",
    "address",
    "staff",
    "promotion",
    "case",
    "line",
    "payment",
    "note",
    "invoice",
    "account",
    "account_entry",
    "document",
    "review",
    "vendor",
    "purchase_order",
    "purchase_line",
    "stock_level",
    "ticket",
    "ticket_comment",
    "notification",
    "subscription",
    "shift",
    "loyalty_account",
    "loyalty_entry",
)


@dataclass
class Col:
    name: str
    type: str  # INTEGER | TEXT | REAL
    nullable: bool = False
    unique: bool = False
    ref: str | None = None  # role this column points at
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    description: str = ""


@dataclass
class Entity:
    role: str
    label: str
    columns: list[Col]
    description: str
    search: tuple[str, ...] = ()  # text columns a search tool matches
    filters: tuple[str, ...] = ()  # columns a list tool filters on
    code: str | None = None  # human-facing unique code column
    indexes: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def table(self) -> str:
        return snake(plural(self.label))

    @property
    def name(self) -> str:  # singular snake name, for tool names
        return snake(self.label)

    @property
    def plural_name(self) -> str:
        return snake(plural(self.label))

    @property
    def fk(self) -> str:
        """Name of a column elsewhere that points at this entity."""
        return f"{snake(self.label)}_id"

    def col(self, name: str) -> Col:
        for c in self.columns:
            if c.name == name:
                return c
        raise KeyError(f"{self.table} has no column {name}")

    def has(self, name: str) -> bool:
        return any(c.name == name for c in self.columns)


def pk_col() -> Col:
    return Col("id", "INTEGER", description="primary key")


def fk_col(labels: dict[str, str], role: str, nullable: bool = False, name: str | None = None) -> Col:
    column = name or f"{snake(labels[role])}_id"
    return Col(column, "INTEGER", nullable=nullable, ref=role, description=f"the {labels[role]}")
