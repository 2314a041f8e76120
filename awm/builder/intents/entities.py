"""Requests about a category's own entities (awm.builder.modules.packs): a bank's cards, disputes, standing
orders and holds; a clinic's appointment slots, procedures and insurance claims; a carrier's shipments, legs,
rate quotes and exceptions. Each is registered for exactly the category whose entity module declares its
tables, and needs those tables; the infeasible ones hit a rule the tools enforce (a card blocked as lost, a
charge or a claim past its window, a quote that lapsed)."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.modules.packs.agriculture import MAX_RATES
from awm.builder.modules.packs.automotive import WARRANTY_LIMIT
from awm.builder.modules.packs.banking import DISPUTE_WINDOW_DAYS
from awm.builder.modules.packs.commerce import RETURN_WINDOW_DAYS
from awm.builder.modules.packs.energy import PROGRAMS
from awm.builder.modules.packs.fitness import MAX_FREEZE_DAYS
from awm.builder.modules.packs.food_and_beverage import SAFE_RANGES
from awm.builder.modules.packs.government import APPEAL_DAYS
from awm.builder.modules.packs.government import RENEWAL_DAYS as LICENCE_RENEWAL_DAYS
from awm.builder.modules.packs.healthcare import FILING_WINDOW_DAYS
from awm.builder.modules.packs.insurance import RENEWAL_WINDOW_DAYS
from awm.builder.modules.packs.marketing import MAX_ROUNDS
from awm.builder.modules.packs.real_estate import NOTICE_DAYS
from awm.builder.modules.packs.technology import MAX_ACTIVE_KEYS, SIZES
from awm.builder.modules.packs.telecom import DONORS as DONOR_CARRIERS
from awm.builder.modules.packs.transportation import HOLD_DAYS, SERVICE_INTERVAL_DAYS
from awm.builder.modules.packs.travel import VALIDITY_DAYS
from awm.builder.phrasing import Say, T, count, money, quote
from awm.contracts import Goal

TODAY = "2025-06-01"
NOW = "2025-06-01T09:00:00"
BOTH = ("staff", "self")


def _active_party(w: World, row: dict, role: str = "party") -> dict | None:
    party = w.by_id("party", row[w.fk(role)]) if role == "party" else None
    return party if party is not None and party["status"] == "active" else None


# --- banking ---------------------------------------------------------------------------------------------------


def _card_ref(w: World, card: dict) -> T:
    return T(f"[{{their}} {card['network'].title()} {card['card_type']} {{CARD}} ending in {card['last_four']}|"
             f"{{their}} {{CARD}} {card['number']}]")


def _cards_of(w: World, status: str) -> list[tuple[dict, dict]]:
    """(card, party) for cards in `status` of active people whose last four digits no other card of theirs has."""
    out = []
    for card in w.rows.get("card", []):
        party = _active_party(w, card)
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
                       "replaced.", targets={("card", card["id"])})


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
        party = _active_party(w, acct)
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
                targets={("account", acct["id"])})


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


# --- healthcare ------------------------------------------------------------------------------------------------


@intent("aggregate", categories=("healthcare",), needs=("slot",))
def health_block_day(w: World) -> Plan | None:
    """Every open slot of one practitioner on one day blocked, with a stated reason."""
    days: dict[tuple[int, str], list[dict]] = {}
    for slot in w.rows["slot"]:
        days.setdefault((slot[w.fk("staff")], slot["starts_at"][:10]), []).append(slot)
    pool = {s["id"] for s in w.staff_pool()}
    options = [(k, [s for s in v if s["status"] == "open"]) for k, v in days.items() if k[0] in pool]
    options = [(k, v) for k, v in options if v]
    if not options:
        return None
    (staff_id, date), slots = w.rng.choice(options)
    member = w.by_id("staff", staff_id)
    reason = w.pick(["Conference leave", "Sick leave", "Clinic training day", "Personal leave"])
    calls = [w.find_staff(member), (w.n.list("slot"), {w.fk("staff"): staff_id, "status": "open"}),
             *[(w.n.action("slot", "block"), {w.pk("slot"): s["id"], "reason": reason}) for s in slots]]
    goals = [Goal(kind="row_equals", table=w.table("slot"), pk=s["id"],
                  expect={"status": "blocked", "block_reason": {"text": reason}}) for s in slots]
    say = Say("do", (
        "{staff} is away on {long} || block every open {SLOT} of theirs that day with the reason {reason}",
        "block all of {staff}'s open {SLOT/pl} on {date}, reason {reason}",
    ), {"staff": w.person(member), "long": long_date(date), "date": date, "reason": quote(reason)})
    return Plan(calls, goals, say, targets={("staff", staff_id)})


@intent("chained", categories=("healthcare",), needs=("slot",))
def health_book_first_slot(w: World) -> Plan | None:
    """A person's upcoming visit moved into a practitioner's earliest open slot (found by listing them)."""
    tc = w.fl.time_column
    booked = {s[w.fk("case")] for s in w.rows["slot"] if s[w.fk("case")] is not None}
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.editable and c["id"] not in booked
             and _active_party(w, c) is not None and c[tc] > TODAY]
    pool = {s["id"] for s in w.staff_pool()}
    firsts = {}
    for slot in sorted(w.rows["slot"], key=lambda s: s["starts_at"]):
        if slot["status"] == "open" and slot[w.fk("staff")] in pool:
            firsts.setdefault(slot[w.fk("staff")], slot)
    case, staff_id = w.pick(cases), w.pick(sorted(firsts))
    if case is None or staff_id is None:
        return None
    slot, member = firsts[staff_id], w.by_id("staff", staff_id)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, w.find_staff(member), (w.n.list("slot"), {w.fk("staff"): staff_id, "status": "open"}),
             (w.n.action("slot", "book"), {w.pk("slot"): slot["id"], w.fk("case"): case["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("slot"), pk=slot["id"],
                  expect={"status": "booked", w.fk("case"): case["id"]}),
             Goal(kind="row_equals", table=w.table("case"), pk=case["id"],
                  expect={tc: slot["starts_at"], w.fk("staff"): staff_id})]
    say = Say("do", (
        "move {case} into the earliest open {SLOT} {staff} has",
        "{they} would rather see {staff} || book {case} into {staff}'s first open {SLOT}",
    ), {"case": case_np, "staff": w.person(member)}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("case", case["id"])}).derive(w.n.action("slot", "book"), w.pk("slot"))


def _claims(w: World, status: str, in_window: bool | None = None) -> list[dict]:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=FILING_WINDOW_DAYS)).date().isoformat()
    out = []
    for claim in w.rows["insurance_claim"]:
        if claim["status"] != status or claim["service_date"] == cutoff:
            continue
        if in_window is not None and (claim["service_date"] > cutoff) != in_window:
            continue
        out.append(claim)
    return out


@intent("action", categories=("healthcare",), needs=("insurance_claim",))
def health_submit_claim(w: World) -> Plan | None:
    claim = w.pick(_claims(w, "draft", in_window=True))
    if claim is None:
        return None
    calls = [(w.n.list("insurance_claim"), {"number": claim["number"]}),
             (w.n.action("insurance_claim", "submit"), {w.pk("insurance_claim"): claim["id"]})]
    goal = Goal(kind="row_equals", table=w.table("insurance_claim"), pk=claim["id"],
                expect={"status": "submitted", "submitted_on": TODAY})
    say = Say("do", (
        "send {INSURANCE_CLAIM} {number} to {insurer}",
        "{INSURANCE_CLAIM} {number} is ready || submit it to the insurer",
    ), {"number": claim["number"], "insurer": claim["insurer"]})
    return Plan(calls, [goal], say, targets={("insurance_claim", claim["id"])})


@intent("infeasible", categories=("healthcare",), needs=("insurance_claim",))
def health_late_claim(w: World) -> Plan | None:
    claim = w.pick(_claims(w, "draft", in_window=False))
    if claim is None:
        return None
    say = Say("do", (
        "submit {INSURANCE_CLAIM} {number} to {insurer}",
        "{INSURANCE_CLAIM} {number} was never sent || submit it now",
    ), {"number": claim["number"], "insurer": claim["insurer"]})
    return Plan([(w.n.list("insurance_claim"), {"number": claim["number"]})], [w.number_answer(FILING_WINDOW_DAYS)],
                say, answer=f"Its service was on {claim['service_date']}, past the {FILING_WINDOW_DAYS}-day filing "
                            "window, so it can no longer be submitted.", targets={("insurance_claim", claim["id"])})


@intent("action", categories=("healthcare",), needs=("insurance_claim",))
def health_record_claim_decision(w: World) -> Plan | None:
    claim = w.pick(_claims(w, "submitted"))
    if claim is None:
        return None
    calls = [(w.n.list("insurance_claim"), {"number": claim["number"]})]
    if w.chance(0.5):
        share = w.pick([0.5, 0.7, 0.8, 0.9, 1.0])
        amount = round(claim["amount_claimed"] * share, 2)
        calls.append((w.n.action("insurance_claim", "approve"), {w.pk("insurance_claim"): claim["id"],
                                                                  "amount_approved": amount}))
        expect = {"status": "approved", "amount_approved": {"approx": amount}}
        say = Say("do", (
            "{insurer} approved {amount} of {INSURANCE_CLAIM} {number} || record it",
            "record the approval of {INSURANCE_CLAIM} {number} for {amount}",
        ), {"insurer": claim["insurer"], "amount": money(amount), "number": claim["number"]})
    else:
        reason = w.pick(["not_covered", "missing_information", "no_authorisation"])
        calls.append((w.n.action("insurance_claim", "deny"), {w.pk("insurance_claim"): claim["id"], "reason": reason}))
        expect = {"status": "denied", "denial_reason": reason}
        say = Say("do", (
            "{insurer} turned down {INSURANCE_CLAIM} {number} || record the denial with the reason {reason}",
            "mark {INSURANCE_CLAIM} {number} as denied, reason {reason}",
        ), {"insurer": claim["insurer"], "reason": reason, "number": claim["number"]})
    goal = Goal(kind="row_equals", table=w.table("insurance_claim"), pk=claim["id"], expect=expect)
    return Plan(calls, [goal], say, targets={("insurance_claim", claim["id"])})


@intent("aggregate", categories=("healthcare",), needs=("procedure",))
def health_perform_planned(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        planned = [p for p in w.children("procedure", "case", case["id"]) if p["status"] == "planned"]
        if planned and case["status"] not in ("cancelled", "no_show"):
            options.append((case, planned))
    pick = w.pick(options)
    if pick is None:
        return None
    case, planned = pick
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("procedure"), {w.fk("case"): case["id"]}),
             *[(w.n.action("procedure", "perform"), {w.pk("procedure"): p["id"]}) for p in planned]]
    goals = [Goal(kind="row_equals", table=w.table("procedure"), pk=p["id"],
                  expect={"status": "performed", "performed_on": TODAY}) for p in planned]
    say = Say("do", (
        "every {PROCEDURE} planned for {CASE} {code} was done today || record them as performed",
        "mark all the planned {PROCEDURE/pl} of {CASE} {code} as performed",
    ), {"code": case["code"]})
    return Plan(calls, goals, say, targets={("case", case["id"])})


# --- logistics -------------------------------------------------------------------------------------------------


@intent("chained", categories=("logistics",), needs=("rate_quote",))
def logistics_accept_cheapest_quote(w: World) -> Plan | None:
    """Of a person's offered, still valid quotes for one lane, the cheapest accepted and the others declined."""
    lanes: dict[tuple, list[dict]] = {}
    for q in w.rows["rate_quote"]:
        if q["status"] == "offered" and q["valid_until"] >= TODAY:
            lanes.setdefault((q[w.fk("party")], q["origin_city"], q["destination_city"]), []).append(q)
    options = [(k, sorted(v, key=lambda q: q["amount"])) for k, v in lanes.items()
               if _active_party(w, v[0]) is not None and len(v) <= 4]
    options = [(k, v) for k, v in options if len(v) == 1 or v[0]["amount"] < v[1]["amount"]]
    if not options:
        return None
    (party_id, origin, dest), quotes = w.rng.choice(options)
    party = w.by_id("party", party_id)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("rate_quote"), {w.fk("party"): party_id, "origin_city": origin,
                                                          "destination_city": dest, "status": "offered"}),
             (w.n.action("rate_quote", "accept"), {w.pk("rate_quote"): quotes[0]["id"]}),
             *[(w.n.action("rate_quote", "decline"), {w.pk("rate_quote"): q["id"]}) for q in quotes[1:]]]
    goals = [Goal(kind="row_equals", table=w.table("rate_quote"), pk=quotes[0]["id"], expect={"status": "accepted"}),
             *[Goal(kind="row_equals", table=w.table("rate_quote"), pk=q["id"], expect={"status": "declined"})
               for q in quotes[1:]]]
    say = Say("do", (
        "accept the cheapest of {their} open {RATE_QUOTE/pl} from {origin} to {dest} and decline any others",
        "{they} want to book {origin} to {dest} || accept the lowest of {their} offered {RATE_QUOTE/pl} for that "
        "lane and decline the rest",
    ), {"origin": origin, "dest": dest}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party_id)}).derive(w.n.action("rate_quote", "accept"),
                                                                        w.pk("rate_quote"))


@intent("infeasible", categories=("logistics",), needs=("rate_quote",))
def logistics_accept_lapsed_quote(w: World) -> Plan | None:
    quote_ = w.pick([q for q in w.rows["rate_quote"] if q["status"] == "expired"])
    if quote_ is None:
        return None
    say = Say("do", (
        "accept {RATE_QUOTE} {number} for the {origin} to {dest} move",
        "the customer said yes to {RATE_QUOTE} {number} || accept it",
    ), {"number": quote_["number"], "origin": quote_["origin_city"], "dest": quote_["destination_city"]})
    return Plan([(w.n.list("rate_quote"), {"number": quote_["number"]})], [w.status_answer("expired")], say,
                answer="That quote has expired, so it is too late to take it up.",
                targets={("rate_quote", quote_["id"])})


@intent("action", categories=("logistics",), needs=("exception",))
def logistics_report_exception(w: World) -> Plan | None:
    shipment = w.pick([s for s in w.rows["shipment"] if s["status"] in ("booked", "in_transit")])
    if shipment is None:
        return None
    kind = w.pick(["delay", "damage", "address_issue", "customs_hold"])
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}),
             (w.n.create("exception"), {w.fk("shipment"): shipment["id"], "kind": kind})]
    goals = [Goal(kind="rows_created", table=w.table("exception"), count=1,
                  expect={w.fk("shipment"): shipment["id"], "kind": kind, "status": "open"}),
             Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"], expect={"status": "exception"})]
    words = {"delay": "is running late", "damage": "arrived at a hub damaged", "address_issue":
             "has a delivery address problem", "customs_hold": "is held at customs"}[kind]
    say = Say("do", (
        "{SHIPMENT} {number} " + words + " || report a {kind} {EXCEPTION} on it",
        "log a {kind} {EXCEPTION} against {SHIPMENT} {number}",
    ), {"number": shipment["number"], "kind": kind.replace("_", " ")})
    return Plan(calls, goals, say, targets={("shipment", shipment["id"])})


@intent("action", categories=("logistics",), needs=("exception",))
def logistics_resolve_exception(w: World) -> Plan | None:
    options = []
    for ex in w.rows["exception"]:
        if ex["status"] != "open":
            continue
        shipment = w.by_id("shipment", ex[w.fk("shipment")])
        if sum(e["status"] == "open" for e in w.children("exception", "shipment", shipment["id"])) == 1:
            options.append((ex, shipment))
    pick = w.pick(options)
    if pick is None:
        return None
    ex, shipment = pick
    resolution = w.pick(["Goods re-inspected and released", "New delivery address confirmed", "Carrier rebooked",
                         "Customs paperwork corrected"])
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}),
             (w.n.list("exception"), {w.fk("shipment"): shipment["id"], "status": "open"}),
             (w.n.action("exception", "resolve"), {w.pk("exception"): ex["id"], "resolution": resolution})]
    goals = [Goal(kind="row_equals", table=w.table("exception"), pk=ex["id"],
                  expect={"status": "resolved", "resolution": {"text": resolution}})]
    if shipment["status"] == "exception":
        goals.append(Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"],
                          expect={"status": "in_transit"}))
    say = Say("do", (
        "close the open {EXCEPTION} on {SHIPMENT} {number} with the resolution {resolution}",
        "the problem with {SHIPMENT} {number} is sorted || resolve its open {EXCEPTION}: {resolution}",
    ), {"number": shipment["number"], "resolution": quote(resolution)})
    return Plan(calls, goals, say, targets={("shipment", shipment["id"])})


@intent("chained", categories=("logistics",), needs=("shipment",))
def logistics_most_punctual_carrier(w: World) -> Plan | None:
    """A booked shipment given to the active carrier with the best on-time rate (found by listing them)."""
    carriers = sorted((c for c in w.rows["carrier"] if c["active"]), key=lambda c: -c["on_time_rate"])
    if len(carriers) < 2 or carriers[0]["on_time_rate"] == carriers[1]["on_time_rate"]:
        return None
    best = carriers[0]
    shipment = w.pick([s for s in w.rows["shipment"] if s["status"] == "booked" and s[w.fk("carrier")] != best["id"]])
    if shipment is None:
        return None
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}), (w.n.list("carrier"), {"active": 1}),
             (w.n.action("shipment", "assign_carrier"), {w.pk("shipment"): shipment["id"], w.fk("carrier"): best["id"]})]
    goal = Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"], expect={w.fk("carrier"): best["id"]})
    say = Say("do", (
        "give {SHIPMENT} {number} to whichever active {CARRIER} has the best on-time rate",
        "{SHIPMENT} {number} must not be late || hand it to the most punctual active {CARRIER}",
    ), {"number": shipment["number"]})
    return Plan(calls, [goal], say, targets={("shipment", shipment["id"])}).derive(
        w.n.action("shipment", "assign_carrier"), w.fk("carrier"))


