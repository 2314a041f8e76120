"""Intents specific to a category of business: what a bank, a clinic, a carrier or a utility is asked that a
bookshop is not. Each is a request with its own selection, details and words, built on one of the request
shapes below (a claim opened for a case, a note on every open case of a person, a follow-up booked from an
upcoming one, a day's bookings called off, a credit, a re-route, a recall notice, an invoice split or a fee,
an exchange, a purchase to cover a shortage, a change of quantity, an upgrade)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from awm.builder.clock import REFERENCE_NOW, TODAY
from awm.builder.intents.base import Plan, World, intent, long_date, status_words
from awm.builder.intents.steps import act, add_note, captured, get_case, notify, refund, status_goal
from awm.builder.phrasing import Say, T, count, money, quote
from awm.contracts import Goal

BOTH = ("staff", "self")


def define(name: str, shape: str, categories: tuple[str, ...], build: Callable[[World], Plan | None],
           flavours: tuple[str, ...] = (), needs: tuple[str, ...] = ()) -> None:
    """Register a category's intent built by one of the shapes below."""
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
    case_np, lookup = w.case_ref(case, ref)
    subject = w.pick(subjects).format(code=case["code"])
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
    return Plan(calls, [goal, note_goal], Say("do", clauses, slots, party=ref, voices=BOTH),
                targets={("case", case["id"])})


def note_and_tell(w: World, notes: tuple[str, ...], subjects: tuple[str, ...], clauses: tuple[str, ...]
                  ) -> Plan | None:
    """A note with a stated text on one open case of an active person, and that person told by email with a
    stated subject."""
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.open and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    party = w.party_of(case)
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    note = w.pick(notes)
    subject = w.pick(subjects).format(code=case["code"])
    note_call, note_goal = add_note(w, case, note)
    tell_call, tell_goal = notify(w, party, "email", subject, f"{note} ({case['code']}).")
    slots = {"case": case_np, "note": quote(note), "subject": quote(subject)}
    return Plan([*lookup, get_case(w, case), note_call, tell_call], [note_goal, tell_goal],
                Say("do", clauses, slots, party=ref, voices=BOTH), targets={("case", case["id"])})


