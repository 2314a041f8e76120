"""Intents about cases (orders, appointments, applications, work orders, reservations) and their lifecycle,
in every business: open, change, move, cancel, refund, hand over; the questions people ask about them;
the requests that depend on what the agent finds first; and the ones a business rule refuses."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.clock import REFERENCE_NOW, TODAY
from awm.builder.intents.base import (
    BOTH,
    STAFF_ONLY,
    Plan,
    World,
    clock,
    intent,
    long_date,
    or_words,
    status_words,
    verb_phrase,
)
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    METHODS,
    NOTES,
    PURCHASES,
    act,
    add_note,
    balance_due,
    cancel_notes,
    captured,
    either_way,
    find_category,
    get_case,
    message_channel,
    method_words,
    notify,
    paid_at_once,
    record_payment,
    refund,
    refund_reasons,
    status_goal,
    tell_its_party,
)
from awm.builder.phrasing import Say, T, count, money, quote
from awm.contracts import Goal

# Why a person cancels (or nothing said): "can no longer make it" only of a case they come to (Flavour.attended).
_WHY_CANCEL = {
    True: T("[ since {they} can no longer make it| because {their} plans changed| as {they_have} changed {their} "
            "mind| because {they} found another option|]"),
    False: T("[ as it is no longer needed| because {their} plans changed| as {they_have} changed {their} mind| "
             "because {they} found another option|]"),
}


def _cancel_words(w: World) -> tuple[str, str]:
    verb = w.fl.cancel.verb
    return verb.replace("_", " "), "withdrawn" if verb == "withdraw" else "cancelled"


# --- changing a case ---------------------------------------------------------------------------------


@intent("action", item="refundable")
def cancel_and_refund(w: World) -> Plan | None:
    cancel = w.fl.cancel
    options = []
    for case in w.rows["case"]:
        if case["status"] not in cancel.sources or w.party_of(case)["status"] != "active":
            continue
        paid = captured(w, case)
        if len(paid) == 1:
            options.append((case, paid[0]))
    if not options:
        return None
    case, payment = w.rng.choice(options)
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    note, reason = w.pick(cancel_notes(w)), w.pick(CANCEL_REASONS)  # either voice, any of _WHY_CANCEL
    refund_call, refund_goal = refund(w, payment, reason)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), act(w, case, cancel.verb),
             (w.n.list("payment"), {w.fk("case"): case["id"]}), refund_call, note_call]
    verb, done = _cancel_words(w)
    say = Say("do", (
        "{cancel} {case}{why}, refund its captured {PAYMENT} with the reason {reason}, and add a note to the "
        "{CASE} saying {note}",
        "call off {case}, refund the captured {PAYMENT} (reason: {reason}) and note {note} on the {CASE}",
        "{cancel} {case} and give back the captured {PAYMENT} with the refund reason {reason}; then put a note "
        "on the {CASE} that says {note}",
        "{they} would like {case} {done}{why} || do that, refund the captured {PAYMENT} with the reason {reason}, "
        "and leave the note {note} on it",
    ), {"case": case_np, "cancel": verb, "done": done, "reason": quote(reason), "note": quote(note),
        "why": _WHY_CANCEL[w.fl.attended]}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, cancel.target), refund_goal, note_goal], say,
                targets={("case", case["id"])})


@intent("action")
def open_new_case(w: World) -> Plan | None:
    items = [i for i in w.rows["item"] if i["active"]]
    staff = w.staff_pool()
    parties = w.active_parties()
    if len(items) < 2 or not staff or not parties:
        return None
    party, site, member = w.pick(parties), w.pick(w.rows["site"]), w.pick(staff)
    first, second = w.rng.sample(items, 2)
    q1, q2 = w.units(w.rng.randint(1, 3)), w.units(w.rng.randint(1, 4))
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    ref = w.party_ref(party)
    calls = [
        w.find_party(ref), w.find_site(site), w.find_item(first), w.find_item(second), w.find_staff(member),
        (w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): site["id"]}),
        (w.n.create("line"), {cfk: new_id, w.fk("item"): first["id"], "quantity": q1}),
        (w.n.create("line"), {cfk: new_id, w.fk("item"): second["id"], "quantity": q2}),
        (w.n.action("case", "assign"), {cfk: new_id, w.fk("staff"): member["id"]}),
    ]
    say = Say("do", (
        "open a new {CASE} for {party} at {site} with {lines1} and {lines2}, and assign it to {STAFF} {staff}",
        "set up {a CASE} for {party} at {site}: {line1} and {line2}; {staff} should handle it",
        "create {a CASE} at {site} for {party} containing {lines1} plus {lines2}, then assign {staff} to it",
        "put together a new {CASE} for {party}, to be handled by {STAFF} {staff} at {site}, with {line1} and {line2}",
        "[book|raise] {a CASE} [at|through] {site} for {party} || include {lines1} and {lines2}, [and have {staff} "
        "handle it|with {staff} assigned]",
        "{party} [wants|is after|has asked for] {lines1} and {lines2} || [record|log|enter] that as a new {CASE} at "
        "{site} [under {their} name|in {their} name|for {them}] and [make {staff} responsible for it|put {staff} on "
        "it|give it to {staff}]",
        "[put|get] a new {CASE} [on the books|on file|into the system] for {party}: {site}, {line1} and "
        "{line2}, [assigned to|owned by|handled by] {staff}",
        "{staff} [will look after|is taking|will handle] a new {CASE} for {party} || [raise|open|create] it at "
        "{site} [with|holding|listing] {lines1} and {lines2}, and [assign it to {staff}|put {staff} down as its "
        "{STAFF}]",
    ), {"site": site["name"], "line1": w.line_words(first, q1, "{item} (quantity {n})"),
        "line2": w.line_words(second, q2, "{item} (quantity {n})"), "lines1": w.line_words(first, q1),
        "lines2": w.line_words(second, q2), "staff": w.person(member)}, party=ref, voices=STAFF_ONLY)
    return Plan(calls, [Goal(
        kind="rows_created", table=w.table("case"), count=1,
        expect={w.fk("party"): party["id"], w.fk("site"): site["id"], w.fk("staff"): member["id"]},
        child_table=w.table("line"), child_fk=cfk,
        children=[{w.fk("item"): first["id"], "quantity": q1}, {w.fk("item"): second["id"], "quantity": q2}])],
        say)


@intent("action")
def advance_case(w: World) -> Plan | None:
    first, second = (w.fl.action(v) for v in w.fl.forward[:2])
    if first.requires_verified_documents or second.requires_verified_documents:
        return None
    cases = [c for c in w.rows["case"] if c["status"] in first.sources and w.party_of(c)["status"] == "active"]
    if w.fl.name == "service":
        cases = [c for c in cases if c[w.fk("staff")] is not None]
    case = w.pick(cases)
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    method = w.pick(["card", "bank_transfer", "cash"])
    amount = round(max(case["total_amount"], 1.0), 2)
    pay_call, pay_goal = record_payment(w, case, amount, method)
    calls = [*lookup, get_case(w, case), act(w, case, first.verb), act(w, case, second.verb), pay_call]
    say = Say("do", (
        "{first}, then {second}, and record {a method} {PAYMENT} of {amount} against it",
        "{they_have} paid {amount} by {method} || {first} and {second} straight after, and record that "
        "{PAYMENT} too",
        "move {case} two steps forward ({step1}, then {step2}) and log {a method} {PAYMENT} of {amount} on it",
    ), {"case": case_np, "first": T(verb_phrase(first.verb, "{case}")), "second": T(verb_phrase(second.verb, "it")),
        "step1": first.verb.replace("_", " "), "step2": second.verb.replace("_", " "), "method": method_words(method),
        "amount": money(amount)}, party=ref)
    return Plan(calls, [status_goal(w, case, second.target), pay_goal], say, targets={("case", case["id"])})


@intent("action", flavours=("appointment", "reservation"))
def reschedule_case(w: World) -> Plan | None:
    action = w.fl.action("reschedule")
    staff = w.staff_pool()
    cases = [c for c in w.rows["case"] if c["status"] in action.sources and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    member = w.pick([s for s in staff if case is not None and s["id"] != case[w.fk("staff")]])
    if case is None or member is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    when = f"2025-{w.rng.randint(7, 9):02d}-{w.rng.randint(1, 28):02d}T{w.rng.choice((9, 10, 14, 16)):02d}:00:00"
    tc, cfk = w.fl.time_column, w.fk("case")
    calls = [*lookup, w.find_staff(member), (w.n.action("case", "reschedule"), {cfk: case["id"], tc: when}),
             (w.n.action("case", "assign"), {cfk: case["id"], w.fk("staff"): member["id"]})]
    say = Say("do", (
        "move {case} to {date} at {time} and assign it to {STAFF} {staff}",
        "reschedule {case} for {date}, {time}, with {staff} looking after it",
        "change {case} to {time} on {date} and put {STAFF} {staff} on it",
        "{they} would like {case} moved to {date} at {time} || do that and assign {staff} to it",
    ), {"case": case_np, "date": when[:10], "time": clock(when), "staff": w.person(member)}, party=ref,
        voices=STAFF_ONLY)
    return Plan(calls, [status_goal(w, case, action.target, **{tc: {"prefix": when[:16]}, w.fk("staff"): member["id"]})],
                say, targets={("case", case["id"])})


@intent("action")
def remove_line_item(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        lines = w.children("line", "case", case["id"])
        if case["status"] in w.fl.editable and len(lines) >= 2:
            options.append((case, lines))
    if not options:
        return None
    case, lines = w.rng.choice(options)
    line = w.rng.choice(lines)
    item = w.by_id("item", line[w.fk("item")])
    new_total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0), 2)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("line"), {w.fk("case"): case["id"]}),
             (w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
    say = Say("do", (
        "remove {item} from {CASE} {code} and tell me the {CASE}'s new total",
        "take {item} off {CASE} {code} and tell me what the total is after that",
        "drop {item} from {CASE} {code}, then let me know the updated total",
        "{CASE} {code} should no longer include {item} || remove it and report the new total",
    ), {"item": quote(item["name"]), "code": case["code"]})
    return Plan(calls, [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]), w.money_answer(new_total)],
                say, answer=money(new_total), targets={("case", case["id"])})


@intent("action")
def add_line_item(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        present = {x[w.fk("item")] for x in w.children("line", "case", case["id"])}
        items = [i for i in w.rows["item"] if i["active"] and i["id"] not in present]
        if items:
            options.append((case, items))
    if not options:
        return None
    case, items = w.rng.choice(options)
    item = w.rng.choice(items)
    qty = w.units(w.rng.randint(1, 3))
    new_total = round(case["total_amount"] + qty * item["price"], 2)
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, w.find_item(item), (w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): item["id"],
                                                               "quantity": qty}), get_case(w, case)]
    say = Say("do", (
        "add {line} to {case} and tell me its new total",
        "{they} would like {items} added to {case} || do it and give me the new total",
        "put {items} on {case}, then tell me what the {CASE} comes to now",
    ), {"case": case_np, "line": w.line_words(item, qty, "{item} (quantity {n})"),
        "items": w.line_words(item, qty)}, party=ref, voices=BOTH)
    return Plan(calls, [Goal(kind="rows_created", table=w.table("line"), count=1,
                             expect={w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": qty}),
                        w.money_answer(new_total)], say, answer=money(new_total), targets={("case", case["id"])})


@intent("chained")
def swap_line_item(w: World) -> Plan | None:
    """One line of an open case swapped for another item of the same category (a person would rather have the
    other size or model, not a uniform instead of a league place), in the same quantity."""
    options = []
    cat, ifk = w.fk("category"), w.fk("item")
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        lines = w.children("line", "case", case["id"])
        present = {x[ifk] for x in lines}
        for line in lines:
            kind = w.by_id("item", line[ifk])[cat]
            items = [i for i in w.rows["item"] if i["active"] and i["id"] not in present and i[cat] == kind]
            if items:
                options.append((case, line, items))
    if not options:
        return None
    case, line, items = w.rng.choice(options)
    new = w.rng.choice(items)
    old = w.by_id("item", line[ifk])
    qty = line["quantity"]
    total = round(max(case["total_amount"] - qty * line["unit_price"], 0) + qty * new["price"], 2)
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref, named=(old,))
    # the new line first: a line removed first could hand its id to the new one (SQLite reuses the last rowid)
    calls = [*lookup, (w.n.list("line"), {w.fk("case"): case["id"]}), w.find_item(new),
             (w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): new["id"], "quantity": qty}),
             (w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
    say = Say("do", (
        "on {case}, replace {old} with {new} in the same quantity, then tell me the new total",
        "swap {old} for {new} on {case}, keeping the quantity as it was, and give me the updated total",
        "{they} would rather have {new} than {old} on {case} || make the switch (same quantity) and tell me "
        "what it comes to",
    ), {"case": case_np, "old": quote(old["name"]), "new": quote(new["name"])}, party=ref, voices=BOTH)
    return Plan(calls, [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]),
                        Goal(kind="rows_created", table=w.table("line"), count=1,
                             expect={w.fk("case"): case["id"], w.fk("item"): new["id"], "quantity": qty}),
                        w.money_answer(total)], say, answer=money(total),
                targets={("case", case["id"])}).derive(w.n.create("line"), "quantity")


@intent("action")
def assign_unassigned(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        if case[w.fk("staff")] is not None or case["status"] not in w.fl.open:
            continue
        staff = w.staff_pool(case[w.fk("site")])
        if staff:
            options.append((case, staff))
    if not options:
        return None
    case, staff = w.rng.choice(options)
    member = w.rng.choice(staff)
    site = w.by_id("site", case[w.fk("site")])
    note = w.pick(NOTES)
    note_call, note_goal = add_note(w, case, note)
    calls = [(w.n.list("case"), {"code": case["code"]}), w.find_staff(member),
             (w.n.action("case", "assign"), {w.fk("case"): case["id"], w.fk("staff"): member["id"]}), note_call]
    say = Say("do", (
        "{CASE} {code} at {site} has nobody on it yet || assign it to {staff} and add the note {note}",
        "give {CASE} {code} to {STAFF} {staff} and note {note} on it",
        "assign {staff} to {CASE} {code}, which is still unassigned, and leave a note saying {note}",
    ), {"code": case["code"], "site": site["name"], "staff": w.person(member), "note": quote(note)})
    goal = Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("staff"): member["id"]})
    return Plan(calls, [goal, note_goal], say, targets={("case", case["id"])})


@intent("chained")
def settle_balance(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        if case["status"] == w.fl.cancel.target or w.party_of(case)["status"] != "active":
            continue
        paid = round(sum(p["amount"] for p in captured(w, case)), 2)
        due = round(case["total_amount"] - paid, 2)
        if due >= 1:
            options.append((case, due))
    if not options:
        return None
    case, due = w.rng.choice(options)
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    method = w.pick(["card", "bank_transfer", "cash", "wallet"])
    pay_call, pay_goal = record_payment(w, case, due, method)
    calls = [*lookup, get_case(w, case), (w.n.list("payment"), {w.fk("case"): case["id"]}), pay_call]
    say = Say("do", (
        "work out what is still owed on {case} (its total minus the captured {PAYMENT/pl}), record {a method} "
        "{PAYMENT} for exactly that amount, and tell me how much it was",
        "{they} would like to pay off the rest of {case} by {method} || record {a PAYMENT} for the "
        "outstanding balance and tell me the amount",
        "clear the outstanding balance on {case} with {a method} {PAYMENT} and let me know what it came to",
    ), {"case": case_np, "method": method_words(method)}, party=ref, voices=BOTH)
    return Plan(calls, [pay_goal, w.money_answer(due)], say, answer=money(due),
                targets={("case", case["id"])}).derive(w.n.create("payment"), "amount")


@intent("action", item="refundable")
def refund_cancelled(w: World) -> Plan | None:
    cancelled = w.fl.cancel.target
    options = [(c, p) for c in w.rows["case"] if c["status"] == cancelled for p in captured(w, c)]
    if not options:
        return None
    case, payment = w.rng.choice(options)
    reason = w.pick(refund_reasons(w))
    refund_call, refund_goal = refund(w, payment, reason)
    _, done = _cancel_words(w)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("payment"), {w.fk("case"): case["id"],
                                                                               "status": "captured"}), refund_call]
    say = Say("do", (
        "{CASE} {code} was {done}, but its {PAYMENT} is still captured || refund it with the reason {reason}",
        "refund the captured {PAYMENT} on {done} {CASE} {code}, giving {reason} as the reason",
        "the money for {CASE} {code} never went back || issue the refund with the reason {reason}",
    ), {"code": case["code"], "done": done, "reason": quote(reason)})
    return Plan(calls, [refund_goal], say, targets={("case", case["id"])})


@intent("action", flavours=("fulfillment",), item="refundable")
def return_and_refund(w: World) -> Plan | None:
    cutoff = (REFERENCE_NOW - timedelta(days=30)).isoformat()
    options = [(c, captured(w, c)) for c in w.rows["case"] if c["status"] == "delivered"
               and c["placed_at"] >= cutoff and w.party_of(c)["status"] == "active"]
    options = [(c, p[0]) for c, p in options if len(p) == 1]
    if not options:
        return None
    case, payment = w.rng.choice(options)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    reason = w.pick(("item returned", "wrong size", "arrived damaged", "not as described", "changed mind"))
    refund_call, refund_goal = refund(w, payment, reason)
    calls = [*lookup, get_case(w, case), act(w, case, "return"), refund_call]
    say = Say("do", (
        "{they_are} sending back {case} || record the return and refund its {PAYMENT} with the reason {reason}",
        "process a return for {case} and refund the captured {PAYMENT} (reason: {reason})",
        "record {case} as returned, then refund what was paid, giving {reason} as the reason",
    ), {"case": case_np, "reason": quote(reason)}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, "returned"), refund_goal], say, targets={("case", case["id"])})


# --- one lifecycle step, as each kind of business says it ------------------------------------------------


def _step(w: World, verb: str, clauses: tuple[str, ...], note_pool: tuple[str, ...], staffed: bool = False,
          pay: bool = False, voices: tuple[str, ...] = ("staff",)) -> Plan | None:
    """One lifecycle action on a case its person asked about, with a note (and a payment for the total)."""
    action = w.fl.action(verb)
    cases = [c for c in w.rows["case"] if c["status"] in action.sources and w.party_of(c)["status"] == "active"
             and (not staffed or c[w.fk("staff")] is not None) and (not pay or c["total_amount"] > 0)]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note = w.pick(note_pool)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), act(w, case, verb)]
    goals = [status_goal(w, case, action.target)]
    slots = {"case": case_np, "note": quote(note)}
    if pay:
        method = w.pick(["card", "cash", "wallet"])
        pay_call, pay_goal = record_payment(w, case, case["total_amount"], method)
        calls.append(pay_call)
        goals.append(pay_goal)
        slots.update(method=method_words(method), amount=money(case["total_amount"]))
    calls.append(note_call)
    goals.append(note_goal)
    return Plan(calls, goals, Say("do", clauses, slots, party=ref, voices=voices), targets={("case", case["id"])})


@intent("action", flavours=("fulfillment",))
def ship_order(w: World) -> Plan | None:
    return _step(w, "ship", (
        "ship {case} and add the note {note}",
        "{case} is packed and ready || mark it as shipped and note {note} on it",
        "send {case} out today and leave the note {note}",
    ), ("Left the warehouse this morning", "Sent with the afternoon courier", "Packed and sealed",
        "Tracking number emailed to customer"))


@intent("action", flavours=("fulfillment",))
def deliver_order(w: World) -> Plan | None:
    return _step(w, "deliver", (
        "mark {case} as delivered and add the note {note}",
        "{case} has arrived || record it as delivered with the note {note}",
        "the courier confirmed that {case} was handed over || set it to delivered and note {note}",
    ), ("Signed for at the door", "Left with a neighbour", "Delivered to reception", "Customer confirmed receipt"))


@intent("action", flavours=("appointment", "reservation"))
def check_in_arrival(w: World) -> Plan | None:
    return _step(w, "check_in", (
        "check in {case} and add the note {note}",
        "{they_have} arrived for {case} || check it in and note {note}",
        "mark {case} as checked in, with the note {note}",
    ), ("Arrived ten minutes early", "Arrived on time", "Asked for a quiet room", "Parking validated"), voices=BOTH)


@intent("action", flavours=("appointment",))
def complete_visit(w: World) -> Plan | None:
    return _step(w, "complete", (
        "mark {case} as completed, take {a method} {PAYMENT} of {amount} for it and add the note {note}",
        "{case} is finished || complete it, record the {amount} {method} {PAYMENT} and note {note}",
        "close out {case}: set it to completed, log {a method} {PAYMENT} of {amount}, and add the note {note}",
    ), ("No follow-up needed", "Follow-up suggested in six months", "All went well", "Advice sheet handed over"),
        pay=True)


@intent("action", flavours=("reservation",))
def check_out_stay(w: World) -> Plan | None:
    return _step(w, "check_out", (
        "check {case} out, record {a method} {PAYMENT} of {amount} and add the note {note}",
        "{they_are} leaving || check out {case}, take the {amount} by {method} and note {note}",
        "finish {case}: check it out, log {a method} {PAYMENT} of {amount}, then add the note {note}",
    ), ("Left the keys at the desk", "Everything in good order", "Asked for a receipt by email", "Late check-out"),
        pay=True, voices=BOTH)


@intent("action", flavours=("reservation",))
def confirm_hold(w: World) -> Plan | None:
    return _step(w, "confirm", (
        "confirm {case}, which is on hold, and add the note {note}",
        "{they} would like to go ahead with {case} || confirm it and note {note}",
        "turn the hold on {case} into a confirmed booking and add the note {note}",
    ), ("Deposit confirmed by phone", "Guest confirmed by email", "Confirmed after the price check"), voices=BOTH)


@intent("action", flavours=("application",))
def submit_draft(w: World) -> Plan | None:
    return _step(w, "submit", (
        "submit {case}, which is still a draft, and add the note {note}",
        "{they_are} done with {case} || submit it and note {note}",
        "send {case} in for processing (submit it) and leave the note {note}",
    ), ("All sections completed", "Submitted at the applicant's request", "Checked for missing pages"), voices=BOTH)


@intent("action", flavours=("application",))
def start_review(w: World) -> Plan | None:
    return _step(w, "start_review", (
        "start the review of {case} and add the note {note}",
        "{case} is waiting for review || begin it and note {note}",
        "move {case} into review with the note {note}",
    ), ("Review started today", "Priority review requested", "Assigned to the morning queue"))


@intent("action", flavours=("application",))
def reject_application(w: World) -> Plan | None:
    return _step(w, "reject", (
        "reject {case} and add the note {note} explaining why",
        "{case} does not meet the requirements || reject it with the note {note}",
        "turn down {case} and record the reason as a note: {note}",
    ), ("Income could not be verified", "Required documents missing", "Does not meet the eligibility criteria",
        "Incomplete references"))


@intent("action", flavours=("service",))
def start_work(w: World) -> Plan | None:
    return _step(w, "start", (
        "start work on {case} and add the note {note}",
        "the {STAFF} is on site for {case} || set it to in progress and note {note}",
        "begin {case} now and leave the note {note}",
    ), ("Work started on site", "Parts on hand, starting now", "Customer let us in"), staffed=True)


@intent("action", flavours=("service",))
def reopen_case(w: World) -> Plan | None:
    return _step(w, "reopen", (
        "reopen {case} and add the note {note}",
        "the problem behind {case} is back || reopen it and note {note}",
        "{they} reported that {case} is not fixed after all || reopen it with the note {note}",
    ), ("Issue came back after two days", "Customer reports the same fault", "Fix did not hold"), voices=BOTH)


@intent("action", flavours=("service",))
def resolve_and_close(w: World) -> Plan | None:
    action = w.fl.action("resolve")
    cases = [c for c in w.rows["case"] if c["status"] in action.sources and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note = w.pick(("Fixed and tested", "Replaced the faulty part", "Customer signed off the work"))
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), act(w, case, "resolve"), act(w, case, "close"), note_call]
    say = Say("do", (
        "resolve {case}, then close it, and add the note {note}",
        "the work on {case} is done || mark it resolved and closed, with the note {note}",
        "wrap up {case}: resolve it, close it and note {note}",
    ), {"case": case_np, "note": quote(note)}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, "closed"), note_goal], say, targets={("case", case["id"])})


@intent("action", flavours=("application",), item="refundable")
def withdraw_and_refund(w: World) -> Plan | None:
    action = w.fl.action("withdraw")
    options = [(c, captured(w, c)) for c in w.rows["case"] if c["status"] in action.sources
               and w.party_of(c)["status"] == "active"]
    options = [(c, p[0]) for c, p in options if len(p) == 1]
    if not options:
        return None
    case, payment = w.rng.choice(options)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    reason = w.pick(("applicant withdrew", "changed plans", "applied elsewhere"))
    refund_call, refund_goal = refund(w, payment, reason)
    calls = [*lookup, get_case(w, case), act(w, case, "withdraw"),
             (w.n.list("payment"), {w.fk("case"): case["id"]}), refund_call]
    say = Say("do", (
        "withdraw {case} and refund the fee that was paid, with the reason {reason}",
        "{they} no longer want to go ahead with {case} || withdraw it and refund the captured {PAYMENT} "
        "(reason: {reason})",
        "pull {case} and give back its captured {PAYMENT}, reason {reason}",
    ), {"case": case_np, "reason": quote(reason)}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, "withdrawn"), refund_goal], say, targets={("case", case["id"])})


# --- requests that depend on what is found first ---------------------------------------------------------


@intent("chained", flavours=PURCHASES)
def reorder_latest(w: World) -> Plan | None:
    """A person's newest case placed again at the same site, line for line (paid at once where the items have
    prices). Not for applications: no one files the same application again."""
    options = []
    for party in w.active_parties("case"):
        mine = w.party_cases(party)
        latest = max(mine, key=lambda c: c["created_at"])
        if sum(c["created_at"] == latest["created_at"] for c in mine) > 1:
            continue
        lines = w.children("line", "case", latest["id"])
        if lines and all(w.by_id("item", x[w.fk("item")])["active"] for x in lines):
            options.append((party, latest, lines))
    if not options:
        return None
    party, latest, lines = w.rng.choice(options)
    ref = w.party_ref(party)
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), get_case(w, latest),
             (w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): latest[w.fk("site")]})]
    calls += [(w.n.create("line"), {cfk: new_id, w.fk("item"): x[w.fk("item")], "quantity": x["quantity"]})
              for x in lines]
    say = Say("do", (
        "find {their} most recent {CASE} and open a new one for {them} at the same {SITE} with exactly the same "
        "items and quantities",
        "repeat {their} last {CASE}: same {SITE}, same items, same quantities",
        "{they} would like [the same again|to repeat {their} last {CASE}|another one just like the last] || look up "
        "{their} latest {CASE} and create a new {CASE} that copies its items and quantities, at the same {SITE}",
        "set up a new {CASE} for {them} that mirrors {their} newest one (same {SITE}, same items and "
        "quantities)",
    ), {}, party=ref, voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): party["id"], w.fk("site"): latest[w.fk("site")]},
                child_table=w.table("line"), child_fk=cfk,
                children=[{w.fk("item"): x[w.fk("item")], "quantity": x["quantity"]} for x in lines])
    plan = Plan(calls, [goal], say, targets={("party", party["id"])}).derive(w.n.create("line"), "quantity")
    if not w.items_are("priced"):
        return plan
    return paid_at_once(w, plan, [(w.by_id("item", x[w.fk("item")]), x["quantity"]) for x in lines])


@intent("chained", flavours=("appointment", "reservation", "service"))
def book_with_same_staff(w: World) -> Plan | None:
    options = []
    for party in w.active_parties("case"):
        mine = [c for c in w.party_cases(party) if c[w.fk("staff")] is not None]
        if not mine:
            continue
        latest = max(mine, key=lambda c: c["created_at"])
        member = w.by_id("staff", latest[w.fk("staff")])
        if member["active"] and sum(c["created_at"] == latest["created_at"] for c in mine) == 1:
            options.append((party, latest, member))
    items = [i for i in w.rows["item"] if i["active"]]
    if not options or not items:
        return None
    party, latest, member = w.rng.choice(options)
    item = w.rng.choice(items)
    ref = w.party_ref(party)
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), w.find_item(item),
             (w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): latest[w.fk("site")]}),
             (w.n.create("line"), {cfk: new_id, w.fk("item"): item["id"], "quantity": 1}),
             (w.n.action("case", "assign"), {cfk: new_id, w.fk("staff"): member["id"]})]
    say = Say("do", (
        "set up {a CASE} for {them} with {line}, handled by whichever {STAFF} handled {their} most "
        "recent {CASE}, at the same {SITE}",
        "{they} would like {item} again with the same {STAFF} as last time || open a new {CASE} at that "
        "{SITE}, add {line}, and book that same person for it",
        "arrange {a CASE} with {line} for {them}, assigned to the {STAFF} from {their} latest {CASE} and "
        "at the same {SITE}",
    ), {"item": quote(item["name"]), "line": w.line_words(item, 1, "{item} (quantity 1)")}, party=ref,
        voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): party["id"], w.fk("site"): latest[w.fk("site")], w.fk("staff"): member["id"]},
                child_table=w.table("line"), child_fk=cfk, children=[{w.fk("item"): item["id"], "quantity": 1}])
    return Plan(calls, [goal], say, targets={("party", party["id"])})


@intent("chained", flavours=("appointment", "reservation"))
def next_free_day_same_staff(w: World) -> Plan | None:
    action = w.fl.action("reschedule")
    tc = w.fl.time_column
    options = []
    for case in w.rows["case"]:
        staff_id = case[w.fk("staff")]
        if case["status"] not in action.sources or staff_id is None or w.party_of(case)["status"] != "active":
            continue
        busy = {c[tc][:10] for c in w.rows["case"] if c[w.fk("staff")] == staff_id and c["id"] != case["id"]
                and c["status"] != w.fl.cancel.target}
        day = datetime.fromisoformat(case[tc])
        for _ in range(60):
            day += timedelta(days=1)
            if day.date().isoformat() not in busy:
                break
        skipped = (day - datetime.fromisoformat(case[tc])).days > 1
        options.append((case, day.isoformat(), skipped))
    preferred = [o for o in options if o[2]] if any(o[2] for o in options) and w.chance(0.6) else options
    if not preferred:
        return None
    case, when, _ = w.rng.choice(preferred)
    member = w.by_id("staff", case[w.fk("staff")])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, get_case(w, case), (w.n.list("case"), {w.fk("staff"): member["id"]}),
             (w.n.action("case", "reschedule"), {w.fk("case"): case["id"], tc: when})]
    say = Say("do", (
        "move {case} to the same time on the first later day on which the same {STAFF} has no other {CASE} "
        "(cancelled ones don't count)",
        "{they} can't make {case} || push it to the next day after it when {their} {STAFF} has nothing else "
        "booked (ignore cancelled {CASE/pl}), keeping the time of day",
        "reschedule {case} to the earliest following day that is free for the same {STAFF} (no other "
        "{CASE} that isn't cancelled), at the same time",
    ), {"case": case_np}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, action.target, **{tc: {"prefix": when[:16]}})], say,
                targets={("case", case["id"])})


def _least_busy(w: World, site_id: int, but: int | None = None) -> tuple[list[dict], dict] | None:
    """The active staff of a site (but one) and the one among them holding strictly the fewest open cases, or
    None where fewer than two are there or the fewest is shared."""
    staff = [s for s in w.rows["staff"] if s["active"] and s["id"] != but and s[w.fk("site")] == site_id]
    if len(staff) < 2:
        return None
    loads = sorted((len(w.open_cases(s["id"])), s["id"]) for s in staff)
    return (staff, w.by_id("staff", loads[0][1])) if loads[0][0] < loads[1][0] else None


@intent("chained")
def reassign_to_least_busy(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        staff_id = case[w.fk("staff")]
        if staff_id is None or case["status"] not in w.fl.open or case["status"] not in _assignable(w):
            continue
        least = _least_busy(w, case[w.fk("site")], but=staff_id)
        if least is not None:
            options.append((case, w.by_id("staff", staff_id), least[1]))
    if not options:
        return None
    case, busy, target = w.rng.choice(options)
    site = w.by_id("site", case[w.fk("site")])
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("staff"), {w.fk("site"): site["id"]})]
    calls += [(w.n.list("case"), {w.fk("staff"): s["id"]}) for s in w.rows["staff"]
              if s["active"] and s["id"] != busy["id"] and s[w.fk("site")] == site["id"]]
    calls.append((w.n.action("case", "assign"), {w.fk("case"): case["id"], w.fk("staff"): target["id"]}))
    open_words = or_words(w.fl.open)
    say = Say("do", (
        "{busy} is over capacity || hand {CASE} {code} to the active {STAFF} at the same {SITE} who has the "
        "fewest open {CASE/pl} ({open})",
        "take {CASE} {code} off {busy} and give it to whichever other active {STAFF} at {site} has the "
        "lightest load of {CASE/pl} that are {open}",
        "{busy} has too much on || find the active {STAFF} at {site} with the fewest {CASE/pl} that are {open}, "
        "and reassign {CASE} {code} to them",
        "[rebalance|even out] the workload at {site}: {CASE} {code} [moves|should move] from {busy} to the "
        "colleague there with the [fewest|smallest number of] {open} {CASE/pl} || [make that change|reassign it]",
        "[move|shift] {CASE} {code} away from {busy}, who is [swamped|overloaded], to the other active {STAFF} at "
        "{site} [carrying|holding] the fewest {CASE/pl} still {open}",
    ), {"busy": w.person(busy), "code": case["code"], "site": site["name"], "open": open_words})
    goal = Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("staff"): target["id"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


def _assignable(w: World) -> tuple[str, ...]:
    """Statuses the assign tool accepts (it refuses finished cases)."""
    closed = {x for x in w.fl.statuses if x not in w.fl.editable
              and x not in ("assigned", "in_progress", "under_review", "confirmed")}
    return tuple(x for x in w.fl.statuses if x not in closed)


# --- a case at its first step paid off if it still owes, then moved on -------------------------------------------


def settle_then_advance_options(w: World) -> list[dict]:
    """Cases of an active person at the first step of the lifecycle that are either paid in full (nothing captured
    short of the total) or still owe 1.00 or more."""
    first = w.fl.action(w.fl.forward[0])
    return [c for c in w.rows["case"] if c["status"] in first.sources and w.party_of(c)["status"] == "active"
            and c["total_amount"] >= 1 and (balance_due(w, c) <= 0 or balance_due(w, c) >= 1)]


@intent("conditional", flavours=PURCHASES)
def settle_then_advance(w: World) -> Plan | None:
    """A person wants a case at its first step (a pending order, a requested appointment) to go ahead: the agent
    reads what was paid on it, pays whatever is still owed by the method the person names (nothing where it is paid
    in full) and then moves it on a step (confirmed, scheduled). In a member of staff's voice: moving a case on is
    the business's step, not the customer's."""
    first = w.fl.action(w.fl.forward[0])
    if first.needs_staff or first.needs_time or first.requires_verified_documents:
        return None
    case = w.pick(either_way(w, settle_then_advance_options(w), lambda c: balance_due(w, c) <= 0))
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    method = w.pick(list(METHODS))
    calls = [*lookup, get_case(w, case), (w.n.list("payment"), {w.fk("case"): case["id"]})]
    goals = []
    if balance_due(w, case) > 0:
        pay_call, pay_goal = record_payment(w, case, balance_due(w, case), method)
        calls.append(pay_call)
        goals.append(pay_goal)
    calls.append(act(w, case, first.verb))
    goals.append(status_goal(w, case, first.target))
    say = Say("do", (
        "{they} would like {case} [under way|to go ahead] || if anything is still owed on it, record {a method} "
        "{PAYMENT} for that; then " + verb_phrase(first.verb, "it"),
        "[check|look at] what is left to pay on {case} || if there is a balance, record {a method} {PAYMENT} for it, "
        "and either way " + verb_phrase(first.verb, "it") + " [afterwards|after that]",
        "settle whatever is still owed on {case} by {method}, if anything is, and then " + verb_phrase(first.verb, "it"),
    ), {"case": case_np, "method": method_words(method)}, party=ref, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={("case", case["id"]), ("party", party["id"])}, changes_either_way=True)
    return plan.derive(w.n.create("payment"), "amount")


@intent("conditional")
def assign_to_less_busy_of_two(w: World) -> Plan | None:
    """A case with no staff given to whichever of two named active colleagues at its site holds fewer open cases:
    the agent reads the case, finds both and lists each one's cases, and assigns the one with strictly fewer open."""
    cases = [c for c in w.rows["case"] if c["status"] in _assignable(w) and c["status"] in w.fl.open
             and c[w.fk("staff")] is None]
    options = []
    for case in cases:
        staff = [s for s in w.rows["staff"] if s["active"] and s[w.fk("site")] == case[w.fk("site")]]
        options += [(case, a, b) for a in staff for b in staff if a["id"] < b["id"] and w.person(a) != w.person(b)
                    and len(w.open_cases(a["id"])) != len(w.open_cases(b["id"]))]
    option = w.pick(options)
    if option is None:
        return None
    case, a, b = option
    if w.chance(0.5):
        a, b = b, a  # which one the request names first says nothing of which has fewer
    member = min((a, b), key=lambda s: len(w.open_cases(s["id"])))
    party = w.party_of(case)
    # half the time the case is its person's, as the request names it ("Paul Carr's latest order"): the agent finds
    # the person, and the case among theirs where it is described rather than coded
    ref = w.party_ref(party) if w.chance(0.5) else None
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, w.find_staff(a), w.find_staff(b),
             (w.n.list("case"), {w.fk("staff"): a["id"]}), (w.n.list("case"), {w.fk("staff"): b["id"]}),
             (w.n.action("case", "assign"), {w.fk("case"): case["id"], w.fk("staff"): member["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("staff"): member["id"]})]
    slots = {"case": case_np, "a": w.person(a), "b": w.person(b), "open": or_words(w.fl.open)}
    targets = {("case", case["id"])}
    # half the time (where the business sends messages) the case's person is told someone now has it in hand
    tell = w.has("notification") and party["status"] == "active" and w.chance(0.5)
    if tell:
        label = w.L["case"]
        # by its code where the request states it; else by its kind (the code would give away the case to find)
        code = f" {case['code']}" if case["code"] in case_np else ""
        subjects = [f"Your {label}{code} is in hand", f"Update on your {label}{code}",
                    f"Someone is now looking after your {label}{code}"]
        targets.add(("party", party["id"]))
    clauses = (
        "give {case} to whichever of {a} and {b} has fewer {CASE/pl} that are {open} right now",
        "{case} needs [an owner|someone on it] || [assign|hand] it to {a} or {b}, whichever [is carrying|has] "
        "fewer {open} {CASE/pl} at the moment",
        "[compare|check] how many {CASE/pl} {a} and {b} each have that are {open}, and assign {case} to the "
        "one with fewer",
        "[put {case} with|assign {case} to] the less busy of {a} and {b}, counting their {CASE/pl} "
        "that are {open}",
        "[nobody|no one] [has|is on] {case} yet || [look at|check] the [workloads|caseloads] of {a} and {b} "
        "([only|just] their {CASE/pl} that are {open}) and [hand|give] it to [whoever|the one who] [has|carries] "
        "[the lighter load|fewer of them]",
        "[between|of] {a} and {b}, [whoever|whichever one] [has fewer|is carrying fewer] {open} {CASE/pl} [should "
        "take|gets] {case} || assign it [accordingly|to that person]",
        "{case} is still [waiting for|without] [an owner|someone to handle it] || [see|find out] which of "
        "{a} and {b} has fewer {open} {CASE/pl} on their plate and [give|hand] it to them",
        "[let's|let us] [spread|balance] the work || [assign|give] {case} to [{a} or {b}|either {a} or {b}], "
        "[whichever|whoever] [currently |]holds fewer {CASE/pl} that are {open}",
    )
    if ref is not None:
        # a case named as its person's ("their latest order") comes before the two colleagues are named: after
        # them, "their" would read as theirs
        clauses = tuple(c for c in clauses if c.index("{case}") < c.index("{a}"))
    if tell:
        clauses = tell_its_party(w, party, subjects, "A member of our team is now handling it.", calls, goals, slots,
                                 clauses)
    # a change made for the business, not at the person's request: never confirmed to them as "your request"
    return Plan(calls, goals, Say("do", clauses, slots, party=ref, voices=STAFF_ONLY), targets=targets,
                messages=tell, unasked=True)


@intent("conditional")
def cancel_if_possible(w: World) -> Plan | None:
    """A case cancelled if its status still allows it, else its status told. Where what was paid is refunded, half
    the time the request asks for the one captured payment of a cancelled case back too (the agent then lists the
    case's payments and refunds it)."""
    cancel = w.fl.cancel
    cases = [c for c in w.rows["case"] if w.party_of(c)["status"] == "active"]
    with_refund = w.items_are("refundable") and cancel.target in w.fl.refundable and w.chance(0.5)
    can = [c for c in cases if c["status"] in cancel.sources and (not with_refund or len(captured(w, c)) == 1)]
    cannot = [c for c in cases if c["status"] not in cancel.sources]
    if not can or not cannot:
        return None
    case = w.pick(can if w.chance(0.5) else cannot)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    calls = [*lookup, get_case(w, case)]
    verb, _ = _cancel_words(w)
    reason = w.pick(CANCEL_REASONS)
    if case["status"] in cancel.sources:
        calls.append(act(w, case, cancel.verb))
        goals, answer = [status_goal(w, case, cancel.target)], None
        if with_refund:
            refund_call, refund_goal = refund(w, captured(w, case)[0], reason)
            calls += [(w.n.list("payment"), {w.fk("case"): case["id"]}), refund_call]
            goals.append(refund_goal)
    else:
        goals, answer = [w.status_answer(case["status"])], case["status"].replace("_", " ")
    say = Say("do", (
        "if {case} can still be {done}, {cancel} it{and_refund}; if it can't, just tell me what status it is in",
        "check {case}: {cancel} it{and_refund} if the rules still allow that, otherwise tell me its current status "
        "and leave it alone",
        "{they} would like to {cancel} {case}{and_refund} if it isn't too late || do that, or if it is too late, "
        "tell me its status instead",
    ), {"case": case_np, "cancel": verb, "done": _cancel_words(w)[1],
        "and_refund": T(" and refund the {PAYMENT} captured on it with the reason " + quote(reason)) if with_refund
        else ""}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=answer, targets={("case", case["id"])})


@intent("conditional")
def assign_if_unassigned(w: World) -> Plan | None:
    """A case with no staff given to the active staff member of its site holding the fewest open cases, or the
    name of whoever holds it already and how many open cases they carry: the agent reads the case, then (if it is
    free) the site's staff and each one's open cases, or (if it is not) the holder and their cases."""
    cases = [c for c in w.rows["case"] if c["status"] in _assignable(w) and c["status"] in w.fl.open]
    free = [(c, least) for c in cases if c[w.fk("staff")] is None
            and (least := _least_busy(w, c[w.fk("site")])) is not None]
    taken = [(c, None) for c in cases if c[w.fk("staff")] is not None]
    if not free or not taken:
        return None
    case, least = w.pick(free if w.chance(0.5) else taken)
    site = w.by_id("site", case[w.fk("site")])
    # half the time the case is its person's, as the request names it (assign_to_less_busy_of_two)
    ref = w.party_ref(w.party_of(case)) if w.chance(0.5) else None
    case_np, calls = w.case_ref(case, ref)
    if least is not None:
        staff, member = least
        calls.append((w.n.list("staff"), {w.fk("site"): site["id"]}))
        calls += [(w.n.list("case"), {w.fk("staff"): s["id"]}) for s in staff]
        calls.append((w.n.action("case", "assign"), {w.fk("case"): case["id"], w.fk("staff"): member["id"]}))
        goals, answer = [Goal(kind="row_equals", table=w.table("case"), pk=case["id"],
                              expect={w.fk("staff"): member["id"]})], None
    else:
        holder = w.by_id("staff", case[w.fk("staff")])
        load = len(w.open_cases(holder["id"]))
        calls += [(w.n.get("staff"), {w.pk("staff"): holder["id"]}), (w.n.list("case"), {w.fk("staff"): holder["id"]})]
        goals = [w.staff_answer(holder), w.number_answer(load)]
        answer = f"{w.person(holder)}, who has {count(load, 'open ' + w.L['case'])}"
    open_words = or_words(w.fl.open)
    say = Say("do", (
        "if {case} has no {STAFF} [yet|assigned yet], [assign|give] it to the active {STAFF} at its {SITE} "
        "with the fewest open {CASE/pl} ({open}); otherwise tell me who [is handling|has] it and how many open "
        "{CASE/pl} they [have|are carrying]",
        "check who owns {case} || if [nobody does|no one has it], [give it to|assign it to] whichever active "
        "{STAFF} at its {SITE} has the fewest {CASE/pl} that are {open}, and if [someone already does|it already "
        "has an owner], change nothing and tell me [their name|who], and how many {CASE/pl} in those statuses they "
        "hold",
        "give {case} to the active {STAFF} at its {SITE} with the lightest load of open {CASE/pl} ({open}), unless "
        "[another {STAFF}|someone] already has it, in which case tell me who that is and how many open {CASE/pl} "
        "they already carry",
        "[make sure|see that] {case} has an owner || if it [is unassigned|has nobody on it], put the active "
        "{STAFF} at its {SITE} with the fewest open {CASE/pl} ({open}) on it; if [it already has someone|somebody already "
        "has it], leave it and tell me [their full name|who it is] and how many open {CASE/pl} they have",
        "{case} [may have|might have] [slipped through the cracks|been missed|gone unassigned] || [look at|"
        "check|open] it: [should it have|if it has] no {STAFF}, [assign|hand] it to the active {STAFF} at its {SITE} "
        "[who is least loaded|with the lightest load] [with|of] {CASE/pl} that are {open}; if [it does have one|it has "
        "one already], [leave it be|change nothing] and [report|tell me] [who that is|the name] [along with|and] "
        "[their count of {open} {CASE/pl}|how many {open} {CASE/pl} they hold]",
        "[find out|see] [whether|if] {case} [is being handled|has an owner] || [if it has none|if not], [hand|"
        "give] it to the active {STAFF} of its {SITE} [carrying|holding] the fewest {CASE/pl} that are {open}; [if it "
        "has one|if it does], [just |]tell me [that person's name|their name] and [how many {open} {CASE/pl} they "
        "have|their number of {open} {CASE/pl}]",
    ), {"case": case_np, "open": open_words}, party=ref, voices=STAFF_ONLY)
    if ref is not None:
        # beside a case named as its person's, "their name" could be the person's: the holder is "who"
        say.clauses = tuple(c.replace("[their name|who]", "who").replace("[their full name|who it is]", "who it is")
                            .replace("[that person's name|their name]", "that person's name") for c in say.clauses)
    # a change made for the business, not at the person's request: never confirmed to them as "your request"
    return Plan(calls, goals, say, answer=answer, targets={("case", case["id"])}, unasked=True)


# --- questions -------------------------------------------------------------------------------------------


@intent("aggregate")
def party_spend_question(w: World) -> Plan | None:
    options = []
    for party in w.rows["party"]:
        cases = w.party_cases(party)
        if 2 <= len(cases) <= 5:
            total = sum(p["amount"] for c in cases for p in captured(w, c))
            if total > 0:
                options.append((party, cases, round(total, 2)))
    if not options:
        return None
    party, cases, total = w.rng.choice(options)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    calls += [(w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases]
    say = Say("ask", (
        "what is the total of all captured {PAYMENT/pl} across {their} {CASE/pl}, to the cent",
        "how much {have_they} paid in total across all {their} {CASE/pl}, counting only captured "
        "{PAYMENT/pl}",
        "adding up the captured {PAYMENT/pl} on every one of {their} {CASE/pl}, what is the total",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, [w.money_answer(total)], say, answer=money(total))


@intent("aggregate")
def busiest_staff_question(w: World) -> Plan | None:
    options = []
    statuses = [s for s in w.fl.statuses if s != w.fl.initial]
    for site in w.rows["site"]:
        staff = [s for s in w.rows["staff"] if s[w.fk("site")] == site["id"]]
        if len(staff) < 2:
            continue
        for status in statuses:
            counts = {s["id"]: sum(1 for c in w.rows["case"] if c[w.fk("staff")] == s["id"] and c["status"] == status)
                      for s in staff}
            ranked = sorted(counts.values(), reverse=True)
            if ranked[0] >= 2 and ranked[0] > ranked[1]:
                options.append((site, staff, status, w.by_id("staff", max(counts, key=counts.get))))
    if not options:
        return None
    site, staff, status, winner = w.rng.choice(options)
    calls = [w.find_site(site), (w.n.list("staff"), {w.fk("site"): site["id"]})]
    calls += [(w.n.list("case"), {w.fk("staff"): s["id"], "status": status}) for s in staff]
    say = Say("ask", (
        "which {STAFF} at {site} has the most {CASE/pl} that are {st}",
        "among the {STAFF/pl} based at {site}, who has the largest number of {CASE/pl} with status {status}",
        "who at {site} is handling the most {CASE/pl} that are {st}, by full name",
        "[of|among] [everyone|the {STAFF/pl}|all the {STAFF/pl}] [working|based] at {site}, [whose name|who] [is on|"
        "has] the [largest|biggest|highest] number of {CASE/pl} [currently |]{st}",
        "[I'm|I am] [checking|looking at] [the workload|who is busiest] at {site} || [which|what] {STAFF} there has "
        "the most {CASE/pl} with the status {status} [to their name|assigned to them|on their list], [full name "
        "please|by full name|give me the full name]",
    ), {"site": site["name"], "st": status_words(status, plural=True), "status": quote(status)})
    return Plan(calls, [w.staff_answer(winner)], say, answer=w.person(winner))


@intent("aggregate")
def site_status_question(w: World) -> Plan | None:
    options = []
    for site in w.rows["site"]:
        for status in w.fl.statuses:
            cases = [c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c["status"] == status]
            if 2 <= len(cases) <= 20:
                options.append((site, status, cases))
    if not options:
        return None
    site, status, cases = w.rng.choice(options)
    total = round(sum(c["total_amount"] for c in cases), 2)
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site["id"], "status": status, "limit": 100})]
    say = Say("ask", (
        "how many {CASE/pl} at {site} are {st} right now, and what is their combined total amount",
        "at {site}, how many {CASE/pl} currently have status {status}, and what do their totals add up to",
        "what are the count and the summed total of the {CASE/pl} at {site} that are {st}",
    ), {"site": site["name"], "st": status_words(status, plural=True), "status": quote(status)})
    return Plan(calls, [w.number_answer(len(cases)), w.money_answer(total)], say,
                answer=f"{count(len(cases), w.L['case'])}, {money(total)} in total")


@intent("aggregate", item="priced")
def top_item_question(w: World) -> Plan | None:
    options = []
    for category in w.rows["category"]:
        items = [i for i in w.rows["item"] if i[w.fk("category")] == category["id"] and i["active"]]
        prices = sorted((i["price"] for i in items), reverse=True)
        if len(items) >= 2 and prices[0] > prices[1]:
            options.append((category, max(items, key=lambda i: i["price"])))
    if not options:
        return None
    category, item = w.rng.choice(options)
    calls = find_category(w, category)
    say = Say("ask", (
        "which active {ITEM} in the {category} {CATEGORY} has the highest price, and what is that price",
        "what is the most expensive {ITEM} we still offer in {category}, and how much is it",
        "in the {category} {CATEGORY}, which active {ITEM} costs the most and what does it cost",
    ), {"category": quote(category["name"])})
    return Plan(calls, [w.text_answer(item["name"], [i["name"] for i in w.rows["item"]]),
                        w.money_answer(item["price"])], say, answer=f"{item['name']} at {money(item['price'])}")


@intent("aggregate", item="priced")
def cheapest_item_question(w: World) -> Plan | None:
    options = []
    for category in w.rows["category"]:
        items = [i for i in w.rows["item"] if i[w.fk("category")] == category["id"] and i["active"]]
        prices = sorted(i["price"] for i in items)
        if len(items) >= 2 and prices[0] < prices[1]:
            options.append((category, min(items, key=lambda i: i["price"])))
    if not options:
        return None
    category, item = w.rng.choice(options)
    calls = find_category(w, category)
    say = Say("ask", (
        "what is the cheapest active {ITEM} in the {category} {CATEGORY}, and what does it cost",
        "if someone wants the least expensive option in {category}, which {ITEM} is it and at what price",
        "which {ITEM} still on offer in {category} has the lowest price, and what is that price",
    ), {"category": quote(category["name"])})
    return Plan(calls, [w.text_answer(item["name"], [i["name"] for i in w.rows["item"]]),
                        w.money_answer(item["price"])], say, answer=f"{item['name']} at {money(item['price'])}")


@intent("question")
def latest_case_question(w: World) -> Plan | None:
    options = []
    for party in w.rows["party"]:
        cases = sorted(w.party_cases(party), key=lambda c: c["created_at"])
        if len(cases) >= 2 and cases[-1]["created_at"] != cases[-2]["created_at"] and cases[-1][w.fk("staff")]:
            options.append((party, cases[-1]))
    if not options:
        return None
    party, case = w.rng.choice(options)
    member = w.by_id("staff", case[w.fk("staff")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}),
             (w.n.get("staff"), {w.pk("staff"): member["id"]})]
    say = Say("ask", (
        "what is the status of {their} most recently created {CASE}, and which {STAFF} handles it",
        "for {their} newest {CASE}, what state is it in and who is the {STAFF} on it",
        "where does {their} latest {CASE} stand, and who is looking after it",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, [w.status_answer(case["status"]), w.staff_answer(member)], say,
                answer=f"{case['status'].replace('_', ' ')}, handled by {w.person(member)}")


@intent("question", flavours=("appointment", "reservation"))
def next_booking_question(w: World) -> Plan | None:
    tc = w.fl.time_column
    options = []
    for party in w.rows["party"]:
        upcoming = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.editable and c[tc] > TODAY),
                          key=lambda c: c[tc])
        if upcoming and (len(upcoming) == 1 or upcoming[0][tc][:10] != upcoming[1][tc][:10]):
            options.append((party, upcoming[0]))
    if not options:
        return None
    party, case = w.rng.choice(options)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    dates = sorted({c[tc][:10] for c in w.rows["case"]})
    say = Say("ask", (
        "on which date is {their} next {CASE} that is not cancelled or finished",
        "on what date is {their} next upcoming {CASE}",
        "what day is {their} next {CASE} booked for",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, [w.text_answer(case[tc][:10], dates)], say,
                answer=f"{case[tc][:10]} ({long_date(case[tc])}) at {clock(case[tc])}")


@intent("question")
def case_balance_question(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        paid = round(float(sum(p["amount"] for p in captured(w, case))), 2)
        if case["total_amount"] > 0 and paid not in (case["total_amount"],):
            options.append((case, paid))
    if not options:
        return None
    case, paid = w.rng.choice(options)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("payment"), {w.fk("case"): case["id"]})]
    say = Say("ask", (
        "what is the total of {CASE} {code}, and how much of it has been paid in captured {PAYMENT/pl}",
        "for {CASE} {code}, what is the total amount and what has actually been collected so far",
        "how much is {CASE} {code} for, and how much have we captured against it",
    ), {"code": case["code"]})
    values = [w.money_answer(case["total_amount"]), w.money_answer(paid)]
    return Plan(calls, values, say, answer=f"total {money(case['total_amount'])}, paid {money(paid)}")


