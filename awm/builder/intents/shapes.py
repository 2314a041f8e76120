"""Request shapes: what many kinds of business are asked, each with the selection, goals and words its callers
give it (a ticket and a note for a case, a note on every open case of a person, a follow-up booked from an upcoming
one, a day's bookings called off, a credit, a re-route, a recall notice, an invoice split or a fee, an exchange, a
purchase to cover a shortage, a change of quantity, an upgrade, a case rushed through its steps).

A shape registers nothing: a category registers a request built on one from its own folder
(awm/builder/categories/<category>/requests.py), with `define`; a request shared with other categories names them
all and is kept in the folder of the first it names."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from awm.builder.catalogue.kinds import most_of_one
from awm.builder.clock import REFERENCE_NOW, TODAY
from awm.builder.intents.base import Plan, World, intent, long_date, or_words
from awm.builder.intents.entities.common import BOTH
from awm.builder.intents.steps import (
    act,
    add_note,
    captured,
    get_case,
    message_channel,
    notify,
    refund,
    status_goal,
    tell_its_party,
)
from awm.builder.phrasing import Say, T, count, money, quote
from awm.contracts import Goal


def define(name: str, shape: str, categories: tuple[str, ...], build: Callable[[World], Plan | None],
           flavours: tuple[str, ...] = (), needs: tuple[str, ...] = ()) -> None:
    """Register a category's intent built by one of the shapes below (called from the category's requests.py)."""
    build.__name__ = name
    intent(shape, categories=categories, flavours=flavours, needs=needs)(build)


# --- request shapes ------------------------------------------------------------------------------------------


def ticket_for_case(w: World, subjects: tuple[str, ...], priority: str, notes: tuple[str, ...],
                    clauses: tuple[str, ...], statuses: tuple[str, ...] = (), assign: bool = False,
                    open_only: bool = False) -> Plan | None:
    """A claim, complaint or report about one case (one in `statuses`, or still open): a ticket with a stated
    subject and priority (assigned to a named staff member if `assign`), and a note on the case."""
    statuses = w.fl.open if open_only else statuses
    cases = [c for c in w.rows["case"] if w.party_of(c)["status"] == "active" and (not statuses
                                                                                    or c["status"] in statuses)]
    case = w.pick(cases)
    member = w.pick(w.staff_pool()) if assign else None
    if case is None or (assign and member is None):
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    titled = w.pick(subjects)
    case_np, lookup = w.case_ref(case, ref, coded="{code}" in titled)
    subject = titled.format(code=case["code"])
    note = w.pick(notes)
    note_call, note_goal = add_note(w, case, note)
    args = {w.fk("party"): party["id"], "subject": subject, "priority": priority}
    expect = {w.fk("party"): party["id"], "subject": {"text": subject}, "priority": priority,
              "status": "in_progress" if assign else "open"}
    calls = [*lookup, get_case(w, case)]
    if member is not None:
        calls.append(w.find_staff(member))
        args[w.fk("staff")] = member["id"]
        expect[w.fk("staff")] = member["id"]
    calls += [(w.n.create("ticket"), args), note_call]
    slots = {"case": case_np, "subject": quote(subject), "priority": priority, "note": quote(note)}
    if member is not None:
        slots["staff"] = w.person(member)
    goal = Goal(kind="rows_created", table=w.table("ticket"), count=1, expect=expect)
    # The staff's request: its notes are the staff's record ("Troubleshooting started", "Asked for the missing
    # paperwork"), as is putting a named member of staff on the ticket; a customer does not dictate them.
    return Plan(calls, [goal, note_goal], Say("do", clauses, slots, party=ref), targets={("case", case["id"])})


def note_and_tell(w: World, notes: tuple[str, ...], subjects: tuple[str, ...], clauses: tuple[str, ...]
                  ) -> Plan | None:
    """A note with a stated text on one open case of an active person, and that person told by email with a
    stated subject."""
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.open and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    titled = w.pick(subjects)
    case_np, lookup = w.case_ref(case, ref, coded="{code}" in titled)
    note = w.pick(notes)
    subject = titled.format(code=case["code"])
    note_call, note_goal = add_note(w, case, note)
    tell_call, tell_goal = notify(w, party, "email", subject, f"{note} ({case['code']}).")
    slots = {"case": case_np, "note": quote(note), "subject": quote(subject)}
    # The staff's: the note is their record and the email theirs to the person ("Your warranty claim for ...").
    return Plan([*lookup, get_case(w, case), note_call, tell_call], [note_goal, tell_goal],
                Say("do", clauses, slots, party=ref), targets={("case", case["id"])})


def note_every_open_case(w: World, notes: tuple[str, ...], clauses: tuple[str, ...],
                         voices: tuple[str, ...] = BOTH) -> Plan | None:
    """The same note on each of a person's open cases (two to four of them); `voices`: who may ask (a person tells
    of their allergy themself, but a quality hold on their orders is staff's to place)."""
    options = [(p, [c for c in w.party_cases(p) if c["status"] in w.fl.open]) for p in w.active_parties("case")]
    options = [(p, cases) for p, cases in options if 2 <= len(cases) <= 4]
    if not options:
        return None
    party, cases = w.rng.choice(options)
    note = w.pick(notes)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    goals = []
    for case in cases:
        call, goal = add_note(w, case, note)
        calls.append(call)
        goals.append(goal)
    open_words = or_words(w.fl.open)
    return Plan(calls, goals, Say("do", clauses, {"note": quote(note), "open": open_words}, party=ref, voices=voices),
                targets={("party", party["id"])})