def note_every_open_case(w: World, notes: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """The same note on each of a person's open cases (two to four of them)."""
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
    open_words = ", ".join(status_words(s) for s in w.fl.open[:-1]) + f" or {status_words(w.fl.open[-1])}"
    return Plan(calls, goals, Say("do", clauses, {"note": quote(note), "open": open_words}, party=ref, voices=BOTH),
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
    say = Say("do", clauses, {"item": f"1 x {quote(item['name'])}", "days": count(days, "day")}, party=ref,
              voices=BOTH)
    return Plan(calls, [goal], say, targets={("party", party["id"])}).derive(w.n.create("case"), tc)


def call_off_day(w: World, notes: tuple[str, ...], clauses: tuple[str, ...]) -> Plan | None:
    """Every booking at one site on one day that can still be cancelled, cancelled, each with a note."""
    tc = w.fl.time_column
    cancel = w.fl.cancel
    groups: dict[tuple[int, str], list[dict]] = {}
    for case in w.rows["case"]:
        groups.setdefault((case[w.fk("site")], case[tc][:10]), []).append(case)
    options = [(k, [c for c in v if c["status"] in cancel.sources]) for k, v in groups.items() if k[1] > TODAY]
    options = [(k, cases) for k, cases in options if 1 <= len(cases) <= 3]
    if not options:
        return None
    (site_id, day), cases = w.rng.choice(options)
    site = w.by_id("site", site_id)
    note = w.pick(notes)
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site_id, "limit": 100})]
    goals = []
    for case in cases:
        call, goal = add_note(w, case, note)
        calls += [act(w, case, cancel.verb), call]
        goals += [status_goal(w, case, cancel.target), goal]
    say = Say("do", clauses, {"site": site["name"], "date": day, "long": long_date(day), "note": quote(note)})
    return Plan(calls, goals, say, targets={("site_day", f"{site_id}:{day}")} | {("case", c["id"]) for c in cases})


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
    """A case moved to the other site with the fewest open cases, with a note."""
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
    open_words = ", ".join(status_words(s) for s in w.fl.open[:-1]) + f" or {status_words(w.fl.open[-1])}"
    site = w.by_id("site", case[w.fk("site")])
    say = Say("do", clauses, {"code": case["code"], "site": site["name"], "note": quote(note), "open": open_words})
    goal = Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={w.fk("site"): site_id})
    return Plan(calls, [goal, note_goal], say, targets={("case", case["id"])})


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
    channel = w.pick(["email", "sms"])
    subject = w.pick(subjects).format(item=item["name"])
    calls = [w.find_item(item), (w.n.list("line"), {w.fk("item"): item["id"], "limit": 100})]
    calls += [get_case(w, c) for c in cases]
    goals = []
    for party_id in parties:
        call, goal = notify(w, w.by_id("party", party_id), channel, subject, f"Please contact us about {item['name']}.")
        calls.append(call)
        goals.append(goal)
    open_words = ", ".join(status_words(s) for s in w.fl.open[:-1]) + f" or {status_words(w.fl.open[-1])}"
    say = Say("do", clauses, {"item": quote(item["name"]), "channel": "SMS" if channel == "sms" else "email",
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
    case_np, lookup = w.case_ref(case, ref)
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
    the new total answered."""
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable or w.party_of(case)["status"] != "active":
            continue
        lines = w.children("line", "case", case["id"])
        for line in lines:
            item = w.by_id("item", line[w.fk("item")])
            if item["active"] and sum(x[w.fk("item")] == item["id"] for x in lines) == 1:
                options.append((case, line, item))
    if not options:
        return None
    case, line, item = w.rng.choice(options)
    new_qty = line["quantity"] + w.pick([2, 5, 10, 15, 20])
    total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0) + new_qty * item["price"], 2)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
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


# --- the packs -------------------------------------------------------------------------------------------------

define("farm_rush_planting_order", "action", ("agriculture",), lambda w: rush(
    w, ("confirm", "ship"), ("Rush for planting season", "Needed before sowing starts", "Field crew waiting"), (
        "planting starts next week || confirm {case} and ship it today, with the note {note}",
        "push {case} through: confirm it, ship it, and note {note}",
        "the grower needs {case} before sowing || get it confirmed and shipped now and add the note {note}",
    )), flavours=("fulfillment",))
define("farm_frost_cancellations", "aggregate", ("agriculture",), lambda w: call_off_day(
    w, ("Cancelled: frost warning", "Cancelled due to frost"), (
        "a frost warning has been issued for {long} || cancel every {CASE} at {site} on {date} that can still "
        "be cancelled and add the note {note} to each",
        "call off all the {CASE/pl} at {site} on {date} that are not past the point of cancelling, noting "
        "{note} on each",
    )), flavours=("appointment", "reservation"))
define("farm_input_recall", "aggregate", ("agriculture",), lambda w: notify_item_holders(
    w, ("Product recall: {item}", "Recall notice for {item}"), (
        "{item} has been recalled by the manufacturer || send every {PARTY} with an open {CASE} ({open}) "
        "that includes it {a channel} {NOTIFICATION} with the subject {subject}",
        "warn each {PARTY} whose {open} {CASE/pl} contain {item}: one {channel} {NOTIFICATION} each, subject "
        "{subject}",
    )), needs=("notification",))

define("auto_warranty_claim", "action", ("automotive",), lambda w: note_and_tell(
    w, ("Warranty claim filed", "Parts under warranty, claim filed"),
    ("Your warranty claim for {code}", "Warranty update on {code}"), (
        "add the note {note} to {case} and send {them} an email {NOTIFICATION} with the subject {subject}",
        "the work on {case} should be covered by the warranty || note {note} on it and email {them} a "
        "{NOTIFICATION} titled {subject}",
    )), needs=("notification",))
define("auto_safety_recall", "aggregate", ("automotive",), lambda w: notify_item_holders(
    w, ("Safety recall: {item}", "Important safety notice about {item}"), (
        "the manufacturer issued a safety recall for {item} || notify every {PARTY} with {a CASE} that is "
        "{open} and includes it, by {channel}, subject {subject}",
        "send {a channel} {NOTIFICATION} with the subject {subject} to each {PARTY} whose {open} {CASE/pl} "
        "include {item}",
    )), needs=("notification",))
define("auto_seasonal_follow_up", "chained", ("automotive",), lambda w: follow_up_booking(
    w, 180, (
        "book {their} next seasonal service: a new {CASE} {days} after {their} next upcoming {CASE}, same time, "
        "same {SITE}, same {STAFF}, for {item}",
        "set up a follow-up {CASE} for {item} {days} after {their} upcoming one, at the same time and place and "
        "with the same {STAFF}",
    )), flavours=("appointment", "reservation"))
define("auto_rush_repair", "action", ("automotive",), lambda w: rush(
    w, ("start",), ("Customer waiting in the lounge", "Rush job approved", "Loan car not available"), (
        "the owner of {case} is waiting || start work on it now and note {note}",
        "get {case} going straight away (start it) and add the note {note}",
    )), flavours=("service",))

define("bank_dispute_card_charge", "action", ("banking", "fintech"), lambda w: dispute_charge(w), needs=(
    "account", "ticket"))
define("bank_sweep_to_savings", "chained", ("banking",), lambda w: sweep_to_savings(w), needs=("account",))
define("bank_overdraft_cover", "conditional", ("banking",), lambda w: top_up_checking(w), needs=("account",))

define("retail_exchange", "chained", ("commerce", "media"), lambda w: exchange(w, (
    "{they} would like to exchange {case} || record the return, refund its {PAYMENT} with the reason {reason}, "
    "and open a new {CASE} at the same {SITE} with the same quantity of {new} instead of {old}",
    "swap what {they} received in {case} for {new}: take the return, refund the {PAYMENT} (reason {reason}), "
    "then create a new {CASE} at that {SITE} with {new} in the quantity {they} had of {old}",
)), flavours=("fulfillment",))
define("retail_drop_out_of_stock", "conditional", ("commerce", "food_and_beverage"),
       lambda w: drop_if_out_of_stock(w), flavours=("fulfillment",), needs=("stock_level",))
define("retail_product_recall", "aggregate", ("commerce", "healthcare", "food_and_beverage"),
       lambda w: notify_item_holders(w, ("Recall notice: {item}", "Please do not use {item}"), (
           "{item} is being recalled || send {a channel} {NOTIFICATION} with the subject {subject} to every "
           "{PARTY} who has {a CASE} that is {open} and contains it",
           "notify all {PARTY/pl} with {open} {CASE/pl} that include {item}: {channel}, subject {subject}",
       )), needs=("notification",))
define("retail_quantity_change", "action", ("commerce", "hospitality", "manufacturing", "media"),
       lambda w: change_quantity(w, (
           "change the quantity of {item} on {case} from {old} to {new} and tell me the new total",
           "{they} need {new} of {item} on {case} rather than {old} || update it and give me the new total",
           "bump {item} on {case} up to {new} (it is {old} now), then tell me what the {CASE} comes to",
       )))

define("edu_sibling_enrolment", "chained", ("education",), lambda w: enrol_sibling(w))
define("edu_tuition_installments", "chained", ("education", "professional_services"), lambda w: split_invoice(w, (
    "split {inv} into two installments: void it and issue two {INVOICE/pl} to the same {PARTY} for the same "
    "{CASE}, half each (the second takes any odd cent), due on {d1} and {d2}",
    "the family asked to pay {inv} in two parts || void it and raise two new {INVOICE/pl} for half the amount "
    "each, due {d1} and {d2}, with any odd cent on the second",
    "[turn|convert] {inv} into two installments || [void|cancel] the original and bill the same {PARTY} for the "
    "same {CASE} twice: half due {d1}, the rest due {d2}",
    "[let|allow] {inv} to be paid in halves: [issue|create] one {INVOICE} for half due {d1} and one for the "
    "remainder due {d2}, both for the same {PARTY} and {CASE}, then void the original",
)), needs=("invoice",))
define("edu_learning_plan_note", "aggregate", ("education",), lambda w: note_every_open_case(
    w, ("Needs extra time in assessments", "Learning plan on file", "Requires accessible seating"), (
        "add the note {note} to every {CASE} of {theirs} that is {open}",
        "{they_have} a new learning plan || put the note {note} on each of {their} {open} {CASE/pl}",
    )))
define("edu_tutoring_follow_up", "chained", ("education",), lambda w: follow_up_booking(w, 7, (
    "book a follow-up {CASE} for {item} {days} after {their} next one, at the same time with the same {STAFF} "
    "and {SITE}",
    "{they} would like a weekly rhythm || set up another {CASE} for {item} exactly {days} after the next one "
    "{they_have} booked, same time, same {STAFF}, same {SITE}",
)), flavours=("appointment",))

define("energy_charger_outage", "aggregate", ("energy", "transportation"), lambda w: call_off_day(
    w, ("Cancelled: equipment out of service", "Cancelled: site outage"), (
        "{site} will be out of service on {long} || cancel every {CASE} there that day that can still be "
        "cancelled, adding the note {note} to each",
        "cancel all the {CASE/pl} at {site} on {date} that are not too far along to cancel, each with the "
        "note {note}",
    )), flavours=("reservation", "appointment"))
define("energy_permit_hold", "conditional", ("energy", "government"), lambda w: hold_until_permit(w),
       flavours=("service",), needs=("document",))

define("fin_chargeback", "action", ("fintech",), lambda w: credit_account(
    w, ("Chargeback", "Chargeback: disputed sale", "Card scheme chargeback"), (20.0, 45.0, 60.0, 85.0), (
        "a chargeback came through || debit {amount} from {acct} with the memo {memo}",
        "take {amount} out of {acct} for a chargeback, memo {memo}",
    ), debit=True), needs=("account",))
define("fin_kyc_clearance", "chained", ("fintech", "banking"), lambda w: kyc_clearance(w),
       needs=("account", "document"))
define("fin_cashback", "chained", ("fintech", "telecom"), lambda w: share_of_spend(w, 1, "Cashback reward", (
    "give {them} {pct}% cashback on everything {they_have} paid in captured {PAYMENT/pl}: credit it to "
    "{their} {ACCOUNT} with the memo {memo} and tell me the amount",
    "work out {pct}% of {their} captured {PAYMENT/pl} and pay it into {their} {ACCOUNT} as {memo}; tell me how "
    "much that was",
)), needs=("account",))

# an injury matters to sessions and visits, not to a pharmacy's orders (a healthcare domain with fulfillment cases)
define("fitness_injury_note", "aggregate", ("fitness", "healthcare"), lambda w: note_every_open_case(
    w, ("Knee injury: no high-impact exercise", "Recovering from back surgery", "Physio clearance required"), (
        "add the note {note} to each of {their} {CASE/pl} that are {open}",
        "{they_are} recovering from an injury || note {note} on every {open} {CASE} of {theirs}",
    )), flavours=("appointment", "reservation", "application"))
define("fitness_class_cancellation", "aggregate", ("fitness", "human_resources", "marketing"),
       lambda w: call_off_day(w, ("Cancelled: instructor ill", "Cancelled: room unavailable"), (
           "the session leader at {site} is ill on {long} || cancel each {CASE} there that day that can still "
           "be cancelled and note {note} on it",
           "call off every cancellable {CASE} at {site} on {date}, with the note {note}",
       )), flavours=("reservation", "appointment"))
define("fitness_training_follow_up", "chained", ("fitness",), lambda w: follow_up_booking(w, 7, (
    "book {their} next training {CASE} for {item} {days} after the upcoming one, same time, same {STAFF}, same "
    "{SITE}",
    "{they} would like to keep going || set up {a CASE} for {item} {days} after {their} next one with the same "
    "{STAFF} at the same time and {SITE}",
)), flavours=("appointment", "reservation"))

define("food_allergy_note", "aggregate", ("food_and_beverage", "hospitality"), lambda w: note_every_open_case(
    w, ("Severe nut allergy", "Gluten-free only", "Shellfish allergy: no exceptions"), (
        "{they_have} told us about an allergy || add the note {note} to every {CASE} of {theirs} that is "
        "{open}",
        "put the note {note} on each of {their} {open} {CASE/pl}",
    )))
define("food_ingredient_shortage", "chained", ("food_and_beverage", "manufacturing", "healthcare"),
       lambda w: cover_shortage(w, (
           "{site} is short of {item} || order enough from {vendor} to bring it to twice its reorder level: "
           "create the {PURCHASE_ORDER}, add the line and submit it",
           "place a submitted {PURCHASE_ORDER} with {vendor} for {site} covering {item}: the quantity should "
           "take the stock there to exactly twice its reorder level",
           "[top up|restock] {item} at {site} through {vendor} || [order|buy] exactly what takes the stock to "
           "double its reorder level, on a new {PURCHASE_ORDER} that you then submit",
           "[we have run low on|stocks are low for] {item} at {site} || [raise|create] {a PURCHASE_ORDER} with "
           "{vendor} for the amount that brings it up to twice the reorder level, and submit it",
       )), needs=("stock_level", "purchase_order"))

define("gov_reissue_corrected_fee", "chained", ("government",), lambda w: reissue_invoice(w), needs=("invoice",))
define("gov_reject_id_and_notify", "action", ("government", "travel"), lambda w: reject_and_notify(w),
       needs=("document", "notification"))
define("gov_office_closure", "aggregate", ("government", "healthcare"), lambda w: call_off_day(
    w, ("Cancelled: office closed", "Cancelled: unplanned closure"), (
        "{site} is closed on {long} || cancel every {CASE} booked there that day that can still be cancelled, "
        "and note {note} on each",
        "cancel the cancellable {CASE/pl} at {site} on {date}, each with the note {note}",
    )), flavours=("appointment", "reservation"))

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
       )))

define("hotel_room_upgrade", "chained", ("hospitality", "transportation", "travel"), lambda w: upgrade_to_priciest(
    w, (
        "upgrade {case} to the most expensive active option in the same {CATEGORY} as what is booked now, keeping "
        "the quantity, and tell me the new total",
        "{they} would like the best we have || swap the {ITEM} on {case} for the priciest active {ITEM} of the "
        "same {CATEGORY} (same quantity) and give me the new total",
    )), flavours=("reservation", "appointment"))
define("hotel_noise_complaint", "action", ("hospitality",), lambda w: ticket_for_case(
    w, ("Noise complaint: {code}", "Disturbance reported for {code}"), "high",
    ("Noise complaint logged", "Guest asked for a quieter room"), (
        "{they} complained about noise during {case} || open a high-priority {TICKET} with the subject {subject} "
        "assigned to {staff}, and note {note} on the {CASE}",
        "log {a TICKET} titled {subject} at high priority for {staff}, and add the note {note} to {case}",
    ), assign=True, open_only=True), needs=("ticket",))

define("insurance_approve_unless_overdue", "conditional", ("insurance",), lambda w: approve_unless_overdue(w),
       flavours=("application",), needs=("invoice",))
define("insurance_missing_documents", "action", ("insurance", "government", "human_resources"),
       lambda w: ticket_for_case(w, ("Missing documents for {code}", "Documents needed: {code}"), "normal",
                                 ("Waiting for documents", "Asked for the missing paperwork"), (
           "{case} can't move until we have the paperwork || open {a TICKET} for {them} with the subject {subject} "
           "at normal priority and note {note} on the {CASE}",
           "raise a normal-priority {TICKET} titled {subject} for {them} and add the note {note} to {case}",
       ), statuses=("draft", "submitted", "under_review")), flavours=("application",), needs=("ticket",))

define("logistics_lost_shipment", "action", ("logistics", "transportation"), lambda w: ticket_for_case(
    w, ("Lost shipment {code}", "Missing delivery: {code}"), "urgent",
    ("Trace requested with the carrier", "Claim opened for lost goods"), (
        "{case} never arrived || open an urgent {TICKET} for {them} with the subject {subject} and note {note} on "
        "the {CASE}",
        "file {a TICKET} titled {subject} at urgent priority and add the note {note} to {case}",
    ), statuses=("shipped", "delivered")), flavours=("fulfillment",), needs=("ticket",))
define("logistics_redirect_delivery", "action", ("logistics", "commerce"), lambda w: redirect_delivery(w),
       flavours=("fulfillment",), needs=("address",))

define("mfg_rush_order", "action", ("manufacturing", "marketing"), lambda w: rush(
    w, ("confirm", "ship"), ("Rush approved by the plant manager", "Expedited at the client's request"), (
        "expedite {case}: confirm it, ship it, and add the note {note}",
        "the client needs {case} this week || confirm and ship it now, noting {note}",
    )), flavours=("fulfillment",))
define("mfg_quality_hold", "aggregate", ("manufacturing", "logistics"), lambda w: note_every_open_case(
    w, ("Quality hold: inspect before dispatch", "Hold for batch inspection"), (
        "a batch problem was found || put the note {note} on every {open} {CASE} of {theirs}",
        "add {note} as a note to each of {their} {CASE/pl} that are {open}",
    )))

define("media_streaming_issue", "action", ("media", "technology", "telecom"), lambda w: ticket_for_case(
    w, ("Service issue with {code}", "Cannot access {code}", "Problem reported with {code}"), "normal",
    ("Customer reported a problem", "Troubleshooting started"), (
        "{they} can't use what {they} paid for in {case} || open {a TICKET} with the subject {subject} at normal "
        "priority and note {note} on the {CASE}",
        "log a normal-priority {TICKET} titled {subject} for {them} and add the note {note} to {case}",
    )), needs=("ticket",))

define("nonprofit_placement_preference", "aggregate", ("nonprofit", "human_resources"), lambda w:
       note_every_open_case(w, ("Prefers weekend placements", "Available evenings only", "Remote interviews only"), (
           "note {note} on each of {their} {CASE/pl} that are {open}",
           "{their} availability changed || add the note {note} to every {open} {CASE} of {theirs}",
       )), flavours=("application",))

define("prof_late_payment_fee", "action", ("professional_services", "real_estate", "utilities"),
       lambda w: fee_invoice(w, (25.0, 35.0, 50.0, 75.0), (
           "{inv} is overdue || issue a late fee {INVOICE} of {fee} to the same {PARTY} for the same {CASE}, due "
           "on {due}",
           "charge a {fee} late fee for the {CASE} behind {inv}: a new {INVOICE} to the same {PARTY}, due {due}",
       )), needs=("invoice",))
define("prof_rush_matter", "action", ("professional_services", "marketing", "technology"), lambda w: rush(
    w, ("start",), ("Client asked for this to be prioritised", "Deadline moved up"), (
        "start work on {case} today and note {note}",
        "the client moved the deadline for {case} || get it in progress now and add the note {note}",
    )), flavours=("service",))

define("realestate_maintenance_request", "action", ("real_estate", "hospitality"), lambda w: ticket_for_case(
    w, ("Leaking tap reported on {code}", "Heating fault on {code}", "Broken lock on {code}"), "high",
    ("Maintenance visit requested", "Resident reported a fault"), (
        "{they} reported a fault || open a high-priority {TICKET} with the subject {subject}, assigned to {staff}, "
        "and add the note {note} to {case}",
        "log {a TICKET} titled {subject} at high priority for {staff} to handle, and note {note} on {case}",
    ), assign=True, open_only=True), needs=("ticket",))
define("realestate_reinspection", "chained", ("real_estate",), lambda w: follow_up_booking(w, 30, (
    "book a re-inspection for {item} {days} after {their} next {CASE}, same time, same {STAFF}, same {SITE}",
    "{their} next visit will need a check-back a month later || create {a CASE} for {item} {days} after it, with "
    "the same {STAFF} at the same time and {SITE}",
)), flavours=("appointment", "reservation"))

define("tech_escalate_urgent", "aggregate", ("technology", "telecom", "utilities"), lambda w: escalate_urgent(w, (
    "we have a major incident || escalate every urgent {TICKET} that is still open or in progress",
    "escalate all the urgent {TICKET/pl} that are open or in progress right now",
)), needs=("ticket",))
define("tech_plan_upgrade", "chained", ("technology", "telecom", "media"), lambda w: upgrade_plan(w),
       needs=("subscription",))

define("utility_payment_plan", "chained", ("utilities", "insurance", "real_estate"), lambda w: split_invoice(w, (
    "put {inv} on a payment plan: void it and issue two {INVOICE/pl} for the same {PARTY} and {CASE}, each for "
    "half (any odd cent on the second), due {d1} and {d2}",
    "{inv} is too much to pay at once || replace it with two half-amount {INVOICE/pl}, due on {d1} and {d2}, with "
    "the odd cent on the second, and void the original",
    "[spread|split] {inv} over two payments || void it, then [issue|raise] two {INVOICE/pl} to the same {PARTY} "
    "for the same {CASE}: the first for half, due {d1}, the second for the rest, due {d2}",
    "[set up|arrange] a two-part payment plan in place of {inv}: [cancel it by voiding it|void it], and bill half "
    "on {d1} and the remainder on {d2}, same {PARTY}, same {CASE}",
)), needs=("invoice",))
define("utility_outage_report", "action", ("utilities", "telecom", "energy"), lambda w: ticket_for_case(
    w, ("Outage reported on {code}", "No service at the property on {code}", "Supply interruption on {code}"),
    "urgent", ("Crew informed of the outage", "Customer reported loss of service"), (
        "{they} have no service || open an urgent {TICKET} with the subject {subject} and add the note {note} to "
        "{case}",
        "log an outage: {a TICKET} titled {subject} at urgent priority, and the note {note} on {case}",
    ), open_only=True), needs=("ticket",))

define("travel_rebook_next_day", "action", ("travel", "transportation"), lambda w: rebook_next_day(w),
       flavours=("reservation", "appointment"))


# --- requests only one or two categories have -------------------------------------------------------------------


def dispute_charge(w: World) -> Plan | None:
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


def sweep_to_savings(w: World) -> Plan | None:
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


def top_up_checking(w: World) -> Plan | None:
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


def drop_if_out_of_stock(w: World) -> Plan | None:
    """If the order's site holds none of one of its items, that line removed and the new total answered; otherwise
    the stock there answered."""
    options = []
    for case in w.rows["case"]:
        if case["status"] not in w.fl.editable:
            continue
        lines = w.children("line", "case", case["id"])
        if len(lines) < 2:
            continue
        for line in lines:
            level = next((s for s in w.rows["stock_level"] if s[w.fk("item")] == line[w.fk("item")]
                          and s[w.fk("site")] == case[w.fk("site")]), None)
            if level is not None and sum(x[w.fk("item")] == line[w.fk("item")] for x in lines) == 1:
                options.append((case, line, level))
    empty = [o for o in options if o[2]["quantity"] == 0]
    stocked = [o for o in options if o[2]["quantity"] > 0]
    if not empty and not stocked:
        return None
    case, line, level = w.rng.choice(empty if empty and (w.chance(0.6) or not stocked) else stocked)
    item = w.by_id("item", line[w.fk("item")])
    calls = [(w.n.list("case"), {"code": case["code"]}), get_case(w, case),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): case[w.fk("site")]})]
    if level["quantity"] == 0:
        total = round(max(case["total_amount"] - line["quantity"] * line["unit_price"], 0), 2)
        calls += [(w.n.delete("line"), {w.pk("line"): line["id"]}), get_case(w, case)]
        goals = [Goal(kind="row_deleted", table=w.table("line"), pk=line["id"]), w.money_answer(total)]
        answer = money(total)
    else:
        goals, answer = [w.number_answer(level["quantity"])], str(level["quantity"])
    say = Say("do", (
        "if the {SITE} handling {CASE} {code} has no {item} in stock at all, remove it from the {CASE} and tell me "
        "the new total; if it has some, tell me how many units it holds",
        "check whether {item} is out of stock at the {SITE} of {CASE} {code} || if it is, take it off the {CASE} "
        "and give me the new total, and if not, tell me the number of units there",
        "[we can't ship|we may not be able to ship] {item} on {CASE} {code} || [if|when] its {SITE} holds none, "
        "[drop|remove] it from the {CASE} and [tell me|report] the new total; otherwise [tell me|report] how many "
        "units the {SITE} has",
        "[look up|check] the stock of {item} where {CASE} {code} is [handled|fulfilled] || if it is zero, remove "
        "that item from the {CASE} and give me the new total, and if not, give me the stock count",
    ), {"code": case["code"], "item": quote(item["name"])})
    return Plan(calls, goals, say, answer=answer, targets={("case", case["id"])})


def enrol_sibling(w: World) -> Plan | None:
    """A new person registered with the phone and city of an existing one (learnt from their record), and a case
    opened for them at the site of the existing person's latest case."""
    items = [i for i in w.rows["item"] if i["active"]]
    options = [p for p in w.active_parties("case")
               if sum(c["created_at"] == max(x["created_at"] for x in w.party_cases(p)) for c in w.party_cases(p)) == 1]
    if not options or not items:
        return None
    sibling = w.pick(options)
    latest = max(w.party_cases(sibling), key=lambda c: c["created_at"])
    item = w.pick(items)
    first = w.pick(["Lily", "Noah", "Ava", "Ethan", "Mia", "Leo", "Zoe", "Max", "Isla", "Sam"])
    email = f"{first}.{sibling['last_name']}@{sibling['email'].split('@')[1]}".lower().replace("'", "").replace(" ", "")
    if email in {p["email"] for p in w.rows["party"]}:
        return None
    ref = w.party_ref(sibling)
    party_id, case_id = len(w.rows["party"]) + 1, len(w.rows["case"]) + 1
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): sibling["id"]}),
             (w.n.create("party"), {"first_name": first, "last_name": sibling["last_name"], "email": email,
                                    "phone": sibling["phone"], "city": sibling["city"]}),
             w.find_item(item),
             (w.n.create("case"), {w.fk("party"): party_id, w.fk("site"): latest[w.fk("site")]}),
             (w.n.create("line"), {w.fk("case"): case_id, w.fk("item"): item["id"], "quantity": 1})]
    goals = [Goal(kind="rows_created", table=w.table("party"), count=1,
                  expect={"first_name": first, "last_name": sibling["last_name"], "email": email,
                          "phone": sibling["phone"], "city": sibling["city"]}),
             Goal(kind="rows_created", table=w.table("case"), count=1,
                  expect={w.fk("party"): party_id, w.fk("site"): latest[w.fk("site")]},
                  child_table=w.table("line"), child_fk=w.fk("case"), children=[{w.fk("item"): item["id"],
                                                                                  "quantity": 1}])]
    say = Say("do", (
        "register {first} {last}, a sibling of {party}, with the email {email} and the same phone and city as "
        "{them}, then open {a CASE} for {first} with 1 x {item} at the {SITE} of {their} latest {CASE}",
        "{party} would like to enrol a sibling too || create a record for {first} {last} ({email}) using "
        "{their} phone and city, and start {a CASE} for 1 x {item} at the same {SITE} as {their} most recent one",
        "[add|register] {first} {last} ({email}) [as a brother or sister of|as a sibling of] {party} || copy the "
        "phone and city from {their} record, then [open|start] {a CASE} for 1 x {item} at the {SITE} where {their} "
        "newest {CASE} is",
        "[the family of|the household of] {party} has a second [child|member] to sign up, {first} {last} || "
        "create that record with {email} and the same phone and city, and open {a CASE} for {first} (1 x {item}) "
        "at the {SITE} of {their} latest {CASE}",
    ), {"first": first, "last": sibling["last_name"], "email": email, "item": quote(item["name"])}, party=ref)
    plan = Plan(calls, goals, say, targets={("party", sibling["id"])})
    return plan.derive(w.n.create("party"), "phone").derive(w.n.create("party"), "city")