# --- requests a rule forbids: no change, and an answer that says why --------------------------------------


@intent("infeasible")
def cancel_too_late(w: World) -> Plan | None:
    cancel = w.fl.cancel
    cases = [c for c in w.rows["case"] if c["status"] not in cancel.sources and c["status"] != cancel.target
             and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    verb, _ = _cancel_words(w)
    say = Say("do", (
        "{cancel} {case}{why}",
        "{they} would like {case} {done}{why} || sort that out",
        "{cancel} {case} and let me know once it's done",
    ), {"case": case_np, "cancel": verb, "done": _cancel_words(w)[1], "why": _WHY_CANCEL[w.fl.attended]}, party=ref,
        voices=BOTH)
    return Plan([*lookup, get_case(w, case)], [w.status_answer(case["status"])], say,
                answer=f"That is not possible any more: its status is {case['status'].replace('_', ' ')}.",
                targets={("case", case["id"])}, refused=(act(w, case, cancel.verb), "invalid_state"))


@intent("infeasible", item="refundable")
def refund_not_allowed(w: World) -> Plan | None:
    fl = w.fl
    options = [(c, p) for c in w.rows["case"] if c["status"] not in fl.refundable
               and w.party_of(c)["status"] == "active" for p in captured(w, c)]
    if not options:
        return None
    case, payment = w.rng.choice(options)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, by_status=False)
    reason = w.pick(refund_reasons(w, customer=True))  # either voice
    say = Say("do", (
        "refund the captured {PAYMENT} on {case} with the reason {reason}",
        "{they} want the money for {case} back || refund its {PAYMENT}, reason {reason}",
        "give {them} a refund for {case} (reason: {reason})",
    ), {"case": case_np, "reason": quote(reason)}, party=ref, voices=BOTH)
    return Plan([*lookup, get_case(w, case), (w.n.list("payment"), {w.fk("case"): case["id"]})],
                [w.status_answer(case["status"])], say,
                answer=f"No refund is possible while the {w.L['case']} has the status "
                       f"{case['status'].replace('_', ' ')}.", targets={("case", case["id"])},
                refused=(refund(w, payment, reason)[0], "invalid_state"))


