"""What only a money app or payments company keeps: spending budgets and savings goals of its users, and payouts
to merchants; with the rules its tools enforce (a goal reached is achieved, a paid payout cannot be held)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "fintech"
LABELS = {"budget": "spending budget", "savings_goal": "savings goal", "payout": "merchant payout"}
ALT_LABELS = {"budget": "monthly budget", "savings_goal": "savings target", "payout": "settlement payout"}
_USERS = ("personal_budgeting", "wealth_management")
# an exchange keeps no one's monthly spending on groceries and pays out to no merchants
GROUPS = {
    "budgets": Group(("budget",), not_for=("payment_processing", "crypto_exchange")),
    "goals": Group(("savings_goal",), not_for=("payment_processing",)),
    "payouts": Group(("payout",), not_for=(*_USERS, "crypto_exchange")),
}
CODED = ()

BUDGET_CATEGORIES = ("groceries", "dining", "transport", "housing", "entertainment", "utilities", "travel")
PAYOUT_STATUSES = ("scheduled", "held", "paid", "failed")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the budget, savings_goal and payout tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("budget"):
        ents["budget"] = Entity("budget", L["budget"], [
            pk_col(), fk_col(L, "party"), Col("spending_category", "TEXT", enum=BUDGET_CATEGORIES),
            Col("monthly_limit", "REAL", minimum=0), Col("spent_this_month", "REAL", minimum=0),
            Col("status", "TEXT", enum=("active", "paused")),
        ], f"Monthly limits {plural(L['party'])} set per spending category.",
            filters=(party_fk, "spending_category", "status"))
    if has("savings_goal"):
        ents["savings_goal"] = Entity("savings_goal", L["savings_goal"], [
            pk_col(), fk_col(L, "party"), Col("name", "TEXT"), Col("target_amount", "REAL", minimum=0),
            Col("saved_amount", "REAL", minimum=0), Col("target_date", "TEXT"),
            Col("status", "TEXT", enum=("active", "achieved", "abandoned")),
        ], f"What {plural(L['party'])} save towards; a goal is achieved once the saved amount reaches the target.",
            filters=(party_fk, "status"), search=("name",))
    if has("payout"):
        ents["payout"] = Entity("payout", L["payout"], [
            pk_col(), fk_col(L, "party"), Col("amount", "REAL", minimum=0), Col("status", "TEXT", enum=PAYOUT_STATUSES),
            Col("scheduled_on", "TEXT"), Col("hold_reason", "TEXT", nullable=True),
        ], f"Money paid out to {plural(L['party'])}; a scheduled payout can be held, a paid one cannot.",
            filters=(party_fk, "status"))
    return ents


def fill_budgets(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        for category in gen.rng.sample(BUDGET_CATEGORIES, gen.rng.choice((0, 2, 3))):
            limit = float(gen.rng.choice((100, 150, 200, 300, 400, 600, 800)))
            gen.add("budget", {gen.fk("party"): party["id"], "spending_category": category, "monthly_limit": limit,
                               "spent_this_month": round(gen.rng.uniform(0, limit * 1.2), 2),
                               "status": gen.rng.choices(("active", "paused"), (8, 1))[0]})


def fill_goals(gen: RowGen) -> None:
    names = ("Emergency fund", "New car", "Holiday", "House deposit", "Wedding", "Laptop", "Home repairs")
    for party in gen.rows["party"]:
        for name in gen.rng.sample(names, gen.rng.choice((0, 1, 1, 2))):
            target = float(gen.rng.choice((1000, 2500, 5000, 8000, 12000, 20000)))
            status = gen.rng.choices(("active", "achieved", "abandoned"), (6, 1, 1))[0]
            saved = target if status == "achieved" else round(gen.rng.uniform(0, target * 0.9), 2)
            gen.add("savings_goal", {gen.fk("party"): party["id"], "name": name, "target_amount": target,
                                     "saved_amount": saved, "target_date": day(gen.future(60, 900)), "status": status})


def fill_payouts(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        for k in range(gen.rng.choice((0, 1, 2, 3))):
            status = gen.rng.choices(PAYOUT_STATUSES, (4, 1, 5, 1))[0]
            when = REFERENCE_NOW + timedelta(days=gen.rng.randint(1, 10) if status in ("scheduled", "held") else -3 - 7 * k)
            gen.add("payout", {gen.fk("party"): party["id"], "amount": gen.money(50, 9000), "status": status,
                               "scheduled_on": day(when),
                               "hold_reason": "Risk review" if status == "held" else None})


FILL = {"budget": fill_budgets, "savings_goal": fill_goals, "payout": fill_payouts}

