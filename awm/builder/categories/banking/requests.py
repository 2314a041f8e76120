"""Requests about the banking category's own entities (awm/builder/modules/packs/banking.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.banking.entities import DISPUTE_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, reroute_to_quietest_site
from awm.builder.phrasing import Say, T, money, quote
from awm.contracts import Goal


def _card_ref(w: World, card: dict) -> T:
    return T(f"[{{their}} {card['network'].title()} {card['card_type']} {{CARD}} ending in {card['last_four']}|"
             f"{{their}} {{CARD}} {card['number']}]")


def _cards_of(w: World, status: str) -> list[tuple[dict, dict]]:
    """(card, party) for cards in `status` of active people whose last four digits no other card of theirs has."""
    out = []
    for card in w.rows.get("card", []):
        party = active_party(w, card)
        if card["status"] != status or party is None:
            continue
        mine = [c for c in w.children("card", "party", party["id"]) if c["last_four"] == card["last_four"]]
        if len(mine) == 1:
            out.append((card, party))
    return out


@intent("action", categories=("banking",), needs=("card",))
def bank_block_lost_card(w: World) -> Plan | None:
    pick = w.pick(_cards_of(w, "active"))
    if pick is None:
        return None
    card, party = pick
    reason = w.pick(["lost", "stolen"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("card"), {w.fk("party"): party["id"]}),
             (w.n.action("card", "block"), {w.pk("card"): card["id"], "reason": reason})]
    goal = Goal(kind="row_equals", table=w.table("card"), pk=card["id"], expect={"status": "blocked",
                                                                                "block_reason": reason})
    say = Say("do", (
        "{they_have} {how} {card} || block it, giving the reason as {reason}",
        "block {card} straight away: it was {how2} (reason {reason})",
        "{card} was {how2} || put a block on it with the reason {reason}",
    ), {"card": _card_ref(w, card), "reason": reason, "how": "lost" if reason == "lost" else "had stolen",
        "how2": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("card", card["id"])})


@intent("infeasible", categories=("banking",), needs=("card",))
def bank_unblock_lost_card(w: World) -> Plan | None:
    options = [(c, p) for c, p in _cards_of(w, "blocked") if c["block_reason"] in ("lost", "stolen")]
    pick = w.pick(options)
    if pick is None:
        return None
    card, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "{they} found {card} again || unblock it",
        "lift the block on {card} so {they} can use it again",
        "reactivate {card} for {them}",
    ), {"card": _card_ref(w, card)}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("card"), {w.fk("party"): party["id"]})],
                [w.text_answer(card["block_reason"], ["lost", "stolen", "suspected_fraud", "customer_request"])], say,
                answer=f"The card was blocked as {card['block_reason']}; such a card cannot be unblocked, it must be "
                       "replaced.", targets={("card", card["id"])},
                refused=((w.n.action("card", "unblock"), {w.pk("card"): card["id"]}), "not_allowed"))


@intent("action", categories=("banking",), needs=("card",))
def bank_card_limit(w: World) -> Plan | None:
    pick = w.pick(_cards_of(w, "active"))
    if pick is None:
        return None
    card, party = pick
    limit = w.pick([x for x in (300.0, 750.0, 2000.0, 3000.0, 4000.0, 6000.0) if x != card["daily_limit"]])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("card"), {w.fk("party"): party["id"]}),
             (w.n.action("card", "set_limit"), {w.pk("card"): card["id"], "daily_limit": limit})]
    goal = Goal(kind="row_equals", table=w.table("card"), pk=card["id"], expect={"daily_limit": {"approx": limit}})
    say = Say("do", (
        "set the daily limit on {card} to {limit}",
        "{they} would like {card} to allow {limit} a day || change its daily limit",
    ), {"card": _card_ref(w, card), "limit": money(limit)}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("card", card["id"])})


def _two_accounts(w: World) -> list[tuple[dict, dict, dict]]:
    out = []
    for party in w.active_parties():
        kinds = {}
        for a in w.children("account", "party", party["id"]):
            kinds.setdefault(a["kind"], []).append(a)
        active = {k: v[0] for k, v in kinds.items() if len(v) == 1 and v[0]["status"] == "active"}
        for source, target in (("checking", "savings"), ("checking", "wallet"), ("savings", "checking")):
            if source in active and target in active:
                out.append((party, active[source], active[target]))
    return out


@intent("action", categories=("banking",), needs=("standing_order",))
def bank_standing_transfer(w: World) -> Plan | None:
    """A standing transfer set up between two of a person's own accounts: amount, schedule, first date, reference."""
    pick = w.pick(_two_accounts(w))
    if pick is None:
        return None
    party, source, target = pick
    amount = float(w.pick([25, 50, 100, 150, 200, 300, 500]))
    frequency = w.pick(["weekly", "monthly", "quarterly"])
    first = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([3, 7, 14, 30]))).date().isoformat()
    reference = w.pick(["Savings plan", "Rainy day fund", "Holiday savings", "School fees", "Emergency fund"])
    a = w.plan["account"]
    ref = w.party_ref(party)
    args = {f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": amount, "frequency": frequency,
            "first_run_on": first, "reference": reference}
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.create("standing_order"), args)]
    goal = Goal(kind="rows_created", table=w.table("standing_order"), count=1, expect={
        f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": {"approx": amount},
        "frequency": frequency, "next_run_on": first, "reference": {"text": reference}, "status": "active"})
    say = Say("do", (
        "set up a {frequency} standing transfer of {amount} from {their} {source} {ACCOUNT} to {their} {target} "
        "{ACCOUNT}, starting on {first}, with the reference {reference}",
        "{they} want to move {amount} {frequency} from {their} {source} {ACCOUNT} into {their} {target} {ACCOUNT} "
        "|| create {a STANDING_ORDER} for it, first on {first}, reference {reference}",
    ), {"frequency": frequency, "amount": money(amount), "source": source["kind"], "target": target["kind"],
        "first": first, "reference": quote(reference)}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])})