@intent("infeasible")
def add_to_locked_case(w: World) -> Plan | None:
    cases = [c for c in w.rows["case"] if c["status"] not in w.fl.editable and w.party_of(c)["status"] == "active"]
    items = [i for i in w.rows["item"] if i["active"]]
    case, item = w.pick(cases), w.pick(items)
    if case is None or item is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, by_status=False, named=(item,))
    say = Say("do", (
        "add {line} to {case}",
        "{they} forgot something || put {line} on {case} as well",
        "include {line} in {case}",
    ), {"case": case_np, "line": w.line_words(item, 1, "{item} (quantity 1)")}, party=ref, voices=BOTH)
    return Plan([*lookup, get_case(w, case), w.find_item(item)], [w.status_answer(case["status"])], say,
                answer=f"It can no longer be changed: its status is {case['status'].replace('_', ' ')}.",
                targets={("case", case["id"])},
                refused=((w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": 1}),
                         "invalid_state"))


@intent("infeasible", flavours=("fulfillment",), item="refundable")
def return_too_late(w: World) -> Plan | None:
    cutoff = (REFERENCE_NOW - timedelta(days=30)).isoformat()
    cases = [c for c in w.rows["case"] if c["status"] == "delivered" and c["placed_at"] < cutoff
             and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    say = Say("do", (
        "record a return for {case} and refund what was paid, reason 'item returned'",
        "{they} would like to send back {case} || process the return and the refund",
        "take {case} back as a return",
    ), {"case": case_np}, party=ref, voices=BOTH)
    return Plan([*lookup, get_case(w, case)], [w.text_answer(case["placed_at"][:10], [])], say,
                answer=f"It was placed on {case['placed_at'][:10]}, more than 30 days ago, so the return window "
                       "has closed.", targets={("case", case["id"])}, refused=(act(w, case, "return"), "window_closed"))


@intent("infeasible")
def open_for_blocked_party(w: World) -> Plan | None:
    parties = [p for p in w.rows["party"] if p["status"] != "active"]
    items = [i for i in w.rows["item"] if i["active"]]
    party, item = w.pick(parties), w.pick(items)
    if party is None or item is None:
        return None
    site = w.pick(w.rows["site"])
    ref = w.party_ref(party)
    say = Say("do", (
        "open a new {CASE} for {party} at {site} with {line}",
        "set up {a CASE} at {site} for {party}: {line}",
        "create {a CASE} for {party} at {site} and put {line} on it",
    ), {"site": site["name"], "line": w.line_words(item, 1, "{item} (quantity 1)")}, party=ref,
        voices=("staff",))
    return Plan([w.find_party(ref)], [w.text_answer(party["status"], ["active", "suspended", "closed"])], say,
                answer=f"{w.person(party)}'s record is {party['status']}, so no new {w.L['case']} can be opened.",
                targets={("party", party["id"])},
                refused=((w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): site["id"]}), "invalid_state"))