@intent("question", categories=("logistics",), needs=("leg",))
def logistics_legs_left(w: World) -> Plan | None:
    options = []
    for s in w.rows["shipment"]:
        legs = w.children("leg", "shipment", s["id"])
        if s["status"] in ("booked", "in_transit") and len(legs) >= 2:
            options.append((s, legs))
    pick = w.pick(options)
    if pick is None:
        return None
    shipment, legs = pick
    left = sum(leg["status"] != "arrived" for leg in legs)
    say = Say("ask", (
        "how many legs of {SHIPMENT} {number} have not arrived yet",
        "for {SHIPMENT} {number}, how many of its {LEG/pl} are still to arrive",
    ), {"number": shipment["number"]})
    return Plan([(w.n.list("shipment"), {"number": shipment["number"]}),
                 (w.n.get("shipment"), {w.pk("shipment"): shipment["id"]})],
                [w.number_answer(left)], say, answer=count(left, "leg"), targets={("shipment", shipment["id"])})


# --- insurance -------------------------------------------------------------------------------------------------


def _policies(w: World, renewable: bool) -> list[dict]:
    window = (datetime.fromisoformat(TODAY) + timedelta(days=RENEWAL_WINDOW_DAYS)).date().isoformat()
    return [p for p in w.rows["policy"] if p["status"] == "active" and _active_party(w, p) is not None
            and p["ends_on"] != window and (p["ends_on"] < window) == renewable]


def _next_year(iso_day: str) -> str:
    ends = str(int(iso_day[:4]) + 1) + iso_day[4:]
    return ends[:5] + "02-28" if ends[5:] == "02-29" else ends


@intent("action", categories=("insurance",), needs=("policy",))
def insurance_renew_policy(w: World) -> Plan | None:
    policy = w.pick(_policies(w, renewable=True))
    if policy is None:
        return None
    ref = w.party_ref(w.party_of(policy))
    calls = [w.find_party(ref), (w.n.list("policy"), {w.fk("party"): policy[w.fk("party")]}),
             (w.n.action("policy", "renew"), {w.pk("policy"): policy["id"]})]
    goal = Goal(kind="row_equals", table=w.table("policy"), pk=policy["id"],
                expect={"ends_on": _next_year(policy["ends_on"]), "status": "active"})
    say = Say("do", (
        "{their} {POLICY} {number} runs out on {ends} || renew it for another year",
        "renew {POLICY} {number} for {them} for one more year",
    ), {"number": policy["number"], "ends": policy["ends_on"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("policy", policy["id"])})


@intent("infeasible", categories=("insurance",), needs=("policy",))
def insurance_renew_too_early(w: World) -> Plan | None:
    policy = w.pick(_policies(w, renewable=False))
    if policy is None:
        return None
    ref = w.party_ref(w.party_of(policy))
    say = Say("do", (
        "renew {POLICY} {number} for another year now",
        "{they} would like to renew {POLICY} {number} early || do the renewal",
    ), {"number": policy["number"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("policy"), {w.fk("party"): policy[w.fk("party")]})],
                [w.number_answer(RENEWAL_WINDOW_DAYS)], say,
                answer=f"Renewal only opens in the last {RENEWAL_WINDOW_DAYS} days of the term, and this policy runs "
                       "for longer than that.", targets={("policy", policy["id"])})


def _overdue(w: World) -> list[tuple[dict, list[dict]]]:
    out = []
    for policy in w.rows["policy"]:
        late = [i for i in w.children("installment", "policy", policy["id"]) if i["status"] == "overdue"]
        if late and len(late) <= 4:
            out.append((policy, late))
    return out


@intent("aggregate", categories=("insurance",), needs=("installment",))
def insurance_overdue_total(w: World) -> Plan | None:
    pick = w.pick(_overdue(w))
    if pick is None:
        return None
    policy, late = pick
    total = round(sum(i["amount"] for i in late), 2)
    say = Say("ask", (
        "how much is overdue on {POLICY} {number}, all overdue {INSTALLMENT/pl} together",
        "what do the overdue {INSTALLMENT/pl} of {POLICY} {number} add up to",
    ), {"number": policy["number"]})
    return Plan([(w.n.list("policy"), {"number": policy["number"]}),
                 (w.n.list("installment"), {w.fk("policy"): policy["id"], "status": "overdue"})],
                [w.money_answer(total)], say, answer=money(total), targets={("policy", policy["id"])})


@intent("aggregate", categories=("insurance",), needs=("installment",))
def insurance_settle_arrears(w: World) -> Plan | None:
    pick = w.pick(_overdue(w))
    if pick is None:
        return None
    policy, late = pick
    calls = [(w.n.list("policy"), {"number": policy["number"]}),
             (w.n.list("installment"), {w.fk("policy"): policy["id"], "status": "overdue"}),
             *[(w.n.action("installment", "pay"), {w.pk("installment"): i["id"]}) for i in late]]
    goals = [Goal(kind="row_equals", table=w.table("installment"), pk=i["id"],
                  expect={"status": "paid", "paid_on": TODAY}) for i in late]
    say = Say("do", (
        "the arrears on {POLICY} {number} were paid in full today || mark every overdue {INSTALLMENT} as paid",
        "record payment of all the overdue {INSTALLMENT/pl} on {POLICY} {number}",
    ), {"number": policy["number"]})
    return Plan(calls, goals, say, targets={("policy", policy["id"])})


def _shares(w: World) -> list[tuple[dict, int]]:
    out = []
    for policy in w.rows["policy"]:
        if policy["status"] == "active" and _active_party(w, policy) is not None:
            taken = sum(b["share_percent"] for b in w.children("beneficiary", "policy", policy["id"]))
            out.append((policy, 100 - taken))
    return out


@intent("action", categories=("insurance",), needs=("beneficiary",))
def insurance_name_beneficiary(w: World) -> Plan | None:
    pick = w.pick([(p, free) for p, free in _shares(w) if free >= 10])
    if pick is None:
        return None
    policy, free = pick
    share = w.pick([s for s in (10, 20, 25, 30, 50) if s <= free])
    first = w.pick(["Maya", "Jonah", "Elena", "Tobias", "Priya", "Owen", "Lucia", "Samir"])
    name = f"{first} {w.party_of(policy)['last_name']}"
    relationship = w.pick(["spouse", "child", "parent", "sibling"])
    ref = w.party_ref(w.party_of(policy))
    calls = [w.find_party(ref), (w.n.list("policy"), {w.fk("party"): policy[w.fk("party")]}),
             (w.n.create("beneficiary"), {w.fk("policy"): policy["id"], "full_name": name,
                                          "relationship": relationship, "share_percent": share})]
    goal = Goal(kind="rows_created", table=w.table("beneficiary"), count=1, expect={
        w.fk("policy"): policy["id"], "full_name": {"text": name}, "relationship": relationship, "share_percent": share})
    say = Say("do", (
        "add {person_named} ({relationship}) as {a BENEFICIARY} on {POLICY} {number} with a {share}% share",
        "name {their} {relationship} {person_named} on {POLICY} {number}: {share}% of the benefit",
    ), {"person_named": name, "relationship": relationship, "share": share, "number": policy["number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("policy", policy["id"])})


@intent("infeasible", categories=("insurance",), needs=("beneficiary",))
def insurance_over_allocate(w: World) -> Plan | None:
    pick = w.pick([(p, free) for p, free in _shares(w) if free < 50])
    if pick is None:
        return None
    policy, free = pick
    share = w.pick([s for s in (50, 60, 75) if s > free])
    ref = w.party_ref(w.party_of(policy))
    name = f"Alex {w.party_of(policy)['last_name']}"
    say = Say("do", (
        "add {person_named} as {a BENEFICIARY} on {POLICY} {number} with a {share}% share",
        "name {person_named} on {POLICY} {number} for {share}% of the benefit",
    ), {"person_named": name, "share": share, "number": policy["number"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("policy"), {w.fk("party"): policy[w.fk("party")]}),
                 (w.n.list("beneficiary"), {w.fk("policy"): policy["id"]})], [w.number_answer(free)], say,
                answer=f"Only {free}% of the benefit is still unallocated, so a larger share cannot be added.",
                targets={("policy", policy["id"])})


# --- hospitality -----------------------------------------------------------------------------------------------


def _room_ref(w: World, room: dict) -> tuple[dict, dict]:
    site = w.by_id("site", room[w.fk("site")])
    same = [r for r in w.rows["room"] if r[w.fk("site")] == site["id"] and r["room_number"] == room["room_number"]]
    return site, ({"ok": True} if len(same) == 1 else {})


@intent("action", categories=("hospitality",), needs=("room",))
def hotel_room_out_of_service(w: World) -> Plan | None:
    options = [r for r in w.rows["room"] if r["status"] == "available" and _room_ref(w, r)[1]]
    room = w.pick(options)
    if room is None:
        return None
    site = w.by_id("site", room[w.fk("site")])
    reason = w.pick(["Leaking shower", "Broken window", "Carpet replacement", "Electrical fault"])
    calls = [w.find_site(site), (w.n.list("room"), {w.fk("site"): site["id"], "room_number": room["room_number"]}),
             (w.n.action("room", "take_out_of_service"), {w.pk("room"): room["id"], "reason": reason})]
    goal = Goal(kind="row_equals", table=w.table("room"), pk=room["id"],
                expect={"status": "out_of_service", "out_of_service_reason": {"text": reason}})
    say = Say("do", (
        "take {ROOM} {number} at {site} out of service: {reason}",
        "{ROOM} {number} at {site} can't be sold || put it out of service with the reason {reason}",
    ), {"number": room["room_number"], "site": site["name"], "reason": quote(reason)})
    return Plan(calls, [goal], say, targets={("room", room["id"])})


@intent("infeasible", categories=("hospitality",), needs=("room",))
def hotel_inspect_dirty_room(w: World) -> Plan | None:
    room = w.pick([r for r in w.rows["room"] if r["housekeeping"] == "dirty" and _room_ref(w, r)[1]])
    if room is None:
        return None
    site = w.by_id("site", room[w.fk("site")])
    say = Say("do", (
        "mark {ROOM} {number} at {site} as inspected",
        "housekeeping says {ROOM} {number} at {site} is ready || record it as inspected",
    ), {"number": room["room_number"], "site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("room"), {w.fk("site"): site["id"], "room_number": room["room_number"]})],
                [w.text_answer("dirty", ["clean", "dirty", "inspected"])], say,
                answer="The room is still dirty; it has to be cleaned first.",
                targets={("room", room["id"])})


@intent("action", categories=("hospitality",), needs=("charge",))
def hotel_post_charge(w: World) -> Plan | None:
    fl = w.fl
    open_ = tuple(s for s in fl.statuses if s not in ("cancelled", fl.initial))
    case = w.pick([c for c in w.rows["case"] if c["status"] in open_ and _active_party(w, c) is not None])
    if case is None:
        return None
    kind = w.pick(["minibar", "room_service", "parking", "laundry", "spa"])
    amount = float(w.pick([12.5, 18.0, 24.0, 35.0, 42.5, 60.0]))
    description = {"minibar": "Minibar", "room_service": "Room service dinner", "parking": "Overnight parking",
                   "laundry": "Laundry service", "spa": "Spa treatment"}[kind]
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("charge"), {w.fk("case"): case["id"], "kind": kind, "amount": amount,
                                              "description": description})]
    goal = Goal(kind="rows_created", table=w.table("charge"), count=1, expect={
        w.fk("case"): case["id"], "kind": kind, "amount": {"approx": amount}, "description": {"text": description},
        "status": "posted"})
    say = Say("do", (
        "post {a CHARGE} of {amount} for {what} to {case}",
        "add {amount} for {what} to {case} as {a CHARGE}",
    ), {"amount": money(amount), "what": description.lower(), "case": case_np}, party=ref, voices=("staff",))
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("hospitality",), needs=("room_block",))
def hotel_resize_released_block(w: World) -> Plan | None:
    block = w.pick([b for b in w.rows["room_block"] if b["status"] != "held"])
    if block is None:
        return None
    rooms = block["rooms_held"] + w.pick([2, 4, 5])
    say = Say("do", (
        "the group needs {rooms} rooms || change {ROOM_BLOCK} {code} to hold {rooms}",
        "set {ROOM_BLOCK} {code} to {rooms} rooms",
    ), {"code": block["code"], "rooms": rooms})
    return Plan([(w.n.list("room_block"), {"code": block["code"]})], [w.status_answer(block["status"])], say,
                answer=f"That block is already {block['status'].replace('_', ' ')}, so it no longer holds rooms to "
                       "change.", targets={("room_block", block["id"])})


@intent("action", categories=("hospitality",), needs=("room_block",))
def hotel_resize_block(w: World) -> Plan | None:
    block = w.pick([b for b in w.rows["room_block"] if b["status"] == "held" and b["release_on"] > TODAY])
    if block is None:
        return None
    rooms = max(1, block["rooms_held"] + w.pick([-3, -2, 2, 5]))
    calls = [(w.n.list("room_block"), {"code": block["code"]}),
             (w.n.action("room_block", "resize"), {w.pk("room_block"): block["id"], "rooms_held": rooms})]
    goal = Goal(kind="row_equals", table=w.table("room_block"), pk=block["id"], expect={"rooms_held": rooms})
    say = Say("do", (
        "the group now needs {rooms} rooms || change {ROOM_BLOCK} {code} to hold that many",
        "set {ROOM_BLOCK} {code} to {rooms} rooms",
    ), {"code": block["code"], "rooms": rooms})
    return Plan(calls, [goal], say, targets={("room_block", block["id"])})


# --- education -------------------------------------------------------------------------------------------------


def _on_hold(w: World, party: dict) -> dict | None:
    if not w.has("registration_hold"):
        return None
    return next((h for h in w.children("registration_hold", "party", party["id"]) if h["status"] == "active"), None)


@intent("action", categories=("education",), needs=("section",))
def edu_enrol_in_section(w: World) -> Plan | None:
    sections = [s for s in w.rows["section"] if s["status"] == "open" and s["enrolled"] < s["capacity"]]
    section = w.pick(sections)
    if section is None:
        return None
    taken = {e[w.fk("party")] for e in w.children("enrolment", "section", section["id"])}
    party = w.pick([p for p in w.active_parties() if p["id"] not in taken and _on_hold(w, p) is None])
    if party is None:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("section"), {"code": section["code"]}),
             (w.n.create("enrolment"), {w.fk("party"): party["id"], w.fk("section"): section["id"]})]
    goals = [Goal(kind="rows_created", table=w.table("enrolment"), count=1, expect={
                 w.fk("party"): party["id"], w.fk("section"): section["id"], "status": "enrolled"}),
             Goal(kind="row_delta", table=w.table("section"), pk=section["id"], column="enrolled", delta=1)]
    say = Say("do", (
        "enrol {them} in {SECTION} {code}",
        "{they} would like a seat in {SECTION} {code} || enrol {them}",
    ), {"code": section["code"]}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("section", section["id"])})


@intent("infeasible", categories=("education",), needs=("section", "registration_hold"))
def edu_enrol_while_on_hold(w: World) -> Plan | None:
    options = [(p, _on_hold(w, p)) for p in w.active_parties()]
    pick = w.pick([(p, h) for p, h in options if h is not None])
    section = w.pick([s for s in w.rows["section"] if s["status"] == "open"])
    if pick is None or section is None:
        return None
    party, hold = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "enrol {them} in {SECTION} {code}",
        "sign {them} up for {SECTION} {code}",
    ), {"code": section["code"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("registration_hold"), {w.fk("party"): party["id"], "status": "active"})],
                [w.text_answer(hold["reason"], ["unpaid_fees", "missing_documents", "advising_required",
                                                "conduct_review"])], say,
                answer=f"There is an active {w.L['registration_hold']} on the record ({hold['reason']}), so no "
                       "enrolment can be made until it is lifted.", targets={("party", party["id"])})


@intent("action", categories=("education",), needs=("transcript_request",))
def edu_send_transcript(w: World) -> Plan | None:
    options = []
    for t in w.rows["transcript_request"]:
        party = _active_party(w, t)
        unpaid = party is not None and (h := _on_hold(w, party)) is not None and h["reason"] == "unpaid_fees"
        mine = [x for x in w.children("transcript_request", "party", t[w.fk("party")]) if x["status"] == "requested"]
        if t["status"] == "requested" and party is not None and not unpaid and len(mine) == 1:
            options.append((t, party))
    pick = w.pick(options)
    if pick is None:
        return None
    request, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("transcript_request"), {w.fk("party"): party["id"], "status": "requested"}),
             (w.n.action("transcript_request", "mail"), {w.pk("transcript_request"): request["id"]})]
    goal = Goal(kind="row_equals", table=w.table("transcript_request"), pk=request["id"],
                expect={"status": "sent", "sent_on": TODAY})
    say = Say("do", (
        "send {their} pending transcript to {destination}",
        "{their} {TRANSCRIPT_REQUEST} for {destination} is waiting || send it today",
    ), {"destination": request["destination"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])})


# --- telecom ---------------------------------------------------------------------------------------------------