def follow_up_booking(w: World, days: int, clauses: tuple[str, ...]) -> Plan | None:
    """A new booking `days` after a person's next upcoming one, at the same time, site and staff member, for a
    stated item."""
    tc = w.fl.time_column
    options = []
    for party in w.active_parties("case"):
        upcoming = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.editable and c[tc] > TODAY
                           and c[w.fk("staff")] is not None), key=lambda c: c[tc])
        if upcoming and (len(upcoming) == 1 or upcoming[0][tc] != upcoming[1][tc]):
            member = w.by_id("staff", upcoming[0][w.fk("staff")])
            if member["active"]:
                options.append((party, upcoming[0], member))
    items = [i for i in w.rows["item"] if i["active"]]
    if not options or not items:
        return None
    party, case, member = w.rng.choice(options)
    item = w.pick(items)
    when = (datetime.fromisoformat(case[tc]) + timedelta(days=days)).isoformat()
    ref = w.party_ref(party)
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), w.find_item(item),
             (w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): case[w.fk("site")], tc: when}),
             (w.n.create("line"), {cfk: new_id, w.fk("item"): item["id"], "quantity": 1}),
             (w.n.action("case", "assign"), {cfk: new_id, w.fk("staff"): member["id"]})]
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): party["id"], w.fk("site"): case[w.fk("site")], w.fk("staff"): member["id"],
                        tc: {"prefix": when[:16]}},
                child_table=w.table("line"), child_fk=cfk, children=[{w.fk("item"): item["id"], "quantity": 1}])
    say = Say("do", clauses, {"item": w.line_words(item, 1), "days": count(days, "day")}, party=ref,
              voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])}).derive(w.n.create("case"), tc)


