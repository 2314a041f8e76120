"""Requests about the fintech category's own entities (awm/builder/modules/packs/fintech.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, active_party
from awm.builder.intents.shapes import (
    call_off_day,
    credit_account,
    define,
    follow_up_booking,
    notify_item_holders,
    reroute_to_quietest_site,
    share_of_spend,
)
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


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("fin_chargeback", "action", ("fintech",), lambda w: credit_account(
    w, ("Chargeback", "Chargeback: disputed sale", "Card scheme chargeback"), (20.0, 45.0, 60.0, 85.0), (
        "a chargeback came through || debit {amount} from {acct} with the memo {memo}",
        "take {amount} out of {acct} for a chargeback, memo {memo}",
    ), debit=True), needs=("account",))


@intent("chained", categories=("fintech", "banking"), needs=("account", "document"))
def fin_kyc_clearance(w: World) -> Plan | None:
    """Every submitted document on a person's latest case verified, then their frozen account unfrozen."""
    options = []
    for party in w.active_parties("case"):
        frozen = [a for a in w.children("account", "party", party["id"]) if a["status"] == "frozen"]
        cases = w.party_cases(party)
        latest = max(cases, key=lambda c: c["created_at"])
        docs = [d for d in w.children("document", "case", latest["id"]) if d["status"] == "submitted"]
        if len(frozen) == 1 and docs and sum(c["created_at"] == latest["created_at"] for c in cases) == 1:
            options.append((party, frozen[0], latest, docs))
    if not options:
        return None
    party, acct, latest, docs = w.rng.choice(options)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}),
             (w.n.list("document"), {w.fk("case"): latest["id"]})]
    calls += [(w.n.action("document", "verify"), {w.pk("document"): d["id"]}) for d in docs]
    calls += [(w.n.list("account"), {w.fk("party"): party["id"]}),
              (w.n.action("account", "unfreeze"), {w.pk("account"): acct["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("document"), pk=d["id"], expect={"status": "verified"}) for d in docs]
    goals.append(Goal(kind="row_equals", table=w.table("account"), pk=acct["id"], expect={"status": "active"}))
    say = Say("do", (
        "{their} identity checks are done || verify every submitted {DOCUMENT} on {their} latest {CASE}, then "
        "unfreeze {their} frozen {ACCOUNT}",
        "clear {them}: mark each submitted {DOCUMENT} on {their} newest {CASE} as verified and lift the freeze on "
        "{their} {ACCOUNT}",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party["id"])})
define("fin_cashback", "chained", ("fintech", "telecom"), lambda w: share_of_spend(w, 1, "Cashback reward", (
    "give {them} {pct}% cashback on everything {they_have} paid in captured {PAYMENT/pl}: credit it to "
    "{their} {ACCOUNT} with the memo {memo} and tell me the amount",
    "work out {pct}% of {their} captured {PAYMENT/pl} and pay it into {their} {ACCOUNT} as {memo}; tell me how "
    "much that was",
)), needs=("account",))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("fin_fee_change_notice", "aggregate", ("fintech",), lambda w: notify_item_holders(
    w, ("Fee changes for {item}", "Important: changes to {item}"), (
        "the fees for {item} are changing || notify each {PARTY} with {a CASE} that is {open} and includes it, by"
        " {channel}, subject {subject}",
        "tell every {PARTY} whose {CASE} ({open}) includes {item} about the new fees, by {channel}, subject {subject}",
    )), needs=("notification",))


# a site closed for a day: its bookings that day cancelled, refunded and their people told (shapes.call_off_day)
define("fin_office_closed_day", "aggregate", ("fintech",), lambda w: call_off_day(
    w, ("Cancelled: office closed", "Cancelled: adviser unavailable"), (
        "{site} is closed on {long} || cancel every {CASE} booked there that day that can still be cancelled, "
        "adding the note {note} to each",
        "cancel all the {CASE/pl} at {site} on {date} that are not too far along to cancel, each with the note {note}",
    )), flavours=("appointment", "reservation"))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("fin_desk_at_capacity", "chained", ("fintech",), lambda w: reroute_to_quietest_site(
    w, ("Moved: site fully booked", "Reassigned to balance the workload"), (
        "{site} is fully booked || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} that are"
        " {open}, and note {note} on it",
        "reassign {CASE} {code} from {site} to the other {SITE} with the lightest load of {open} {CASE/pl}, with "
        "the note {note}",
    )), flavours=("fulfillment", "appointment"))


# the next booking of a series, a set time after the upcoming one (shapes.follow_up_booking)
define("fin_next_review_meeting", "chained", ("fintech",), lambda w: follow_up_booking(w, 90, (
    "book {their} next review: a new {CASE} for {item} {days} after {their} upcoming one, at the same time, "
    "with the same {STAFF}, at the same {SITE}",
    "{they} would like to keep meeting every quarter || set up {a CASE} for {item} {days} after {their} next "
    "one, same time, same {STAFF}, same {SITE}",
)), flavours=("appointment",))