@intent("action", categories=("telecom",), needs=("service_line",))
def telecom_suspend_lost_phone(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if ln["status"] == "active" and _active_party(w, ln)])
    if line is None:
        return None
    ref = w.party_ref(w.party_of(line))
    calls = [w.find_party(ref), (w.n.list("service_line"), {w.fk("party"): line[w.fk("party")]}),
             (w.n.action("service_line", "suspend"), {w.pk("service_line"): line["id"], "reason": "lost_device"})]
    goal = Goal(kind="row_equals", table=w.table("service_line"), pk=line["id"],
                expect={"status": "suspended", "suspend_reason": "lost_device"})
    say = Say("do", (
        "{they} lost the phone with the number {number} || suspend that {SERVICE_LINE}, reason lost_device",
        "suspend {their} {SERVICE_LINE} {number} because the device was lost (reason lost_device)",
    ), {"number": line["phone_number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("service_line", line["id"])})


@intent("infeasible", categories=("telecom",), needs=("service_line",))
def telecom_change_plan_while_suspended(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if ln["status"] == "suspended" and _active_party(w, ln)])
    item = w.pick([i for i in w.rows["item"] if i["active"]])
    if line is None or item is None or item["id"] == line[w.fk("item")]:
        return None
    ref = w.party_ref(w.party_of(line))
    say = Say("do", (
        "move {their} {SERVICE_LINE} {number} onto {item}",
        "switch the plan of {SERVICE_LINE} {number} to {item}",
    ), {"number": line["phone_number"], "item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("service_line"), {w.fk("party"): line[w.fk("party")]})],
                [w.status_answer("suspended")], say,
                answer="That line is suspended; its plan cannot change until it is restored.",
                targets={("service_line", line["id"])})


@intent("aggregate", categories=("telecom",), needs=("usage",))
def telecom_data_used(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if w.children("usage", "service_line", ln["id"])])
    if line is None:
        return None
    used = round(sum(u["data_gb"] for u in w.children("usage", "service_line", line["id"])), 2)
    say = Say("ask", (
        "how many GB of data has {SERVICE_LINE} {number} used across all its {USAGE/pl}",
        "what is the total data (in GB) recorded across the {USAGE/pl} of {SERVICE_LINE} {number}",
    ), {"number": line["phone_number"]})
    return Plan([(w.n.list("service_line"), {"phone_number": line["phone_number"]}),
                 (w.n.list("usage"), {w.fk("service_line"): line["id"]})],
                [w.number_answer(used)], say, answer=f"{used} GB", targets={("service_line", line["id"])})


@intent("conditional", categories=("telecom",), needs=("port_request",))
def telecom_finish_port(w: World) -> Plan | None:
    request = w.pick([r for r in w.rows["port_request"] if r["status"] == "pending" and _active_party(w, r)])
    if request is None:
        return None
    ref = w.party_ref(w.party_of(request))
    calls = [w.find_party(ref), (w.n.list("port_request"), {w.fk("party"): request[w.fk("party")],
                                                            "phone_number": request["phone_number"]})]
    if request["pin_verified"]:
        calls.append((w.n.action("port_request", "complete"), {w.pk("port_request"): request["id"]}))
        goals = [Goal(kind="row_equals", table=w.table("port_request"), pk=request["id"], expect={"status": "completed"})]
        answer = None
    else:
        goals, answer = [w.text_answer(request["donor_carrier"], list(DONOR_CARRIERS))], request["donor_carrier"]
    say = Say("do", (
        "if the PIN on {their} port of {number} is verified, complete the port; if not, tell me which carrier we are "
        "still waiting on",
        "check {their} {PORT_REQUEST} for {number} || complete it when its PIN is verified, otherwise tell me the "
        "donor carrier",
    ), {"number": request["phone_number"]}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=answer, targets={("port_request", request["id"])})


# --- real estate -----------------------------------------------------------------------------------------------


def _month_end(after: str) -> str:
    d = datetime.fromisoformat(after) + timedelta(days=1)
    while (d + timedelta(days=1)).month == d.month:
        d += timedelta(days=1)
    return d.date().isoformat()


@intent("action", categories=("real_estate",), needs=("lease",))
def realestate_give_notice(w: World) -> Plan | None:
    earliest = (datetime.fromisoformat(TODAY) + timedelta(days=NOTICE_DAYS)).date().isoformat()
    end = _month_end(earliest)
    lease = w.pick([x for x in w.rows["lease"] if x["status"] == "active" and x["ends_on"] > end and _active_party(w, x)])
    if lease is None:
        return None
    ref = w.party_ref(w.party_of(lease))
    calls = [w.find_party(ref), (w.n.list("lease"), {w.fk("party"): lease[w.fk("party")]}),
             (w.n.action("lease", "terminate"), {w.pk("lease"): lease["id"], "ends_on": end})]
    goal = Goal(kind="row_equals", table=w.table("lease"), pk=lease["id"], expect={"status": "terminated", "ends_on": end})
    say = Say("do", (
        "{they_are} moving out || end {LEASE} {number} on {end}",
        "terminate {their} {LEASE} {number} with effect from {end}",
    ), {"number": lease["number"], "end": end}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("lease", lease["id"])})


@intent("infeasible", categories=("real_estate",), needs=("lease",))
def realestate_short_notice(w: World) -> Plan | None:
    lease = w.pick([x for x in w.rows["lease"] if x["status"] == "active" and _active_party(w, x)])
    if lease is None:
        return None
    end = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([7, 10, 14]))).date().isoformat()
    if end >= lease["ends_on"]:
        return None
    ref = w.party_ref(w.party_of(lease))
    say = Say("do", (
        "end {LEASE} {number} on {end}",
        "{they} want to leave early || terminate {LEASE} {number} as of {end}",
    ), {"number": lease["number"], "end": end}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("lease"), {w.fk("party"): lease[w.fk("party")]})],
                [w.number_answer(NOTICE_DAYS)], say,
                answer=f"A lease can only end at least {NOTICE_DAYS} days after notice is given.",
                targets={("lease", lease["id"])})


@intent("action", categories=("real_estate",), needs=("repair_request",))
def realestate_schedule_repair(w: World) -> Plan | None:
    request = w.pick([r for r in w.rows["repair_request"] if r["status"] == "open" and _active_party(w, r)])
    member = w.pick(w.staff_pool())
    if request is None or member is None:
        return None
    when = f"2025-06-0{w.pick([2, 3, 4])}T{w.pick(['09', '11', '14'])}:00:00"
    ref = w.party_ref(w.party_of(request))
    calls = [w.find_party(ref), (w.n.list("repair_request"), {w.fk("party"): request[w.fk("party")], "status": "open"}),
             w.find_staff(member),
             (w.n.action("repair_request", "schedule"), {w.pk("repair_request"): request["id"],
                                                         w.fk("staff"): member["id"], "scheduled_for": when})]
    goal = Goal(kind="row_equals", table=w.table("repair_request"), pk=request["id"],
                expect={"status": "scheduled", w.fk("staff"): member["id"], "scheduled_for": {"prefix": when[:16]}})
    say = Say("do", (
        "send {staff} to fix {their} {kind} problem on {long} at {time}",
        "schedule {their} open {kind} {REPAIR_REQUEST} with {staff} for {long}, {time}",
    ), {"staff": w.person(member), "kind": request["kind"], "long": long_date(when), "time": when[11:16]},
        party=ref, voices=BOTH)
    if sum(r["status"] == "open" for r in w.children("repair_request", "party", request[w.fk("party")])) != 1:
        return None
    return Plan(calls, [goal], say, targets={("repair_request", request["id"])})


@intent("aggregate", categories=("real_estate",), needs=("showing",))
def realestate_cancel_agent_showings(w: World) -> Plan | None:
    pool = {s["id"] for s in w.staff_pool()}
    by_staff: dict[int, list[dict]] = {}
    for s in w.rows["showing"]:
        if s["status"] == "scheduled" and s[w.fk("staff")] in pool:
            by_staff.setdefault(s[w.fk("staff")], []).append(s)
    options = [(k, v) for k, v in by_staff.items() if len(v) <= 4]
    if not options:
        return None
    staff_id, showings = w.rng.choice(options)
    member = w.by_id("staff", staff_id)
    calls = [w.find_staff(member), (w.n.list("showing"), {w.fk("staff"): staff_id, "status": "scheduled"}),
             *[(w.n.action("showing", "cancel"), {w.pk("showing"): s["id"]}) for s in showings]]
    goals = [Goal(kind="row_equals", table=w.table("showing"), pk=s["id"], expect={"status": "cancelled"})
             for s in showings]
    say = Say("do", (
        "{staff} is leaving us || cancel every {SHOWING} still scheduled with them",
        "cancel all of {staff}'s scheduled {SHOWING/pl}",
    ), {"staff": w.person(member)})
    return Plan(calls, goals, say, targets={("staff", staff_id)})


# --- fintech ---------------------------------------------------------------------------------------------------


def _budgets(w: World) -> list[tuple[dict, dict]]:
    return [(b, p) for b in w.rows["budget"] if b["status"] == "active" and (p := _active_party(w, b)) is not None]


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
        party = _active_party(w, g)
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
    say = Say("do", (
        "put {amount} towards {their} {SAVINGS_GOAL} {goal}",
        "add {amount} to {their} {goal} {SAVINGS_GOAL}",
    ), {"amount": money(w.pick([50.0, 100.0, 200.0])), "goal": quote(goal_row["name"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("savings_goal"), {w.fk("party"): party["id"]})],
                [w.status_answer("abandoned")], say,
                answer="That goal was abandoned, so nothing more can be put towards it.",
                targets={("savings_goal", goal_row["id"])})


@intent("action", categories=("fintech",), needs=("payout",))
def fin_hold_payout(w: World) -> Plan | None:
    options = []
    for p in w.rows["payout"]:
        party = _active_party(w, p)
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


# --- human resources -------------------------------------------------------------------------------------------


@intent("action", categories=("human_resources",), needs=("leave_request",))
def hr_approve_leave(w: World) -> Plan | None:
    options = []
    pool = {s["id"] for s in w.staff_pool()}
    for lr in w.rows["leave_request"]:
        member = lr[w.fk("staff")]
        mine = w.children("leave_request", "staff", member)
        clash = any(o["status"] == "approved" and o["starts_on"] <= lr["ends_on"] and o["ends_on"] >= lr["starts_on"]
                    for o in mine)
        if lr["status"] == "pending" and member in pool and not clash and sum(
                o["status"] == "pending" for o in mine) == 1:
            options.append(lr)
    lr = w.pick(options)
    if lr is None:
        return None
    member = w.by_id("staff", lr[w.fk("staff")])
    calls = [w.find_staff(member), (w.n.list("leave_request"), {w.fk("staff"): member["id"], "status": "pending"}),
             (w.n.action("leave_request", "approve"), {w.pk("leave_request"): lr["id"]})]
    goal = Goal(kind="row_equals", table=w.table("leave_request"), pk=lr["id"], expect={"status": "approved"})
    say = Say("do", (
        "approve {staff}'s pending {kind} leave from {start} to {end}",
        "{staff} asked for {kind} leave, {start} to {end} || approve it",
    ), {"staff": w.person(member), "kind": lr["kind"], "start": lr["starts_on"], "end": lr["ends_on"]})
    return Plan(calls, [goal], say, targets={("leave_request", lr["id"])})


@intent("aggregate", categories=("human_resources",), needs=("timesheet",))
def hr_approve_timesheets(w: World) -> Plan | None:
    pool = [s for s in w.staff_pool() if any(t["status"] == "submitted"
                                             for t in w.children("timesheet", "staff", s["id"]))]
    member = w.pick(pool)
    if member is None:
        return None
    sheets = [t for t in w.children("timesheet", "staff", member["id"]) if t["status"] == "submitted"]
    calls = [w.find_staff(member), (w.n.list("timesheet"), {w.fk("staff"): member["id"], "status": "submitted"}),
             *[(w.n.action("timesheet", "approve"), {w.pk("timesheet"): t["id"]}) for t in sheets]]
    goals = [Goal(kind="row_equals", table=w.table("timesheet"), pk=t["id"], expect={"status": "approved"})
             for t in sheets]
    say = Say("do", (
        "approve every submitted {TIMESHEET} of {staff}",
        "{staff}'s hours are checked || approve all of their submitted {TIMESHEET/pl}",
    ), {"staff": w.person(member)})
    return Plan(calls, goals, say, targets={("staff", member["id"])})


@intent("aggregate", categories=("human_resources",), needs=("background_check",))
def hr_cancel_checks(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        ordered = [c for c in w.children("background_check", "party", party["id"]) if c["status"] == "ordered"]
        if ordered:
            options.append((party, ordered))
    pick = w.pick(options)
    if pick is None:
        return None
    party, ordered = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("background_check"), {w.fk("party"): party["id"], "status": "ordered"}),
             *[(w.n.action("background_check", "cancel"), {w.pk("background_check"): c["id"]}) for c in ordered]]
    goals = [Goal(kind="row_equals", table=w.table("background_check"), pk=c["id"], expect={"status": "cancelled"})
             for c in ordered]
    say = Say("do", (
        "{they} withdrew || cancel every {BACKGROUND_CHECK} still ordered for {them}",
        "cancel all the ordered {BACKGROUND_CHECK/pl} on {party}",
    ), {}, party=ref, voices=("staff",))
    return Plan(calls, goals, say, targets={("party", party["id"])})


# --- utilities -------------------------------------------------------------------------------------------------


@intent("action", categories=("utilities",), needs=("meter", "meter_reading"))
def util_record_reading(w: World) -> Plan | None:
    meter = w.pick([m for m in w.rows["meter"] if m["status"] == "active"])
    if meter is None:
        return None
    reading = round(meter["last_reading"] + w.pick([112.0, 240.5, 388.0, 615.5]), 1)
    source = w.pick(["actual", "customer"])
    calls = [(w.n.list("meter"), {"serial": meter["serial"]}),
             (w.n.action("meter", "record_reading"), {w.pk("meter"): meter["id"], "reading": reading, "source": source})]
    goals = [Goal(kind="row_equals", table=w.table("meter"), pk=meter["id"],
                  expect={"last_reading": {"approx": reading}, "last_read_on": TODAY}),
             Goal(kind="rows_created", table=w.table("meter_reading"), count=1, expect={
                 w.fk("meter"): meter["id"], "reading": {"approx": reading}, "source": source})]
    say = Say("do", (
        "{METER} {serial} reads {reading} today ({source} reading) || record it",
        "record a reading of {reading} for {METER} {serial}, source {source}",
    ), {"serial": meter["serial"], "reading": reading, "source": source})
    return Plan(calls, goals, say, targets={("meter", meter["id"])})


@intent("infeasible", categories=("utilities",), needs=("meter",))
def util_backwards_reading(w: World) -> Plan | None:
    meter = w.pick([m for m in w.rows["meter"] if m["status"] == "active" and m["last_reading"] > 500])
    if meter is None:
        return None
    reading = round(meter["last_reading"] - w.pick([50.0, 120.0, 300.0]), 1)
    say = Say("do", (
        "record a reading of {reading} for {METER} {serial}",
        "{METER} {serial} shows {reading} || log that reading",
    ), {"serial": meter["serial"], "reading": reading})
    return Plan([(w.n.list("meter"), {"serial": meter["serial"]})], [w.number_answer(meter["last_reading"])], say,
                answer=f"The meter last read {meter['last_reading']}; a reading cannot go backwards.",
                targets={("meter", meter["id"])})