def call_off_day(w: World, notes: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """Every booking at one site on one day that can still be cancelled, cancelled, each with a note; where the
    business refunds a cancelled booking, what was captured on each refunded (the agent lists each one's payments,
    `OUTAGE_REASON`), and where it sends messages, each person told (the day's bookings are of different people, so
    one message each)."""
    tc = w.fl.time_column
    cancel = w.fl.cancel
    groups: dict[tuple[int, str], list[dict]] = {}
    for case in w.rows["case"]:
        groups.setdefault((case[w.fk("site")], case[tc][:10]), []).append(case)
    options = [(k, [c for c in v if c["status"] in cancel.sources]) for k, v in groups.items() if k[1] > TODAY]
    options = [(k, cases) for k, cases in options
               if 1 <= len(cases) <= 3 and len({c[w.fk("party")] for c in cases}) == len(cases)]
    if not options:
        return None
    (site_id, day), cases = w.rng.choice(options)
    site = w.by_id("site", site_id)
    note = w.pick(notes)
    refunds = w.items_are("refundable") and cancel.target in w.fl.refundable
    tell = w.has("notification")
    channel, named = message_channel(w) if tell else ("", {})
    label = w.L["case"]
    subject = w.pick([f"Your {label} on {long_date(day)} is cancelled", f"Cancelled: your {label} on "
                      f"{long_date(day)}"]) if tell else ""
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site_id, "limit": 100})]
    goals = []
    for case in sorted(cases, key=lambda c: c["id"]):
        call, goal = add_note(w, case, note)
        calls += [act(w, case, cancel.verb), call]
        goals += [status_goal(w, case, cancel.target), goal]
        if refunds:
            back = [refund(w, p, OUTAGE_REASON) for p in captured(w, case)]
            calls += [(w.n.list("payment"), {w.fk("case"): case["id"]}), *(c for c, _ in back)]
            goals += [g for _, g in back]
        if tell:
            call, goal = notify(w, w.party_of(case), channel, subject, "We are sorry: it could not go ahead.")
            calls.append(call)
            goals.append(goal)
    tail = ""
    if refunds:
        tail = "; [then|after that] refund what was captured on each with the reason {reason}"
    if tell:
        told = "[let each {PARTY} know|tell each {PARTY}] by {channel}, subject {subject}"
        tail += " and " + told if refunds else "; [then|after that] " + told
    slots = {"site": site["name"], "date": long_date(day), "long": long_date(day), "note": quote(note), **named}
    if refunds:
        slots["reason"] = quote(OUTAGE_REASON)
    if tell:
        slots["subject"] = quote(subject)
    say = Say("do", tuple(c + tail for c in clauses), slots)
    plan = Plan(calls, goals, say, targets={("site_day", f"{site_id}:{day}")} | {("case", c["id"]) for c in cases},
                messages=tell)
    return plan.derive(w.n.action("payment", "refund"), w.pk("payment")) if refunds else plan


OUTAGE_REASON = "service not delivered"  # why a booking the business called off is refunded


def credit_account(w: World, memos: tuple[str, ...], amounts: tuple[float, ...], clauses: tuple[str, ...],
                   debit: bool = False) -> Plan | None:
    """A stated amount credited to (or debited from) a person's active account, with a stated memo."""
    accounts = [a for a in w.rows["account"] if a["status"] == "active" and w.party_of(a)["status"] == "active"]
    amount = float(w.pick(list(amounts)))
    if debit:
        accounts = [a for a in accounts if a["balance"] >= amount]
    acct = w.pick(accounts)
    if acct is None:
        return None
    memo = w.pick(memos)
    ref = w.party_ref(w.party_of(acct))
    verb = "debit" if debit else "credit"
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): acct[w.fk("party")]}),
             (w.n.action("account", verb), {w.fk("account"): acct["id"], "amount": amount, "memo": memo})]
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=acct["id"], column="balance",
                  delta=-amount if debit else amount),
             Goal(kind="rows_created", table=w.table("account_entry"), count=1,
                  expect={w.fk("account"): acct["id"], "amount": {"approx": -amount if debit else amount},
                          "entry_type": "withdrawal" if debit else "deposit", "memo": {"text": memo}})]
    say = Say("do", clauses, {"amount": money(amount), "acct": T(f"{{ACCOUNT}} {acct['number']}"),
                              "memo": quote(memo)}, party=ref)
    return Plan(calls, goals, say, targets={("account", acct["id"])})