@intent("infeasible")
def assign_inactive_staff(w: World) -> Plan | None:
    gone = [s for s in w.rows["staff"] if not s["active"] and w.unique_person("staff", s)]
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.open and c["status"] in _assignable(w)]
    member, case = w.pick(gone), w.pick(cases)
    if member is None or case is None:
        return None
    # half the time the case is the person's, as a colleague names it ("Jane Doe's latest order"): the agent finds
    # the person and their case before the member of staff
    ref = w.party_ref(w.party_of(case)) if w.party_of(case)["status"] == "active" and w.chance(0.5) else None
    case_np, lookup = w.case_ref(case, ref)  # by its code alone where no person is named
    say = Say("do", (
        "assign {case} to {STAFF} {staff}",
        "hand {case} over to {staff}",
        "put {staff} in charge of {case}",
    ), {"case": case_np, "staff": w.person(member)}, party=ref, voices=STAFF_ONLY)
    return Plan([*lookup, w.find_staff(member)],
                [w.text_answer("inactive", ["active"])], say,
                answer=f"{w.person(member)} is inactive, so nothing can be assigned to them.",
                targets={("case", case["id"])},
                refused=((w.n.action("case", "assign"), {w.fk("case"): case["id"], w.fk("staff"): member["id"]}),
                         "staff_inactive"))