@intent("action", categories=("utilities",), needs=("outage",))
def util_dispatch_crew(w: World) -> Plan | None:
    outage = w.pick([o for o in w.rows["outage"] if o["status"] == "reported"])
    member = w.pick(w.staff_pool())
    if outage is None or member is None:
        return None
    site = w.by_id("site", outage[w.fk("site")])
    same = [o for o in w.rows["outage"] if o["status"] == "reported" and o["area"] == outage["area"]
            and o[w.fk("site")] == site["id"]]
    if len(same) != 1:
        return None
    calls = [w.find_site(site), (w.n.list("outage"), {w.fk("site"): site["id"], "status": "reported"}),
             w.find_staff(member),
             (w.n.action("outage", "dispatch_crew"), {w.pk("outage"): outage["id"], w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("outage"), pk=outage["id"],
                expect={"status": "crew_dispatched", w.fk("staff"): member["id"]})
    say = Say("do", (
        "send {staff} to the reported {OUTAGE} in {area} (handled by {site})",
        "dispatch {staff} to the {area} {OUTAGE} that {site} has on record",
    ), {"staff": w.person(member), "area": outage["area"], "site": site["name"]})
    return Plan(calls, [goal], say, targets={("outage", outage["id"])})


# --- commerce --------------------------------------------------------------------------------------------------


def _delivered(w: World, recent: bool) -> list[tuple[dict, dict]]:
    start = (datetime.fromisoformat(TODAY) - timedelta(days=RETURN_WINDOW_DAYS)).isoformat()
    tc = w.fl.time_column
    out = []
    for case in w.rows["case"]:
        if case["status"] != "delivered" or (case[tc] >= start) != recent or case[tc][:10] == start[:10]:
            continue
        returned = {r[w.fk("item")] for r in w.children("return_request", "case", case["id"])}
        lines = [x for x in w.children("line", "case", case["id"]) if x[w.fk("item")] not in returned]
        if lines and _active_party(w, case) is not None:
            out.append((case, lines[0]))
    return out


@intent("action", categories=("commerce",), needs=("return_request",), flavours=("fulfillment",))
def shop_authorise_return(w: World) -> Plan | None:
    pick = w.pick(_delivered(w, recent=True))
    if pick is None:
        return None
    case, line = pick
    item = w.by_id("item", line[w.fk("item")])
    reason = w.pick(["wrong_size", "damaged", "not_as_described", "changed_mind"])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("return_request"), {w.fk("case"): case["id"], w.fk("item"): item["id"],
                                                      "quantity": 1, "reason": reason})]
    goal = Goal(kind="rows_created", table=w.table("return_request"), count=1, expect={
        w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": 1, "reason": reason, "status": "requested"})
    say = Say("do", (
        "{they} want to send back 1 x {item} from {case} || authorise the return, reason {reason}",
        "open {a RETURN_REQUEST} for 1 x {item} from {case} with the reason {reason}",
    ), {"item": quote(item["name"]), "case": case_np, "reason": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("case", case["id"])})


def _cards(w: World, expired: bool) -> list[dict]:
    return [g for g in w.rows["gift_card"] if g["status"] == "active" and g["balance"] >= 10
            and (g["expires_on"] < TODAY) == expired and g["expires_on"] != TODAY]


@intent("action", categories=("commerce",), needs=("gift_card",))
def shop_redeem_gift_card(w: World) -> Plan | None:
    card = w.pick(_cards(w, expired=False))
    if card is None:
        return None
    amount = float(w.pick([x for x in (5.0, 10.0, 15.0, 20.0, 25.0) if x <= card["balance"]]))
    calls = [(w.n.list("gift_card"), {"code": card["code"]}),
             (w.n.action("gift_card", "redeem"), {"code": card["code"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("gift_card"), pk=card["id"],
                expect={"balance": {"approx": round(card["balance"] - amount, 2)}})
    say = Say("do", (
        "take {amount} off {GIFT_CARD} {code}",
        "the customer is paying {amount} with {GIFT_CARD} {code} || redeem it",
    ), {"amount": money(amount), "code": card["code"]})
    return Plan(calls, [goal], say, targets={("gift_card", card["id"])})


@intent("infeasible", categories=("commerce",), needs=("gift_card",))
def shop_redeem_expired_card(w: World) -> Plan | None:
    card = w.pick(_cards(w, expired=True))
    if card is None:
        return None
    say = Say("do", (
        "take {amount} off {GIFT_CARD} {code}",
        "redeem {amount} from {GIFT_CARD} {code}",
    ), {"amount": money(w.pick([5.0, 10.0])), "code": card["code"]})
    return Plan([(w.n.list("gift_card"), {"code": card["code"]})], [w.text_answer(card["expires_on"], [])], say,
                answer=f"That card expired on {card['expires_on']}, so it can no longer be used.",
                targets={("gift_card", card["id"])})


@intent("action", categories=("commerce",), needs=("wishlist_item",))
def shop_save_to_wishlist(w: World) -> Plan | None:
    party = w.pick(w.active_parties())
    if party is None:
        return None
    saved = {x[w.fk("item")] for x in w.children("wishlist_item", "party", party["id"])}
    item = w.pick([i for i in w.rows["item"] if i["active"] and i["id"] not in saved])
    if item is None:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), w.find_item(item),
             (w.n.create("wishlist_item"), {w.fk("party"): party["id"], w.fk("item"): item["id"]})]
    goal = Goal(kind="rows_created", table=w.table("wishlist_item"), count=1,
                expect={w.fk("party"): party["id"], w.fk("item"): item["id"]})
    say = Say("do", (
        "save {item} to {their} wishlist",
        "{they} like {item} but are not buying yet || add it to {their} wishlist",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])})


# --- travel ----------------------------------------------------------------------------------------------------


def _documents(w: World, valid: bool) -> list[tuple[dict, dict]]:
    cutoff = (datetime.fromisoformat(TODAY) + timedelta(days=VALIDITY_DAYS)).date().isoformat()
    return [(d, p) for d in w.rows["travel_document"] if d["status"] == "pending" and d["expires_on"] != cutoff
            and (d["expires_on"] > cutoff) == valid and (p := _active_party(w, d)) is not None]


@intent("action", categories=("travel",), needs=("travel_document",))
def travel_verify_document(w: World) -> Plan | None:
    pick = w.pick(_documents(w, valid=True))
    if pick is None:
        return None
    doc, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("travel_document"), {w.fk("party"): party["id"],
                                                               "document_number": doc["document_number"]}),
             (w.n.action("travel_document", "verify"), {w.pk("travel_document"): doc["id"]})]
    goal = Goal(kind="row_equals", table=w.table("travel_document"), pk=doc["id"], expect={"status": "verified"})
    say = Say("do", (
        "verify {their} {kind} {number}",
        "{their} {kind} {number} has been checked || mark the {TRAVEL_DOCUMENT} as verified",
    ), {"kind": doc["kind"].replace("_", " "), "number": doc["document_number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("travel_document", doc["id"])})


@intent("infeasible", categories=("travel",), needs=("travel_document",))
def travel_verify_expiring_document(w: World) -> Plan | None:
    pick = w.pick(_documents(w, valid=False))
    if pick is None:
        return None
    doc, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "verify {their} {kind} {number}",
        "mark {their} {kind} {number} as verified",
    ), {"kind": doc["kind"].replace("_", " "), "number": doc["document_number"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("travel_document"), {w.fk("party"): party["id"],
                                                                   "document_number": doc["document_number"]})],
                [w.number_answer(VALIDITY_DAYS)], say,
                answer=f"A document must stay valid at least {VALIDITY_DAYS} days from today to be verified; this one "
                       "expires sooner.", targets={("travel_document", doc["id"])})


@intent("action", categories=("travel",), needs=("special_request",))
def travel_special_meal(w: World) -> Plan | None:
    kind = w.pick(["special_meal", "wheelchair", "extra_bag"])
    cases = [c for c in w.rows["case"] if c["status"] != "cancelled" and _active_party(w, c) is not None
             and not any(r["kind"] == kind and r["status"] != "declined"
                         for r in w.children("special_request", "case", c["id"]))]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("special_request"), {w.fk("case"): case["id"], "kind": kind})]
    goal = Goal(kind="rows_created", table=w.table("special_request"), count=1,
                expect={w.fk("case"): case["id"], "kind": kind, "status": "requested"})
    say = Say("do", (
        "note {a SPECIAL_REQUEST} of the kind {kind} on {case}",
        "{they} will need {words} || add a {kind} request to {case}",
    ), {"kind": kind, "case": case_np, "words": {"special_meal": "a special meal", "wheelchair": "wheelchair help",
                                                 "extra_bag": "an extra bag"}[kind]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("aggregate", categories=("travel",), needs=("segment",))
def travel_confirm_waitlisted(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        waiting = [s for s in w.children("segment", "case", case["id"]) if s["status"] == "waitlisted"]
        if waiting and case["status"] != "cancelled":
            options.append((case, waiting))
    pick = w.pick(options)
    if pick is None:
        return None
    case, waiting = pick
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("segment"), {w.fk("case"): case["id"],
                                                                                "status": "waitlisted"}),
             *[(w.n.action("segment", "confirm"), {w.pk("segment"): s["id"]}) for s in waiting]]
    goals = [Goal(kind="row_equals", table=w.table("segment"), pk=s["id"], expect={"status": "confirmed"})
             for s in waiting]
    say = Say("do", (
        "space opened up || confirm every waitlisted {SEGMENT} of {CASE} {code}",
        "confirm all the waitlisted {SEGMENT/pl} on {CASE} {code}",
    ), {"code": case["code"]})
    return Plan(calls, goals, say, targets={("case", case["id"])})


# --- automotive ------------------------------------------------------------------------------------------------


def _vehicles(w: World) -> list[tuple[dict, dict]]:
    return [(v, p) for v in w.rows["vehicle"] if (p := _active_party(w, v)) is not None]


@intent("action", categories=("automotive",), needs=("vehicle",))
def auto_record_mileage(w: World) -> Plan | None:
    pick = w.pick(_vehicles(w))
    if pick is None:
        return None
    vehicle, party = pick
    mileage = vehicle["mileage"] + w.pick([812, 1450, 3020, 5275])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("vehicle"), {w.fk("party"): party["id"], "vin": vehicle["vin"]}),
             (w.n.action("vehicle", "record_mileage"), {w.pk("vehicle"): vehicle["id"], "mileage": mileage})]
    goal = Goal(kind="row_equals", table=w.table("vehicle"), pk=vehicle["id"], expect={"mileage": mileage})
    say = Say("do", (
        "record {mileage} miles on the odometer of {their} {VEHICLE} with VIN {vin}",
        "{their} {make} (VIN {vin}) came in showing {mileage} miles || record that mileage",
    ), {"mileage": mileage, "vin": vehicle["vin"], "make": vehicle["make"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("vehicle", vehicle["id"])})


@intent("infeasible", categories=("automotive",), needs=("vehicle",))
def auto_mileage_backwards(w: World) -> Plan | None:
    pick = w.pick([(v, p) for v, p in _vehicles(w) if v["mileage"] > 5000])
    if pick is None:
        return None
    vehicle, party = pick
    mileage = vehicle["mileage"] - w.pick([500, 1200, 2500])
    ref = w.party_ref(party)
    say = Say("do", (
        "record {mileage} miles for {their} {VEHICLE} with VIN {vin}",
        "set the mileage of {their} {make} (VIN {vin}) to {mileage}",
    ), {"mileage": mileage, "vin": vehicle["vin"], "make": vehicle["make"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("vehicle"), {w.fk("party"): party["id"], "vin": vehicle["vin"]})],
                [w.number_answer(vehicle["mileage"])], say,
                answer=f"The vehicle already shows {vehicle['mileage']} miles; a mileage can only go up.",
                targets={("vehicle", vehicle["id"])})


def _claims_of(w: World, within: bool) -> list[dict]:
    return [c for c in w.rows["warranty_claim"] if c["status"] == "submitted"
            and (c["amount"] <= WARRANTY_LIMIT) == within and sum(
                x["status"] == "submitted" and x["component"] == c["component"]
                for x in w.children("warranty_claim", "case", c[w.fk("case")])) == 1]


@intent("action", categories=("automotive",), needs=("warranty_claim",))
def auto_approve_warranty(w: World) -> Plan | None:
    claim = w.pick(_claims_of(w, within=True))
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("warranty_claim"), {w.fk("case"): case["id"], "status": "submitted"}),
             (w.n.action("warranty_claim", "approve"), {w.pk("warranty_claim"): claim["id"]})]
    goal = Goal(kind="row_equals", table=w.table("warranty_claim"), pk=claim["id"], expect={"status": "approved"})
    say = Say("do", (
        "approve the {component} {WARRANTY_CLAIM} on {CASE} {code}",
        "the {component} repair on {CASE} {code} is covered || approve its {WARRANTY_CLAIM}",
    ), {"component": claim["component"], "code": case["code"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("automotive",), needs=("warranty_claim",))
def auto_warranty_over_limit(w: World) -> Plan | None:
    claim = w.pick(_claims_of(w, within=False))
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    say = Say("do", (
        "approve the {component} {WARRANTY_CLAIM} on {CASE} {code}",
        "sign off the {component} {WARRANTY_CLAIM} for {CASE} {code}",
    ), {"component": claim["component"], "code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("warranty_claim"), {w.fk("case"): case["id"], "status": "submitted"})],
                [w.number_answer(WARRANTY_LIMIT)], say,
                answer=f"Claims above {WARRANTY_LIMIT:.2f} go to the manufacturer; this one is larger.",
                targets={("case", case["id"])})


@intent("action", categories=("automotive",), needs=("loaner",))
def auto_lend_loaner(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if any(x["status"] == "available" and x[w.fk("site")] == s["id"]
                                                     for x in w.rows["loaner"])])
    party = w.pick(w.active_parties())
    if site is None or party is None:
        return None
    loaner = next(x for x in w.rows["loaner"] if x["status"] == "available" and x[w.fk("site")] == site["id"])
    due = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([2, 3, 5, 7]))).date().isoformat()
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("loaner"), {"plate": loaner["plate"]}),
             (w.n.action("loaner", "lend"), {w.pk("loaner"): loaner["id"], w.fk("party"): party["id"], "due_back": due})]
    goal = Goal(kind="row_equals", table=w.table("loaner"), pk=loaner["id"],
                expect={"status": "out", w.fk("party"): party["id"], "due_back": due})
    say = Say("do", (
        "lend {them} {LOANER} {plate} from {site} until {due}",
        "{their} car is staying with us || give {them} {LOANER} {plate} ({site}), due back {due}",
    ), {"site": site["name"], "due": due, "plate": loaner["plate"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("loaner", loaner["id"])})


# --- transportation --------------------------------------------------------------------------------------------


def _parked(w: World, overdue: bool) -> list[dict]:
    """Fleet vehicles out of service whose service is (or is not) overdue."""
    return [v for v in w.rows["fleet_vehicle"] if v["status"] == "out_of_service"
            and (v["next_service_due"] < TODAY) == overdue]


@intent("infeasible", categories=("transportation",), needs=("fleet_vehicle",))
def trans_overdue_vehicle_to_service(w: World) -> Plan | None:
    vehicle = w.pick(_parked(w, overdue=True))
    if vehicle is None:
        return None
    due = vehicle["next_service_due"]
    say = Say("do", (
        "put {FLEET_VEHICLE} {unit} back in service",
        "we need {FLEET_VEHICLE} {unit} on the road today || return it to service",
    ), {"unit": vehicle["unit_number"]})
    return Plan([(w.n.list("fleet_vehicle"), {"unit_number": vehicle["unit_number"]})],
                [w.text_answer(due, [v["next_service_due"] for v in w.rows["fleet_vehicle"]])], say,
                answer=f"It was due for service on {due}; it cannot go back in service until it has been serviced.",
                targets={("fleet_vehicle", vehicle["id"])})


@intent("chained", categories=("transportation",), needs=("fleet_vehicle",))
def trans_service_then_return(w: World) -> Plan | None:
    vehicle = w.pick(_parked(w, overdue=True))
    if vehicle is None:
        return None
    pk = {w.pk("fleet_vehicle"): vehicle["id"]}
    calls = [(w.n.list("fleet_vehicle"), {"unit_number": vehicle["unit_number"]}),
             (w.n.action("fleet_vehicle", "record_service"), pk),
             (w.n.action("fleet_vehicle", "return_to_service"), pk)]
    due = (datetime.fromisoformat(TODAY) + timedelta(days=SERVICE_INTERVAL_DAYS)).date().isoformat()
    goal = Goal(kind="row_equals", table=w.table("fleet_vehicle"), pk=vehicle["id"],
                expect={"status": "in_service", "last_serviced_on": TODAY, "next_service_due": due})
    say = Say("do", (
        "{FLEET_VEHICLE} {unit} was serviced today || record the service and put it back in service",
        "log today's service on {FLEET_VEHICLE} {unit}, then return it to service",
    ), {"unit": vehicle["unit_number"]})
    return Plan(calls, [goal], say, targets={("fleet_vehicle", vehicle["id"])})


def _assessed(w: World) -> list[tuple[dict, dict]]:
    """(report, case) for assessed damage reports, the only assessed one on their case."""
    out = []
    for report in w.rows["damage_report"]:
        case = w.by_id("case", report[w.fk("case")])
        if report["status"] == "assessed" and sum(
                r["status"] == "assessed" for r in w.children("damage_report", "case", case["id"])) == 1:
            out.append((report, case))
    return out


@intent("action", categories=("transportation",), needs=("damage_report",))
def trans_settle_damage(w: World) -> Plan | None:
    pick = w.pick(_assessed(w))
    if pick is None:
        return None
    report, case = pick
    amount = w.pick([report["estimated_cost"], round(report["estimated_cost"] * 0.8, 2)])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("damage_report"), {w.fk("case"): case["id"], "status": "assessed"}),
             (w.n.action("damage_report", "settle"), {w.pk("damage_report"): report["id"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("damage_report"), pk=report["id"],
                expect={"status": "settled", "settled_amount": {"approx": amount}})
    say = Say("do", (
        "settle the assessed {DAMAGE_REPORT} on {CASE} {code} ({what}) for {amount}",
        "we agreed {amount} for the {what} after {CASE} {code} || settle its {DAMAGE_REPORT} for that amount",
    ), {"code": case["code"], "what": report["description"], "amount": money(amount)})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("transportation",), needs=("damage_report",))
def trans_settle_above_estimate(w: World) -> Plan | None:
    pick = w.pick(_assessed(w))
    if pick is None:
        return None
    report, case = pick
    amount = round(report["estimated_cost"] + w.pick([150.0, 400.0, 900.0]), 2)
    say = Say("do", (
        "settle the {DAMAGE_REPORT} on {CASE} {code} ({what}) for {amount}",
        "pay out {amount} on the assessed {DAMAGE_REPORT} for {CASE} {code}",
    ), {"code": case["code"], "what": report["description"], "amount": money(amount)})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("damage_report"), {w.fk("case"): case["id"], "status": "assessed"})],
                [w.money_answer(report["estimated_cost"])], say,
                answer=f"It was assessed at {money(report['estimated_cost'])}; it cannot be settled for more.",
                targets={("case", case["id"])})


@intent("action", categories=("transportation",), needs=("lost_item",))
def trans_hand_over_lost_item(w: World) -> Plan | None:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=HOLD_DAYS)).date().isoformat()
    item = w.pick([x for x in w.rows["lost_item"] if x["status"] == "held" and x["found_on"] >= cutoff])
    party = w.pick(w.active_parties())
    if item is None or party is None:
        return None
    site = w.by_id("site", item[w.fk("site")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("lost_item"), {"tag": item["tag"]}),
             (w.n.action("lost_item", "hand_over"), {w.pk("lost_item"): item["id"], w.fk("party"): party["id"]})]
    goal = Goal(kind="row_equals", table=w.table("lost_item"), pk=item["id"],
                expect={"status": "claimed", w.fk("party"): party["id"]})
    say = Say("do", (
        "{they_have} come to {site} for {their} {thing}, tag {tag} || hand it over to {them}",
        "hand the {LOST_ITEM} tagged {tag} ({a thing}) over to {party}",
    ), {"site": site["name"], "thing": item["description"], "tag": item["tag"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("lost_item", item["id"])})


@intent("question", categories=("transportation",), needs=("disruption",))
def trans_active_disruptions(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if w.children("disruption", "site", s["id"])])
    if site is None:
        return None
    active = sum(d["status"] == "active" for d in w.children("disruption", "site", site["id"]))
    say = Say("ask", (
        "how many {DISRUPTION/pl} are active at {site} right now",
        "{PARTY/pl} at {site} are asking || how many active {DISRUPTION/pl} does it have",
    ), {"site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("disruption"), {w.fk("site"): site["id"], "status": "active"})],
                [w.number_answer(active)], say, answer=count(active, "active disruption"),
                targets={("site", site["id"])})


# --- fitness ---------------------------------------------------------------------------------------------------


def _open_classes(w: World) -> list[dict]:
    return [c for c in w.rows["class_session"] if c["status"] == "scheduled" and c["starts_at"] > NOW]


@intent("infeasible", categories=("fitness",), needs=("class_session",))
def fit_shrink_booked_class(w: World) -> Plan | None:
    session = w.pick([c for c in _open_classes(w) if c["spots_booked"] >= 8])
    if session is None:
        return None
    capacity = session["spots_booked"] - w.pick([2, 3, 5])
    site = w.by_id("site", session[w.fk("site")])
    say = Say("do", (
        "cut the {item} {CLASS_SESSION} at {site} on {long} at {time} down to {capacity} places",
        "we are short of equipment for the {time} {item} {CLASS_SESSION} at {site} on {long} || make it "
        "{capacity} places",
    ), {"item": session["title"], "site": site["name"],
        "long": long_date(session["starts_at"]), "time": session["starts_at"][11:16], "capacity": capacity})
    return Plan([w.find_site(site), (w.n.list("class_session"), {w.fk("site"): site["id"], "status": "scheduled"})],
                [w.number_answer(session["spots_booked"])], say,
                answer=f"{session['spots_booked']} spots are already booked, so the class cannot have fewer places.",
                targets={("class_session", session["id"])})


FREEZE_WHY = {"travel": "{they} will be away travelling", "injury": "{they_are} off with an injury",
              "medical": "{they_are} on medical leave"}


def _freezable(w: World) -> list[tuple[dict, dict]]:
    """(subscription, party): the only active subscription of an active person, with no freeze pending or running."""
    out = []
    for sub in w.rows["subscription"]:
        party = _active_party(w, sub)
        if sub["status"] != "active" or party is None:
            continue
        mine = [s for s in w.children("subscription", "party", party["id"]) if s["status"] == "active"]
        frozen = [f for f in w.children("freeze", "subscription", sub["id"]) if f["status"] in ("scheduled", "active")]
        if len(mine) == 1 and not frozen:
            out.append((sub, party))
    return out


@intent("action", categories=("fitness",), needs=("freeze",))
def fit_freeze_membership(w: World) -> Plan | None:
    pick = w.pick(_freezable(w))
    if pick is None:
        return None
    sub, party = pick
    start = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([3, 7, 10, 14]))).date()
    days, reason = w.pick([14, 21, 30, 45, 60]), w.pick(["travel", "injury", "medical"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "active"}),
             (w.n.create("freeze"), {w.fk("subscription"): sub["id"], "starts_on": start.isoformat(), "days": days,
                                     "reason": reason})]
    goal = Goal(kind="rows_created", table=w.table("freeze"), count=1, expect={
        w.fk("subscription"): sub["id"], "starts_on": start.isoformat(),
        "ends_on": (start + timedelta(days=days)).isoformat(), "reason": reason, "status": "scheduled"})
    say = Say("do", (
        "freeze {their} {SUBSCRIPTION} for {days} days from {start}, reason {reason}",
        FREEZE_WHY[reason] + " || freeze {their} {SUBSCRIPTION} for {days} days starting {start}",
    ), {"days": days, "start": start.isoformat(), "reason": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("subscription", sub["id"])})