def hold_until_permit(w: World) -> Plan | None:
    """If a project still has a permit document that is not verified, a hold note; otherwise work started."""
    action = w.fl.action("start")
    options = []
    for case in w.rows["case"]:
        docs = w.children("document", "case", case["id"])
        if case["status"] in action.sources and docs and w.party_of(case)["status"] == "active":
            options.append((case, any(d["status"] != "verified" for d in docs)))
    if not options:
        return None
    case, pending = w.rng.choice(options)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    note = "On hold: paperwork not verified"
    if pending:
        call, goal = add_note(w, case, note)
        calls.append(call)
        goals = [goal]
    else:
        calls.append(act(w, case, "start"))
        goals = [status_goal(w, case, action.target)]
    say = Say("do", (
        "if any {DOCUMENT} on {CASE} {code} is not verified yet, add the note {note} to it; if they are all "
        "verified, start work on it",
        "check the {DOCUMENT/pl} of {CASE} {code} || start the work if every one is verified, and otherwise leave "
        "the note {note}",
    ), {"code": case["code"], "note": quote(note)})
    return Plan(calls, goals, say, targets={("case", case["id"])})


def kyc_clearance(w: World) -> Plan | None:
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


def reissue_invoice(w: World) -> Plan | None:
    """An unpaid invoice with a wrong amount voided and issued again for a stated amount, same person, case and due
    date."""
    inv = w.pick([i for i in w.rows["invoice"] if i["status"] == "open" and w.party_of(i)["status"] == "active"
                  and i["due_on"] > TODAY])
    if inv is None:
        return None
    amount = round(inv["amount"] * w.pick([0.5, 0.8, 0.9]), 2)
    if amount <= 0:
        return None
    args = {w.fk("party"): inv[w.fk("party")], w.fk("case"): inv[w.fk("case")], "due_on": inv["due_on"]}
    calls = [(w.n.list("invoice"), {"number": inv["number"]}),
             (w.n.action("invoice", "void"), {w.pk("invoice"): inv["id"]}),
             (w.n.create("invoice"), {**args, "amount": amount})]
    goals = [Goal(kind="row_equals", table=w.table("invoice"), pk=inv["id"], expect={"status": "void"}),
             Goal(kind="rows_created", table=w.table("invoice"), count=1,
                  expect={**args, "amount": {"approx": amount}, "status": "open"})]
    say = Say("do", (
        "{inv} was issued for the wrong amount || void it and issue a replacement for {amount} to the same "
        "{PARTY}, for the same {CASE}, with the same due date",
        "correct {inv}: void it, then raise a new {INVOICE} for {amount} with everything else (who, which {CASE}, "
        "due date) as before",
        "the fee on {inv} [is wrong|was miscalculated]; it should be {amount} || [void|cancel] it and [issue|raise] a "
        "corrected {INVOICE} for {amount}, keeping the same {PARTY}, {CASE} and due date",
    ), {"inv": T(f"{{INVOICE}} {inv['number']}"), "amount": money(amount)})
    return Plan(calls, goals, say, targets={("invoice", inv["id"])}).derive(w.n.create("invoice"), "due_on")


