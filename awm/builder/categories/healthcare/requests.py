"""Requests about the healthcare category's own entities (awm/builder/modules/packs/healthcare.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.healthcare.entities import FILING_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, TODAY, book_into_slot, slotless_cases
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


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
    cases = slotless_cases(w)
    pool = {s["id"] for s in w.staff_pool()}
    firsts = {}
    for slot in sorted(w.rows["slot"], key=lambda s: s["starts_at"]):
        if slot["status"] == "open" and slot[w.fk("staff")] in pool:
            firsts.setdefault(slot[w.fk("staff")], slot)
    case, staff_id = w.pick(cases), w.pick(sorted(firsts))
    if case is None or staff_id is None:
        return None
    slot, member = firsts[staff_id], w.by_id("staff", staff_id)
    ref, case_np, calls, goals = book_into_slot(w, case, member, slot)
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
    return Plan([(w.n.list("insurance_claim"), {"number": claim["number"]})], [w.text_answer(claim["service_date"][:10], [])],
                say, answer=f"Its service was on {claim['service_date']}, past the {FILING_WINDOW_DAYS}-day filing "
                            "window, so it can no longer be submitted.", targets={("insurance_claim", claim["id"])},
                refused=((w.n.action("insurance_claim", "submit"), {w.pk("insurance_claim"): claim["id"]}),
                         "window_closed"))


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