def share_of_spend(w: World, percent: int, memo: str, clauses: tuple[str, ...]) -> Plan | None:
    """A credit worked out from what a person paid: `percent` of their captured payments, to their account."""
    options = []
    for party in w.active_parties("case"):
        accounts = [a for a in w.children("account", "party", party["id"]) if a["status"] == "active"]
        cases = w.party_cases(party)
        spent = round(float(sum(p["amount"] for c in cases for p in captured(w, c))), 2)
        if len(accounts) == 1 and spent > 0 and len(cases) <= 5:
            options.append((party, accounts[0], cases, spent))
    if not options:
        return None
    party, acct, cases, spent = w.rng.choice(options)
    amount = round(spent * percent / 100, 2)
    if amount <= 0:
        return None
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]})]
    calls += [(w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases]
    calls += [(w.n.list("account"), {w.fk("party"): party["id"]}),
              (w.n.action("account", "credit"), {w.fk("account"): acct["id"], "amount": amount, "memo": memo})]
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=acct["id"], column="balance", delta=amount),
             Goal(kind="rows_created", table=w.table("account_entry"), count=1,
                  expect={w.fk("account"): acct["id"], "amount": {"approx": amount}, "entry_type": "deposit",
                          "memo": {"text": memo}}),
             w.money_answer(amount)]
    say = Say("do", clauses, {"pct": percent, "memo": quote(memo)}, party=ref)
    plan = Plan(calls, goals, say, answer=money(amount), targets={("party", party["id"])})
    return plan.derive(w.n.action("account", "credit"), "amount")


def reroute_to_quietest_site(w: World, notes: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """A case moved to the other site with the fewest open cases, with a note; where the business sends messages,
    its person told (by the channel and with the subject the request states) where it now is: a case that changes
    place is news to the person whose it is."""
    loads = {s["id"]: sum(1 for c in w.rows["case"] if c[w.fk("site")] == s["id"] and c["status"] in w.fl.open)
             for s in w.rows["site"]}
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        others = sorted((n, sid) for sid, n in loads.items() if sid != case[w.fk("site")])
        if len(others) >= 2 and others[0][0] < others[1][0]:
            options.append((case, others[0][1]))
    if not options:
        return None
    case, site_id = w.rng.choice(options)
    note = w.pick(notes)
    note_call, note_goal = add_note(w, case, note)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("site"), {})]
    calls += [(w.n.list("case"), {w.fk("site"): s["id"], "limit": 100}) for s in w.rows["site"]
              if s["id"] != case[w.fk("site")]]
    calls += [(w.n.action("case", "transfer"), {w.fk("case"): case["id"], w.fk("site"): site_id}), note_call]
    site = w.by_id("site", case[w.fk("site")])
    slots = {"code": case["code"], "site": site["name"], "note": quote(note), "open": or_words(w.fl.open)}
    goal = Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("site"): site_id})
    goals = [goal, note_goal]
    targets = {("case", case["id"])}
    if w.has("notification"):
        party = w.party_of(case)
        label, place = w.L["case"], w.L["site"]
        subjects = [f"Your {label} {case['code']} has moved", f"A new {place} for {label} {case['code']}",
                    f"{label.capitalize()} {case['code']}: change of {place}"]
        clauses = tell_its_party(w, party, subjects, f"It is now handled at {w.by_id('site', site_id)['name']}.",
                                 calls, goals, slots, clauses)
        targets.add(("party", party["id"]))
    plan = Plan(calls, goals, Say("do", clauses, slots), targets=targets, messages=w.has("notification"),
                unasked=True)
    return plan.derive(w.n.create("notification"), w.fk("party")) if w.has("notification") else plan


