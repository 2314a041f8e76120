"""Requests about the healthcare category's own entities (awm/builder/modules/packs/healthcare.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.healthcare.entities import FILING_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, TODAY, book_into_slot, slotless_cases
from awm.builder.intents.preferences import SELF
from awm.builder.intents.shapes import checkin_with_copay, define, follow_up_booking, reroute_to_quietest_site
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


# --- the earliest open slot that fits -------------------------------------------------------------------------

# What a person may require of a slot (`_fits` tests it on a slot, `_rule_words` says it): that it starts in the
# afternoon (at 12:00 or later) or the morning, falls on or after a day, or lasts at least so many minutes.
_AFTERNOON = 12
_SLOT_RULES = ("afternoon", "morning", "from_day", "minutes")


def _fits(slot: dict, rule: str, value: object) -> bool:
    hour = int(slot["starts_at"][11:13])
    if rule == "afternoon":
        return hour >= _AFTERNOON
    if rule == "morning":
        return hour < _AFTERNOON
    if rule == "from_day":
        return slot["starts_at"][:10] >= value
    return slot["duration_minutes"] >= value


def _rule_words(rule: str, value: object) -> str:
    if rule == "afternoon":
        return "that starts at 12:00 or later"
    if rule == "morning":
        return "that starts before 12:00"
    if rule == "from_day":
        return f"on or after {long_date(value)}"
    return f"that lasts at least {value} minutes"


def earliest_slot_options(w: World) -> list[tuple[dict, str, object, dict, dict, dict]]:
    """(staff member, rule, value, the earliest open slot of theirs that meets the rule, the next one that does,
    their earliest open slot) wherever the rule excludes the earliest slot and a later fitting slot remains as a
    runner-up."""
    open_slots: dict[int, list[dict]] = {}
    for slot in sorted(w.rows["slot"], key=lambda s: s["starts_at"]):
        if slot["status"] == "open":
            open_slots.setdefault(slot[w.fk("staff")], []).append(slot)
    options = []
    for member in w.staff_pool():
        slots = open_slots.get(member["id"], [])
        if len(slots) < 3:
            continue
        first = slots[0]
        days = sorted({s["starts_at"][:10] for s in slots if s["starts_at"][:10] > first["starts_at"][:10]})
        values = {"afternoon": [None], "morning": [None], "from_day": days[:2],
                  "minutes": sorted({s["duration_minutes"] for s in slots if s["duration_minutes"] >
                                     first["duration_minutes"]})[:2]}
        for rule in _SLOT_RULES:
            for value in values[rule]:
                fitting = [s for s in slots if _fits(s, rule, value)]
                if len(fitting) >= 2 and fitting[0] is not first:
                    options.append((member, rule, value, fitting[0], fitting[1], first))
    return options


@intent("chained", categories=("healthcare",), needs=("slot",))
def book_earliest_slot_that_fits(w: World) -> Plan | None:
    """A patient's upcoming visit moved into a practitioner's earliest open slot that meets their constraint (the
    afternoon, a day they are free from, a long enough visit): the agent lists the practitioner's open slots and
    books the first that fits."""
    option, case = w.pick(earliest_slot_options(w)), w.pick(slotless_cases(w))
    if option is None or case is None:
        return None
    member, rule, value, slot, *_ = option
    ref, case_np, calls, goals = book_into_slot(w, case, member, slot)
    say = Say("do", (
        "move {case} into the earliest open {SLOT} {staff} has {rule}",
        "{they} would like to see {staff} instead || book {case} into {staff}'s first open {SLOT} {rule}",
        "move {case} to the soonest {SLOT} with {staff} that is still open, as long as it is one {rule}",
    ), {"case": case_np, "staff": w.person(member), "rule": _rule_words(rule, value)}, party=ref, voices=SELF)
    plan = Plan(calls, goals, say, targets={("case", case["id"])})
    return plan.derive(w.n.action("slot", "book"), w.pk("slot"))


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("health_follow_up_visit", "chained", ("healthcare",), lambda w: follow_up_booking(w, 14, (
    "book a follow-up for {item} {days} after {their} next {CASE}, at the same time, with the same {STAFF} at the "
    "same {SITE}",
    "{their} {STAFF} wants to see {them} again two weeks after the next visit || create that {CASE} for {item}, "
    "{days} later, same time and place, same {STAFF}",
)), flavours=("appointment",))
define("health_checkin_copay", "action", ("healthcare", "professional_services"), lambda w: checkin_with_copay(
    w, (20.0, 25.0, 30.0, 40.0), (
        "check in {case} and take the {copay} copay by {method}",
        "{they_have} arrived for {case} || check it in and record a {copay} {method} payment for the copay",
    )), flavours=("appointment",))
define("health_overflow_clinic", "chained", ("healthcare", "logistics", "transportation"),
       lambda w: reroute_to_quietest_site(w, ("Moved: original site over capacity", "Rerouted to balance the load"), (
           "{site} is over capacity || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} "
           "that are {open}, and add the note {note}",
           "re-route {CASE} {code} away from {site} to the {SITE} with the lightest load of {open} {CASE/pl}, "
           "noting {note}",
           "[send|transfer] {CASE} {code} [to another {SITE}|elsewhere]: pick the {SITE} (other than {site}) "
           "with the fewest {open} {CASE/pl}, move it there, and add the note {note}",
           "{site} [can't take|has no room for] {CASE} {code} || [move|transfer] it to the least busy other "
           "{SITE} (fewest {CASE/pl} that are {open}) and record {note} on it",
       )), flavours=("fulfillment", "service", "appointment", "reservation", "application"))  # not a bought pass