@intent("infeasible", categories=("fitness",), needs=("freeze",))
def fit_freeze_too_long(w: World) -> Plan | None:
    pick = w.pick(_freezable(w))
    if pick is None:
        return None
    sub, party = pick
    start = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([5, 7, 14]))).date().isoformat()
    days = w.pick([120, 150, 180])
    ref = w.party_ref(party)
    say = Say("do", (
        "freeze {their} {SUBSCRIPTION} for {days} days starting {long}",
        "{they} will be travelling for a while || freeze {their} {SUBSCRIPTION} from {long} for {days} days",
    ), {"days": days, "long": long_date(start)}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "active"})],
                [w.number_answer(MAX_FREEZE_DAYS)], say,
                answer=f"A freeze lasts at most {MAX_FREEZE_DAYS} days.",
                targets={("subscription", sub["id"])})


def _live_packages(w: World, party: dict) -> list[dict]:
    return [t for t in w.children("training_package", "party", party["id"]) if t["status"] == "active"]


@intent("action", categories=("fitness",), needs=("training_package",))
def fit_redeem_session(w: World) -> Plan | None:
    party = w.pick([p for p in w.active_parties() if len(_live_packages(w, p)) == 1])
    if party is None:
        return None
    package = _live_packages(w, party)[0]
    used = package["sessions_used"] + 1
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("training_package"), {w.fk("party"): party["id"], "status": "active"}),
             (w.n.action("training_package", "redeem_session"), {w.pk("training_package"): package["id"]})]
    goal = Goal(kind="row_equals", table=w.table("training_package"), pk=package["id"], expect={
        "sessions_used": used, "status": "used_up" if used == package["sessions_total"] else "active"})
    say = Say("do", (
        "{they} just finished a session with {staff} || take it off {their} active {TRAINING_PACKAGE}",
        "redeem one session from {their} active {TRAINING_PACKAGE}",
    ), {"staff": w.person(w.by_id("staff", package[w.fk("staff")]))}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("training_package", package["id"])})


@intent("question", categories=("fitness",), needs=("training_package",))
def fit_sessions_left(w: World) -> Plan | None:
    party = w.pick([p for p in w.active_parties() if _live_packages(w, p)])
    if party is None:
        return None
    left = sum(t["sessions_total"] - t["sessions_used"] for t in _live_packages(w, party))
    ref = w.party_ref(party)
    say = Say("ask", (
        "how many sessions {do_they} have left across {their} active {TRAINING_PACKAGE/pl}",
        "how many prepaid sessions are still unused on {their} active {TRAINING_PACKAGE/pl}",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("training_package"), {w.fk("party"): party["id"], "status": "active"})],
                [w.number_answer(left)], say, answer=str(left), targets={("party", party["id"])})


@intent("action", categories=("fitness",), needs=("fixture",))
def fit_record_result(w: World) -> Plan | None:
    home_fk, away_fk = f"home_{w.fk('team')}", f"away_{w.fk('team')}"
    fixture = w.pick([f for f in w.rows["fixture"] if f["status"] == "scheduled" and f["starts_at"] < NOW])
    if fixture is None:
        return None
    home, away = w.by_id("team", fixture[home_fk]), w.by_id("team", fixture[away_fk])
    if sum(f[home_fk] == home["id"] and f[away_fk] == away["id"] for f in w.rows["fixture"]) != 1:
        return None
    scores = w.pick([(3, 1), (2, 0), (1, 4), (0, 2), (5, 3)])
    winner, loser = (home, away) if scores[0] > scores[1] else (away, home)
    calls = [(w.n.list("team"), {"name": home["name"]}), (w.n.list("fixture"), {home_fk: home["id"], away_fk: away["id"]}),
             (w.n.action("fixture", "record_result"), {w.pk("fixture"): fixture["id"], "home_score": scores[0],
                                                       "away_score": scores[1]})]
    goals = [Goal(kind="row_equals", table=w.table("fixture"), pk=fixture["id"],
                  expect={"home_score": scores[0], "away_score": scores[1], "status": "played"}),
             Goal(kind="row_equals", table=w.table("team"), pk=winner["id"], expect={"wins": winner["wins"] + 1}),
             Goal(kind="row_equals", table=w.table("team"), pk=loser["id"], expect={"losses": loser["losses"] + 1})]
    say = Say("do", (
        "the {home} beat the {away} {high} to {low} on {long} || enter that result",
        "record the result of {home} (home) against {away} on {long}: {hs} to {as_}",
    ), {"home": home["name"], "away": away["name"], "long": long_date(fixture["starts_at"]), "hs": scores[0],
        "as_": scores[1], "high": max(scores), "low": min(scores)})
    if winner is away:
        say = Say("do", (
            "the {away} won away at the {home} {high} to {low} on {long} || enter that result",
            "record the result of {home} (home) against {away} on {long}: {hs} to {as_}",
        ), say.slots)
    return Plan(calls, goals, say, targets={("fixture", fixture["id"])})


# --- food and beverage -----------------------------------------------------------------------------------------


def _lots(w: World, statuses: tuple[str, ...], expired: bool) -> list[dict]:
    return [x for x in w.rows["product_lot"] if x["status"] in statuses and (x["best_before"] < TODAY) == expired]


@intent("action", categories=("food_and_beverage",), needs=("product_lot",))
def fnb_recall_lot(w: World) -> Plan | None:
    lot = w.pick(_lots(w, ("released", "on_hold"), expired=False))
    if lot is None:
        return None
    calls = [(w.n.list("product_lot"), {"lot_code": lot["lot_code"]}),
             (w.n.action("product_lot", "recall"), {w.pk("product_lot"): lot["id"]})]
    goal = Goal(kind="row_equals", table=w.table("product_lot"), pk=lot["id"], expect={"status": "recalled"})
    say = Say("do", (
        "recall {PRODUCT_LOT} {code} of {item}",
        "the supplier flagged a problem with {item} || recall {PRODUCT_LOT} {code}",
    ), {"code": lot["lot_code"], "item": quote(w.by_id("item", lot[w.fk("item")])["name"])})
    return Plan(calls, [goal], say, targets={("product_lot", lot["id"])})


@intent("infeasible", categories=("food_and_beverage",), needs=("product_lot",))
def fnb_release_expired_lot(w: World) -> Plan | None:
    lot = w.pick(_lots(w, ("on_hold",), expired=True))
    if lot is None:
        return None
    say = Say("do", (
        "release {PRODUCT_LOT} {code} from hold",
        "take {PRODUCT_LOT} {code} of {item} off hold and release it",
    ), {"code": lot["lot_code"], "item": quote(w.by_id("item", lot[w.fk("item")])["name"])})
    return Plan([(w.n.list("product_lot"), {"lot_code": lot["lot_code"]})],
                [w.text_answer(lot["best_before"], [x["best_before"] for x in w.rows["product_lot"]])], say,
                answer=f"It was best before {lot['best_before']}, so it cannot be released.",
                targets={("product_lot", lot["id"])})


CHECK_ACTIONS = {"cold": ("moved the stock to the backup cooler", "called out the refrigeration engineer",
                          "discarded the affected product"),
                 "freezer": ("moved the stock to the backup freezer", "called out the refrigeration engineer"),
                 "hot_holding": ("reheated the food to 75 °C", "discarded the affected product")}
UNIT_WORDS = {"walk_in_cooler": "walk in cooler", "prep_fridge": "prep fridge", "freezer": "freezer",
              "hot_holding": "hot holding unit"}


@intent("action", categories=("food_and_beverage",), needs=("temperature_check",))
def fnb_log_failed_check(w: World) -> Plan | None:
    site = w.pick([s for s in w.rows["site"] if w.staff_pool(s["id"])])
    if site is None:
        return None
    member = w.pick(w.staff_pool(site["id"]))
    unit = w.pick(list(SAFE_RANGES))
    low, high = SAFE_RANGES[unit]
    reading = round(low - w.pick([4.0, 6.5, 9.0]) if unit == "hot_holding" else high + w.pick([2.5, 3.5, 6.0]), 1)
    action = w.pick(CHECK_ACTIONS.get(unit, CHECK_ACTIONS["cold"]))
    calls = [w.find_site(site), w.find_staff(member),
             (w.n.create("temperature_check"), {w.fk("site"): site["id"], w.fk("staff"): member["id"], "unit": unit,
                                                "temperature_c": reading, "corrective_action": action})]
    goal = Goal(kind="rows_created", table=w.table("temperature_check"), count=1, expect={
        w.fk("site"): site["id"], w.fk("staff"): member["id"], "unit": unit, "temperature_c": reading,
        "result": "fail", "corrective_action": {"text": action}})
    say = Say("do", (
        "{staff} just read {reading} °C on the {unit} at {site} and {action} || log that {TEMPERATURE_CHECK}",
        "log {a TEMPERATURE_CHECK} for {site}: {unit} at {reading} °C, taken by {staff}, who {action}",
    ), {"staff": w.person(member), "reading": reading, "unit": UNIT_WORDS[unit], "site": site["name"],
        "action": action})
    return Plan(calls, [goal], say, targets={("site", site["id"])})


@intent("question", categories=("food_and_beverage",), needs=("temperature_check",))
def fnb_failed_checks(w: World) -> Plan | None:
    since = w.pick(["2025-05-25", "2025-05-28"])
    site = w.pick(w.rows["site"])
    failed = [c for c in w.children("temperature_check", "site", site["id"])
              if c["result"] == "fail" and c["checked_at"][:10] >= since]
    say = Say("ask", (
        "how many {TEMPERATURE_CHECK/pl} at {site} have failed since {long}",
        "since {long}, how many failed {TEMPERATURE_CHECK/pl} has {site} logged",
    ), {"site": site["name"], "long": long_date(since)})
    return Plan([w.find_site(site), (w.n.list("temperature_check"), {w.fk("site"): site["id"], "result": "fail"})],
                [w.number_answer(len(failed))], say, answer=str(len(failed)), targets={("site", site["id"])})


def _tables(w: World, fits: bool) -> list[tuple[dict, dict, int]]:
    """(table, restaurant, party size) for available tables the party fits at, or is one too many for."""
    out = []
    for t in w.rows["dining_table"]:
        site = w.by_id("site", t[w.fk("site")])
        same = [x for x in w.children("dining_table", "site", site["id"]) if x["table_number"] == t["table_number"]]
        if t["status"] == "available" and len(same) == 1:
            out.append((t, site, t["seats"] - (t["seats"] > 2) if fits else t["seats"] + w.pick([1, 2])))
    return out


@intent("action", categories=("food_and_beverage",), needs=("dining_table",))
def fnb_seat_party(w: World) -> Plan | None:
    pick = w.pick(_tables(w, fits=True))
    if pick is None:
        return None
    table, site, size = pick
    calls = [w.find_site(site), (w.n.list("dining_table"), {w.fk("site"): site["id"], "table_number": table["table_number"]}),
             (w.n.action("dining_table", "seat"), {w.pk("dining_table"): table["id"], "party_size": size})]
    goal = Goal(kind="row_equals", table=w.table("dining_table"), pk=table["id"],
                expect={"status": "occupied", "party_size": size})
    say = Say("do", (
        "seat a party of {size} at table {number} in {site}",
        "a party of {size} just walked into {site} || put them at table {number}",
    ), {"size": size, "number": table["table_number"], "site": site["name"]})
    return Plan(calls, [goal], say, targets={("dining_table", table["id"])})


@intent("infeasible", categories=("food_and_beverage",), needs=("dining_table",))
def fnb_seat_too_many(w: World) -> Plan | None:
    pick = w.pick(_tables(w, fits=False))
    if pick is None:
        return None
    table, site, size = pick
    say = Say("do", (
        "seat a party of {size} at table {number} in {site}",
        "a party of {size} is waiting at {site} || give them table {number}",
    ), {"size": size, "number": table["table_number"], "site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("dining_table"), {w.fk("site"): site["id"],
                                                                "table_number": table["table_number"]})],
                [w.number_answer(table["seats"])], say, answer=f"That table seats only {table['seats']}.",
                targets={("dining_table", table["id"])})


# --- agriculture -----------------------------------------------------------------------------------------------


def _fields(w: World) -> list[tuple[dict, dict]]:
    """(field, grower): active fields of active people, each named once among that person's fields."""
    out = []
    for f in w.rows["field"]:
        party = _active_party(w, f)
        mine = [x for x in w.children("field", "party", f[w.fk("party")]) if x["name"] == f["name"]]
        if party is not None and f["status"] == "active" and len(mine) == 1:
            out.append((f, party))
    return out


def _application(w: World, over: bool) -> tuple[dict, dict, dict, str, float] | None:
    pick, member = w.pick(_fields(w)), w.pick(w.staff_pool())
    if pick is None or member is None:
        return None
    product = w.pick(sorted(MAX_RATES))
    unit, top = MAX_RATES[product]
    rate = round(top * (w.pick([1.5, 2.0]) if over else w.pick([0.5, 0.75, 1.0])), 2)
    return pick[0], pick[1], member, product, rate


@intent("action", categories=("agriculture",), needs=("field_application",))
def agri_record_application(w: World) -> Plan | None:
    pick = _application(w, over=False)
    if pick is None:
        return None
    field, party, member, product, rate = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("field"), {w.fk("party"): party["id"], "name": field["name"]}),
             w.find_staff(member),
             (w.n.create("field_application"), {w.fk("field"): field["id"], w.fk("staff"): member["id"],
                                                "product": product, "rate_per_acre": rate})]
    goal = Goal(kind="rows_created", table=w.table("field_application"), count=1, expect={
        w.fk("field"): field["id"], w.fk("staff"): member["id"], "product": product, "rate_per_acre": rate,
        "applied_on": TODAY, "status": "applied"})
    say = Say("do", (
        "{staff} applied {product} at {rate} {unit} per acre on {their} field {field} today || record that "
        "{FIELD_APPLICATION}",
        "record {a FIELD_APPLICATION} on {their} field {field}: {product}, {rate} {unit} per acre, applied today by "
        "{staff}",
    ), {"staff": w.person(member), "product": product, "rate": f"{rate:g}", "unit": MAX_RATES[product][0],
        "field": field["name"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("field", field["id"])})


@intent("infeasible", categories=("agriculture",), needs=("field_application",))
def agri_rate_over_label(w: World) -> Plan | None:
    pick = _application(w, over=True)
    if pick is None:
        return None
    field, party, member, product, rate = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "record {a FIELD_APPLICATION} of {product} at {rate} {unit} per acre on {their} field {field}, applied today "
        "by {staff}",
        "{staff} put {rate} {unit} of {product} per acre on {their} field {field} today || log it",
    ), {"staff": w.person(member), "product": product, "rate": f"{rate:g}", "unit": MAX_RATES[product][0],
        "field": field["name"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("field"), {w.fk("party"): party["id"], "name": field["name"]})],
                [w.number_answer(MAX_RATES[product][1])], say,
                answer=f"The label of {product} allows at most {MAX_RATES[product][1]:g} {MAX_RATES[product][0]} per acre.",
                targets={("field", field["id"])})


@intent("question", categories=("agriculture",), needs=("soil_sample",))
def agri_sample_ph(w: World) -> Plan | None:
    sample = w.pick([s for s in w.rows["soil_sample"] if s["status"] in ("analysed", "reported")])
    if sample is None:
        return None
    say = Say("ask", (
        "what pH did {SOIL_SAMPLE} {code} come back with",
        "what is the soil pH measured on {SOIL_SAMPLE} {code}",
    ), {"code": sample["sample_code"]})
    return Plan([(w.n.list("soil_sample"), {"sample_code": sample["sample_code"]})],
                [w.number_answer(sample["ph"])], say, answer=str(sample["ph"]),
                targets={("soil_sample", sample["id"])})


def _treated(w: World, cleared: bool) -> list[dict]:
    return [a for a in w.rows["animal"] if a["status"] == "treated" and (a["withdrawal_until"] < TODAY) == cleared]


@intent("action", categories=("agriculture",), needs=("animal",))
def agri_return_to_milking(w: World) -> Plan | None:
    animal = w.pick(_treated(w, cleared=True))
    if animal is None:
        return None
    calls = [(w.n.list("animal"), {"tag": animal["tag"]}),
             (w.n.action("animal", "return_to_milking"), {w.pk("animal"): animal["id"]})]
    goal = Goal(kind="row_equals", table=w.table("animal"), pk=animal["id"], expect={"status": "milking"})
    say = Say("do", (
        "the {species} tagged {tag} has finished her course of {treatment} || put her back in the milking string",
        "return {ANIMAL} {tag} to milking",
    ), {"species": animal["species"], "tag": animal["tag"], "treatment": animal["treatment"]})
    return Plan(calls, [goal], say, targets={("animal", animal["id"])})