@intent("action", categories=("banking",), needs=("standing_order",))
def bank_stop_standing_order(w: World) -> Plan | None:
    a = w.plan["account"]
    orders = [s for s in w.rows["standing_order"] if s["status"] in ("active", "paused")]
    order = w.pick(orders)
    if order is None:
        return None
    verb = "pause" if order["status"] == "active" and w.chance(0.5) else "cancel"
    target = "paused" if verb == "pause" else "cancelled"
    source = w.by_id("account", order[f"from_{a.fk}"])
    calls = [(w.n.list("standing_order"), {"number": order["number"]}),
             (w.n.action("standing_order", verb), {w.pk("standing_order"): order["id"]})]
    goal = Goal(kind="row_equals", table=w.table("standing_order"), pk=order["id"], expect={"status": target})
    say = Say("do", (
        f"{verb} {{STANDING_ORDER}} {{number}} (the {{amount}} {{frequency}} one from {{ACCOUNT}} {{acct}})",
        f"the {{frequency}} {{STANDING_ORDER}} {{number}} should {'stop for now' if verb == 'pause' else 'stop for good'}"
        f" || {verb} it",
    ), {"number": order["number"], "amount": money(order["amount"]), "frequency": order["frequency"],
        "acct": source["number"]})
    return Plan(calls, [goal], say, targets={("standing_order", order["id"])})


def _charges(w: World, recent: bool) -> list[tuple[dict, dict, dict]]:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=DISPUTE_WINDOW_DAYS)).date().isoformat()
    disputed = {d[w.fk("account_entry")] for d in w.rows["dispute"]}
    out = []
    for entry in w.rows["account_entry"]:
        if entry["amount"] >= 0 or entry["entry_type"] not in ("withdrawal", "fee") or entry["id"] in disputed:
            continue
        if (entry["posted_at"][:10] >= cutoff) != recent or entry["posted_at"][:10] == cutoff:
            continue
        acct = w.by_id("account", entry[w.fk("account")])
        party = active_party(w, acct)
        same = [e for e in w.children("account_entry", "account", acct["id"])
                if e["posted_at"][:10] == entry["posted_at"][:10] and e["amount"] < 0]
        if party is not None and len(same) == 1:
            out.append((entry, acct, party))
    return out


