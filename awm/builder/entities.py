"""Entity archetypes: the tables an environment can have, named in the domain's words.

Every environment has the core roles (party, staff, site, category, item, case,
line, payment, note, address); each optional module adds one to three tables.
Column names are derived from the domain's labels, so a clinic's case table is
`appointments` with a `patient_id`, and a freight broker's is `shipments` with a
`shipper_id`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from awm.builder.flavours import Flavour
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

CORE_ROLES = ("site", "category", "item", "party", "address", "staff", "case", "line", "payment", "note")

MODULE_ROLES: dict[str, tuple[str, ...]] = {
    "departments": ("department",),
    "invoices": ("invoice",),
    "accounts": ("account", "account_entry"),
    "documents": ("document",),
    "reviews": ("review",),
    "promotions": ("promotion",),
    "procurement": ("vendor", "purchase_order", "purchase_line"),
    "inventory": ("stock_level",),
    "support": ("ticket", "ticket_comment"),
    "notifications": ("notification",),
    "subscriptions": ("subscription",),
    "shifts": ("shift",),
    "loyalty": ("loyalty_account", "loyalty_entry"),
}

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


def _pk() -> Col:
    return Col("id", "INTEGER", description="primary key")


def _fk(labels: dict[str, str], role: str, nullable: bool = False, name: str | None = None) -> Col:
    column = name or f"{snake(labels[role])}_id"
    return Col(column, "INTEGER", nullable=nullable, ref=role, description=f"the {labels[role]}")


def build_entities(labels: dict[str, str], modules: list[str], flavour: Flavour) -> dict[str, Entity]:
    """The entities of one environment, keyed by role, in creation order."""
    L = labels
    has = set(modules).__contains__
    ents: dict[str, Entity] = {}
    statuses = flavour.statuses

    ents["site"] = Entity(
        "site",
        L["site"],
        [
            _pk(),
            Col("name", "TEXT", unique=True),
            Col("city", "TEXT"),
            Col("street", "TEXT"),
            Col("phone", "TEXT"),
            Col("opened_on", "TEXT", description="ISO date"),
        ],
        f"Each {L['site']} where the business operates.",
        search=("name", "city"),
        filters=("city",),
    )
    if has("departments"):
        ents["department"] = Entity(
            "department",
            L["department"],
            [
                _pk(),
                Col("name", "TEXT"),
                _fk(L, "site"),
                Col("budget", "REAL", minimum=0),
            ],
            f"Organisational units within a {L['site']}.",
            search=("name",),
            filters=(f"{snake(L['site'])}_id",),
        )
    ents["category"] = Entity(
        "category",
        L["category"],
        [_pk(), Col("name", "TEXT", unique=True), Col("description", "TEXT")],
        f"How {plural(L['item'])} are grouped.",
        search=("name",),
    )
    ents["item"] = Entity(
        "item",
        L["item"],
        [
            _pk(),
            Col("sku", "TEXT", unique=True, description="stock-keeping code"),
            Col("name", "TEXT"),
            _fk(L, "category"),
            Col("price", "REAL", minimum=0),
            Col("active", "INTEGER", minimum=0, maximum=1, description="1 if offered"),
            Col("description", "TEXT"),
        ],
        f"The {plural(L['item'])} offered, with their current price.",
        search=("name", "sku"),
        filters=(f"{snake(L['category'])}_id", "active"),
        code="sku",
    )
    ents["party"] = Entity(
        "party",
        L["party"],
        [
            _pk(),
            Col("first_name", "TEXT"),
            Col("last_name", "TEXT"),
            Col("email", "TEXT", unique=True),
            Col("phone", "TEXT"),
            Col("city", "TEXT"),
            Col("tier", "TEXT", enum=("standard", "silver", "gold")),
            Col("status", "TEXT", enum=("active", "suspended", "closed")),
            Col("created_at", "TEXT", description="ISO timestamp"),
        ],
        f"The {plural(L['party'])} the business serves.",
        search=(FULL_NAME, "email", "phone"),
        filters=("status", "tier", "city"),
    )
    ents["address"] = Entity(
        "address",
        L["address"],
        [
            _pk(),
            _fk(L, "party"),
            Col("kind", "TEXT", enum=("home", "work", "billing")),
            Col("street", "TEXT"),
            Col("city", "TEXT"),
            Col("postal_code", "TEXT"),
            Col("is_primary", "INTEGER", minimum=0, maximum=1),
        ],
        f"Postal addresses of {plural(L['party'])}.",
        filters=(f"{snake(L['party'])}_id",),
    )
    staff_cols = [
        _pk(),
        Col("first_name", "TEXT"),
        Col("last_name", "TEXT"),
        Col("email", "TEXT", unique=True),
        Col("title", "TEXT"),
        _fk(L, "site"),
    ]
    if has("departments"):
        staff_cols.append(_fk(L, "department", nullable=True))
    staff_cols += [Col("active", "INTEGER", minimum=0, maximum=1), Col("hired_on", "TEXT")]
    ents["staff"] = Entity(
        "staff",
        L["staff"],
        staff_cols,
        f"{plural(L['staff']).capitalize()} who handle {plural(L['case'])}.",
        search=(FULL_NAME, "email"),
        filters=(f"{snake(L['site'])}_id", "active"),
    )
    if has("promotions"):
        ents["promotion"] = Entity(
            "promotion",
            L["promotion"],
            [
                _pk(),
                Col("code", "TEXT", unique=True),
                Col("description", "TEXT"),
                Col("percent_off", "REAL", minimum=1, maximum=90),
                Col("valid_from", "TEXT"),
                Col("valid_to", "TEXT"),
                Col("active", "INTEGER", minimum=0, maximum=1),
            ],
            f"Discount codes that can be applied to {plural(L['case'])}.",
            search=("code", "description"),
            filters=("active",),
            code="code",
        )
    case_cols = [
        _pk(),
        Col("code", "TEXT", unique=True),
        _fk(L, "party"),
        _fk(L, "site"),
        _fk(L, "staff", nullable=True),
        Col("status", "TEXT", enum=statuses),
        Col(flavour.time_column, "TEXT", description="ISO timestamp"),
        Col("total_amount", "REAL", minimum=0),
    ]
    if has("promotions"):
        case_cols += [_fk(L, "promotion", nullable=True), Col("discount_amount", "REAL", minimum=0)]
    case_cols.append(Col("created_at", "TEXT"))
    ents["case"] = Entity(
        "case",
        L["case"],
        case_cols,
        f"{plural(L['case']).capitalize()}: statuses {', '.join(statuses)}.",
        filters=(
            "code",
            f"{snake(L['party'])}_id",
            f"{snake(L['site'])}_id",
            f"{snake(L['staff'])}_id",
            "status",
        ),
        code="code",
        indexes=[(f"{snake(L['party'])}_id",), ("status",)],
    )
    ents["line"] = Entity(
        "line",
        L["line"],
        [
            _pk(),
            _fk(L, "case"),
            _fk(L, "item"),
            Col("quantity", "INTEGER", minimum=1),
            Col("unit_price", "REAL", minimum=0),
        ],
        f"What each {L['case']} contains.",
        filters=(f"{snake(L['case'])}_id", f"{snake(L['item'])}_id"),
        indexes=[(f"{snake(L['case'])}_id",)],
    )
    ents["payment"] = Entity(
        "payment",
        L["payment"],
        [
            _pk(),
            _fk(L, "case"),
            Col("amount", "REAL", minimum=0),
            Col("method", "TEXT", enum=("card", "bank_transfer", "cash", "wallet")),
            Col("status", "TEXT", enum=("pending", "captured", "refunded", "failed")),
            Col("paid_at", "TEXT"),
            Col("refund_reason", "TEXT", nullable=True),
        ],
        f"Payments against {plural(L['case'])}.",
        filters=(f"{snake(L['case'])}_id", "status", "method"),
        indexes=[(f"{snake(L['case'])}_id",)],
    )
    ents["note"] = Entity(
        "note",
        L["note"],
        [
            _pk(),
            _fk(L, "case"),
            _fk(L, "staff", nullable=True),
            Col("body", "TEXT"),
            Col("created_at", "TEXT"),
        ],
        f"Free-text notes on {plural(L['case'])}.",
        filters=(f"{snake(L['case'])}_id", f"{snake(L['staff'])}_id"),
    )
    party_fk = f"{snake(L['party'])}_id"
    if has("invoices"):
        ents["invoice"] = Entity(
            "invoice",
            L["invoice"],
            [
                _pk(),
                Col("number", "TEXT", unique=True),
                _fk(L, "party"),
                _fk(L, "case", nullable=True),
                Col("amount", "REAL", minimum=0),
                Col("issued_on", "TEXT"),
                Col("due_on", "TEXT"),
                Col("status", "TEXT", enum=("open", "paid", "void", "overdue")),
            ],
            f"Invoices issued to {plural(L['party'])}.",
            filters=("number", party_fk, "status"),
            code="number",
        )
    if has("accounts"):
        ents["account"] = Entity(
            "account",
            L["account"],
            [
                _pk(),
                Col("number", "TEXT", unique=True),
                _fk(L, "party"),
                Col("kind", "TEXT", enum=("checking", "savings", "credit", "wallet")),
                Col("balance", "REAL"),
                Col("currency", "TEXT", enum=("USD",)),
                Col("status", "TEXT", enum=("active", "frozen", "closed")),
                Col("opened_on", "TEXT"),
            ],
            f"Balances held for {plural(L['party'])}.",
            filters=("number", party_fk, "status", "kind"),
            code="number",
        )
        ents["account_entry"] = Entity(
            "account_entry",
            L["account_entry"],
            [
                _pk(),
                _fk(L, "account"),
                Col("amount", "REAL", description="positive credits, negative debits"),
                Col("entry_type", "TEXT", enum=("deposit", "withdrawal", "transfer_in", "transfer_out", "fee")),
                Col("memo", "TEXT"),
                Col("posted_at", "TEXT"),
            ],
            f"Movements on each {L['account']}.",
            filters=(f"{snake(L['account'])}_id", "entry_type"),
        )
    if has("documents"):
        ents["document"] = Entity(
            "document",
            L["document"],
            [
                _pk(),
                _fk(L, "case"),
                Col("doc_type", "TEXT"),
                Col("filename", "TEXT"),
                Col("status", "TEXT", enum=("submitted", "verified", "rejected")),
                Col("uploaded_at", "TEXT"),
                Col("review_comment", "TEXT", nullable=True),
            ],
            f"Documents attached to {plural(L['case'])}.",
            filters=(f"{snake(L['case'])}_id", "status"),
        )
    if has("reviews"):
        ents["review"] = Entity(
            "review",
            L["review"],
            [
                _pk(),
                _fk(L, "party"),
                _fk(L, "item"),
                Col("rating", "INTEGER", minimum=1, maximum=5),
                Col("comment", "TEXT"),
                Col("created_at", "TEXT"),
            ],
            f"Ratings {plural(L['party'])} gave {plural(L['item'])}.",
            filters=(f"{snake(L['item'])}_id", party_fk, "rating"),
        )
    if has("procurement"):
        ents["vendor"] = Entity(
            "vendor",
            L["vendor"],
            [
                _pk(),
                Col("name", "TEXT", unique=True),
                Col("email", "TEXT"),
                Col("phone", "TEXT"),
                Col("rating", "INTEGER", minimum=1, maximum=5),
            ],
            f"Suppliers the business buys {plural(L['item'])} from.",
            search=("name", "email"),
        )
        ents["purchase_order"] = Entity(
            "purchase_order",
            L["purchase_order"],
            [
                _pk(),
                Col("number", "TEXT", unique=True),
                _fk(L, "vendor"),
                _fk(L, "site"),
                Col("status", "TEXT", enum=("draft", "submitted", "approved", "received", "cancelled")),
                Col("total_cost", "REAL", minimum=0),
                Col("ordered_on", "TEXT"),
            ],
            "Orders placed with vendors: draft, submitted, approved, received or cancelled.",
            filters=("number", f"{snake(L['vendor'])}_id", f"{snake(L['site'])}_id", "status"),
            code="number",
        )
        ents["purchase_line"] = Entity(
            "purchase_line",
            L["purchase_line"],
            [
                _pk(),
                _fk(L, "purchase_order"),
                _fk(L, "item"),
                Col("quantity", "INTEGER", minimum=1),
                Col("unit_cost", "REAL", minimum=0),
            ],
            f"What each {L['purchase_order']} contains.",
            filters=(f"{snake(L['purchase_order'])}_id",),
        )
    if has("inventory"):
        ents["stock_level"] = Entity(
            "stock_level",
            L["stock_level"],
            [
                _pk(),
                _fk(L, "item"),
                _fk(L, "site"),
                Col("quantity", "INTEGER", minimum=0),
                Col("reorder_level", "INTEGER", minimum=0),
            ],
            f"How many units of each {L['item']} each {L['site']} holds.",
            filters=(f"{snake(L['item'])}_id", f"{snake(L['site'])}_id"),
            indexes=[(f"{snake(L['item'])}_id", f"{snake(L['site'])}_id")],
        )
    if has("support"):
        ents["ticket"] = Entity(
            "ticket",
            L["ticket"],
            [
                _pk(),
                Col("number", "TEXT", unique=True),
                _fk(L, "party"),
                _fk(L, "staff", nullable=True),
                Col("subject", "TEXT"),
                Col("priority", "TEXT", enum=("low", "normal", "high", "urgent")),
                Col("status", "TEXT", enum=("open", "in_progress", "escalated", "resolved", "closed")),
                Col("opened_at", "TEXT"),
            ],
            f"Support requests raised by {plural(L['party'])}.",
            filters=("number", party_fk, f"{snake(L['staff'])}_id", "status", "priority"),
            search=("subject",),
            code="number",
        )
        ents["ticket_comment"] = Entity(
            "ticket_comment",
            L["ticket_comment"],
            [
                _pk(),
                _fk(L, "ticket"),
                _fk(L, "staff", nullable=True),
                Col("body", "TEXT"),
                Col("created_at", "TEXT"),
            ],
            f"Comments on {plural(L['ticket'])}.",
            filters=(f"{snake(L['ticket'])}_id",),
        )
    if has("notifications"):
        ents["notification"] = Entity(
            "notification",
            L["notification"],
            [
                _pk(),
                _fk(L, "party"),
                Col("channel", "TEXT", enum=("email", "sms", "push")),
                Col("subject", "TEXT"),
                Col("body", "TEXT"),
                Col("sent_at", "TEXT"),
            ],
            f"Messages sent to {plural(L['party'])}.",
            filters=(party_fk, "channel"),
        )
    if has("subscriptions"):
        ents["subscription"] = Entity(
            "subscription",
            L["subscription"],
            [
                _pk(),
                _fk(L, "party"),
                _fk(L, "item"),
                Col("status", "TEXT", enum=("active", "paused", "cancelled")),
                Col("monthly_price", "REAL", minimum=0),
                Col("started_on", "TEXT"),
                Col("renews_on", "TEXT", nullable=True),
            ],
            f"Recurring plans {plural(L['party'])} hold.",
            filters=(party_fk, f"{snake(L['item'])}_id", "status"),
        )
    if has("shifts"):
        ents["shift"] = Entity(
            "shift",
            L["shift"],
            [
                _pk(),
                _fk(L, "staff"),
                _fk(L, "site"),
                Col("shift_date", "TEXT"),
                Col("start_time", "TEXT"),
                Col("end_time", "TEXT"),
                Col("status", "TEXT", enum=("scheduled", "completed", "missed", "cancelled")),
            ],
            f"Work shifts of {plural(L['staff'])}.",
            filters=(f"{snake(L['staff'])}_id", f"{snake(L['site'])}_id", "shift_date", "status"),
        )
    if has("loyalty"):
        ents["loyalty_account"] = Entity(
            "loyalty_account",
            L["loyalty_account"],
            [
                _pk(),
                Col(party_fk, "INTEGER", unique=True, ref="party", description=f"the {L['party']}"),
                Col("points", "INTEGER", minimum=0),
                Col("tier", "TEXT", enum=("bronze", "silver", "gold", "platinum")),
            ],
            f"Loyalty point balances of {plural(L['party'])}.",
            filters=(party_fk, "tier"),
        )
        ents["loyalty_entry"] = Entity(
            "loyalty_entry",
            L["loyalty_entry"],
            [
                _pk(),
                _fk(L, "loyalty_account"),
                Col("points", "INTEGER", description="positive earned, negative redeemed"),
                Col("reason", "TEXT"),
                Col("posted_at", "TEXT"),
            ],
            f"Points earned and redeemed on each {L['loyalty_account']}.",
            filters=(f"{snake(L['loyalty_account'])}_id",),
        )
    return {role: ents[role] for role in ROLE_ORDER if role in ents}