@intent("infeasible", categories=("agriculture",), needs=("animal",))
def agri_milk_during_withdrawal(w: World) -> Plan | None:
    animal = w.pick(_treated(w, cleared=False))
    if animal is None:
        return None
    say = Say("do", (
        "put the {species} tagged {tag} back in the milking string",
        "return {ANIMAL} {tag} to milking today",
    ), {"species": animal["species"], "tag": animal["tag"]})
    return Plan([(w.n.list("animal"), {"tag": animal["tag"]})],
                [w.text_answer(animal["withdrawal_until"], [a["withdrawal_until"] for a in w.rows["animal"]
                                                            if a["withdrawal_until"]])], say,
                answer=f"She is under a withdrawal period until {animal['withdrawal_until']}.",
                targets={("animal", animal["id"])})


@intent("action", categories=("agriculture",), needs=("crop_batch",))
def agri_allocate_plants(w: World) -> Plan | None:
    batch = w.pick([b for b in w.rows["crop_batch"] if b["status"] == "ready" and b["quantity"] >= 48])
    if batch is None:
        return None
    item = w.by_id("item", batch[w.fk("item")])
    if sum(b[w.fk("item")] == item["id"] for b in w.rows["crop_batch"]) != 1:
        return None
    quantity = w.pick([12, 24, 36])
    calls = [w.find_item(item), (w.n.list("crop_batch"), {w.fk("item"): item["id"], "status": "ready"}),
             (w.n.action("crop_batch", "allocate"), {w.pk("crop_batch"): batch["id"], "quantity": quantity})]
    goal = Goal(kind="row_equals", table=w.table("crop_batch"), pk=batch["id"],
                expect={"quantity": batch["quantity"] - quantity, "status": "ready"})
    say = Say("do", (
        "allocate {quantity} plants from the ready {CROP_BATCH} of {item}",
        "a trade order needs {quantity} of {item} || take them from its ready {CROP_BATCH}",
    ), {"quantity": quantity, "item": quote(item["name"])})
    return Plan(calls, [goal], say, targets={("crop_batch", batch["id"])})
# --- energy ----------------------------------------------------------------------------------------------------


def _faulty(w: World, covered: bool) -> list[tuple[dict, dict]]:
    """(unit, party) for faulty equipment of active people, under warranty or not, unique by kind for its owner."""
    out = []
    for unit in w.rows["equipment_unit"]:
        party = _active_party(w, unit)
        if unit["status"] != "faulty" or party is None or (unit["warranty_until"] >= TODAY) != covered:
            continue
        if sum(u["kind"] == unit["kind"] for u in w.children("equipment_unit", "party", party["id"])) == 1:
            out.append((unit, party))
    return out


@intent("action", categories=("energy",), needs=("equipment_unit",))
def energy_warranty_repair(w: World) -> Plan | None:
    pick = w.pick(_faulty(w, covered=True))
    if pick is None:
        return None
    unit, party = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("equipment_unit"), {w.fk("party"): party["id"], "kind": unit["kind"]}),
             (w.n.action("equipment_unit", "repair_under_warranty"), {w.pk("equipment_unit"): unit["id"]})]
    goal = Goal(kind="row_equals", table=w.table("equipment_unit"), pk=unit["id"], expect={"status": "operating"})
    say = Say("do", (
        "{their} faulty {kind} ({model}) was fixed today || record it as a warranty repair",
        "record a warranty repair on {their} {model} {kind}, serial {serial}",
    ), {"kind": unit["kind"].replace("_", " "), "model": unit["model"], "serial": unit["serial"]}, party=ref,
        voices=BOTH)
    return Plan(calls, [goal], say, targets={("equipment_unit", unit["id"])})


@intent("infeasible", categories=("energy",), needs=("equipment_unit",))
def energy_repair_out_of_warranty(w: World) -> Plan | None:
    pick = w.pick(_faulty(w, covered=False))
    if pick is None:
        return None
    unit, party = pick
    ref = w.party_ref(party)
    until = unit["warranty_until"]
    say = Say("do", (
        "repair {their} faulty {kind} (serial {serial}) under warranty",
        "{their} {model} {kind} has stopped working || book the fix as a free warranty repair",
    ), {"kind": unit["kind"].replace("_", " "), "model": unit["model"], "serial": unit["serial"]}, party=ref,
        voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("equipment_unit"), {w.fk("party"): party["id"], "kind": unit["kind"]})],
                [w.text_answer(until, [u["warranty_until"] for u in w.rows["equipment_unit"]])], say,
                answer=f"Its warranty ran out on {until}, so the repair is not free.",
                targets={("equipment_unit", unit["id"])})


@intent("action", categories=("energy",), needs=("rebate_claim",))
def energy_submit_rebate(w: World) -> Plan | None:
    options = []
    for claim in w.rows["rebate_claim"]:
        drafts = [c for c in w.children("rebate_claim", "case", claim[w.fk("case")]) if c["status"] == "draft"]
        if claim["status"] == "draft" and claim["amount"] <= PROGRAMS[claim["program"]] and len(drafts) == 1:
            options.append(claim)
    claim = w.pick(options)
    if claim is None:
        return None
    case = w.by_id("case", claim[w.fk("case")])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("rebate_claim"), {w.fk("case"): case["id"], "status": "draft"}),
             (w.n.action("rebate_claim", "submit"), {w.pk("rebate_claim"): claim["id"]})]
    goal = Goal(kind="row_equals", table=w.table("rebate_claim"), pk=claim["id"],
                expect={"status": "submitted", "submitted_on": TODAY})
    say = Say("do", (
        "submit the draft {REBATE_CLAIM} for {CASE} {code} to the {program} programme",
        "the paperwork for {CASE} {code} is complete || send its draft {REBATE_CLAIM} in to the {program} programme",
    ), {"program": claim["program"].replace("_", " "), "code": case["code"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("action", categories=("energy",), needs=("safety_inspection",))
def energy_record_inspection(w: World) -> Plan | None:
    options = []
    for insp in w.rows["safety_inspection"]:
        party = _active_party(w, insp)
        if insp["status"] == "scheduled" and insp["due_on"] <= TODAY and party is not None and sum(
                i["status"] == "scheduled" for i in w.children("safety_inspection", "party", party["id"])) == 1:
            options.append((insp, party))
    pick = w.pick(options)
    member = w.pick(w.staff_pool())
    if pick is None or member is None:
        return None
    insp, party = pick
    result = w.pick(["passed", "passed", "failed"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("safety_inspection"), {w.fk("party"): party["id"], "status": "scheduled"}),
             w.find_staff(member),
             (w.n.action("safety_inspection", "record_result"), {w.pk("safety_inspection"): insp["id"],
                                                                 "result": result, w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("safety_inspection"), pk=insp["id"],
                expect={"status": result, w.fk("staff"): member["id"], "inspected_on": TODAY})
    say = Say("do", (
        "{staff} did the {kind} {SAFETY_INSPECTION} at {their} premises today and it {result} || record that",
        "record that {their} scheduled {kind} {SAFETY_INSPECTION} {result} today, carried out by {staff}",
    ), {"staff": w.person(member), "kind": insp["kind"].replace("_", " "), "result": result}, party=ref,
        voices=("staff",))
    return Plan(calls, [goal], say, targets={("safety_inspection", insp["id"])})


@intent("infeasible", categories=("energy",), needs=("charge_point",))
def energy_offline_while_charging(w: World) -> Plan | None:
    point = w.pick([p for p in w.rows["charge_point"] if p["status"] == "in_use"])
    if point is None:
        return None
    site = w.by_id("site", point[w.fk("site")])
    say = Say("do", (
        "take {CHARGE_POINT} {code} at {site} offline for maintenance",
        "the technician is on the way to {site} || take {CHARGE_POINT} {code} offline",
    ), {"code": point["code"], "site": site["name"]})
    return Plan([(w.n.list("charge_point"), {"code": point["code"]})], [w.status_answer("in_use")], say,
                answer="A vehicle is charging at it right now (in_use); that has to finish first.",
                targets={("charge_point", point["id"])})


@intent("aggregate", categories=("energy",), needs=("charging_session",))
def energy_delivered_kwh(w: World) -> Plan | None:
    point = w.pick([p for p in w.rows["charge_point"]
                    if any(s["status"] == "completed" for s in w.children("charging_session", "charge_point", p["id"]))])
    if point is None:
        return None
    total = round(sum(s["energy_kwh"] for s in w.children("charging_session", "charge_point", point["id"])
                      if s["status"] == "completed"), 2)
    say = Say("ask", (
        "how many kWh has {CHARGE_POINT} {code} delivered across its completed {CHARGING_SESSION/pl}",
        "what is the total energy, in kWh, of the completed {CHARGING_SESSION/pl} at {CHARGE_POINT} {code}",
    ), {"code": point["code"]})
    return Plan([(w.n.list("charge_point"), {"code": point["code"]}),
                 (w.n.list("charging_session"), {w.fk("charge_point"): point["id"], "status": "completed"})],
                [w.number_answer(total)], say, answer=f"{total} kWh", targets={("charge_point", point["id"])})

# --- media -----------------------------------------------------------------------------------------------------

_REGION_WORDS = {"north_america": "North American", "europe": "European", "asia_pacific": "Asia-Pacific",
                 "latin_america": "Latin American", "worldwide": "worldwide"}


def _licence_say(licence: dict, clauses: tuple[str, ...], **slots: object) -> Say:
    return Say("do", clauses, {"title": quote(licence["title"]), "region": _REGION_WORDS[licence["territory"]],
                               **slots})


@intent("action", categories=("media",), needs=("content_licence",))
def media_extend_licence(w: World) -> Plan | None:
    licence = w.pick([c for c in w.rows["content_licence"] if c["status"] == "active"])
    if licence is None:
        return None
    ends = (datetime.fromisoformat(licence["ends_on"]) + timedelta(days=w.pick([180, 365, 730]))).date().isoformat()
    calls = [(w.n.list("content_licence"), {"title": licence["title"], "territory": licence["territory"]}),
             (w.n.action("content_licence", "extend"), {w.pk("content_licence"): licence["id"], "ends_on": ends})]
    goal = Goal(kind="row_equals", table=w.table("content_licence"), pk=licence["id"], expect={"ends_on": ends})
    say = _licence_say(licence, (
        "extend our {region} {CONTENT_LICENCE} for {title} so it runs until {ends}",
        "{counterparty} agreed to more time on {title} || move the end of our {region} {CONTENT_LICENCE} to {ends}",
    ), ends=ends, counterparty=licence["counterparty"])
    return Plan(calls, [goal], say, targets={("content_licence", licence["id"])})


@intent("infeasible", categories=("media",), needs=("content_licence",))
def media_extend_expired_licence(w: World) -> Plan | None:
    licence = w.pick([c for c in w.rows["content_licence"] if c["status"] == "expired"])
    if licence is None:
        return None
    ends = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([180, 365]))).date().isoformat()
    say = _licence_say(licence, (
        "extend the {region} {CONTENT_LICENCE} for {title} to {ends}",
        "keep {title} licensed for the {region} market until {ends} by extending its {CONTENT_LICENCE}",
    ), ends=ends)
    return Plan([(w.n.list("content_licence"), {"title": licence["title"], "territory": licence["territory"]})],
                [w.status_answer("expired")], say,
                answer="That licence has expired; it has to be negotiated anew, not extended.",
                targets={("content_licence", licence["id"])})


@intent("aggregate", categories=("media",), needs=("royalty_statement",))
def media_approve_statements(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        drafts = [s for s in w.children("royalty_statement", "party", party["id"]) if s["status"] == "draft"]
        if drafts:
            options.append((party, drafts))
    pick = w.pick(options)
    if pick is None:
        return None
    party, drafts = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("royalty_statement"), {w.fk("party"): party["id"], "status": "draft"}),
             *[(w.n.action("royalty_statement", "approve"), {w.pk("royalty_statement"): s["id"]}) for s in drafts]]
    goals = [Goal(kind="row_equals", table=w.table("royalty_statement"), pk=s["id"], expect={"status": "approved"})
             for s in drafts]
    say = Say("do", (
        "the sales figures are checked || approve every {ROYALTY_STATEMENT} of {party} still in draft",
        "approve all the draft {ROYALTY_STATEMENT/pl} for {party}",
    ), {}, party=ref, voices=("staff",))
    return Plan(calls, goals, say, targets={("party", party["id"])})


@intent("action", categories=("media",), needs=("title_release",))
def media_postpone_release(w: World) -> Plan | None:
    release = w.pick([r for r in w.rows["title_release"] if r["status"] == "scheduled"])
    if release is None:
        return None
    new = (datetime.fromisoformat(release["release_on"]) + timedelta(days=w.pick([14, 21, 30, 45]))).date().isoformat()
    calls = [(w.n.list("title_release"), {"title": release["title"]}),
             (w.n.action("title_release", "postpone"), {w.pk("title_release"): release["id"], "release_on": new})]
    goal = Goal(kind="row_equals", table=w.table("title_release"), pk=release["id"],
                expect={"release_on": new, "status": "scheduled"})
    say = Say("do", (
        "push the release of {title} ({format}) back to {new}",
        "{title} has been delayed || postpone its {TITLE_RELEASE} to {new}",
    ), {"title": quote(release["title"]), "format": release["format"], "new": new})
    return Plan(calls, [goal], say, targets={("title_release", release["id"])})


def _events(w: World, full: bool) -> list[tuple[dict, int]]:
    """(event, seats left) for events on sale whose name no other event has, sold out or not."""
    out = []
    for event in w.rows["live_event"]:
        if event["status"] != "on_sale" or sum(e["name"] == event["name"] for e in w.rows["live_event"]) > 1:
            continue
        left = event["capacity"] - sum(t["seats"] for t in w.children("event_ticket", "live_event", event["id"])
                                       if t["status"] == "booked")
        if (left == 0) == full:
            out.append((event, left))
    return out


@intent("action", categories=("media",), needs=("event_ticket",))
def media_book_event_seats(w: World) -> Plan | None:
    pick = w.pick([(e, left) for e, left in _events(w, full=False) if left >= 2])
    party = w.pick(w.active_parties())
    if pick is None or party is None:
        return None
    event, left = pick
    seats = w.pick([1, 2, 2]) if left < 4 else w.pick([2, 3, 4])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("live_event"), {"query": event["name"]}),
             (w.n.create("event_ticket"), {w.fk("live_event"): event["id"], w.fk("party"): party["id"], "seats": seats})]
    goal = Goal(kind="rows_created", table=w.table("event_ticket"), count=1, expect={
        w.fk("live_event"): event["id"], w.fk("party"): party["id"], "seats": seats, "status": "booked"})
    say = Say("do", (
        "book {seats} for {them} at {event} on {when}",
        "{they} would like to come to {event} on {when} || book {seats} for {them}",
    ), {"seats": count(seats, "seat"), "event": quote(event["name"]), "when": long_date(event["starts_at"])},
        party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("live_event", event["id"])})


@intent("infeasible", categories=("media",), needs=("event_ticket",))
def media_event_sold_out(w: World) -> Plan | None:
    pick = w.pick(_events(w, full=True))
    party = w.pick(w.active_parties())
    if pick is None or party is None:
        return None
    event, _ = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "book {seats} for {them} at {event} on {when}",
        "{they} would like a place at {event} on {when} || book {seats} for {them}",
    ), {"seats": count(2, "seat"), "event": quote(event["name"]), "when": long_date(event["starts_at"])},
        party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("live_event"), {"query": event["name"]}),
                 (w.n.list("event_ticket"), {w.fk("live_event"): event["id"], "status": "booked"})],
                [w.text_answer("sold out", [])], say,
                answer=f"{event['name']} is sold out; no seats are left.",
                targets={("live_event", event["id"])})

# --- marketing -------------------------------------------------------------------------------------------------


def _rounds_of(w: World, case: dict) -> list[dict]:
    return w.children("approval_round", "case", case["id"])


@intent("action", categories=("marketing",), needs=("approval_round",))
def mkt_approve_round(w: World) -> Plan | None:
    pick = w.pick([(c, r) for c in w.rows["case"] for r in _rounds_of(w, c) if r["status"] == "pending"])
    if pick is None:
        return None
    case, rnd = pick
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("approval_round"), {w.fk("case"): case["id"], "status": "pending"}),
             (w.n.action("approval_round", "approve"), {w.pk("approval_round"): rnd["id"]})]
    goal = Goal(kind="row_equals", table=w.table("approval_round"), pk=rnd["id"], expect={"status": "approved"})
    say = Say("do", (
        "the client signed off the {deliverable} || approve the {APPROVAL_ROUND} waiting on {CASE} {code}",
        "record the client's approval of round {n} on {CASE} {code}",
    ), {"deliverable": rnd["deliverable"], "code": case["code"], "n": rnd["round_number"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("marketing",), needs=("approval_round",))
def mkt_round_over_limit(w: World) -> Plan | None:
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.open and len(_rounds_of(w, c)) >= MAX_ROUNDS
                   and all(r["status"] != "pending" for r in _rounds_of(w, c))])
    if case is None:
        return None
    deliverable = _rounds_of(w, case)[0]["deliverable"]
    say = Say("do", (
        "the client wants one more look at the {deliverable} || send a new {APPROVAL_ROUND} on {CASE} {code}",
        "open another {APPROVAL_ROUND} for the {deliverable} on {CASE} {code}",
    ), {"deliverable": deliverable, "code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("approval_round"), {w.fk("case"): case["id"]})],
                [w.number_answer(MAX_ROUNDS)], say,
                answer=f"All {MAX_ROUNDS} approval rounds the fee includes are used; another needs a change order.",
                targets={("case", case["id"])})


def _campaigns(w: World) -> list[tuple[dict, dict]]:
    """(campaign, party) for campaigns still running or to come, of active clients, with a name no other has."""
    return [(c, p) for c in w.rows["ad_campaign"] if c["status"] in ("draft", "live", "paused")
            and (p := _active_party(w, c)) is not None
            and sum(x["name"] == c["name"] for x in w.rows["ad_campaign"]) == 1]


@intent("action", categories=("marketing",), needs=("ad_campaign",))
def mkt_raise_budget(w: World) -> Plan | None:
    pick = w.pick(_campaigns(w))
    if pick is None:
        return None
    campaign, party = pick
    budget = campaign["budget"] + w.pick([2500.0, 5000.0, 7500.0, 10000.0])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("ad_campaign"), {w.fk("party"): party["id"]}),
             (w.n.action("ad_campaign", "set_budget"), {w.pk("ad_campaign"): campaign["id"], "budget": budget})]
    goal = Goal(kind="row_equals", table=w.table("ad_campaign"), pk=campaign["id"],
                expect={"budget": {"approx": budget}})
    say = Say("do", (
        "raise the budget of {their} {campaign} {AD_CAMPAIGN} to {budget}",
        "{they} approved more spend on {campaign} || set that {AD_CAMPAIGN}'s budget to {budget}",
    ), {"campaign": quote(campaign["name"]), "budget": money(budget)}, party=ref)
    return Plan(calls, [goal], say, targets={("ad_campaign", campaign["id"])})


