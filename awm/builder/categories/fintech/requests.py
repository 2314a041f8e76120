"""Requests about the fintech category's own entities (awm/builder/modules/packs/fintech.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, active_party
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


def _budgets(w: World) -> list[tuple[dict, dict]]:
    return [(b, p) for b in w.rows["budget"] if b["status"] == "active" and (p := active_party(w, b)) is not None]


@intent("action", categories=("fintech",), needs=("budget",))
def fin_set_budget_limit(w: World) -> Plan | None:
    pick = w.pick(_budgets(w))
    if pick is None:
        return None
    budget, party = pick
    limit = float(w.pick([x for x in (120, 250, 350, 450, 500, 700, 900) if x != budget["monthly_limit"]]))
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("budget"), {w.fk("party"): party["id"],
                                                      "spending_category": budget["spending_category"]}),
             (w.n.action("budget", "set_limit"), {w.pk("budget"): budget["id"], "monthly_limit": limit})]
    goal = Goal(kind="row_equals", table=w.table("budget"), pk=budget["id"], expect={"monthly_limit": {"approx": limit}})
    say = Say("do", (
        "set {their} {category} {BUDGET} to {limit} a month",
        "{they} want to spend at most {limit} a month on {category} || change that {BUDGET}'s limit",
    ), {"category": budget["spending_category"], "limit": money(limit)}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("budget", budget["id"])})


@intent("question", categories=("fintech",), needs=("budget",))
def fin_budget_left(w: World) -> Plan | None:
    pick = w.pick([(b, p) for b, p in _budgets(w) if b["spent_this_month"] < b["monthly_limit"]])
    if pick is None:
        return None
    budget, party = pick
    left = round(budget["monthly_limit"] - budget["spent_this_month"], 2)
    ref = w.party_ref(party)
    say = Say("ask", (
        "how much is left in {their} {category} {BUDGET} this month",
        "what can {they} still spend on {category} this month under {their} {BUDGET}",
    ), {"category": budget["spending_category"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("budget"), {w.fk("party"): party["id"],
                                                          "spending_category": budget["spending_category"]})],
                [w.money_answer(left)], say, answer=money(left), targets={("budget", budget["id"])})


def _goals(w: World, status: str) -> list[tuple[dict, dict]]:
    out = []
    for g in w.rows["savings_goal"]:
        party = active_party(w, g)
        if g["status"] == status and party is not None and sum(
                x["name"] == g["name"] for x in w.children("savings_goal", "party", party["id"])) == 1:
            out.append((g, party))
    return out


@intent("action", categories=("fintech",), needs=("savings_goal",))
def fin_contribute_to_goal(w: World) -> Plan | None:
    pick = w.pick(_goals(w, "active"))
    if pick is None:
        return None
    goal_row, party = pick
    amount = float(w.pick([50, 100, 250, 500]))
    saved = round(goal_row["saved_amount"] + amount, 2)
    status = "achieved" if saved >= goal_row["target_amount"] else "active"
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("savings_goal"), {w.fk("party"): party["id"]}),
             (w.n.action("savings_goal", "contribute"), {w.pk("savings_goal"): goal_row["id"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("savings_goal"), pk=goal_row["id"],
                expect={"saved_amount": {"approx": saved}, "status": status})
    say = Say("do", (
        "put {amount} towards {their} {SAVINGS_GOAL} {goal}",
        "{they} want to add {amount} to {their} {goal} {SAVINGS_GOAL}",
    ), {"amount": money(amount), "goal": quote(goal_row["name"])}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("savings_goal", goal_row["id"])})


@intent("infeasible", categories=("fintech",), needs=("savings_goal",))
def fin_contribute_to_abandoned_goal(w: World) -> Plan | None:
    pick = w.pick(_goals(w, "abandoned"))
    if pick is None:
        return None
    goal_row, party = pick
    ref = w.party_ref(party)
    amount = w.pick([50.0, 100.0, 200.0])
    say = Say("do", (
        "put {amount} towards {their} {SAVINGS_GOAL} {goal}",
        "add {amount} to {their} {goal} {SAVINGS_GOAL}",
    ), {"amount": money(amount), "goal": quote(goal_row["name"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("savings_goal"), {w.fk("party"): party["id"]})],
                [w.status_answer("abandoned")], say,
                answer="That goal was abandoned, so nothing more can be put towards it.",
                targets={("savings_goal", goal_row["id"])},
                refused=((w.n.action("savings_goal", "contribute"), {w.pk("savings_goal"): goal_row["id"],
                                                                     "amount": amount}), "invalid_state"))


@intent("action", categories=("fintech",), needs=("payout",))
def fin_hold_payout(w: World) -> Plan | None:
    options = []
    for p in w.rows["payout"]:
        party = active_party(w, p)
        if p["status"] == "scheduled" and party is not None and sum(
                x["status"] == "scheduled" for x in w.children("payout", "party", party["id"])) == 1:
            options.append((p, party))
    pick = w.pick(options)
    if pick is None:
        return None
    payout, party = pick
    reason = w.pick(["Chargeback spike under review", "Bank details being verified", "Unusual refund volume"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("payout"), {w.fk("party"): party["id"], "status": "scheduled"}),
             (w.n.action("payout", "hold"), {w.pk("payout"): payout["id"], "reason": reason})]
    goal = Goal(kind="row_equals", table=w.table("payout"), pk=payout["id"],
                expect={"status": "held", "hold_reason": {"text": reason}})
    say = Say("do", (
        "hold {their} scheduled {PAYOUT} with the reason {reason}",
        "stop {their} next {PAYOUT} for now: hold it, reason {reason}",
    ), {"reason": quote(reason)}, party=ref, voices=("staff",))
    return Plan(calls, [goal], say, targets={("payout", payout["id"])})