def notify_item_holders(w: World, subjects: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """One message (stated channel and subject) to every active person with an open case that includes an item."""
    options = []
    for item in w.rows["item"]:
        cases = [c for c in w.rows["case"] if c["status"] in w.fl.open and w.party_of(c)["status"] == "active"
                 and any(x[w.fk("item")] == item["id"] for x in w.children("line", "case", c["id"]))]
        parties = sorted({c[w.fk("party")] for c in cases})
        if 1 <= len(parties) <= 4:
            options.append((item, cases, parties))
    if not options:
        return None
    item, cases, parties = w.rng.choice(options)
    channel, named = message_channel(w)
    subject = w.pick(subjects).format(item=item["name"])
    calls = [w.find_item(item), (w.n.list("line"), {w.fk("item"): item["id"], "limit": 100})]
    calls += [get_case(w, c) for c in cases]
    goals = []
    for party_id in parties:
        call, goal = notify(w, w.by_id("party", party_id), channel, subject, f"Please contact us about {item['name']}.")
        calls.append(call)
        goals.append(goal)
    open_words = or_words(w.fl.open)
    say = Say("do", clauses, {"item": quote(item["name"]), **named,
                              "subject": quote(subject), "open": open_words})
    return Plan(calls, goals, say, targets={("item", item["id"])})


def split_invoice(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """An unpaid invoice voided and replaced by two halves (the second takes the odd cent), due on stated dates."""
    inv = w.pick([i for i in w.rows["invoice"] if i["status"] in ("open", "overdue") and i["amount"] >= 50
                  and w.party_of(i)["status"] == "active"])
    if inv is None:
        return None
    first = round(inv["amount"] / 2, 2)
    second = round(inv["amount"] - first, 2)
    d1, d2 = w.pick([("2025-06-30", "2025-07-31"), ("2025-07-01", "2025-08-01"), ("2025-06-15", "2025-07-15")])
    args = {w.fk("party"): inv[w.fk("party")], w.fk("case"): inv[w.fk("case")]}
    calls = [(w.n.list("invoice"), {"number": inv["number"]}),
             (w.n.action("invoice", "void"), {w.pk("invoice"): inv["id"]}),
             (w.n.create("invoice"), {**args, "amount": first, "due_on": d1}),
             (w.n.create("invoice"), {**args, "amount": second, "due_on": d2})]
    goals = [Goal(kind="row_equals", table=w.table("invoice"), pk=inv["id"], expect={"status": "void"})]
    goals += [Goal(kind="rows_created", table=w.table("invoice"), count=1,
                   expect={**args, "amount": {"approx": a}, "due_on": d, "status": "open"})
              for a, d in ((first, d1), (second, d2))]
    say = Say("do", clauses, {"inv": T(f"{{INVOICE}} {inv['number']}"), "d1": d1, "d2": d2})
    return Plan(calls, goals, say, targets={("invoice", inv["id"])}).derive(w.n.create("invoice"), "amount")


def fee_invoice(w: World, fees: tuple[float, ...], clauses: tuple[str, ...]) -> Plan | None:
    """A stated fee invoiced for the case behind a person's overdue invoice, due on a stated date."""
    inv = w.pick([i for i in w.rows["invoice"] if i["status"] == "overdue" and i[w.fk("case")]
                  and w.party_of(i)["status"] == "active"])
    if inv is None:
        return None
    fee = float(w.pick(list(fees)))
    due = w.pick(["2025-06-15", "2025-06-20", "2025-06-30"])
    args = {w.fk("party"): inv[w.fk("party")], w.fk("case"): inv[w.fk("case")], "amount": fee, "due_on": due}
    calls = [(w.n.list("invoice"), {"number": inv["number"]}), (w.n.create("invoice"), args)]
    goal = Goal(kind="rows_created", table=w.table("invoice"), count=1,
                expect={**{k: v for k, v in args.items() if k != "amount"}, "amount": {"approx": fee},
                        "status": "open"})
    say = Say("do", clauses, {"inv": T(f"{{INVOICE}} {inv['number']}"), "fee": money(fee), "due": due})
    return Plan(calls, [goal], say, targets={("invoice", inv["id"])})


def exchange(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """A recent delivered order returned and refunded, and the same quantity of another item ordered instead at
    the same site."""
    cutoff = (REFERENCE_NOW - timedelta(days=30)).isoformat()
    options = []
    for case in w.rows["case"]:
        lines = w.children("line", "case", case["id"])
        paid = captured(w, case)
        if (case["status"] == "delivered" and case["placed_at"] >= cutoff and len(lines) == 1 and len(paid) == 1
                and w.party_of(case)["status"] == "active"):
            options.append((case, lines[0], paid[0]))
    items = [i for i in w.rows["item"] if i["active"]]
    if not options or len(items) < 2:
        return None
    case, line, payment = w.rng.choice(options)
    new = w.pick([i for i in items if i["id"] != line[w.fk("item")]])
    old = w.by_id("item", line[w.fk("item")])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, named=(old,))
    refund_call, refund_goal = refund(w, payment, "exchange")
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [*lookup, get_case(w, case), act(w, case, "return"), refund_call, w.find_item(new),
             (w.n.create("case"), {w.fk("party"): case[w.fk("party")], w.fk("site"): case[w.fk("site")]}),
             (w.n.create("line"), {cfk: new_id, w.fk("item"): new["id"], "quantity": line["quantity"]})]
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): case[w.fk("party")], w.fk("site"): case[w.fk("site")]},
                child_table=w.table("line"), child_fk=cfk,
                children=[{w.fk("item"): new["id"], "quantity": line["quantity"]}])
    say = Say("do", clauses, {"case": case_np, "old": quote(old["name"]), "new": quote(new["name"]),
                              "reason": quote("exchange")}, party=ref, voices=BOTH)
    plan = Plan(calls, [status_goal(w, case, "returned"), refund_goal, goal], say, targets={("case", case["id"])})
    return plan.derive(w.n.create("line"), "quantity")


