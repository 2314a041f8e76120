"""Balances held for parties and the movements on them."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.clock import day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "accounts"
ROLES = ("account", "account_entry")
KINDS = ("checking", "savings", "credit", "wallet")
# the kinds of a business whose accounts are wallets (a crypto exchange): no "checking wallet", no "credit wallet"
WALLET_KINDS = ("spot", "funding", "savings", "margin")


def account_kinds(label: str) -> tuple[str, ...]:
    """The kinds of account a business keeps, by what it calls an account."""
    return WALLET_KINDS if label.split()[-1] == "wallet" else KINDS


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The account, account_entry tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["account"] = Entity(
        "account",
        L["account"],
        [
            pk_col(),
            Col("number", "TEXT", unique=True),
            fk_col(L, "party"),
            Col("kind", "TEXT", enum=account_kinds(L["account"])),
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
            pk_col(),
            fk_col(L, "account"),
            Col("amount", "REAL", description="positive credits, negative debits"),
            Col("entry_type", "TEXT", enum=("deposit", "withdrawal", "transfer_in", "transfer_out", "fee")),
            Col("memo", "TEXT"),
            Col("posted_at", "TEXT"),
        ],
        f"Movements on each {L['account']}.",
        filters=(f"{snake(L['account'])}_id", "entry_type"),
    )
    return ents


def fill_accounts(gen: RowGen) -> None:
    n = 0
    for party in gen.rows["party"]:
        kinds = gen.rng.sample(account_kinds(gen.plan["account"].label), gen.rng.choice((1, 2, 2, 3)))
        for kind in kinds:
            n += 1
            account = gen.add(
                "account",
                {
                    "number": f"AC{700000 + n * 37}",
                    gen.fk("party"): party["id"],
                    "kind": kind,
                    "balance": 0.0,
                    "currency": "USD",
                    "status": "frozen" if gen.rng.random() < 0.08 else "active",
                    "opened_on": day(gen.past(200, 2000)),
                },
            )
            balance = 0.0
            for _ in range(gen.rng.randint(2, 4)):
                kind_ = gen.rng.choices(("deposit", "withdrawal", "fee"), (5, 3, 1))[0]
                amount = gen.money(20, 2500)
                if kind_ != "deposit":
                    amount = -min(amount, round(balance, 2))
                    if kind_ == "fee":
                        amount = -min(15.0, round(balance, 2))
                balance = round(balance + amount, 2)
                gen.add(
                    "account_entry",
                    {
                        gen.fk("account"): account["id"],
                        "amount": amount,
                        "entry_type": kind_,
                        "memo": f"{kind_} via {gen.rng.choice(('branch', 'online', 'mobile', 'atm'))}",
                        "posted_at": iso(gen.past(1, 190)),
                    },
                )
            account["balance"] = balance


FILL = {"account": fill_accounts}