# --- workflows: one request, many dependent steps --------------------------------------------------------------


@intent("chained", item="refundable")
def close_relationship(w: World) -> Plan | None:
    """A person leaving: every case that can still be cancelled cancelled, each captured payment on those refunded,
    then the person suspended."""
    cancel = w.fl.cancel
    if cancel.target not in w.fl.refundable:
        return None
    options = []
    for party in w.active_parties("case"):
        cases = [c for c in w.party_cases(party) if c["status"] in cancel.sources]
        if 1 <= len(cases) <= 3 and any(captured(w, c) for c in cases):
            options.append((party, cases))
    if not options:
        return None
    party, cases = w.rng.choice(options)
    reason = w.pick(("customer closed their account", "moving away", "account closure"))
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    goals = []
    for case in cases:
        calls += [act(w, case, cancel.verb), (w.n.list("payment"), {w.fk("case"): case["id"]})]
        goals.append(status_goal(w, case, cancel.target))
        for payment in captured(w, case):
            call, goal = refund(w, payment, reason)
            calls.append(call)
            goals.append(goal)
    calls.append((w.n.action("party", "suspend"), {w.pk("party"): party["id"]}))
    goals.append(Goal(kind="row_equals", table=w.table("party"), pk=party["id"], expect={"status": "suspended"}))
    verb, done = _cancel_words(w)
    say = Say("do", (
        "{they_are} [closing {their} account|moving on|moving away|switching providers] || {cancel} every {CASE} "
        "of {theirs} that can still be {done}, refund each captured {PAYMENT} on those with the reason {reason}, "
        "and then suspend {their} record",
        "wind up {their} dealings here: {cancel} whatever {CASE/pl} can still be {done}, refund the captured "
        "{PAYMENT/pl} on them (reason {reason}), and suspend {them} at the end",
        "[{they} won't be needing {their} account any more|{they_have} decided to leave|{they_are} winding things "
        "down here] || for each of {their} {CASE/pl} that can still be "
        "{done}, {cancel} it and refund its captured {PAYMENT/pl} with the reason {reason}; [once that's done|after "
        "that], suspend {them}",
    ), {"cancel": verb, "done": done, "reason": quote(reason)}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party["id"])} | {("case", c["id"]) for c in cases})