@intent("action", categories=("banking",), needs=("dispute",))
def bank_dispute_charge(w: World) -> Plan | None:
    pick = w.pick(_charges(w, recent=True))
    if pick is None:
        return None
    entry, acct, party = pick
    reason = w.pick(["unrecognised", "duplicate", "wrong_amount"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.list("account_entry"), {w.fk("account"): acct["id"]}),
             (w.n.create("dispute"), {w.fk("account_entry"): entry["id"], "reason": reason})]
    goal = Goal(kind="rows_created", table=w.table("dispute"), count=1, expect={
        w.fk("account_entry"): entry["id"], "reason": reason, "status": "open"})
    words = {"unrecognised": "{they} do not recognise it", "duplicate": "it was taken twice",
             "wrong_amount": "the amount is wrong"}[reason]
    say = Say("do", (
        "dispute the {amount} charge of {day} on {ACCOUNT} {number}: " + words + " (reason {reason})",
        "there is a charge of {amount} posted on {day} to {ACCOUNT} {number} and " + words
        + " || open {a DISPUTE} for it, reason {reason}",
    ), {"amount": money(-entry["amount"]), "day": entry["posted_at"][:10], "number": acct["number"],
        "reason": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("account", acct["id"])})


@intent("infeasible", categories=("banking",), needs=("dispute",))
def bank_dispute_old_charge(w: World) -> Plan | None:
    pick = w.pick(_charges(w, recent=False))
    if pick is None:
        return None
    entry, acct, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "dispute the {amount} charge of {day} on {ACCOUNT} {number}, reason unrecognised",
        "{they} do not recognise the {amount} charge posted on {day} to {ACCOUNT} {number} || open {a DISPUTE}",
    ), {"amount": money(-entry["amount"]), "day": entry["posted_at"][:10], "number": acct["number"]},
        party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
                 (w.n.list("account_entry"), {w.fk("account"): acct["id"]})],
                [w.number_answer(DISPUTE_WINDOW_DAYS)], say,
                answer=f"A charge can only be disputed within {DISPUTE_WINDOW_DAYS} days of posting; this one is older.",
                targets={("account", acct["id"])},
                refused=((w.n.create("dispute"), {w.fk("account_entry"): entry["id"], "reason": "unrecognised"}),
                         "window_closed"))