def reject_and_notify(w: World) -> Plan | None:
    """A submitted document rejected with a stated comment, and its person told by email with a stated subject."""
    options = []
    for case in w.rows["case"]:
        docs = [d for d in w.children("document", "case", case["id"]) if d["status"] == "submitted"]
        for d in docs:
            if sum(x["doc_type"] == d["doc_type"] for x in docs) == 1 and w.party_of(case)["status"] == "active":
                options.append((case, d))
    if not options:
        return None
    case, doc = w.rng.choice(options)
    party = w.party_of(case)
    comment = w.pick(("Photo does not match the applicant", "Document has expired", "Scan is unreadable"))
    subject = w.pick(("Please resubmit your document", "Action needed on your file"))
    call, goal = notify(w, party, "email", subject, f"We could not accept your {doc['doc_type']}: {comment}.")
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]}),
             (w.n.action("document", "reject"), {w.pk("document"): doc["id"], "comment": comment}), call]
    goals = [Goal(kind="row_equals", table=w.table("document"), pk=doc["id"],
                  expect={"status": "rejected", "review_comment": {"text": comment}}), goal]
    say = Say("do", (
        "reject the {doctype} on {CASE} {code} with the comment {comment}, then email its {PARTY} with the subject "
        "{subject}",
        "the {doctype} for {CASE} {code} can't be accepted || reject it ({comment}) and send the {PARTY} an email "
        "{NOTIFICATION} titled {subject}",
    ), {"doctype": doc["doc_type"], "code": case["code"], "comment": quote(comment), "subject": quote(subject)})
    return Plan(calls, goals, say, targets={("case", case["id"])})


