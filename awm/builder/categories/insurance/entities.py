"""What only an insurer keeps: the policies it has issued, their premium installments and the beneficiaries
named on them; each with its lifecycle and the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "insurance"
LABELS = {"policy": "insurance policy", "installment": "premium installment", "beneficiary": "beneficiary"}
ALT_LABELS = {"policy": "coverage policy", "installment": "premium instalment", "beneficiary": "named beneficiary"}
GROUPS = {
    "installments": Group(("policy", "installment")),
    "beneficiaries": Group(("policy", "beneficiary"), not_for=("auto_insurance", "home_insurance")),
    "renewals": Group(("policy",)),
}
CODED = ("policy",)

POLICY_STATUSES = ("quoted", "active", "lapsed", "cancelled")
RENEWAL_WINDOW_DAYS = 60  # a policy can be renewed in the last 60 days of its term
RELATIONSHIPS = ("spouse", "child", "parent", "sibling", "partner", "trust")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the policy, installment and beneficiary tables."""
    policy_fk, party_fk = f"{snake(L['policy'])}_id", f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    ents["policy"] = Entity("policy", L["policy"], [
        pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "item"),
        Col("monthly_premium", "REAL", minimum=0), Col("status", "TEXT", enum=POLICY_STATUSES),
        Col("starts_on", "TEXT"), Col("ends_on", "TEXT"), Col("cancel_reason", "TEXT", nullable=True),
    ], f"Policies issued to {plural(L['party'])}: statuses {', '.join(POLICY_STATUSES)}; renewable in the last "
       f"{RENEWAL_WINDOW_DAYS} days of the term.", filters=("number", party_fk, "status"), code="number")
    if has("installment"):
        ents["installment"] = Entity("installment", L["installment"], [
            pk_col(), fk_col(L, "policy"), Col("due_on", "TEXT"), Col("amount", "REAL", minimum=0),
            Col("status", "TEXT", enum=("due", "paid", "overdue", "waived")), Col("paid_on", "TEXT", nullable=True),
        ], f"Premiums due on each {L['policy']}.", filters=(policy_fk, "status"))
    if has("beneficiary"):
        ents["beneficiary"] = Entity("beneficiary", L["beneficiary"], [
            pk_col(), fk_col(L, "policy"), Col("full_name", "TEXT"), Col("relationship", "TEXT", enum=RELATIONSHIPS),
            Col("share_percent", "INTEGER", minimum=1, maximum=100),
        ], f"Who is paid under each {L['policy']}; the shares of one {L['policy']} add up to at most 100.",
            filters=(policy_fk, "relationship"), search=("full_name",))
    return ents


def fill_policies(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["policy"]
    items = [i for i in gen.rows["item"] if i["active"]]
    n = 0
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2))):
            n += 1
            start = gen.between(party["created_at"], gen.past(20, 20)).date()
            status = gen.rng.choices(POLICY_STATUSES, (1, 8, 1, 1))[0]
            item = gen.rng.choice(items)
            ends = start.replace(year=start.year + 1) if start.month != 2 or start.day != 29 else start + timedelta(365)
            while status == "active" and ends < REFERENCE_NOW.date():
                ends = ends.replace(year=ends.year + 1)
            policy = gen.add("policy", {
                "number": f"{prefix}-{40001 + n * 13}", gen.fk("party"): party["id"], gen.fk("item"): item["id"],
                "monthly_premium": round(max(item["price"] / 12, 9.0), 2), "status": status, "starts_on": start.isoformat(),
                "ends_on": ends.isoformat(), "cancel_reason": "Customer request" if status == "cancelled" else None,
            })
            if gen.has("installment") and status in ("active", "lapsed"):
                _installments(gen, policy, start)
            if gen.has("beneficiary") and status == "active":
                shares = gen.rng.choice(((100,), (50, 50), (60, 40), (50, 25), (70,)))
                for share in shares:
                    gen.add("beneficiary", {gen.fk("policy"): policy["id"],
                                            "full_name": f"{gen.fake.first_name()} {party['last_name']}",
                                            "relationship": gen.rng.choice(RELATIONSHIPS), "share_percent": share})


def _installments(gen: RowGen, policy: dict, start: date) -> None:
    today = REFERENCE_NOW.date()
    for k in range(-3, 2):
        due = date(today.year, today.month, min(start.day, 28)) + timedelta(days=30 * k)
        if due < start:
            continue
        if due > today:
            status = "due"
        else:
            status = gen.rng.choices(("paid", "overdue", "waived"), (8, 2, 1))[0]
            if policy["status"] == "lapsed":
                status = "overdue"
        gen.add("installment", {gen.fk("policy"): policy["id"], "due_on": due.isoformat(),
                                "amount": policy["monthly_premium"], "status": status,
                                "paid_on": day(gen.between(due.isoformat() + "T08:00:00")) if status == "paid" else None})


FILL = {"policy": fill_policies}