@intent("infeasible", categories=("marketing",), needs=("ad_campaign",))
def mkt_budget_below_spend(w: World) -> Plan | None:
    pick = w.pick([(c, p) for c, p in _campaigns(w) if c["spent"] >= 1000])
    if pick is None:
        return None
    campaign, party = pick
    budget = float(int(campaign["spent"] * 0.6 // 100 * 100))
    ref = w.party_ref(party)
    say = Say("do", (
        "cut the budget of {their} {campaign} {AD_CAMPAIGN} to {budget}",
        "{they} want to spend less on {campaign} || lower that {AD_CAMPAIGN}'s budget to {budget}",
    ), {"campaign": quote(campaign["name"]), "budget": money(budget)}, party=ref)
    return Plan([w.find_party(ref), (w.n.list("ad_campaign"), {w.fk("party"): party["id"]})],
                [w.money_answer(campaign["spent"])], say,
                answer=f"The campaign has already spent {money(campaign['spent'])}; its budget cannot go below that.",
                targets={("ad_campaign", campaign["id"])})


@intent("action", categories=("marketing",), needs=("contact_list",))
def mkt_release_list(w: World) -> Plan | None:
    lst = w.pick([c for c in w.rows["contact_list"] if c["status"] == "verified" and c["usable_until"] >= TODAY
                  and sum(x["name"] == c["name"] for x in w.rows["contact_list"]) == 1])
    if lst is None:
        return None
    calls = [(w.n.list("contact_list"), {"query": lst["name"]}),
             (w.n.action("contact_list", "release"), {w.pk("contact_list"): lst["id"]})]
    goal = Goal(kind="row_equals", table=w.table("contact_list"), pk=lst["id"], expect={"status": "released"})
    say = Say("do", (
        "release the {name} {CONTACT_LIST} so the team can start using it",
        "the job is ready to go || release {CONTACT_LIST} {name}",
    ), {"name": quote(lst["name"])})
    return Plan(calls, [goal], say, targets={("contact_list", lst["id"])})


@intent("question", categories=("marketing",), needs=("survey_wave",))
def mkt_completes_needed(w: World) -> Plan | None:
    case = w.pick([c for c in w.rows["case"] if any(s["status"] == "fielding" for s in
                                                    w.children("survey_wave", "case", c["id"]))])
    if case is None:
        return None
    waves = [s for s in w.children("survey_wave", "case", case["id"]) if s["status"] == "fielding"]
    needed = sum(s["target_completes"] - s["completes"] for s in waves)
    say = Say("ask", (
        "how many more completes do the {SURVEY_WAVE/pl} still fielding on {CASE} {code} need to reach their targets",
        "across the {SURVEY_WAVE/pl} of {CASE} {code} that are still in the field, how many completes are missing",
    ), {"code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("survey_wave"), {w.fk("case"): case["id"], "status": "fielding"})],
                [w.number_answer(needed)], say, answer=str(needed), targets={("case", case["id"])})

# --- technology ------------------------------------------------------------------------------------------------


def _seat_licences(w: World) -> list[tuple[dict, dict, dict]]:
    """(licence, party, item) for active licences of active clients."""
    return [(s, p, w.by_id("item", s[w.fk("item")])) for s in w.rows["seat_licence"]
            if s["status"] == "active" and (p := _active_party(w, s)) is not None]


@intent("action", categories=("technology",), needs=("seat_licence",))
def tech_add_seats(w: World) -> Plan | None:
    pick = w.pick(_seat_licences(w))
    if pick is None:
        return None
    licence, party, item = pick
    seats = licence["seats"] + w.pick([5, 10, 15, 25])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("seat_licence"), {w.fk("party"): party["id"], w.fk("item"): item["id"]}),
             (w.n.action("seat_licence", "set_seats"), {w.pk("seat_licence"): licence["id"], "seats": seats})]
    goal = Goal(kind="row_equals", table=w.table("seat_licence"), pk=licence["id"], expect={"seats": seats})
    say = Say("do", (
        "{their} team is growing || take {their} {SEAT_LICENCE} for {item} up to {seats}",
        "set {their} {item} {SEAT_LICENCE} to {seats}",
    ), {"item": quote(item["name"]), "seats": count(seats, "seat")}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("seat_licence", licence["id"])})


@intent("infeasible", categories=("technology",), needs=("seat_licence",))
def tech_cut_seats_in_use(w: World) -> Plan | None:
    pick = w.pick([(s, p, i) for s, p, i in _seat_licences(w) if s["seats_in_use"] >= 8])
    if pick is None:
        return None
    licence, party, item = pick
    seats = licence["seats_in_use"] // 2
    ref = w.party_ref(party)
    say = Say("do", (
        "cut {their} {SEAT_LICENCE} for {item} down to {seats}",
        "fewer people need {item} now || reduce {their} {SEAT_LICENCE} for it to {seats}",
    ), {"item": quote(item["name"]), "seats": count(seats, "seat")}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("seat_licence"), {w.fk("party"): party["id"], w.fk("item"): item["id"]})],
                [w.number_answer(licence["seats_in_use"])], say,
                answer=f"{licence['seats_in_use']} seats are in use; the licence cannot go below that until some "
                       "are freed.", targets={("seat_licence", licence["id"])})


@intent("action", categories=("technology",), needs=("service_incident",))
def tech_resolve_incident(w: World) -> Plan | None:
    incident = w.pick([i for i in w.rows["service_incident"] if i["status"] in ("investigating", "mitigated")])
    if incident is None:
        return None
    cause = w.pick(["an expired certificate", "a bad configuration push", "a full disk on a primary node",
                    "an upstream provider outage"])
    pk = {w.pk("service_incident"): incident["id"]}
    calls = [(w.n.list("service_incident"), {"query": incident["title"]})]
    if incident["status"] == "investigating":
        calls.append((w.n.action("service_incident", "mitigate"), pk))
    calls.append((w.n.action("service_incident", "resolve"), {**pk, "root_cause": cause}))
    goal = Goal(kind="row_equals", table=w.table("service_incident"), pk=incident["id"],
                expect={"status": "resolved", "root_cause": {"text": cause}})
    say = Say("do", (
        "the {title} {SERVICE_INCIDENT} is fixed || resolve it, giving the root cause as {cause}",
        "close out the {SERVICE_INCIDENT} {title} as resolved; the root cause was {cause}",
    ), {"title": quote(incident["title"]), "cause": quote(cause)})
    return Plan(calls, [goal], say, targets={("service_incident", incident["id"])})


@intent("question", categories=("technology",), needs=("service_incident",))
def tech_open_incidents(w: World) -> Plan | None:
    severity = w.pick([s for s in ("sev1", "sev2") if any(i["severity"] == s for i in w.rows["service_incident"])])
    if severity is None:
        return None
    unresolved = [i for i in w.rows["service_incident"] if i["severity"] == severity and i["status"] != "resolved"]
    say = Say("ask", (
        "how many {severity} {SERVICE_INCIDENT/pl} are not resolved yet",
        "how many {SERVICE_INCIDENT/pl} of severity {severity} are still open, investigating or mitigated",
    ), {"severity": severity})
    return Plan([(w.n.list("service_incident"), {"severity": severity})], [w.number_answer(len(unresolved))], say,
                answer=str(len(unresolved)), targets={("service_incident", i["id"]) for i in unresolved})


@intent("chained", categories=("technology",), needs=("server_instance",))
def tech_resize_instance(w: World) -> Plan | None:
    instance = w.pick([s for s in w.rows["server_instance"] if s["status"] == "running" and _active_party(w, s)
                       and s["size"] != SIZES[-1]])
    if instance is None:
        return None
    size = SIZES[SIZES.index(instance["size"]) + 1]
    pk = {w.pk("server_instance"): instance["id"]}
    calls = [(w.n.list("server_instance"), {"hostname": instance["hostname"]}),
             (w.n.action("server_instance", "stop"), pk),
             (w.n.action("server_instance", "resize"), {**pk, "size": size}),
             (w.n.action("server_instance", "start"), pk)]
    goal = Goal(kind="row_equals", table=w.table("server_instance"), pk=instance["id"],
                expect={"size": size, "status": "running"})
    say = Say("do", (
        "the {SERVER_INSTANCE} {host} is running out of memory || move it up to the {size} size and have it "
        "running again afterwards",
        "resize the {SERVER_INSTANCE} {host} to {size}, and make sure it is back up when you are done",
    ), {"host": instance["hostname"], "size": size})
    return Plan(calls, [goal], say, targets={("server_instance", instance["id"])})


@intent("aggregate", categories=("technology",), needs=("api_key",))
def tech_revoke_keys(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        keys = [k for k in w.children("api_key", "party", party["id"]) if k["status"] == "active"]
        if 1 <= len(keys) <= MAX_ACTIVE_KEYS:
            options.append((party, keys))
    pick = w.pick(options)
    if pick is None:
        return None
    party, keys = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("api_key"), {w.fk("party"): party["id"], "status": "active"}),
             *[(w.n.action("api_key", "revoke"), {w.pk("api_key"): k["id"]}) for k in keys]]
    goals = [Goal(kind="row_equals", table=w.table("api_key"), pk=k["id"], expect={"status": "revoked"}) for k in keys]
    say = Say("do", (
        "{their} credentials may have leaked || revoke every active {API_KEY} {they_have}",
        "revoke all of {their} active {API_KEY/pl}",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party["id"])})


# --- manufacturing ---------------------------------------------------------------------------------------------


def _short_runs(w: World) -> list[dict]:
    return [r for r in w.rows["production_run"] if r["status"] == "running"
            and r["quantity_good"] < r["quantity_planned"]]


@intent("question", categories=("manufacturing",), needs=("production_run",))
def mfg_units_to_go(w: World) -> Plan | None:
    run = w.pick(_short_runs(w))
    if run is None:
        return None
    to_go = run["quantity_planned"] - run["quantity_good"]
    say = Say("ask", (
        "how many more good units does {PRODUCTION_RUN} {run} need to reach its planned quantity",
        "{PRODUCTION_RUN} {run} is still going || how many good units short of its plan is it",
    ), {"run": run["run_number"]})
    return Plan([(w.n.list("production_run"), {"run_number": run["run_number"]})], [w.number_answer(to_go)], say,
                answer=count(to_go, "unit"), targets={("production_run", run["id"])})


@intent("infeasible", categories=("manufacturing",), needs=("production_run",))
def mfg_complete_short_run(w: World) -> Plan | None:
    run = w.pick(_short_runs(w))
    if run is None:
        return None
    say = Say("do", (
        "mark {PRODUCTION_RUN} {run} (planned for {planned} units) as completed",
        "{PRODUCTION_RUN} {run} for {planned} units is done || complete it",
    ), {"run": run["run_number"], "planned": run["quantity_planned"]})
    return Plan([(w.n.list("production_run"), {"run_number": run["run_number"]})],
                [w.number_answer(run["quantity_good"]), w.number_answer(run["quantity_planned"])], say,
                answer=f"It has only {run['quantity_good']} good units of the {run['quantity_planned']} planned, so it "
                       "cannot be completed yet.", targets={("production_run", run["id"])})


@intent("chained", categories=("manufacturing",), needs=("nonconformance",))
def mfg_disposition_and_close(w: World) -> Plan | None:
    options = []
    for ncr in w.rows["nonconformance"]:
        mine = w.children("nonconformance", "case", ncr[w.fk("case")])
        if ncr["status"] == "open" and ncr["disposition"] is None and sum(n["status"] == "open" for n in mine) == 1:
            options.append(ncr)
    ncr = w.pick(options)
    if ncr is None:
        return None
    case = w.by_id("case", ncr[w.fk("case")])
    disposition = w.pick(["rework", "scrap", "use_as_is"])
    pk = {w.pk("nonconformance"): ncr["id"]}
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("nonconformance"), {w.fk("case"): case["id"], "status": "open"}),
             (w.n.action("nonconformance", "set_disposition"), {**pk, "disposition": disposition}),
             (w.n.action("nonconformance", "close"), pk)]
    goal = Goal(kind="row_equals", table=w.table("nonconformance"), pk=ncr["id"],
                expect={"status": "closed", "disposition": disposition})
    say = Say("do", (
        "the review board decided {words} for the {defect} on {CASE} {code} || set that disposition ({disposition}) "
        "on its open {NONCONFORMANCE} and close it",
        "close the open {NONCONFORMANCE} on {CASE} {code} with the disposition {disposition}",
    ), {"code": case["code"], "defect": ncr["defect"], "disposition": disposition,
        "words": {"rework": "to rework the parts", "scrap": "to scrap the parts", "use_as_is": "to use the parts as they are"}[disposition]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


def _instruments(w: World, calibrated: bool) -> list[dict]:
    return [i for i in w.rows["instrument"] if i["status"] == "available"
            and (i["calibration_due"] >= TODAY) == calibrated]


@intent("action", categories=("manufacturing",), needs=("instrument",))
def mfg_check_out_instrument(w: World) -> Plan | None:
    instrument = w.pick(_instruments(w, calibrated=True))
    member = w.pick(w.staff_pool())
    if instrument is None or member is None:
        return None
    calls = [(w.n.list("instrument"), {"asset_tag": instrument["asset_tag"]}), w.find_staff(member),
             (w.n.action("instrument", "check_out"), {w.pk("instrument"): instrument["id"], w.fk("staff"): member["id"]})]
    goal = Goal(kind="row_equals", table=w.table("instrument"), pk=instrument["id"],
                expect={"status": "checked_out", w.fk("staff"): member["id"]})
    say = Say("do", (
        "check out {INSTRUMENT} {tag} (the {kind}) to {staff}",
        "{staff} needs the {kind} {tag} for an inspection || check it out to them",
    ), {"tag": instrument["asset_tag"], "kind": instrument["kind"].replace("_", " "), "staff": w.person(member)})
    return Plan(calls, [goal], say, targets={("instrument", instrument["id"])})


@intent("infeasible", categories=("manufacturing",), needs=("instrument",))
def mfg_uncalibrated_instrument(w: World) -> Plan | None:
    instrument = w.pick(_instruments(w, calibrated=False))
    member = w.pick(w.staff_pool())
    if instrument is None or member is None:
        return None
    due = instrument["calibration_due"]
    say = Say("do", (
        "check out {INSTRUMENT} {tag} to {staff}",
        "{staff} wants the {kind} {tag} for a job today || check it out to them",
    ), {"tag": instrument["asset_tag"], "kind": instrument["kind"].replace("_", " "), "staff": w.person(member)})
    return Plan([(w.n.list("instrument"), {"asset_tag": instrument["asset_tag"]})],
                [w.text_answer(due, [i["calibration_due"] for i in w.rows["instrument"]])], say,
                answer=f"It was due for calibration on {due}; it cannot be used until it is recalibrated.",
                targets={("instrument", instrument["id"])})


@intent("action", categories=("manufacturing",), needs=("customer_asset",))
def mfg_return_asset(w: World) -> Plan | None:
    asset = w.pick([a for a in w.rows["customer_asset"] if a["status"] == "in_storage" and _active_party(w, a)])
    if asset is None:
        return None
    party = w.party_of(asset)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("customer_asset"), {w.fk("party"): party["id"], "asset_tag": asset["asset_tag"]}),
             (w.n.action("customer_asset", "return_to_owner"), {w.pk("customer_asset"): asset["id"]})]
    goal = Goal(kind="row_equals", table=w.table("customer_asset"), pk=asset["id"],
                expect={"status": "returned", "returned_on": TODAY})
    say = Say("do", (
        "{they_are} collecting {their} {thing} today (tag {tag}) || record it as returned to {them}",
        "hand {their} {thing}, tag {tag}, back to {them}",
    ), {"thing": asset["description"], "tag": asset["asset_tag"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("customer_asset", asset["id"])})





# --- government ------------------------------------------------------------------------------------------------


def _licences(w: World, renewable: bool) -> list[tuple[dict, dict]]:
    opens = (datetime.fromisoformat(TODAY) + timedelta(days=LICENCE_RENEWAL_DAYS)).date().isoformat()
    return [(li, p) for li in w.rows["issued_licence"] if li["status"] == "active" and li["expires_on"] != opens
            and (li["expires_on"] < opens) == renewable and (p := _active_party(w, li)) is not None]


@intent("action", categories=("government",), needs=("issued_licence",))
def gov_renew_licence(w: World) -> Plan | None:
    pick = w.pick(_licences(w, renewable=True))
    if pick is None:
        return None
    licence, party = pick
    until = (datetime.fromisoformat(licence["expires_on"]) + timedelta(days=365 * w.pick([1, 2, 5]))).date().isoformat()
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("issued_licence"), {"number": licence["number"]}),
             (w.n.action("issued_licence", "renew"), {w.pk("issued_licence"): licence["id"], "expires_on": until})]
    goal = Goal(kind="row_equals", table=w.table("issued_licence"), pk=licence["id"],
                expect={"status": "active", "expires_on": until})
    say = Say("do", (
        "renew {their} {ISSUED_LICENCE} {number} so it runs until {until}",
        "{their} {ISSUED_LICENCE} {number} runs out on {ends} || renew it until {until}",
    ), {"number": licence["number"], "until": until, "ends": licence["expires_on"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("issued_licence", licence["id"])})


@intent("infeasible", categories=("government",), needs=("issued_licence",))
def gov_renew_licence_too_early(w: World) -> Plan | None:
    pick = w.pick(_licences(w, renewable=False))
    if pick is None:
        return None
    licence, party = pick
    until = (datetime.fromisoformat(licence["expires_on"]) + timedelta(days=365)).date().isoformat()
    ref = w.party_ref(party)
    say = Say("do", (
        "renew {their} {ISSUED_LICENCE} {number} until {until}",
        "renew {their} {ISSUED_LICENCE} {number} today so it runs until {until}",
    ), {"number": licence["number"], "until": until}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("issued_licence"), {"number": licence["number"]})],
                [w.text_answer(licence["expires_on"], [])], say,
                answer=f"It expires on {licence['expires_on']}; renewal opens only {LICENCE_RENEWAL_DAYS} days before "
                       "that.", targets={("issued_licence", licence["id"])})