def approve_unless_overdue(w: World) -> Plan | None:
    """A claim under review approved, unless its person has an overdue invoice: then rejected with a note."""
    options = []
    for case in w.rows["case"]:
        if case["status"] != "under_review" or w.party_of(case)["status"] != "active":
            continue
        if w.has("document") and any(d["status"] != "verified" for d in w.children("document", "case", case["id"])):
            continue
        overdue = any(i["status"] == "overdue" for i in w.children("invoice", "party", case[w.fk("party")]))
        options.append((case, overdue))
    if not options:
        return None
    case, overdue = w.rng.choice(options)
    note = "Rejected: premium overdue"
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("invoice"), {w.fk("party"): case[w.fk("party")], "status": "overdue"})]
    if overdue:
        call, goal = add_note(w, case, note)
        calls += [act(w, case, "reject"), call]
        goals = [status_goal(w, case, "rejected"), goal]
    else:
        calls.append(act(w, case, "approve"))
        goals = [status_goal(w, case, "approved")]
    say = Say("do", (
        "approve {CASE} {code}, unless its {PARTY} has an overdue {INVOICE}; in that case reject it and add the "
        "note {note}",
        "check whether the {PARTY} behind {CASE} {code} is behind on any {INVOICE} || if so, reject it with the "
        "note {note}, and if not, approve it",
        "[decide|settle] {CASE} {code} || reject it with the note {note} if its {PARTY} has any overdue {INVOICE}, "
        "and approve it if nothing is overdue",
    ), {"code": case["code"], "note": quote(note)})
    return Plan(calls, goals, say, targets={("case", case["id"])})