def cover_shortage(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """A submitted purchase order with a stated supplier for what a site lacks: enough of an item to reach twice its
    reorder level."""
    low = [s for s in w.rows["stock_level"] if s["quantity"] < s["reorder_level"]]
    level, vendor = w.pick(low), w.pick(w.rows["vendor"])
    if level is None or vendor is None:
        return None
    item, site = w.by_id("item", level[w.fk("item")]), w.by_id("site", level[w.fk("site")])
    qty = 2 * level["reorder_level"] - level["quantity"]
    po_id = len(w.rows["purchase_order"]) + 1
    po_fk = w.fk("purchase_order")
    calls = [w.find_item(item), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}),
             (w.n.list("vendor"), {"query": vendor["name"]}),
             (w.n.create("purchase_order"), {w.fk("vendor"): vendor["id"], w.fk("site"): site["id"]}),
             (w.n.create("purchase_line"), {po_fk: po_id, w.fk("item"): item["id"], "quantity": qty}),
             (w.n.action("purchase_order", "submit"), {w.pk("purchase_order"): po_id})]
    goal = Goal(kind="rows_created", table=w.table("purchase_order"), count=1,
                expect={w.fk("vendor"): vendor["id"], w.fk("site"): site["id"], "status": "submitted"},
                child_table=w.table("purchase_line"), child_fk=po_fk,
                children=[{w.fk("item"): item["id"], "quantity": qty}])
    say = Say("do", clauses, {"item": quote(item["name"]), "site": site["name"], "vendor": vendor["name"]})
    plan = Plan(calls, [goal], say, targets={("stock_level", level["id"])})
    return plan.derive(w.n.create("purchase_line"), "quantity")


