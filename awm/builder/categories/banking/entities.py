"""What only a bank keeps: payment cards on accounts, disputes of account transactions, standing orders and
holds on balances; each with its lifecycle and the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "banking"
LABELS = {"card": "payment card", "dispute": "transaction dispute", "standing_order": "standing order",
          "hold": "balance hold"}
ALT_LABELS = {"card": "bank card", "dispute": "charge dispute", "standing_order": "recurring transfer",
              "hold": "funds hold"}
_NO_ACCOUNTS = ("pawn_brokerage",)
GROUPS = {
    "cards": Group(("card",), needs=("accounts",), not_for=_NO_ACCOUNTS + ("mortgage_lending",)),
    "disputes": Group(("dispute",), needs=("accounts",), not_for=_NO_ACCOUNTS),
    "standing_orders": Group(("standing_order",), needs=("accounts",), not_for=_NO_ACCOUNTS),
    "holds": Group(("hold",), needs=("accounts",), not_for=_NO_ACCOUNTS),
}
CODED = ("card", "dispute", "standing_order")

CARD_STATUSES = ("active", "blocked", "cancelled")
BLOCK_REASONS = ("lost", "stolen", "suspected_fraud", "customer_request")
DISPUTE_REASONS = ("unrecognised", "duplicate", "not_received", "wrong_amount")
DISPUTE_STATUSES = ("open", "investigating", "upheld", "declined")
DISPUTE_WINDOW_DAYS = 60  # a charge older than this can no longer be disputed
FREQUENCIES = ("weekly", "monthly", "quarterly")
ORDER_STATUSES = ("active", "paused", "cancelled")
HOLD_REASONS = ("card_authorisation", "cheque_clearing", "legal_order", "fraud_review")
CARD_LIMITS = (500.0, 1000.0, 1500.0, 2500.0, 5000.0)
MAX_CARD_LIMIT = 10000.0


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the card, dispute, standing_order and hold tables."""
    acct_fk, party_fk = f"{snake(L['account'])}_id", f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("card"):
        ents["card"] = Entity("card", L["card"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account"), fk_col(L, "party"),
            Col("last_four", "TEXT"), Col("network", "TEXT", enum=("visa", "mastercard")),
            Col("card_type", "TEXT", enum=("debit", "credit")),
            Col("daily_limit", "REAL", minimum=0, maximum=MAX_CARD_LIMIT),
            Col("status", "TEXT", enum=CARD_STATUSES), Col("block_reason", "TEXT", nullable=True, enum=BLOCK_REASONS),
            Col("expires_on", "TEXT"), Col("issued_on", "TEXT"),
        ], f"Cards issued on {plural(L['account'])}: statuses {', '.join(CARD_STATUSES)}.",
            filters=("number", acct_fk, party_fk, "status"), code="number")
    if has("dispute"):
        ents["dispute"] = Entity("dispute", L["dispute"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account_entry"), fk_col(L, "account"),
            Col("amount", "REAL", minimum=0), Col("reason", "TEXT", enum=DISPUTE_REASONS),
            Col("status", "TEXT", enum=DISPUTE_STATUSES), Col("opened_at", "TEXT"),
            Col("resolved_at", "TEXT", nullable=True),
        ], f"Disputes of charges on {plural(L['account'])}; a charge can be disputed within "
           f"{DISPUTE_WINDOW_DAYS} days of posting.",
            filters=("number", acct_fk, "status"), code="number")
    if has("standing_order"):
        ents["standing_order"] = Entity("standing_order", L["standing_order"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "account", name=f"from_{acct_fk}"),
            fk_col(L, "account", name=f"to_{acct_fk}"), Col("amount", "REAL", minimum=0),
            Col("frequency", "TEXT", enum=FREQUENCIES), Col("next_run_on", "TEXT"),
            Col("reference", "TEXT"), Col("status", "TEXT", enum=ORDER_STATUSES), Col("created_at", "TEXT"),
        ], f"Transfers repeated on a schedule between {plural(L['account'])}.",
            filters=("number", f"from_{acct_fk}", f"to_{acct_fk}", "status"), code="number")
    if has("hold"):
        ents["hold"] = Entity("hold", L["hold"], [
            pk_col(), fk_col(L, "account"), Col("amount", "REAL", minimum=0), Col("reason", "TEXT", enum=HOLD_REASONS),
            Col("status", "TEXT", enum=("active", "released")), Col("placed_at", "TEXT"), Col("expires_on", "TEXT"),
        ], f"Amounts held back on {plural(L['account'])} (an active hold reduces what can be held again).",
            filters=(acct_fk, "status", "reason"))
    return ents