def redirect_delivery(w: World) -> Plan | None:
    """A new primary delivery address for a person, and a note on their order in transit."""
    cases = [c for c in w.rows["case"] if c["status"] in ("confirmed", "shipped") and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    party = w.party_of(case)
    street = f"{w.rng.randint(10, 999)} {w.pick(['Harbor', 'Mill', 'Station', 'Bridge'])} Road"
    city = w.pick(["Portland", "Madison", "Raleigh", "Boise"])
    postal = f"{w.rng.randint(10000, 99999)}"
    note = f"Redirect to {street}, {city}"
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case),
             (w.n.create("address"), {w.fk("party"): party["id"], "kind": "home", "street": street, "city": city,
                                      "postal_code": postal, "is_primary": True}), note_call]
    goals = [Goal(kind="rows_created", table=w.table("address"), count=1,
                  expect={w.fk("party"): party["id"], "kind": "home", "street": street, "city": city,
                          "postal_code": postal, "is_primary": 1}), note_goal]
    say = Say("do", (
        "{they} won't be home for {case} || make {street}, {city} {postal} {their} primary home {ADDRESS} and add "
        "the note {note} to the {CASE}",
        "redirect {case}: add a primary home {ADDRESS} at {street}, {city} {postal} and note {note} on it",
    ), {"case": case_np, "street": street, "city": city, "postal": postal, "note": quote(note)}, party=ref,
        voices=BOTH)
    return Plan(calls, goals, say, targets={("case", case["id"])})


