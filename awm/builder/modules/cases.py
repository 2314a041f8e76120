"""The work itself: cases, their lines, payments against them and notes on them."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from awm.builder.catalogue.kinds import one_of_each
from awm.builder.clock import REFERENCE_NOW, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

ROLES = ("case", "line", "payment", "note")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The case, line, payment, note tables, named in the domain's words."""
    statuses = flavour.statuses
    ents: dict[str, Entity] = {}
    case_cols = [
        pk_col(),
        Col("code", "TEXT", unique=True),
        fk_col(L, "party"),
        fk_col(L, "site"),
        fk_col(L, "staff", nullable=True),
        Col("status", "TEXT", enum=statuses),
        Col(flavour.time_column, "TEXT", description="ISO timestamp"),
        Col("total_amount", "REAL", minimum=0),
    ]
    if has("promotions"):
        case_cols += [fk_col(L, "promotion", nullable=True), Col("discount_amount", "REAL", minimum=0)]
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
            pk_col(),
            fk_col(L, "case"),
            fk_col(L, "item"),
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
            pk_col(),
            fk_col(L, "case"),
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
            pk_col(),
            fk_col(L, "case"),
            fk_col(L, "staff", nullable=True),
            Col("body", "TEXT"),
            Col("created_at", "TEXT"),
        ],
        f"Free-text notes on {plural(L['case'])}.",
        filters=(f"{snake(L['case'])}_id", f"{snake(L['staff'])}_id"),
    )
    return ents


def fill_cases(gen: RowGen) -> None:
    fl = gen.plan.flavour
    one_each = one_of_each(gen.sc.item_kind, fl.once)  # a repair, a plan, a booked service: one unit a line
    prefix = gen.plan.code_prefixes["case"]
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    staff = [s for s in gen.rows["staff"] if s["active"]]
    items = [i for i in gen.rows["item"] if i["active"]]
    weights = [5, 4, 3, 4, 2, 1][: len(fl.statuses)]
    gen.rng.shuffle(parties)
    for n in range(gen.rng.randint(44, 60)):
        status = gen.rng.choices(fl.statuses, weights)[0]
        party = parties[n % len(parties)] if n < 2 * len(parties) else gen.rng.choice(parties)
        site = gen.rng.choice(gen.rows["site"])["id"]
        assigned = None
        if status != fl.initial or gen.rng.random() < 0.3:
            assigned = gen.rng.choice(staff)["id"]
        created = gen.between(max(gen.rows["party"][party - 1]["created_at"], iso(gen.past(300, 300))), gen.past(3, 3))
        if fl.name in ("appointment", "reservation") and status in fl.editable:
            when = gen.future(2, 60)
        else:
            when = created + timedelta(hours=gen.rng.randint(1, 72))
        case = gen.add(
            "case",
            {
                "code": f"{prefix}-{1001 + n}",
                gen.fk("party"): party,
                gen.fk("site"): site,
                gen.fk("staff"): assigned,
                "status": status,
                fl.time_column: iso(when),
                "total_amount": 0.0,
            },
        )
        total = 0.0
        for item in gen.rng.sample(items, gen.rng.choice((1, 1, 2, 2, 3))):
            drawn = 1 if fl.once else gen.rng.choice((1, 1, 1, 2, 3))  # drawn all the same: the other rows stay
            qty = 1 if one_each else drawn
            gen.add(
                "line",
                {gen.fk("case"): case["id"], gen.fk("item"): item["id"], "quantity": qty, "unit_price": item["price"]},
            )
            total += qty * item["price"]
        if gen.has("promotion"):
            case[gen.fk("promotion")] = None
            case["discount_amount"] = 0.0
        case["total_amount"] = round(total, 2)
        case["created_at"] = iso(created)


def fill_payments(gen: RowGen) -> None:
    fl = gen.plan.flavour
    cancelled = fl.cancel.target
    for case in gen.rows["case"]:
        status = case["status"]
        if status == fl.initial and gen.rng.random() < 0.4:
            continue
        if status == cancelled:
            pay_status = gen.rng.choice(("refunded", "captured"))
        elif status == fl.initial:
            pay_status = gen.rng.choice(("pending", "captured"))
        else:
            pay_status = gen.rng.choices(("captured", "failed"), (9, 1))[0]
        paid = datetime.fromisoformat(case["created_at"]) + timedelta(minutes=gen.rng.randint(5, 600))
        method = gen.rng.choice(("card", "card", "bank_transfer", "cash", "wallet"))
        reason = gen.texts.refund() if pay_status == "refunded" else None
        if status == fl.initial and not fl.paid_at_first:
            continue  # drawn all the same: the other rows stay as they were
        gen.add(
            "payment",
            {
                gen.fk("case"): case["id"],
                "amount": case["total_amount"],
                "method": method,
                "status": pay_status,
                "paid_at": iso(paid),
                "refund_reason": reason,
            },
        )


def fill_notes(gen: RowGen) -> None:
    staff = gen.ids("staff")
    for case in gen.rows["case"]:
        for _ in range(gen.rng.choice((0, 0, 1, 2))):
            created = datetime.fromisoformat(case["created_at"]) + timedelta(hours=gen.rng.randint(1, 48))
            gen.add(
                "note",
                {
                    gen.fk("case"): case["id"],
                    gen.fk("staff"): gen.rng.choice(staff),
                    "body": gen.texts.note(),
                    "created_at": iso(min(created, REFERENCE_NOW)),
                },
            )


FILL = {"case": fill_cases, "payment": fill_payments, "note": fill_notes}