@intent("action", categories=("banking",), needs=("dispute",))
def bank_uphold_dispute(w: World) -> Plan | None:
    dispute = w.pick([d for d in w.rows["dispute"] if d["status"] in ("open", "investigating")])
    if dispute is None:
        return None
    acct = w.by_id("account", dispute[w.fk("account")])
    memo = f"Dispute {dispute['number']} upheld"
    calls = [(w.n.list("dispute"), {"number": dispute["number"]}),
             (w.n.action("dispute", "uphold"), {w.pk("dispute"): dispute["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("dispute"), pk=dispute["id"], expect={"status": "upheld"}),
             Goal(kind="row_delta", table=w.table("account"), pk=acct["id"], column="balance", delta=dispute["amount"]),
             Goal(kind="rows_created", table=w.table("account_entry"), count=1, expect={
                 w.fk("account"): acct["id"], "amount": {"approx": dispute["amount"]}, "memo": {"text": memo}})]
    say = Say("do", (
        "the investigation found for the customer || uphold {DISPUTE} {number} so the money goes back",
        "uphold {DISPUTE} {number} and refund the disputed amount to the {ACCOUNT}",
    ), {"number": dispute["number"]})
    return Plan(calls, goals, say, targets={("dispute", dispute["id"]), ("account", acct["id"])})


@intent("aggregate", categories=("banking",), needs=("hold",))
def bank_available_balance(w: World) -> Plan | None:
    options = []
    for acct in w.rows["account"]:
        holds = [h for h in w.children("hold", "account", acct["id"]) if h["status"] == "active"]
        if holds:
            options.append((acct, holds))
    pick = w.pick(options)
    if pick is None:
        return None
    acct, holds = pick
    available = round(acct["balance"] - sum(h["amount"] for h in holds), 2)
    calls = [(w.n.list("account"), {"number": acct["number"]}),
             (w.n.list("hold"), {w.fk("account"): acct["id"], "status": "active"})]
    say = Say("ask", (
        "how much of {ACCOUNT} {number} is available to spend once its active {HOLD/pl} are taken off",
        "what is the available balance of {ACCOUNT} {number}, that is its balance less every active {HOLD}",
    ), {"number": acct["number"]})
    return Plan(calls, [w.money_answer(available)], say, answer=money(available),
                targets={("account", acct["id"])})


@intent("aggregate", categories=("banking",), needs=("hold",))
def bank_release_holds(w: World) -> Plan | None:
    options = []
    for acct in w.rows["account"]:
        holds = [h for h in w.children("hold", "account", acct["id"]) if h["status"] == "active"]
        if holds and len(holds) <= 4:
            options.append((acct, holds))
    pick = w.pick(options)
    if pick is None:
        return None
    acct, holds = pick
    calls = [(w.n.list("account"), {"number": acct["number"]}),
             (w.n.list("hold"), {w.fk("account"): acct["id"], "status": "active"}),
             *[(w.n.action("hold", "release"), {w.pk("hold"): h["id"]}) for h in holds]]
    goals = [Goal(kind="row_equals", table=w.table("hold"), pk=h["id"], expect={"status": "released"}) for h in holds]
    say = Say("do", (
        "the review of {ACCOUNT} {number} is over || release every active {HOLD} on it",
        "release all the active {HOLD/pl} on {ACCOUNT} {number}",
    ), {"number": acct["number"]})
    return Plan(calls, goals, say, targets={("account", acct["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------


@intent("action", categories=("banking", "fintech"), needs=("account", "ticket"))
def bank_dispute_card_charge(w: World) -> Plan | None:
    """A customer disputes a card charge: a high-priority ticket naming the charge, and the card account frozen."""
    options = []
    for acct in w.rows["account"]:
        if acct["status"] != "active" or w.party_of(acct)["status"] != "active":
            continue
        for entry in w.children("account_entry", "account", acct["id"]):
            if entry["entry_type"] in ("withdrawal", "fee") and entry["amount"] < 0:
                options.append((acct, entry))
    if not options:
        return None
    acct, entry = w.rng.choice(options)
    party = w.party_of(acct)
    amount, day = money(-entry["amount"]), entry["posted_at"][:10]
    subject = f"Disputed charge of {amount} on {day}"
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.list("account_entry"), {w.fk("account"): acct["id"]}),
             (w.n.create("ticket"), {w.fk("party"): party["id"], "subject": subject, "priority": "high"}),
             (w.n.action("account", "freeze"), {w.pk("account"): acct["id"]})]
    goals = [Goal(kind="rows_created", table=w.table("ticket"), count=1,
                  expect={w.fk("party"): party["id"], "subject": {"text": subject}, "priority": "high"}),
             Goal(kind="row_equals", table=w.table("account"), pk=acct["id"], expect={"status": "frozen"})]
    say = Say("do", (
        "{they} don't recognise a charge of {amount} on {day} on {ACCOUNT} {number} || open a high-priority "
        "{TICKET} with the subject {subject} and freeze that {ACCOUNT} until it is sorted out",
        "dispute the {amount} charge from {day} on {ACCOUNT} {number}: log {a TICKET} titled {subject} at high "
        "priority, then freeze the {ACCOUNT}",
    ), {"amount": amount, "day": day, "number": acct["number"], "subject": quote(subject)}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("account", acct["id"])})


@intent("chained", categories=("banking",), needs=("account",))
def bank_sweep_to_savings(w: World) -> Plan | None:
    """Everything above a stated floor in the checking account moved to the savings account (amount worked out)."""
    options = []
    for party in w.active_parties():
        accounts = {a["kind"]: a for a in w.children("account", "party", party["id"]) if a["status"] == "active"}
        if "checking" in accounts and "savings" in accounts:
            floor = float(w.pick([100, 200, 250, 500]))
            if accounts["checking"]["balance"] - floor >= 10:
                options.append((party, accounts["checking"], accounts["savings"], floor))
    if not options:
        return None
    party, checking, savings, floor = w.rng.choice(options)
    amount = round(checking["balance"] - floor, 2)
    a = w.plan["account"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.transfer_funds(), {f"from_{a.fk}": checking["id"], f"to_{a.fk}": savings["id"], "amount": amount})]
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=checking["id"], column="balance", delta=-amount),
             Goal(kind="row_delta", table=w.table("account"), pk=savings["id"], column="balance", delta=amount),
             w.money_answer(amount)]
    say = Say("do", (
        "sweep everything above {floor} in {their} checking {ACCOUNT} into {their} savings {ACCOUNT}, and tell me "
        "how much moved",
        "leave exactly {floor} in {their} checking {ACCOUNT} and transfer the rest to {their} savings {ACCOUNT}; "
        "tell me the amount",
    ), {"floor": money(floor)}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=money(amount), targets={("party", party["id"])}).derive(
        w.n.transfer_funds(), "amount")


@intent("conditional", categories=("banking",), needs=("account",))
def bank_overdraft_cover(w: World) -> Plan | None:
    """If the checking account holds less than a stated floor, the difference moved in from savings; otherwise
    its balance answered."""
    options = []
    for party in w.active_parties():
        accounts = {a["kind"]: a for a in w.children("account", "party", party["id"]) if a["status"] == "active"}
        if "checking" in accounts and "savings" in accounts:
            options.append((party, accounts["checking"], accounts["savings"]))
    if not options:
        return None
    party, checking, savings = w.rng.choice(options)
    floor = float(w.pick([100, 250, 500, 1000]))
    a = w.plan["account"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]})]
    short = round(floor - checking["balance"], 2)
    if 0 < short <= savings["balance"]:
        calls.append((w.n.transfer_funds(), {f"from_{a.fk}": savings["id"], f"to_{a.fk}": checking["id"], "amount": short}))
        goals = [Goal(kind="row_delta", table=w.table("account"), pk=checking["id"], column="balance", delta=short),
                 Goal(kind="row_delta", table=w.table("account"), pk=savings["id"], column="balance", delta=-short)]
        answer = None
    elif short <= 0:
        goals, answer = [w.money_answer(checking["balance"])], money(checking["balance"])
    else:
        return None
    say = Say("do", (
        "if {their} checking {ACCOUNT} holds less than {floor}, move exactly enough from {their} savings {ACCOUNT} "
        "to bring it to {floor}; otherwise just tell me the checking balance",
        "make sure {their} checking {ACCOUNT} has at least {floor}: top it up from savings by the shortfall if "
        "needed, and if it is already there, tell me its balance",
    ), {"floor": money(floor)}, party=ref, voices=BOTH)
    plan = Plan(calls, goals, say, answer=answer, targets={("party", party["id"])})
    return plan.derive(w.n.transfer_funds(), "amount")


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("bank_short_staffed_branch", "chained", ("banking",), lambda w: reroute_to_quietest_site(
    w, ("Moved to balance the workload", "Reassigned: short-staffed this week"), (
        "{site} is short-staffed this week || move {CASE} {code} to the {SITE} (other than {site}) with the "
        "fewest {open} {CASE/pl}, noting {note}",
        "hand {CASE} {code} from {site} over to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "and record {note} on it",
    )))