def upgrade_plan(w: World) -> Plan | None:
    """A subscription switched to the most expensive active item that costs more than its current one; the new
    monthly price answered."""
    items = sorted((i for i in w.rows["item"] if i["active"]), key=lambda i: -i["price"])
    if len(items) < 2 or items[0]["price"] == items[1]["price"]:
        return None
    top = items[0]
    options = []
    for sub in w.rows["subscription"]:
        party = w.party_of(sub)
        same = [s for s in w.children("subscription", "party", party["id"]) if s[w.fk("item")] == sub[w.fk("item")]]
        if sub["status"] in ("active", "paused") and party["status"] == "active" and len(same) == 1 \
                and sub[w.fk("item")] != top["id"]:
            options.append((sub, party))
    if not options:
        return None
    sub, party = w.rng.choice(options)
    old = w.by_id("item", sub[w.fk("item")])
    price = round(top["price"] / 10, 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"]}),
             (w.n.list("item"), {"limit": 100}),
             (w.n.change("subscription", "change", "plan"), {w.pk("subscription"): sub["id"], w.fk("item"): top["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("subscription"), pk=sub["id"],
                  expect={w.fk("item"): top["id"], "monthly_price": {"approx": price}}), w.money_answer(price)]
    say = Say("do", (
        "move {their} {old} {SUBSCRIPTION} to our most expensive active {ITEM} and tell me the new monthly price",
        "{they} want the top tier || switch {their} {old} {SUBSCRIPTION} to whichever active {ITEM} costs the most, "
        "then give me the monthly price",
    ), {"old": quote(old["name"])}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=money(price), targets={("subscription", sub["id"])})


def rebook_next_day(w: World) -> Plan | None:
    """A booking moved to the same time on the next day, with a note saying why."""
    action = w.fl.action("reschedule")
    tc = w.fl.time_column
    case = w.pick([c for c in w.rows["case"] if c["status"] in action.sources and c[tc] > TODAY
                   and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    when = (datetime.fromisoformat(case[tc]) + timedelta(days=1)).isoformat()
    note = w.pick(("Rebooked: original departure cancelled", "Moved one day at the traveller's request",
                   "Rebooked after a weather delay"))
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case), (w.n.action("case", "reschedule"), {w.fk("case"): case["id"], tc: when}),
             note_call]
    say = Say("do", (
        "move {case} to the same time on the following day and add the note {note}",
        "{their} original slot fell through || push {case} back by exactly one day, same time, and note {note}",
    ), {"case": case_np, "note": quote(note)}, party=ref, voices=BOTH)
    goals = [status_goal(w, case, action.target, **{tc: {"prefix": when[:16]}}), note_goal]
    return Plan(calls, goals, say, targets={("case", case["id"])}).derive(w.n.action("case", "reschedule"), tc)