@intent("aggregate", item="refundable")
def refund_all_cancelled(w: World) -> Plan | None:
    """Every captured payment still held on a person's cancelled cases refunded; the total answered."""
    cancelled = w.fl.cancel.target
    options = []
    for party in w.active_parties("case"):
        held = [(c, p) for c in w.party_cases(party) if c["status"] == cancelled for p in captured(w, c)]
        if 1 <= len(held) <= 3:
            options.append((party, held))
    if not options:
        return None
    party, held = w.rng.choice(options)
    reason = w.pick(refund_reasons(w, customer=True))  # either voice
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"], "status": cancelled})]
    goals = []
    for case in sorted({c["id"]: c for c, _ in held}.values(), key=lambda c: c["id"]):
        calls.append((w.n.list("payment"), {w.fk("case"): case["id"]}))
        for payment in captured(w, case):
            call, goal = refund(w, payment, reason)
            calls.append(call)
            goals.append(goal)
    total = round(sum(p["amount"] for _, p in held), 2)
    done = _cancel_words(w)[1]
    say = Say("do", (
        "refund every captured {PAYMENT} still sitting on {their} {done} {CASE/pl}, with the reason {reason}, and "
        "tell me the total refunded",
        "{they_were} never refunded for {their} {done} {CASE/pl} || refund each captured {PAYMENT} on them (reason "
        "{reason}) and give me the sum",
        "go through {their} {done} {CASE/pl} and refund any {PAYMENT} still captured, giving {reason} as the "
        "reason; [then|afterwards] tell me how much went back",
    ), {"done": done, "reason": quote(reason)}, party=ref, voices=BOTH)
    return Plan(calls, goals + [w.money_answer(total)], say, answer=money(total),
                targets={("party", party["id"])} | {("case", c["id"]) for c, _ in held})