def _open_accounts(gen: RowGen, kinds: tuple[str, ...]) -> list[dict]:
    return [a for a in gen.rows["account"] if a["kind"] in kinds]


def fill_cards(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["card"]
    for n, acct in enumerate(_open_accounts(gen, ("checking", "credit"))):
        issued = gen.between(acct["opened_on"] + "T09:00:00", gen.past(30, 30))
        expires = issued + timedelta(days=365 * 3)
        status = "active" if acct["status"] == "active" else "blocked"
        reason = None if status == "active" else "customer_request"
        if status == "active" and gen.rng.random() < 0.15:
            status, reason = "blocked", gen.rng.choice(BLOCK_REASONS)
        elif expires < REFERENCE_NOW:
            status = "cancelled"
        gen.add("card", {
            "number": f"{prefix}-{4100 + n * 7}", gen.fk("account"): acct["id"], gen.fk("party"): acct[gen.fk("party")],
            "last_four": f"{gen.rng.randint(0, 9999):04d}", "network": gen.rng.choice(("visa", "mastercard")),
            "card_type": "credit" if acct["kind"] == "credit" else "debit",
            "daily_limit": gen.rng.choice(CARD_LIMITS), "status": status, "block_reason": reason,
            "expires_on": day(expires), "issued_on": day(issued),
        })


def fill_disputes(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["dispute"]
    afk = gen.fk("account")
    charges = [e for e in gen.rows["account_entry"] if e["amount"] < 0 and e["entry_type"] in ("withdrawal", "fee")]
    for n, entry in enumerate(gen.rng.sample(charges, min(len(charges), gen.rng.randint(4, 8)))):
        opened = gen.between(entry["posted_at"])
        status = gen.rng.choice(DISPUTE_STATUSES)
        resolved = iso(gen.between(opened)) if status in ("upheld", "declined") else None
        gen.add("dispute", {
            "number": f"{prefix}-{2201 + n}", gen.fk("account_entry"): entry["id"], afk: entry[afk],
            "amount": -entry["amount"], "reason": gen.rng.choice(DISPUTE_REASONS), "status": status,
            "opened_at": iso(opened), "resolved_at": resolved,
        })


def fill_standing_orders(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["standing_order"]
    afk = gen.fk("account")
    n = 0
    for party in gen.rows["party"]:
        accounts = [a for a in gen.rows["account"] if a[gen.fk("party")] == party["id"]]
        if len(accounts) < 2 or gen.rng.random() < 0.5:
            continue
        source, target = gen.rng.sample(accounts, 2)
        n += 1
        created = gen.between(max(source["opened_on"], target["opened_on"]) + "T09:00:00", gen.past(5, 5))
        gen.add("standing_order", {
            "number": f"{prefix}-{601 + n}", f"from_{afk}": source["id"], f"to_{afk}": target["id"],
            "amount": float(gen.rng.choice((25, 50, 75, 100, 150, 200, 250, 400))),
            "frequency": gen.rng.choice(FREQUENCIES), "next_run_on": day(gen.future(1, 28)),
            "reference": gen.rng.choice(("Savings", "Rent share", "Holiday fund", "Loan repayment", "Allowance")),
            "status": gen.rng.choices(ORDER_STATUSES, (6, 2, 1))[0], "created_at": iso(created),
        })


def fill_holds(gen: RowGen) -> None:
    for acct in gen.rows["account"]:
        if acct["balance"] < 50 or gen.rng.random() < 0.6:
            continue
        placed = gen.past(1, 20)
        status = gen.rng.choices(("active", "released"), (3, 1))[0]
        gen.add("hold", {
            gen.fk("account"): acct["id"], "amount": round(gen.rng.uniform(10, min(acct["balance"], 900) / 2), 2),
            "reason": gen.rng.choice(HOLD_REASONS), "status": status, "placed_at": iso(placed),
            "expires_on": day(placed + timedelta(days=gen.rng.choice((3, 5, 7, 10)) + 20)),
        })


FILL = {"card": fill_cards, "dispute": fill_disputes, "standing_order": fill_standing_orders, "hold": fill_holds}

