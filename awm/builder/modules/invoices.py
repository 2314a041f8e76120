"""Invoices issued to parties."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

MODULE = "invoices"
ROLES = ("invoice",)


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The invoice tables, named in the domain's words."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["invoice"] = Entity(
        "invoice",
        L["invoice"],
        [
            pk_col(),
            Col("number", "TEXT", unique=True),
            fk_col(L, "party"),
            fk_col(L, "case", nullable=True),
            Col("amount", "REAL", minimum=0),
            Col("issued_on", "TEXT"),
            Col("due_on", "TEXT"),
            Col("status", "TEXT", enum=("open", "paid", "void", "overdue")),
        ],
        f"Invoices issued to {plural(L['party'])}.",
        filters=("number", party_fk, "status"),
        code="number",
    )
    return ents


def fill_invoices(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["invoice"]
    n = 0
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.45:
            continue
        issued = datetime.fromisoformat(case["created_at"])
        due = issued + timedelta(days=30)
        if due < REFERENCE_NOW:
            status = gen.rng.choices(("paid", "overdue", "void"), (6, 2, 1))[0]
        else:
            status = gen.rng.choices(("open", "paid"), (3, 1))[0]
        n += 1
        gen.add(
            "invoice",
            {
                "number": f"{prefix}-{5000 + n}",
                gen.fk("party"): case[gen.fk("party")],
                gen.fk("case"): case["id"],
                "amount": case["total_amount"],
                "issued_on": day(issued),
                "due_on": day(due),
                "status": status,
            },
        )


FILL = {"invoice": fill_invoices}