@intent("aggregate")
def staff_unassigned_at_site(w: World) -> Plan | None:
    """Every open, unassigned case at one site handed to a named staff member of that site."""
    options = []
    for site in w.rows["site"]:
        free = [c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c[w.fk("staff")] is None
                and c["status"] in w.fl.open and c["status"] in _assignable(w)]
        staff = w.staff_pool(site["id"])
        if 1 <= len(free) <= 4 and staff:
            options.append((site, free, staff))
    if not options:
        return None
    site, free, staff = w.rng.choice(options)
    member = w.rng.choice(staff)
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site["id"], "limit": 100}), w.find_staff(member)]
    calls += [(w.n.action("case", "assign"), {w.fk("case"): c["id"], w.fk("staff"): member["id"]}) for c in free]
    goals = [Goal(kind="row_equals", table=w.table("case"), pk=c["id"], expect={w.fk("staff"): member["id"]})
             for c in free]
    open_words = or_words(w.fl.open)
    # half the time (where the business sends messages, and the cases are of different people) each person is told
    # who now looks after their case
    parties = [w.party_of(c) for c in free]
    tell = (w.has("notification") and len({p["id"] for p in parties}) == len(parties)
            and all(p["status"] == "active" for p in parties) and w.chance(0.5))
    slots = {"site": site["name"], "staff": w.person(member), "open": open_words}
    if tell:
        channel, named = message_channel(w)
        subject = w.pick([f"Your {w.L['case']} is in hand", f"Who is looking after your {w.L['case']}",
                          f"Your {w.L['case']}: a named contact"])
        for party in parties:
            call, goal = notify(w, party, channel, subject, f"{w.person(member)} is now looking after it.")
            calls.append(call)
            goals.append(goal)
        slots.update(named, subject=quote(subject))
    say = Say("do", (
        "assign every {CASE} at {site} that is {open} and has no {STAFF} yet to {staff}",
        "nobody has picked up some of the {CASE/pl} at {site} || give each unassigned one that is {open} to "
        "{staff}",
        "[clear|sweep up] the unassigned {CASE/pl} at {site}: every one that is {open} goes to {STAFF} {staff}",
        "{staff} [has room|has capacity|is free] [this week|for more work|to take on more] || [hand|pass|give] "
        "[them|{staff}] [every|each|all the] {CASE/pl} at {site} [that nobody owns yet|with no one on them|still "
        "without {a STAFF}], [as long as they are|provided they are|if they are] {open}",
        "[make sure|see that] no {CASE} [that is|still] {open} at {site} [sits|is left] without {a STAFF} || [put "
        "{staff} on|assign {staff} to] [each one|every one|all of those] that [has nobody|lacks one|has no one assigned]",
    ), slots)
    if tell:
        say.clauses = tuple(c + ", [and|then] [let each {PARTY} know|tell each {PARTY}] by {channel}, subject {subject}"
                            for c in say.clauses)
    return Plan(calls, goals, say, targets={("case", c["id"]) for c in free}, messages=tell)