@intent("infeasible", categories=("government",), needs=("inspection_visit",))
def gov_inspection_result_too_early(w: World) -> Plan | None:
    cases = {}
    for visit in w.rows["inspection_visit"]:
        if visit["status"] == "scheduled":
            cases.setdefault(visit[w.fk("case")], []).append(visit)
    visit = w.pick([v[0] for v in cases.values() if len(v) == 1 and v[0]["scheduled_on"] > TODAY])
    if visit is None:
        return None
    case = w.by_id("case", visit[w.fk("case")])
    say = Say("do", (
        "record the {INSPECTION_VISIT} on {CASE} {code} as passed",
        "the {INSPECTION_VISIT} for {CASE} {code} went fine || mark it passed",
    ), {"code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("inspection_visit"), {w.fk("case"): case["id"], "status": "scheduled"})],
                [w.text_answer(visit["scheduled_on"], [])], say,
                answer=f"That inspection is scheduled for {visit['scheduled_on']}; no result can be recorded before then.",
                targets={("case", case["id"])})


def _fines(w: World, open_: bool) -> list[tuple[dict, dict]]:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=APPEAL_DAYS)).date().isoformat()
    return [(f, p) for f in w.rows["fine_notice"] if f["status"] == "unpaid" and f["issued_on"] != cutoff
            and (f["issued_on"] > cutoff) == open_ and (p := _active_party(w, f)) is not None]


@intent("action", categories=("government",), needs=("fine_notice",))
def gov_appeal_fine(w: World) -> Plan | None:
    pick = w.pick(_fines(w, open_=True))
    if pick is None:
        return None
    fine, party = pick
    grounds = w.pick(["The notice went to an old address", "The fee was already paid at the counter",
                      "The office was closed on the due date"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("fine_notice"), {"number": fine["number"]}),
             (w.n.action("fine_notice", "appeal"), {w.pk("fine_notice"): fine["id"], "grounds": grounds})]
    goal = Goal(kind="row_equals", table=w.table("fine_notice"), pk=fine["id"],
                expect={"status": "appealed", "appeal_grounds": {"text": grounds}})
    say = Say("do", (
        "file an appeal against {their} {FINE_NOTICE} {number}, giving the grounds as {grounds}",
        "{they} dispute {FINE_NOTICE} {number} || file an appeal with the grounds {grounds}",
    ), {"number": fine["number"], "grounds": quote(grounds)}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("fine_notice", fine["id"])})


@intent("infeasible", categories=("government",), needs=("fine_notice",))
def gov_appeal_fine_too_late(w: World) -> Plan | None:
    pick = w.pick(_fines(w, open_=False))
    if pick is None:
        return None
    fine, party = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "file an appeal against {their} {FINE_NOTICE} {number}, giving the grounds as {grounds}",
        "{they} think {FINE_NOTICE} {number} is wrong || file an appeal against it ({grounds})",
    ), {"number": fine["number"], "grounds": quote("The notice went to an old address")}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("fine_notice"), {"number": fine["number"]})],
                [w.text_answer(fine["issued_on"], [])], say,
                answer=f"That fine was issued on {fine['issued_on']}; appeals close {APPEAL_DAYS} days after issue.",
                targets={("fine_notice", fine["id"])})


@intent("aggregate", categories=("government",), needs=("fine_notice",))
def gov_unpaid_fines_total(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        unpaid = [f for f in w.children("fine_notice", "party", party["id"]) if f["status"] == "unpaid"]
        if unpaid:
            options.append((party, unpaid))
    pick = w.pick(options)
    if pick is None:
        return None
    party, unpaid = pick
    total = round(sum(f["amount"] for f in unpaid), 2)
    ref = w.party_ref(party)
    say = Say("ask", (
        "how much do {they} owe in unpaid {FINE_NOTICE/pl} altogether",
        "what is the total of {their} unpaid {FINE_NOTICE/pl}",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("fine_notice"), {w.fk("party"): party["id"], "status": "unpaid"})],
                [w.money_answer(total)], say, answer=money(total), targets={("party", party["id"])})


@intent("action", categories=("government",), needs=("records_request",))
def gov_extend_records_request(w: World) -> Plan | None:
    request = w.pick([r for r in w.rows["records_request"] if r["status"] in ("received", "in_review")
                      and not r["extended"] and r["due_on"] >= TODAY])
    if request is None:
        return None
    due = (datetime.fromisoformat(request["due_on"]) + timedelta(days=w.pick([10, 14]))).date().isoformat()
    calls = [(w.n.list("records_request"), {"number": request["number"]}),
             (w.n.action("records_request", "extend"), {w.pk("records_request"): request["id"], "due_on": due})]
    goal = Goal(kind="row_equals", table=w.table("records_request"), pk=request["id"],
                expect={"due_on": due, "extended": 1})
    say = Say("do", (
        "extend {RECORDS_REQUEST} {number} so it is due on {due}",
        "the records for {RECORDS_REQUEST} {number} need more searching || extend its due date to {due}",
    ), {"number": request["number"], "due": due})
    return Plan(calls, [goal], say, targets={("records_request", request["id"])})


# --- professional services -------------------------------------------------------------------------------------


@intent("action", categories=("professional_services",), needs=("time_entry",))
def pro_log_time(w: World) -> Plan | None:
    pool = {s["id"]: s for s in w.staff_pool()}
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.open and c.get(w.fk("staff")) in pool])
    if case is None:
        return None
    member = pool[case[w.fk("staff")]]
    hours, worked_on = w.pick([1.5, 2.0, 3.5]), w.pick(["2025-05-29", "2025-05-30"])
    what = w.pick(["Reviewed the documents received", "Call with the client", "Drafted the first version"])
    calls = [(w.n.list("case"), {"code": case["code"]}), w.find_staff(member),
             (w.n.create("time_entry"), {w.fk("case"): case["id"], w.fk("staff"): member["id"], "worked_on": worked_on,
                                         "hours": hours, "description": what})]
    goal = Goal(kind="rows_created", table=w.table("time_entry"), count=1,
                expect={w.fk("case"): case["id"], w.fk("staff"): member["id"], "worked_on": worked_on,
                        "hours": {"approx": hours}, "description": {"text": what}})
    say = Say("do", (
        "log {hours} hours by {staff} on {CASE} {code} for {date}, described as {what}",
        "{staff} worked {hours} hours on {CASE} {code} on {date} || log that time with the description {what}",
    ), {"hours": f"{hours:g}", "staff": w.person(member), "code": case["code"], "date": worked_on,
        "what": quote(what)})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("aggregate", categories=("professional_services",), needs=("time_entry",))
def pro_unbilled_hours(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        entries = [t for t in w.children("time_entry", "case", case["id"]) if t["status"] == "unbilled"]
        if len(entries) >= 2 and any(t["billable"] for t in entries):
            options.append((case, entries))
    pick = w.pick(options)
    if pick is None:
        return None
    case, entries = pick
    hours = round(sum(t["hours"] for t in entries if t["billable"]), 2)
    say = Say("ask", (
        "how many billable hours on {CASE} {code} have not been billed yet",
        "what is the total of billable hours still unbilled on {CASE} {code}",
    ), {"code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("time_entry"), {w.fk("case"): case["id"], "status": "unbilled"})],
                [w.number_answer(hours)], say, answer=f"{hours:g} hours", targets={("case", case["id"])})


def _retainers(w: World) -> list[tuple[dict, dict]]:
    return [(r, p) for r in w.rows["client_retainer"] if r["status"] == "active" and r["balance"] >= 250
            and (p := _active_party(w, r)) is not None]


@intent("action", categories=("professional_services",), needs=("client_retainer",))
def pro_draw_retainer(w: World) -> Plan | None:
    pick = w.pick(_retainers(w))
    if pick is None:
        return None
    retainer, party = pick
    amount = float(w.pick([a for a in (120, 180, 240) if a < retainer["balance"]]))
    left = round(retainer["balance"] - amount, 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("client_retainer"), {"number": retainer["number"]}),
             (w.n.action("client_retainer", "draw"), {w.pk("client_retainer"): retainer["id"], "amount": amount})]
    goal = Goal(kind="row_equals", table=w.table("client_retainer"), pk=retainer["id"], expect={"balance": {"approx": left}})
    say = Say("do", (
        "draw {amount} from {their} {CLIENT_RETAINER} {number} for this month's work",
        "this month's bill for {them} comes to {amount} || take it from {their} {CLIENT_RETAINER} {number}",
    ), {"amount": money(amount), "number": retainer["number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("client_retainer", retainer["id"])})


@intent("infeasible", categories=("professional_services",), needs=("client_retainer",))
def pro_overdraw_retainer(w: World) -> Plan | None:
    pick = w.pick(_retainers(w))
    if pick is None:
        return None
    retainer, party = pick
    amount = round(retainer["balance"] + w.pick([150.0, 400.0, 975.0]), 2)
    ref = w.party_ref(party)
    say = Say("do", (
        "draw {amount} from {their} {CLIENT_RETAINER} {number} for this month's work",
        "take {amount} from {their} {CLIENT_RETAINER} {number} to settle this month's bill",
    ), {"amount": money(amount), "number": retainer["number"]}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("client_retainer"), {"number": retainer["number"]})],
                [w.money_answer(retainer["balance"])], say,
                answer=f"The retainer holds only {money(retainer['balance'])}; a draw cannot exceed its balance.",
                targets={("client_retainer", retainer["id"])})


@intent("infeasible", categories=("professional_services",), needs=("filing_deadline",))
def pro_extend_passed_deadline(w: World) -> Plan | None:
    options = []
    for d in w.rows["filing_deadline"]:
        same = [x for x in w.children("filing_deadline", "case", d[w.fk("case")]) if x["description"] == d["description"]]
        if d["status"] == "open" and d["due_on"] < TODAY and len(same) == 1:
            options.append(d)
    deadline = w.pick(options)
    if deadline is None:
        return None
    case = w.by_id("case", deadline[w.fk("case")])
    until = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([14, 30]))).date().isoformat()
    say = Say("do", (
        "extend the {FILING_DEADLINE} for the {what} on {CASE} {code} to {until}",
        "we need more time for the {what} on {CASE} {code} || move its {FILING_DEADLINE} to {until}",
    ), {"what": deadline["description"].lower(), "code": case["code"], "until": until})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("filing_deadline"), {w.fk("case"): case["id"]})],
                [w.text_answer(deadline["due_on"], [])], say,
                answer=f"That deadline passed on {deadline['due_on']}; an extension must be asked for before it passes.",
                targets={("case", case["id"])})


@intent("action", categories=("professional_services",), needs=("engagement_letter",))
def pro_sign_letter(w: World) -> Plan | None:
    options = []
    for letter in w.rows["engagement_letter"]:
        sent = [x for x in w.children("engagement_letter", "case", letter[w.fk("case")]) if x["status"] == "sent"]
        if letter["status"] == "sent" and letter["expires_on"] >= TODAY and len(sent) == 1:
            options.append(letter)
    letter = w.pick(options)
    if letter is None:
        return None
    case = w.by_id("case", letter[w.fk("case")])
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("engagement_letter"), {w.fk("case"): case["id"], "status": "sent"}),
             (w.n.action("engagement_letter", "sign"), {w.pk("engagement_letter"): letter["id"]})]
    goal = Goal(kind="row_equals", table=w.table("engagement_letter"), pk=letter["id"], expect={"status": "signed"})
    say = Say("do", (
        "the client has signed the {ENGAGEMENT_LETTER} for {CASE} {code} || record it as signed",
        "record the {ENGAGEMENT_LETTER} sent for {CASE} {code} as signed",
    ), {"code": case["code"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


# --- nonprofit -------------------------------------------------------------------------------------------------


@intent("action", categories=("nonprofit",), needs=("grant_application",))
def np_record_grant_award(w: World) -> Plan | None:
    grant = w.pick([g for g in w.rows["grant_application"] if g["status"] == "submitted"])
    if grant is None:
        return None
    amount = round(grant["amount_requested"] * w.pick([0.6, 0.75, 1.0]), 2)
    calls = [(w.n.list("grant_application"), {"number": grant["number"]}),
             (w.n.action("grant_application", "record_award"),
              {w.pk("grant_application"): grant["id"], "amount_awarded": amount})]
    goal = Goal(kind="row_equals", table=w.table("grant_application"), pk=grant["id"],
                expect={"status": "awarded", "amount_awarded": {"approx": amount}})
    say = Say("do", (
        "{funder} has awarded {amount} on {GRANT_APPLICATION} {number} || record the award",
        "record an award of {amount} from {funder} on {GRANT_APPLICATION} {number}",
    ), {"funder": grant["funder"], "amount": money(amount), "number": grant["number"]})
    return Plan(calls, [goal], say, targets={("grant_application", grant["id"])})


@intent("infeasible", categories=("nonprofit",), needs=("grant_application",))
def np_submit_late_grant(w: World) -> Plan | None:
    grant = w.pick([g for g in w.rows["grant_application"] if g["status"] == "drafting" and g["deadline"] < TODAY])
    if grant is None:
        return None
    say = Say("do", (
        "submit {GRANT_APPLICATION} {number} to {funder}",
        "the draft of {GRANT_APPLICATION} {number} is finished || submit it to {funder}",
    ), {"funder": grant["funder"], "number": grant["number"]})
    return Plan([(w.n.list("grant_application"), {"number": grant["number"]})],
                [w.text_answer(grant["deadline"], [])], say,
                answer=f"The funder's deadline was {grant['deadline']}; the application can no longer be submitted.",
                targets={("grant_application", grant["id"])})


@intent("action", categories=("nonprofit",), needs=("pledge",))
def np_pay_off_pledge(w: World) -> Plan | None:
    pick = w.pick([(p, party) for p in w.rows["pledge"] if p["status"] == "open"
                   and (party := _active_party(w, p)) is not None])
    if pick is None:
        return None
    pledge, party = pick
    owed = round(pledge["amount_pledged"] - pledge["amount_paid"], 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("pledge"), {"number": pledge["number"]}),
             (w.n.action("pledge", "record_payment"), {w.pk("pledge"): pledge["id"], "amount": owed})]
    goal = Goal(kind="row_equals", table=w.table("pledge"), pk=pledge["id"],
                expect={"amount_paid": {"approx": pledge["amount_pledged"]}, "status": "fulfilled"})
    say = Say("do", (
        "{they_have} paid the {owed} left on {their} {PLEDGE} {number} || record that payment",
        "record a payment of {owed} on {their} {PLEDGE} {number}, which settles it",
    ), {"owed": money(owed), "number": pledge["number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("pledge", pledge["id"])})


def _open_events(w: World, full: bool) -> list[tuple[dict, dict]]:
    out = []
    for event in w.rows["charity_event"]:
        taken = sum(s["status"] == "registered" for s in w.children("event_signup", "charity_event", event["id"]))
        if event["status"] == "scheduled" and event["starts_on"] > TODAY and (taken >= event["capacity"]) == full:
            out.append((event, w.by_id("site", event[w.fk("site")])))
    return out


@intent("action", categories=("nonprofit",), needs=("event_signup",))
def np_register_for_event(w: World) -> Plan | None:
    pick = w.pick(_open_events(w, full=False))
    if pick is None:
        return None
    event, site = pick
    booked = {s[w.fk("party")] for s in w.children("event_signup", "charity_event", event["id"])}
    party = w.pick([p for p in w.active_parties() if p["id"] not in booked])
    if party is None:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("charity_event"), {w.fk("site"): site["id"], "name": event["name"]}),
             (w.n.create("event_signup"), {w.fk("charity_event"): event["id"], w.fk("party"): party["id"]})]
    goal = Goal(kind="rows_created", table=w.table("event_signup"), count=1,
                expect={w.fk("charity_event"): event["id"], w.fk("party"): party["id"], "status": "registered"})
    say = Say("do", (
        "add {their} name to the list for the {event} at {site} on {long}",
        "{they} would like to come to the {event} at {site} on {long} || put {their} name down for it",
    ), {"event": event["name"], "site": site["name"], "long": long_date(event["starts_on"])}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("charity_event", event["id"])})


@intent("infeasible", categories=("nonprofit",), needs=("event_signup",))
def np_register_for_full_event(w: World) -> Plan | None:
    pick = w.pick(_open_events(w, full=True))
    if pick is None:
        return None
    event, site = pick
    booked = {s[w.fk("party")] for s in w.children("event_signup", "charity_event", event["id"])}
    party = w.pick([p for p in w.active_parties() if p["id"] not in booked])
    if party is None:
        return None
    ref = w.party_ref(party)
    say = Say("do", (
        "add {their} name to the list for the {event} at {site} on {long}",
        "put {their} name down for the {event} at {site} on {long}",
    ), {"event": event["name"], "site": site["name"], "long": long_date(event["starts_on"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("charity_event"), {w.fk("site"): site["id"], "name": event["name"]}),
                 (w.n.list("event_signup"), {w.fk("charity_event"): event["id"], "status": "registered"})],
                [w.number_answer(event["capacity"])], say,
                answer=f"All {event['capacity']} places at that event are taken.", targets={("charity_event", event["id"])})


@intent("aggregate", categories=("nonprofit",), needs=("service_log",))
def np_approved_hours(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        logs = [x for x in w.children("service_log", "party", party["id"]) if x["status"] == "approved"]
        if len(logs) >= 2:
            options.append((party, logs))
    pick = w.pick(options)
    if pick is None:
        return None
    party, logs = pick
    hours = round(sum(x["hours"] for x in logs), 2)
    ref = w.party_ref(party)
    say = Say("ask", (
        "how many approved hours of service do {they} have on record",
        "what do {their} approved {SERVICE_LOG/pl} add up to, in hours",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("service_log"), {w.fk("party"): party["id"], "status": "approved"})],
                [w.number_answer(hours)], say, answer=f"{hours:g} hours", targets={("party", party["id"])})