def change_quantity(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """The quantity of one item on an editable case changed to a stated number (a new line, the old one removed);
    the new total answered, never more than a case of the world's items plausibly holds (catalogue.kinds.most_of_one).
    Not where a case holds one of each item (World.one_each)."""
    if w.one_each:
        return None
    most = most_of_one(w.plan.scenario.item_kind)
    # by the dozen where items are goods, a room or two more on a booking (no hotel booking of 21 suites)
    steps = [2, 5, 10, 15, 20] if most >= 25 else [1, 2]
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        lines = w.children("line", "case", case["id"])
        for line in lines:
            item = w.by_id("item", line[w.fk("item")])
            if (item["active"] and sum(x[w.fk("item")] == item["id"] for x in lines) == 1
                    and line["quantity"] + steps[0] <= most):
                options.append((case, line, item))
    if not options:
        return None
    case, line, item = w.rng.choice(options)
    new_qty = line["quantity"] + w.pick([k for k in steps if line["quantity"] + k <= most])
    total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0) + new_qty * item["price"], 2)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref, named=(item,))
    calls = [*lookup, (w.n.list("line"), {w.fk("case"): case["id"]}),
             (w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": new_qty}),
             (w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
    goals = [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]),
             Goal(kind="rows_created", table=w.table("line"), count=1,
                  expect={w.fk("case"): case["id"], w.fk("item"): item["id"], "quantity": new_qty}),
             w.money_answer(total)]
    say = Say("do", clauses, {"case": case_np, "item": quote(item["name"]), "old": line["quantity"], "new": new_qty},
              party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=money(total), targets={("case", case["id"])})


def upgrade_to_priciest(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """On an editable case with one line, its item swapped for the most expensive active item of the same category
    (same quantity); the new total answered."""
    options = []
    for case in w.rows["case"]:
        lines = w.children("line", "case", case["id"])
        if case["status"] not in w.fl.editable or len(lines) != 1 or w.party_of(case)["status"] != "active":
            continue
        old = w.by_id("item", lines[0][w.fk("item")])
        peers = sorted((i for i in w.rows["item"] if i["active"] and i[w.fk("category")] == old[w.fk("category")]),
                       key=lambda i: -i["price"])
        if len(peers) >= 2 and peers[0]["id"] != old["id"] and peers[0]["price"] > peers[1]["price"]:
            options.append((case, lines[0], peers[0]))
    if not options:
        return None
    case, line, best = w.rng.choice(options)
    qty = line["quantity"]
    total = round(max(case["total_amount"] - qty * line["unit_price"], 0) + qty * best["price"], 2)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, get_case(w, case), (w.n.get("item"), {w.pk("item"): line[w.fk("item")]}),
             (w.n.list("item"), {w.fk("category"): best[w.fk("category")], "limit": 100}),
             (w.n.create("line"), {w.fk("case"): case["id"], w.fk("item"): best["id"], "quantity": qty}),
             (w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
    goals = [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]),
             Goal(kind="rows_created", table=w.table("line"), count=1,
                  expect={w.fk("case"): case["id"], w.fk("item"): best["id"], "quantity": qty}),
             w.money_answer(total)]
    say = Say("do", clauses, {"case": case_np}, party=ref, voices=BOTH)
    plan = Plan(calls, goals, say, answer=money(total), targets={("case", case["id"])})
    return plan.derive(w.n.create("line"), "quantity")


def rush(w: World, verbs: tuple[str, ...], notes: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """A case pushed through several lifecycle steps at once, with a note."""
    first = w.fl.action(verbs[0])
    cases = [c for c in w.rows["case"] if c["status"] in first.sources and w.party_of(c)["status"] == "active"
             and (w.fl.name != "service" or c[w.fk("staff")] is not None)]
    case = w.pick(cases)
    if case is None:
        return None
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note = w.pick(notes)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), *[act(w, case, v) for v in verbs], note_call]
    say = Say("do", clauses, {"case": case_np, "note": quote(note)}, party=ref)
    return Plan(calls, [status_goal(w, case, w.fl.action(verbs[-1]).target), note_goal], say,
                targets={("case", case["id"])})


def checkin_with_copay(w: World, copays: tuple[float, ...], clauses: tuple[str, ...]) -> Plan | None:
    """A booking checked in, a stated fixed payment taken, and a note."""
    action = w.fl.action("check_in")
    case = w.pick([c for c in w.rows["case"] if c["status"] in action.sources and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    copay = float(w.pick(list(copays)))
    method = w.pick(["card", "cash"])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    pay_call = (w.n.create("payment"), {w.fk("case"): case["id"], "amount": copay, "method": method})
    pay_goal = Goal(kind="rows_created", table=w.table("payment"), count=1,
                    expect={w.fk("case"): case["id"], "amount": {"approx": copay}, "method": method,
                            "status": "captured"})
    calls = [*lookup, get_case(w, case), act(w, case, "check_in"), pay_call]
    say = Say("do", clauses, {"case": case_np, "copay": money(copay), "method": method}, party=ref, voices=BOTH)
    return Plan(calls, [status_goal(w, case, action.target), pay_goal], say, targets={("case", case["id"])})


def escalate_urgent(w: World, clauses: tuple[str, ...]) -> Plan | None:
    """Every urgent ticket still open or in progress, escalated."""
    urgent = [t for t in w.rows["ticket"] if t["priority"] == "urgent" and t["status"] in ("open", "in_progress")]
    if not 1 <= len(urgent) <= 4:
        return None
    calls = [(w.n.list("ticket"), {"priority": "urgent", "status": "open"}),
             (w.n.list("ticket"), {"priority": "urgent", "status": "in_progress"})]
    calls += [(w.n.action("ticket", "escalate"), {w.pk("ticket"): t["id"]}) for t in urgent]
    goals = [Goal(kind="row_equals", table=w.table("ticket"), pk=t["id"], expect={"status": "escalated"})
             for t in urgent]
    return Plan(calls, goals, Say("do", clauses, {}), targets={("ticket", t["id"]) for t in urgent})