@intent("aggregate", item="priced")
def reprice_category(w: World) -> Plan | None:
    """Every active item of one category repriced by a stated percentage (rounded to the cent)."""
    options = []
    for category in w.rows["category"]:
        items = [i for i in w.rows["item"] if i[w.fk("category")] == category["id"] and i["active"]]
        if 2 <= len(items) <= 5:
            options.append((category, items))
    if not options:
        return None
    category, items = w.rng.choice(options)
    pct = w.pick([3, 5, 7, 10])
    up = w.chance(0.7)
    factor = 1 + pct / 100 if up else 1 - pct / 100
    calls = find_category(w, category)
    goals = []
    for item in items:
        price = round(item["price"] * factor, 2)
        calls.append((w.n.change("item", "update", "price"), {w.pk("item"): item["id"], "price": price}))
        goals.append(Goal(kind="row_equals", table=w.table("item"), pk=item["id"], expect={"price": {"approx": price}}))
    say = Say("do", (
        "{verb} the price of every active {ITEM} in the {category} {CATEGORY} by {pct}%, rounding each to the cent",
        "our costs for {category} have {moved} || {verb} each active {ITEM} in that {CATEGORY} by {pct}% "
        "(round to the cent)",
        "apply a {pct}% price {change} to all the {ITEM/pl} we still offer in {category}, each rounded to the cent",
        "[it's|it is] time for a price [review|change] [in|of] {category} || [put|move|take] [each|every] {ITEM} "
        "[there|in it] that is still [offered|on offer|available] {dir} {pct}%, [rounding|rounded] to the cent, and "
        "[leave|skip] [any|the ones] no longer offered",
        "[update|change] the [prices|price list] of {category}: [every|each] active {ITEM} [in that {CATEGORY} "
        "|]{goes} {pct}% ([to the nearest cent|rounded to the cent]); [anything we no longer offer stays as it is|"
        "items no longer offered keep their price]",
    ), {"dir": "up" if up else "down", "goes": "goes up" if up else "comes down",
        "category": quote(category["name"]), "pct": pct, "verb": T("[raise|increase]" if up else "[lower|reduce]"),
        "moved": "gone up" if up else "come down", "change": "rise" if up else "cut"})
    plan = Plan(calls, goals, say, targets={("item", i["id"]) for i in items})
    return plan.derive(w.n.change("item", "update", "price"), "price")
