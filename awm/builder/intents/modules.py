"""Intents of the optional modules a business may run: invoices, accounts, documents, reviews, promotions,
procurement, stock, support tickets, notifications, subscriptions, shifts, loyalty points and departments."""

from __future__ import annotations

from collections.abc import Callable

from awm.builder.clock import TODAY
from awm.builder.intents.base import BOTH, Plan, World, intent, long_date
from awm.builder.intents.steps import add_note, message_channel, notify
from awm.builder.modules.subscriptions import subscribable_items
from awm.builder.phrasing import PartyRef, Say, T, count, money, quote
from awm.contracts import Goal

# --- invoices ------------------------------------------------------------------------------------------------


def _invoice(w: World, row: dict) -> T:
    return T(f"{{INVOICE}} {row['number']}")


@intent("aggregate", needs=("invoice",))
def settle_invoices(w: World) -> Plan | None:
    options = []
    for party in w.rows["party"]:
        unpaid = [i for i in w.children("invoice", "party", party["id"]) if i["status"] in ("open", "overdue")]
        if 1 <= len(unpaid) <= 4:
            options.append((party, unpaid))
    if not options:
        return None
    party, unpaid = w.rng.choice(options)
    total = round(sum(i["amount"] for i in unpaid), 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("invoice"), {w.fk("party"): party["id"], "status": "open"}),
             (w.n.list("invoice"), {w.fk("party"): party["id"], "status": "overdue"})]
    calls += [(w.n.action("invoice", "pay"), {w.pk("invoice"): i["id"]}) for i in unpaid]
    say = Say("do", (
        "mark every unpaid (open or overdue) {INVOICE} of {theirs} as paid, and tell me the total amount settled",
        "{they_have} paid everything {they} owed || set all of {their} open and overdue {INVOICE/pl} to paid and "
        "tell me how much that came to",
        "clear {their} outstanding {INVOICE/pl}, open and overdue alike, and give me the sum",
    ), {}, party=ref, voices=BOTH)
    goals = [Goal(kind="row_equals", table=w.table("invoice"), pk=i["id"], expect={"status": "paid"}) for i in unpaid]
    return Plan(calls, goals + [w.money_answer(total)], say, answer=money(total),
                targets={("party_invoices", party["id"])})


@intent("action", needs=("invoice",))
def void_invoice(w: World) -> Plan | None:
    inv = w.pick([i for i in w.rows["invoice"] if i["status"] in ("open", "overdue") and i[w.fk("case")]])
    if inv is None:
        return None
    case = w.by_id("case", inv[w.fk("case")])
    note = w.pick(("Invoice issued in error", "Invoice voided at the customer's request", "Billed twice by mistake"))
    note_call, note_goal = add_note(w, case, note)
    calls = [(w.n.list("invoice"), {"number": inv["number"]}), (w.n.action("invoice", "void"),
                                                               {w.pk("invoice"): inv["id"]}), note_call]
    say = Say("do", (
        "void {inv} and add the note {note} to the {CASE} it was for",
        "{inv} should never have gone out || void it, then note {note} on its {CASE}",
        "cancel {inv} by voiding it, and record {note} as a note on the related {CASE}",
    ), {"inv": _invoice(w, inv), "note": quote(note)})
    goal = Goal(kind="row_equals", table=w.table("invoice"), pk=inv["id"], expect={"status": "void"})
    return Plan(calls, [goal, note_goal], say, targets={("invoice", inv["id"])})


def _named_by_its_case(w: World, inv: dict) -> dict | None:
    """The case `inv` was issued for, where a person may name the invoice by it ("the invoice for their order
    ORD-1013"): the case's only invoice, of a person who is active."""
    case = w.by_id("case", inv[w.fk("case")]) if inv[w.fk("case")] is not None else None
    if case is None or w.party_of(case)["status"] != "active" or len(w.children("invoice", "case", case["id"])) != 1:
        return None
    return case


def _invoice_through_its_case(w: World, case: dict) -> tuple[T, PartyRef, list[tuple[str, dict]]]:
    """How a request names the invoice of `case` by the case, the person it is about, and the calls that find it:
    the person, their case and their invoices."""
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    return case_np, ref, [*lookup, (w.n.list("invoice"), {w.fk("party"): case[w.fk("party")]})]


@intent("conditional", needs=("invoice",))
def pay_if_overdue(w: World) -> Plan | None:
    """The one invoice of a person's case paid if it has gone overdue, else its due date reported: the agent finds
    the person, their case and the case's invoice (the person names the case, never the invoice's number)."""
    options: dict[str, list[tuple[dict, dict]]] = {"overdue": [], "open": []}
    for inv in w.rows["invoice"]:
        case = _named_by_its_case(w, inv)
        if inv["status"] in options and case is not None:
            options[inv["status"]].append((case, inv))
    if not options["overdue"] or not options["open"]:
        return None
    case, inv = w.pick(options["overdue"] if w.chance(0.5) else options["open"])
    case_np, ref, calls = _invoice_through_its_case(w, case)
    if inv["status"] == "overdue":
        calls.append((w.n.action("invoice", "pay"), {w.pk("invoice"): inv["id"]}))
        goals, answer = [Goal(kind="row_equals", table=w.table("invoice"), pk=inv["id"],
                              expect={"status": "paid"})], None
    else:
        goals = [w.text_answer(inv["due_on"], [i["due_on"] for i in w.rows["invoice"]])]
        answer = f"It is not overdue; it is due on {inv['due_on']}."
    say = Say("do", (
        "{they} [want|would like] to settle anything overdue today || if the {INVOICE} for {case} is overdue, mark "
        "it as paid; otherwise tell me its due date",
        "check the {INVOICE} for {case} || pay it off if it is overdue, and if it isn't, just tell me when it is due",
        "settle the {INVOICE} for {case} only if it has gone overdue, and if not, [let me know|tell me] its due "
        "date instead",
        "{they} [asked about|queried] the {INVOICE} for {case} and [want|would like] to pay it today if it is late "
        "|| if it is overdue, mark it paid; if it [isn't overdue yet|is still current], [tell me|give me] the date "
        "it falls due",
        "{they} [want|would like] to pay whatever is past due today || [record|mark] the {INVOICE} for {case} as "
        "paid [if|provided] it is past due; [when|if] it isn't, [report|tell me] its due date and change nothing",
    ), {"case": case_np}, party=ref)
    return Plan(calls, goals, say, answer=answer, targets={("invoice", inv["id"])})


@intent("aggregate", needs=("invoice",))
def overdue_total_question(w: World) -> Plan | None:
    overdue = [i for i in w.rows["invoice"] if i["status"] == "overdue"]
    if not 1 <= len(overdue) <= 100:
        return None
    total = round(sum(i["amount"] for i in overdue), 2)
    say = Say("ask", (
        "how many {INVOICE/pl} are overdue right now, and what do they add up to",
        "what is the count and the total amount of our overdue {INVOICE/pl}",
        "across all {PARTY/pl}, how many {INVOICE/pl} are overdue and how much money is that",
    ), {})
    calls = [(w.n.list("invoice"), {"status": "overdue", "limit": 100})]
    return Plan(calls, [w.number_answer(len(overdue)), w.money_answer(total)], say,
                answer=f"{len(overdue)} overdue, {money(total)} in total")


@intent("chained", needs=("invoice",))
def pay_invoice_of_case(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        unpaid = [i for i in w.rows["invoice"] if i[w.fk("case")] == case["id"] and i["status"] in ("open", "overdue")]
        if len(unpaid) == 1 and w.party_of(case)["status"] == "active":
            options.append((case, unpaid[0]))
    if not options:
        return None
    case, inv = w.rng.choice(options)
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.list("invoice"), {w.fk("party"): case[w.fk("party")]}),
             (w.n.action("invoice", "pay"), {w.pk("invoice"): inv["id"]})]
    say = Say("do", (
        "find the unpaid {INVOICE} for {case}, mark it as paid and tell me its amount",
        "{they} paid the bill for {case} || look up that {INVOICE}, set it to paid, and tell me how much it was",
        "settle whatever {INVOICE} is still open for {case} and give me the amount",
    ), {"case": case_np}, party=ref, voices=BOTH)
    goals = [Goal(kind="row_equals", table=w.table("invoice"), pk=inv["id"], expect={"status": "paid"}),
             w.money_answer(inv["amount"])]
    return Plan(calls, goals, say, answer=money(inv["amount"]), targets={("case", case["id"])})


@intent("chained", needs=("invoice",))
def bill_case(w: World) -> Plan | None:
    billed = {i[w.fk("case")] for i in w.rows["invoice"]}
    cases = [c for c in w.rows["case"] if c["id"] not in billed and c["total_amount"] > 0
             and c["status"] != w.fl.cancel.target and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    due = w.pick(["2025-06-15", "2025-06-30", "2025-07-01", "2025-07-15", "2025-07-31"])
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.get("case"), {w.pk("case"): case["id"]}),
             (w.n.create("invoice"), {w.fk("party"): case[w.fk("party")], w.fk("case"): case["id"],
                                      "amount": case["total_amount"], "due_on": due})]
    say = Say("do", (
        "issue {a INVOICE} for the full total of {case}, due on {due}",
        "bill {them} for {case}: one {INVOICE} for its total amount, due {due}",
        "{case} has not been invoiced yet || raise {a INVOICE} for its total with a due date of {due}",
    ), {"case": case_np, "due": due}, party=ref)
    goal = Goal(kind="rows_created", table=w.table("invoice"), count=1,
                expect={w.fk("party"): case[w.fk("party")], w.fk("case"): case["id"],
                        "amount": {"approx": case["total_amount"]}, "due_on": due, "status": "open"})
    plan = Plan(calls, [goal], say, targets={("case", case["id"])})
    return plan.derive(w.n.create("invoice"), "amount")


@intent("infeasible", needs=("invoice",))
def pay_void_invoice(w: World) -> Plan | None:
    """An invoice that is void or paid already, asked to be paid: named by its number, or (where it was issued for
    a person's case) as the invoice for that case, which the agent finds through the person and their invoices."""
    inv = w.pick([i for i in w.rows["invoice"] if i["status"] in ("void", "paid")])
    if inv is None:
        return None
    case = _named_by_its_case(w, inv)
    if case is not None and w.chance(0.5):
        case_np, ref, calls = _invoice_through_its_case(w, case)
        say = Say("do", (
            "mark the {INVOICE} for {case} as paid",
            "{they} say {they_have} paid the {INVOICE} for {case} || record it as paid",
            "settle the {INVOICE} for {case}",
        ), {"case": case_np}, party=ref)
    else:
        calls = [(w.n.list("invoice"), {"number": inv["number"]})]
        say = Say("do", (
            "mark {inv} as paid",
            "the money for {inv} came in || record it as paid",
            "settle {inv}",
        ), {"inv": _invoice(w, inv)})
    return Plan(calls, [w.text_answer(inv["status"], ["open", "paid", "void", "overdue"])], say,
                answer=f"That is not possible: the {w.L['invoice']} is {inv['status']} already.",
                targets={("invoice", inv["id"])},
                refused=((w.n.action("invoice", "pay"), {w.pk("invoice"): inv["id"]}), "invalid_state"))


# --- accounts ------------------------------------------------------------------------------------------------


def _account(w: World, acct: dict, ref) -> T:
    if ref is not None and sum(a["kind"] == acct["kind"] for a in w.children("account", "party",
                                                                            acct[w.fk("party")])) == 1:
        return T(f"[{{their}} {acct['kind']} {{ACCOUNT}}|{{ACCOUNT}} {acct['number']}]")
    return T(f"{{ACCOUNT}} {acct['number']}")


@intent("action", needs=("account",))
def transfer_between_accounts(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        accounts = [a for a in w.children("account", "party", party["id"]) if a["status"] == "active"]
        rich = [a for a in accounts if a["balance"] >= 60]
        if len(accounts) >= 2 and rich:
            options.append((party, accounts, rich))
    if not options:
        return None
    party, accounts, rich = w.rng.choice(options)
    source = w.rng.choice(rich)
    target = w.rng.choice([a for a in accounts if a["id"] != source["id"]])
    amount = min(float(w.rng.randint(2, max(2, int(source["balance"] * 0.8) // 10)) * 5), float(int(source["balance"])))
    new_balance = round(target["balance"] + amount, 2)
    a = w.plan["account"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.transfer_funds(), {f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": amount}),
             (w.n.get("account"), {w.pk("account"): target["id"]})]
    say = Say("do", (
        "transfer {amount} from {source} to {target}, then tell me the new balance of the receiving {ACCOUNT}",
        "move {amount} out of {source} into {target} and let me know what {target} holds afterwards",
        "{they} would like {amount} shifted from {source} to {target} || do it and tell me the resulting "
        "balance of {target}",
    ), {"amount": money(amount), "source": _account(w, source, ref), "target": _account(w, target, ref)},
        party=ref, voices=BOTH)
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=source["id"], column="balance", delta=-amount),
             Goal(kind="row_delta", table=w.table("account"), pk=target["id"], column="balance", delta=amount),
             w.money_answer(new_balance)]
    return Plan(calls, goals, say, answer=money(new_balance),
                targets={("account", source["id"]), ("account", target["id"])})


@intent("action", needs=("account",))
def freeze_account(w: World) -> Plan | None:
    acct = w.pick([a for a in w.rows["account"] if a["status"] == "active"
                   and w.party_of(a)["status"] == "active"])
    if acct is None:
        return None
    party = w.party_of(acct)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]}),
             (w.n.action("account", "freeze"), {w.pk("account"): acct["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("account"), pk=acct["id"], expect={"status": "frozen"})]
    slots: dict = {"acct": _account(w, acct, ref)}
    tail = ""
    if w.has("notification"):
        subject = w.pick(("Your account is frozen", "Account frozen for your protection", "We froze your account"))
        channel, named = message_channel(w)
        call, goal = notify(w, party, channel, subject, "We froze your account at your request.")
        calls.append(call)
        goals.append(goal)
        slots.update(named, subject=quote(subject))
        tail = " and send {them} {a via} {NOTIFICATION} with the subject {subject}"
    say = Say("do", (
        "freeze {acct}" + tail,
        "{they} suspect fraud on {acct} || freeze it" + tail,
        "put a freeze on {acct} right away" + tail,
    ), slots, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("account", acct["id"])})


@intent("action", needs=("account",))
def unfreeze_account(w: World) -> Plan | None:
    acct = w.pick([a for a in w.rows["account"] if a["status"] == "frozen" and w.party_of(a)["status"] == "active"])
    if acct is None:
        return None
    ref = w.party_ref(w.party_of(acct))
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): acct[w.fk("party")]}),
             (w.n.action("account", "unfreeze"), {w.pk("account"): acct["id"]})]
    say = Say("do", (
        "unfreeze {acct}",
        "{their} identity has been confirmed || lift the freeze on {acct}",
        "make {acct} active again by removing the freeze",
    ), {"acct": _account(w, acct, ref)}, party=ref, voices=BOTH)
    goal = Goal(kind="row_equals", table=w.table("account"), pk=acct["id"], expect={"status": "active"})
    return Plan(calls, [goal], say, targets={("account", acct["id"])})


@intent("aggregate", needs=("account",))
def balance_total_question(w: World) -> Plan | None:
    return _party_total_question(w, "account", "balance", (
        "what do all of {their} {ACCOUNT/pl} hold together",
        "what is the combined balance of every {ACCOUNT} {they_have} with {us}",
        "adding up the balances of all {their} {ACCOUNT/pl}, frozen ones included, what is the total",
    ), at_least=2)


def _party_total_question(w: World, table: str, column: str, clauses: tuple[str, ...], at_least: int = 1,
                          keep: Callable[[dict], bool] = lambda row: True) -> Plan | None:
    """What one customer's rows of `table` (those `keep` keeps, at least `at_least` of them) add up to in
    `column`: found by the customer's identity, then their rows listed."""
    options = [(p, [r for r in w.children(table, "party", p["id"]) if keep(r)]) for p in w.rows["party"]]
    options = [(p, rows) for p, rows in options if len(rows) >= at_least]
    if not options:
        return None
    party, rows = w.rng.choice(options)
    total = round(sum(r[column] for r in rows), 2)
    ref = w.party_ref(party)
    say = Say("ask", clauses, {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list(table), {w.fk("party"): party["id"]})],
                [w.money_answer(total)], say, answer=money(total))


@intent("question", needs=("account",))
def last_entry_question(w: World) -> Plan | None:
    options = []
    for acct in w.rows["account"]:
        entries = sorted((e for e in w.children("account_entry", "account", acct["id"]) if e["amount"]),
                         key=lambda e: e["posted_at"])
        if len(entries) >= 2 and entries[-1]["posted_at"] != entries[-2]["posted_at"]:
            options.append((acct, entries[-1]))
    if not options:
        return None
    acct, entry = w.rng.choice(options)
    say = Say("ask", (
        "what was the most recent movement on {ACCOUNT} {number}: what type was it, and for how much (as a "
        "positive amount)",
        "looking at {ACCOUNT} {number}, what kind of {ACCOUNT_ENTRY} came last, and how much was it, without the "
        "sign",
    ), {"number": acct["number"]})
    calls = [(w.n.list("account"), {"number": acct["number"]}), (w.n.list("account_entry"), {w.fk("account"): acct["id"]})]
    goals = [w.text_answer(entry["entry_type"], ["deposit", "withdrawal", "transfer_in", "transfer_out", "fee"]),
             w.money_answer(abs(entry["amount"]))]
    return Plan(calls, goals, say, answer=f"{entry['entry_type'].replace('_', ' ')} of {money(abs(entry['amount']))}")


def _transfer(w: World, source: dict, target: dict, amount: float) -> tuple[str, dict]:
    a = w.plan["account"]
    return (w.n.transfer_funds(), {f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": amount})


@intent("infeasible", needs=("account",))
def overdraw_transfer(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        accounts = [a for a in w.children("account", "party", party["id"]) if a["status"] == "active"]
        if len(accounts) >= 2:
            options.append((party, accounts))
    if not options:
        return None
    party, accounts = w.rng.choice(options)
    source, target = w.rng.sample(accounts, 2)
    amount = float(round(source["balance"] + w.rng.randint(50, 900), -1))
    ref = w.party_ref(party)
    say = Say("do", (
        "transfer {amount} from {source} to {target}",
        "{they} need {amount} moved from {source} into {target} || do the transfer",
        "move {amount} across from {source} to {target} for {them}",
    ), {"amount": money(amount), "source": _account(w, source, ref), "target": _account(w, target, ref)},
        party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]})],
                [w.money_answer(source["balance"])], say,
                answer=f"The source {w.L['account']} holds only {money(source['balance'])}, which is not enough.",
                targets={("account", source["id"])}, refused=(_transfer(w, source, target, amount), "insufficient_funds"))


@intent("infeasible", needs=("account",))
def transfer_from_frozen(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        accounts = w.children("account", "party", party["id"])
        frozen = [a for a in accounts if a["status"] == "frozen"]
        others = [a for a in accounts if a["status"] == "active"]
        if frozen and others:
            options.append((party, frozen[0], others[0]))
    if not options:
        return None
    party, source, target = w.rng.choice(options)
    amount = float(w.pick([25, 50, 75, 100, 150]))
    ref = w.party_ref(party)
    say = Say("do", (
        "transfer {amount} from {source} to {target}",
        "move {amount} from {source} over to {target}",
        "{they} would like {amount} sent from {source} to {target} || make the transfer",
    ), {"amount": money(amount), "source": _account(w, source, ref), "target": _account(w, target, ref)},
        party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]})],
                [w.text_answer("frozen", ["active", "frozen", "closed"])], say,
                answer="The source account is frozen, so no money can leave it.", targets={("account", source["id"])},
                refused=(_transfer(w, source, target, amount), "invalid_state"))


@intent("action", needs=("account",))
def goodwill_credit(w: World) -> Plan | None:
    acct = w.pick([a for a in w.rows["account"] if a["status"] == "active" and w.party_of(a)["status"] == "active"])
    if acct is None:
        return None
    amount = float(w.pick([10, 15, 20, 25, 40, 50]))
    memo = w.pick(("Goodwill credit", "Apology for the delay", "Service recovery credit", "Loyalty bonus"))
    ref = w.party_ref(w.party_of(acct))
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): acct[w.fk("party")]}),
             (w.n.action("account", "credit"), {w.fk("account"): acct["id"], "amount": amount, "memo": memo})]
    say = Say("do", (
        "credit {amount} to {acct} with the memo {memo}",
        "we owe {them} an apology || add {amount} to {acct}, memo {memo}",
        "put {amount} into {acct} as a credit, memo {memo}",
    ), {"amount": money(amount), "acct": _account(w, acct, ref), "memo": quote(memo)}, party=ref)
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=acct["id"], column="balance", delta=amount),
             Goal(kind="rows_created", table=w.table("account_entry"), count=1,
                  expect={w.fk("account"): acct["id"], "amount": {"approx": amount}, "entry_type": "deposit",
                          "memo": {"text": memo}})]
    return Plan(calls, goals, say, targets={("account", acct["id"])})


@intent("chained", needs=("account",))
def reverse_last_fee(w: World) -> Plan | None:
    options = []
    for acct in w.rows["account"]:
        if acct["status"] != "active":
            continue
        fees = sorted((e for e in w.children("account_entry", "account", acct["id"]) if e["entry_type"] == "fee"
                       and e["amount"] < 0), key=lambda e: e["posted_at"])
        if fees and (len(fees) == 1 or fees[-1]["posted_at"] != fees[-2]["posted_at"]):
            options.append((acct, fees[-1]))
    if not options:
        return None
    acct, fee = w.rng.choice(options)
    memo = "Fee reversal"
    ref = w.party_ref(w.party_of(acct))
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): acct[w.fk("party")]}),
             (w.n.list("account_entry"), {w.fk("account"): acct["id"], "entry_type": "fee"}),
             (w.n.action("account", "credit"), {w.fk("account"): acct["id"], "amount": -fee["amount"],
                                                   "memo": memo})]
    say = Say("do", (
        "refund the most recent fee charged to {acct}: credit the same amount back with the memo {memo}",
        "{they} complained about the last fee on {acct} || reverse it by crediting exactly that amount, memo "
        "{memo}",
        "find the latest fee on {acct} and give it back as a credit with the memo {memo}",
    ), {"acct": _account(w, acct, ref), "memo": quote(memo)}, party=ref, voices=BOTH)
    goals = [Goal(kind="row_delta", table=w.table("account"), pk=acct["id"], column="balance", delta=-fee["amount"]),
             Goal(kind="rows_created", table=w.table("account_entry"), count=1,
                  expect={w.fk("account"): acct["id"], "amount": {"approx": -fee["amount"]}, "entry_type": "deposit",
                          "memo": {"text": memo}})]
    return Plan(calls, goals, say, targets={("account", acct["id"])}).derive(w.n.action("account", "credit"),
                                                                            "amount")


@intent("conditional", needs=("account",))
def transfer_if_covered(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        accounts = [a for a in w.children("account", "party", party["id"]) if a["status"] == "active"]
        if len(accounts) >= 2:
            options.append((party, accounts))
    if not options:
        return None
    party, accounts = w.rng.choice(options)
    source, target = w.rng.sample(accounts, 2)
    amount = float(w.pick([100, 200, 250, 500, 750, 1000]))
    a = w.plan["account"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("account"), {w.fk("party"): party["id"]})]
    if source["balance"] >= amount:
        calls.append((w.n.transfer_funds(), {f"from_{a.fk}": source["id"], f"to_{a.fk}": target["id"], "amount": amount}))
        goals = [Goal(kind="row_delta", table=w.table("account"), pk=source["id"], column="balance", delta=-amount),
                 Goal(kind="row_delta", table=w.table("account"), pk=target["id"], column="balance", delta=amount)]
        answer = None
    else:
        goals, answer = [w.money_answer(source["balance"])], money(source["balance"])
    say = Say("do", (
        "if {source} holds at least {amount}, transfer {amount} from it to {target}; if it doesn't, tell me its "
        "balance",
        "move {amount} from {source} to {target}, but only if the balance covers it; otherwise just tell me "
        "what it holds",
        "check {source} || if it can cover {amount}, send that to {target}, and if not, give me the balance",
    ), {"amount": money(amount), "source": _account(w, source, ref), "target": _account(w, target, ref)},
        party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=answer, targets={("account", source["id"]), ("account", target["id"])})


# --- documents -----------------------------------------------------------------------------------------


@intent("action", needs=("document",))
def verify_documents(w: World) -> Plan | None:
    approve = w.fl.name == "application"
    options = []
    for case in w.rows["case"]:
        docs = w.children("document", "case", case["id"])
        submitted = [d for d in docs if d["status"] == "submitted"]
        if not submitted or len(submitted) > 3 or any(d["status"] == "rejected" for d in docs):
            continue
        if approve and case["status"] != "under_review":
            continue
        options.append((case, submitted))
    if not options:
        return None
    case, submitted = w.rng.choice(options)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    calls += [(w.n.action("document", "verify"), {w.pk("document"): d["id"]}) for d in submitted]
    goals = [Goal(kind="row_equals", table=w.table("document"), pk=d["id"], expect={"status": "verified"})
             for d in submitted]
    if approve:
        calls.append((w.n.action("case", "approve"), {w.fk("case"): case["id"]}))
        goals.append(Goal(kind="row_equals", table=w.table("case"), pk=case["id"], expect={"status": "approved"}))
        clauses = ("verify every submitted {DOCUMENT} on {CASE} {code}, then approve the {CASE}",
                   "{CASE} {code} is ready for a decision || verify each submitted {DOCUMENT} on it, then approve it",
                   "check off each submitted {DOCUMENT} of {CASE} {code} as verified and then approve it")
        slots = {"code": case["code"]}
    else:
        note = w.pick(("All paperwork verified", "Documents checked", "Paperwork complete"))
        call, goal = add_note(w, case, note)
        calls.append(call)
        goals.append(goal)
        clauses = ("verify every submitted {DOCUMENT} on {CASE} {code}, then add a note saying {note} to it",
                   "go through the submitted {DOCUMENT/pl} of {CASE} {code}, verify each one, and note {note}",
                   "mark all submitted {DOCUMENT/pl} on {CASE} {code} as verified and leave the note {note}")
        slots = {"code": case["code"], "note": quote(note)}
    return Plan(calls, goals, Say("do", clauses, slots), targets={("case", case["id"])})


@intent("action", needs=("document",))
def reject_document(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        docs = [d for d in w.children("document", "case", case["id"]) if d["status"] == "submitted"]
        for d in docs:
            if sum(x["doc_type"] == d["doc_type"] for x in docs) == 1:
                options.append((case, d))
    if not options:
        return None
    case, doc = w.rng.choice(options)
    comment = w.pick(("Scan is blurry", "Document has expired", "Name does not match", "Page two is missing",
                      "Signature missing"))
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]}),
             (w.n.action("document", "reject"), {w.pk("document"): doc["id"], "comment": comment})]
    say = Say("do", (
        "reject the {doctype} {DOCUMENT} on {CASE} {code} with the comment {comment}",
        "the {doctype} uploaded for {CASE} {code} can't be accepted || reject it, comment {comment}",
        "turn down the {doctype} on {CASE} {code} and give {comment} as the reason",
    ), {"doctype": doc["doc_type"], "code": case["code"], "comment": quote(comment)})
    goal = Goal(kind="row_equals", table=w.table("document"), pk=doc["id"],
                expect={"status": "rejected", "review_comment": {"text": comment}})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("aggregate", needs=("document",))
def pending_documents_question(w: World) -> Plan | None:
    options = [(c, sum(d["status"] == "submitted" for d in w.children("document", "case", c["id"])))
               for c in w.rows["case"] if w.children("document", "case", c["id"])]
    if not options:
        return None
    case, waiting = w.rng.choice(options)
    say = Say("ask", (
        "how many {DOCUMENT/pl} on {CASE} {code} are still waiting to be verified",
        "for {CASE} {code}, how many submitted {DOCUMENT/pl} have not been checked yet",
    ), {"code": case["code"]})
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    return Plan(calls, [w.number_answer(waiting)], say, answer=str(waiting))


@intent("infeasible", flavours=("application",), needs=("document",))
def approve_with_open_documents(w: World) -> Plan | None:
    options = []
    for case in w.rows["case"]:
        if case["status"] != "under_review":
            continue
        pending = sum(d["status"] != "verified" for d in w.children("document", "case", case["id"]))
        if pending:
            options.append((case, pending))
    if not options:
        return None
    case, pending = w.rng.choice(options)
    say = Say("do", (
        "approve {CASE} {code}",
        "{CASE} {code} looks fine to me || approve it",
        "give {CASE} {code} the green light",
    ), {"code": case["code"]})
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("document"), {w.fk("case"): case["id"]})]
    return Plan(calls, [w.number_answer(pending)], say,
                answer=f"It cannot be approved yet: {pending} of its {w.L['document']} records are not verified.",
                targets={("case", case["id"])},
                refused=((w.n.action("case", "approve"), {w.fk("case"): case["id"]}), "documents_pending"))


# --- reviews -------------------------------------------------------------------------------------------------


@intent("action", needs=("review",))
def add_review(w: World) -> Plan | None:
    party, item = w.pick(w.active_parties()), w.pick(w.rows["item"])
    if party is None or item is None:
        return None
    rating = w.rng.randint(1, 5)
    value = ("Good value for money", "Not worth the price") if w.priced else ("Well worth it", "Not well organised")
    comment = w.pick({5: ("Absolutely excellent", "Would recommend to anyone"), 4: ("Very good overall", value[0]),
                      3: ("It was fine", "Average experience"), 2: ("Below expectations", value[1]),
                      1: ("Very disappointing", "Would not come back")}[rating])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), w.find_item(item),
             (w.n.create("review"), {w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                                     "comment": comment})]
    say = Say("do", (
        "record a {rating}-star {REVIEW} of {item} from {them} with the comment {comment}",
        "{they} would like to rate {item} {rating} out of 5 || add that {REVIEW} with the comment {comment}",
        "post {their} {REVIEW} of {item}: {stars}, comment {comment}",
    ), {"rating": rating, "stars": count(rating, "star"), "item": quote(item["name"]), "comment": quote(comment)},
        party=ref, voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("review"), count=1,
                expect={w.fk("party"): party["id"], w.fk("item"): item["id"], "rating": rating,
                        "comment": {"text": comment}})
    return Plan(calls, [goal], say, targets={("party", party["id"])})


@intent("action", needs=("review",))
def remove_review(w: World) -> Plan | None:
    options = []
    for review in w.rows["review"]:
        same = [r for r in w.rows["review"] if r[w.fk("party")] == review[w.fk("party")]
                and r[w.fk("item")] == review[w.fk("item")]]
        if len(same) == 1:
            options.append(review)
    review = w.pick(options)
    if review is None:
        return None
    party, item = w.party_of(review), w.by_id("item", review[w.fk("item")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("review"), {w.fk("party"): party["id"]}),
             (w.n.delete("review"), {w.pk("review"): review["id"]})]
    say = Say("do", (
        "delete {their} {REVIEW} of {item}",
        "{they} asked {us} to take down {their} {REVIEW} of {item} || remove it",
        "remove the {REVIEW} {they} left for {item}",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan(calls, [Goal(kind="row_deleted", table=w.table("review"), pk=review["id"])], say,
                targets={("party", party["id"])})


@intent("aggregate", needs=("review",))
def average_rating_question(w: World) -> Plan | None:
    options = []
    for item in w.rows["item"]:
        ratings = [r["rating"] for r in w.children("review", "item", item["id"])]
        if len(ratings) >= 3:
            options.append((item, round(sum(ratings) / len(ratings), 2)))
    if not options:
        return None
    item, avg = w.rng.choice(options)
    say = Say("ask", (
        "what is the average rating across the {REVIEW/pl} of {item}, rounded to two decimals",
        "how well is {item} rated on average (two decimals)",
        "averaging every {REVIEW} of {item}, what score do we get, to two decimal places",
    ), {"item": quote(item["name"])})
    calls = [w.find_item(item), (w.n.list("review"), {w.fk("item"): item["id"], "limit": 100})]
    return Plan(calls, [w.money_answer(avg)], say, answer=money(avg))


@intent("aggregate", needs=("review",))
def lowest_rated_question(w: World) -> Plan | None:
    averages = {}
    for item in w.rows["item"]:
        ratings = [r["rating"] for r in w.children("review", "item", item["id"])]
        if len(ratings) >= 2:
            averages[item["id"]] = sum(ratings) / len(ratings)
    ranked = sorted(averages.values())
    if len(ranked) < 2 or ranked[0] == ranked[1]:
        return None
    worst = w.by_id("item", min(averages, key=averages.get))
    average = round(averages[worst["id"]], 2)
    say = Say("ask", (
        "among the {ITEM/pl} with at least two {REVIEW/pl}, which has the lowest average rating, and what is that "
        "average (two decimals)",
        "which {ITEM} do {PARTY/pl} rate worst on average, counting only those reviewed at least twice, and how "
        "low is its average, to two decimals",
    ), {})
    calls = [(w.n.list("item"), {"limit": 100}), (w.n.list("review"), {"limit": 100})]
    return Plan(calls, [w.text_answer(worst["name"], [i["name"] for i in w.rows["item"]]), w.money_answer(average)],
                say, answer=f"{worst['name']}, averaging {money(average)}")


@intent("conditional", needs=("review",))
def withdraw_if_poorly_rated(w: World) -> Plan | None:
    options = []
    for item in w.rows["item"]:
        ratings = [r["rating"] for r in w.children("review", "item", item["id"])]
        if item["active"] and len(ratings) >= 2:
            options.append((item, round(sum(ratings) / len(ratings), 2)))
    low = [o for o in options if o[1] < 3]
    high = [o for o in options if o[1] >= 3]
    if not low or not high:
        return None
    item, avg = w.rng.choice(low if w.chance(0.5) else high)
    calls = [w.find_item(item), (w.n.list("review"), {w.fk("item"): item["id"], "limit": 100})]
    if avg < 3:
        calls.append((w.n.change("item", "set", "availability"), {w.pk("item"): item["id"], "active": False}))
        goals, answer = [Goal(kind="row_equals", table=w.table("item"), pk=item["id"], expect={"active": 0})], None
    else:
        goals, answer = [w.money_answer(avg)], money(avg)
    say = Say("do", (
        "if the average rating across the {REVIEW/pl} of {item} is below 3, stop offering it; otherwise tell me the average, "
        "rounded to two decimals",
        "look at the {REVIEW/pl} of {item} || withdraw it if they average under 3, and if they average 3 or "
        "more, just tell me the average (two decimals)",
    ), {"item": quote(item["name"])})
    return Plan(calls, goals, say, answer=answer, targets={("item", item["id"])})


# --- promotions ------------------------------------------------------------------------------------------


@intent("action", needs=("promotion",), item="priced")
def apply_promotion(w: World) -> Plan | None:
    promos = [p for p in w.rows["promotion"] if p["active"] and p["valid_from"] <= TODAY <= p["valid_to"]]
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.editable and c["total_amount"] > 0]
    promo, case = w.pick(promos), w.pick(cases)
    if promo is None or case is None:
        return None
    discount = round(case["total_amount"] * promo["percent_off"] / 100, 2)
    new_total = round(case["total_amount"] - discount, 2)
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("promotion"), {"query": promo["code"]}),
             (w.n.action("promotion", "apply"), {w.fk("case"): case["id"], "code": promo["code"]}),
             (w.n.get("case"), {w.pk("case"): case["id"]})]
    say = Say("do", (
        "apply the {PROMOTION} {promo} to {CASE} {code} and tell me its new total",
        "use code {promo} on {CASE} {code}, then let me know what the {CASE} costs after the discount",
        "the {PARTY} has {a PROMOTION} || put {promo} on {CASE} {code} and tell me the discounted total",
    ), {"promo": promo["code"], "code": case["code"]})
    goals = [Goal(kind="row_equals", table=w.table("case"), pk=case["id"],
                  expect={w.fk("promotion"): promo["id"], "total_amount": {"approx": new_total}}),
             w.money_answer(new_total)]
    return Plan(calls, goals, say, answer=money(new_total), targets={("case", case["id"])})


@intent("infeasible", needs=("promotion",))
def expired_promotion(w: World) -> Plan | None:
    promos = [p for p in w.rows["promotion"] if p["active"] and p["valid_to"] < TODAY]
    cases = [c for c in w.rows["case"] if c["status"] in w.fl.editable and c["total_amount"] > 0]
    promo, case = w.pick(promos), w.pick(cases)
    if promo is None or case is None:
        return None
    say = Say("do", (
        "apply {promo}, our {PROMOTION}, to {CASE} {code}",
        "the {PARTY} on {CASE} {code} wants to use code {promo} || put it on",
        "take {promo} off the price of {CASE} {code}" if w.priced else "take {promo} off {CASE} {code}",
    ), {"promo": promo["code"], "code": case["code"]})
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.list("promotion"), {"query": promo["code"]})]
    return Plan(calls, [w.text_answer(promo["valid_to"], [p["valid_to"] for p in w.rows["promotion"]])], say,
                answer=f"That code is no longer valid: it expired on {promo['valid_to']}.",
                targets={("case", case["id"])},
                refused=((w.n.action("promotion", "apply"), {w.fk("case"): case["id"], "code": promo["code"]}),
                         "expired"))


@intent("aggregate", needs=("promotion",))
def best_promotion_question(w: World) -> Plan | None:
    valid = [p for p in w.rows["promotion"] if p["active"] and p["valid_from"] <= TODAY <= p["valid_to"]]
    ranked = sorted(valid, key=lambda p: -p["percent_off"])
    if len(ranked) < 2 or ranked[0]["percent_off"] == ranked[1]["percent_off"]:
        return None
    best = ranked[0]
    say = Say("ask", (
        "which active {PROMOTION} that is valid today gives the biggest discount (its code), and how many percent "
        "off is it",
        "of the {PROMOTION/pl} we can use today, which code takes the most off, and by what percentage",
    ), {})
    calls = [(w.n.list("promotion"), {"limit": 100})]
    goals = [w.text_answer(best["code"], [p["code"] for p in w.rows["promotion"]]),
             w.number_answer(int(best["percent_off"]))]
    return Plan(calls, goals, say, answer=f"{best['code']}, {int(best['percent_off'])}% off")


# --- procurement ----------------------------------------------------------------------------------------


def _po(w: World, po: dict) -> T:
    return T(f"{{PURCHASE_ORDER}} {po['number']}")


@intent("action", needs=("purchase_order",))
def receive_purchase_order(w: World) -> Plan | None:
    po = w.pick([p for p in w.rows["purchase_order"] if p["status"] == "submitted"])
    if po is None:
        return None
    vendor = w.by_id("vendor", po[w.fk("vendor")])
    lines = w.children("purchase_line", "purchase_order", po["id"])
    calls = [(w.n.list("vendor"), {"query": vendor["name"]}),
             (w.n.list("purchase_order"), {w.fk("vendor"): vendor["id"]}),
             (w.n.get("purchase_order"), {w.pk("purchase_order"): po["id"]}),
             (w.n.action("purchase_order", "approve"), {w.pk("purchase_order"): po["id"]}),
             (w.n.action("purchase_order", "receive"), {w.pk("purchase_order"): po["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("purchase_order"), pk=po["id"], expect={"status": "received"})]
    slots = {"po": _po(w, po), "vendor": vendor["name"]}
    answer = None
    targets = {("purchase_order", po["id"])}
    tail = ""
    if w.has("stock_level"):
        item = w.by_id("item", lines[0][w.fk("item")])
        site = w.by_id("site", po[w.fk("site")])
        level = next((s for s in w.rows["stock_level"] if s[w.fk("item")] == item["id"]
                      and s[w.fk("site")] == site["id"]), None)
        if level is None:
            return None
        held = level["quantity"] + sum(x["quantity"] for x in lines if x[w.fk("item")] == item["id"])
        calls.append((w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}))
        goals += [Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity",
                       delta=held - level["quantity"]), w.number_answer(held)]
        slots.update(item=quote(item["name"]), site=site["name"])
        tail = ", then tell me how many units of {item} {site} holds now"
        answer = str(held)
        targets.add(("stock_level", level["id"]))
    say = Say("do", (
        "approve {po} from {vendor} and record it as received" + tail,
        "the delivery for {po} from {vendor} arrived || approve the order and mark it received" + tail,
        "sign off {po} ({vendor}) and book it in as received" + tail,
        "[the goods|everything] on {po} from {vendor} [came in|arrived] [today|this morning] || approve it, then "
        "[mark|record] it as received" + tail,
    ), slots)
    return Plan(calls, goals, say, answer=answer, targets=targets)


@intent("action", needs=("purchase_order",))
def submit_purchase_order(w: World) -> Plan | None:
    po = w.pick([p for p in w.rows["purchase_order"] if p["status"] == "draft"])
    if po is None:
        return None
    calls = [(w.n.list("purchase_order"), {"number": po["number"]}),
             (w.n.action("purchase_order", "submit"), {w.pk("purchase_order"): po["id"]})]
    say = Say("do", (
        "submit {po}, which is still a draft",
        "{po} is ready to go out || submit it",
        "send draft {po} off to the {VENDOR} by submitting it",
    ), {"po": _po(w, po)})
    goal = Goal(kind="row_equals", table=w.table("purchase_order"), pk=po["id"], expect={"status": "submitted"})
    return Plan(calls, [goal], say, targets={("purchase_order", po["id"])})


@intent("action", needs=("purchase_order",))
def cancel_purchase_order(w: World) -> Plan | None:
    po = w.pick([p for p in w.rows["purchase_order"] if p["status"] in ("draft", "submitted")])
    if po is None:
        return None
    calls = [(w.n.list("purchase_order"), {"number": po["number"]}),
             (w.n.action("purchase_order", "cancel"), {w.pk("purchase_order"): po["id"]})]
    say = Say("do", (
        "cancel {po} and tell me what its total cost was",
        "we no longer need {po} || cancel it and let me know the total we would have spent",
        "call off {po}, then give me its total cost",
    ), {"po": _po(w, po)})
    goals = [Goal(kind="row_equals", table=w.table("purchase_order"), pk=po["id"], expect={"status": "cancelled"}),
             w.money_answer(po["total_cost"])]
    return Plan(calls, goals, say, answer=money(po["total_cost"]), targets={("purchase_order", po["id"])})


@intent("aggregate", needs=("purchase_order",))
def vendor_spend_question(w: World) -> Plan | None:
    options = []
    for vendor in w.rows["vendor"]:
        received = [p for p in w.rows["purchase_order"] if p[w.fk("vendor")] == vendor["id"]
                    and p["status"] == "received"]
        if received:
            options.append((vendor, round(sum(p["total_cost"] for p in received), 2)))
    if not options:
        return None
    vendor, total = w.rng.choice(options)
    say = Say("ask", (
        "how much have we spent with {vendor} on {PURCHASE_ORDER/pl} that were received",
        "what is the total cost of every received {PURCHASE_ORDER} from {vendor}",
    ), {"vendor": vendor["name"]})
    calls = [(w.n.list("vendor"), {"query": vendor["name"]}),
             (w.n.list("purchase_order"), {w.fk("vendor"): vendor["id"], "status": "received"})]
    return Plan(calls, [w.money_answer(total)], say, answer=money(total))


@intent("chained", needs=("purchase_order",))
def restock_from_vendor(w: World) -> Plan | None:
    vendor, site, item = w.pick(w.rows["vendor"]), w.pick(w.rows["site"]), w.pick([i for i in w.rows["item"]
                                                                                   if i["active"]])
    if vendor is None or item is None:
        return None
    qty = w.pick([10, 12, 20, 24, 30, 40])
    po_id = len(w.rows["purchase_order"]) + 1
    po_fk = w.fk("purchase_order")
    calls = [(w.n.list("vendor"), {"query": vendor["name"]}), w.find_site(site), w.find_item(item),
             (w.n.create("purchase_order"), {w.fk("vendor"): vendor["id"], w.fk("site"): site["id"]}),
             (w.n.create("purchase_line"), {po_fk: po_id, w.fk("item"): item["id"], "quantity": qty}),
             (w.n.action("purchase_order", "submit"), {w.pk("purchase_order"): po_id})]
    say = Say("do", (
        "order {qty} units of {item} from {vendor} for {site}: create the {PURCHASE_ORDER}, add the line, and "
        "submit it",
        "{site} is running low on {item} || raise {a PURCHASE_ORDER} with {vendor} for {qty} units and submit it",
        "place a submitted {PURCHASE_ORDER} with {vendor}, delivered to {site}, for {qty} x {item}",
        "[we need|get us] {qty} more units of {item} at {site} || [buy|order] them from {vendor}: a new {PURCHASE_ORDER} "
        "with that one line, [submitted|sent off]",
        "[draw up|create] {a PURCHASE_ORDER} for {site} with {vendor} ({qty} x {item}) and submit it [straight away|"
        "today]",
    ), {"qty": qty, "item": quote(item["name"]), "vendor": vendor["name"], "site": site["name"]})
    goal = Goal(kind="rows_created", table=w.table("purchase_order"), count=1,
                expect={w.fk("vendor"): vendor["id"], w.fk("site"): site["id"], "status": "submitted"},
                child_table=w.table("purchase_line"), child_fk=po_fk,
                children=[{w.fk("item"): item["id"], "quantity": qty}])
    return Plan(calls, [goal], say)


# --- stock -----------------------------------------------------------------------------------------------


def _level(w: World, level: dict) -> tuple[dict, dict]:
    return w.by_id("item", level[w.fk("item")]), w.by_id("site", level[w.fk("site")])


def _adjust(w: World, level: dict, change: int, reason: str) -> tuple[str, dict]:
    item, site = _level(w, level)
    return (w.n.action("stock_level", "adjust"), {w.fk("item"): item["id"], w.fk("site"): site["id"],
                                                    "change": change, "reason": reason})


@intent("action", needs=("stock_level",))
def write_off_stock(w: World) -> Plan | None:
    level = w.pick([s for s in w.rows["stock_level"] if s["quantity"] >= 5])
    if level is None:
        return None
    item, site = _level(w, level)
    n = w.rng.randint(1, min(6, level["quantity"]))
    left = level["quantity"] - n
    calls = [w.find_item(item), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}),
             _adjust(w, level, -n, "stock write-off")]
    # The stock tool keeps no record of the reason it is given, so the instruction states none: a detail
    # that no table records is one no verifier can check.
    say = Say("do", (
        "{units} of {item} {were} found damaged at {site} || reduce the stock there by {n} and tell me how many "
        "units remain",
        "write off {units} of {item} at {site} and tell me what is left",
        "take {units} of {item} out of the stock count at {site} (damaged), then report the remaining quantity",
    ), {"n": n, "units": count(n, "unit"), "were": "was" if n == 1 else "were", "item": quote(item["name"]),
        "site": site["name"]})
    goals = [Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity", delta=-n),
             w.number_answer(left)]
    return Plan(calls, goals, say, answer=str(left), targets={("stock_level", level["id"])})


@intent("action", needs=("stock_level",))
def restock_site(w: World) -> Plan | None:
    level = w.pick(w.rows["stock_level"])
    if level is None:
        return None
    item, site = _level(w, level)
    n = w.pick([5, 10, 12, 15, 20, 25])
    calls = [w.find_item(item), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]}),
             _adjust(w, level, n, "delivery received")]
    say = Say("do", (
        "add {n} units of {item} to the stock at {site} and tell me the new count",
        "a delivery of {n} {item} units reached {site} || book them into stock and tell me how many there are now",
        "increase the {item} stock at {site} by {n}, then report the total",
    ), {"n": n, "item": quote(item["name"]), "site": site["name"]})
    goals = [Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity", delta=n),
             w.number_answer(level["quantity"] + n)]
    return Plan(calls, goals, say, answer=str(level["quantity"] + n), targets={("stock_level", level["id"])})


@intent("chained", needs=("stock_level",))
def move_stock(w: World) -> Plan | None:
    options = []
    for level in w.rows["stock_level"]:
        if level["quantity"] < 6:
            continue
        for other in w.rows["stock_level"]:
            if other[w.fk("item")] == level[w.fk("item")] and other["id"] != level["id"]:
                options.append((level, other))
    if not options:
        return None
    source, target = w.rng.choice(options)
    item, from_site = _level(w, source)
    to_site = w.by_id("site", target[w.fk("site")])
    n = w.rng.randint(2, min(10, source["quantity"]))
    calls = [w.find_item(item), (w.n.list("stock_level"), {w.fk("item"): item["id"]}),
             _adjust(w, source, -n, "transfer out"), _adjust(w, target, n, "transfer in")]
    say = Say("do", (
        "move {n} units of {item} from {src} to {dst}",
        "{dst} needs {n} more {item} units || take them from {src}'s stock",
        "shift {n} {item} units across from {src} to {dst}, adjusting both stock counts",
        "[send|transfer] {n} units of {item} [over|across] from {src} to {dst}, [updating|adjusting] the stock at "
        "both",
        "{src} has [spare|extra] {item} || [move|send] {n} units of it to {dst} and [update|adjust] both counts",
    ), {"n": n, "item": quote(item["name"]), "src": from_site["name"], "dst": to_site["name"]})
    goals = [Goal(kind="row_delta", table=w.table("stock_level"), pk=source["id"], column="quantity", delta=-n),
             Goal(kind="row_delta", table=w.table("stock_level"), pk=target["id"], column="quantity", delta=n)]
    return Plan(calls, goals, say, targets={("stock_level", source["id"]), ("stock_level", target["id"])})


@intent("aggregate", needs=("stock_level",))
def total_stock_question(w: World) -> Plan | None:
    options = [(i, [s for s in w.rows["stock_level"] if s[w.fk("item")] == i["id"]]) for i in w.rows["item"]]
    options = [(i, levels) for i, levels in options if len(levels) >= 2]
    if not options:
        return None
    item, levels = w.rng.choice(options)
    total = sum(s["quantity"] for s in levels)
    say = Say("ask", (
        "how many units of {item} do we hold across all {SITE/pl} together",
        "adding up every {SITE}, what is our total stock of {item}",
    ), {"item": quote(item["name"])})
    return Plan([w.find_item(item), (w.n.list("stock_level"), {w.fk("item"): item["id"]})],
                [w.number_answer(total)], say, answer=str(total))


@intent("aggregate", needs=("stock_level",))
def below_reorder_question(w: World) -> Plan | None:
    options = []
    for site in w.rows["site"]:
        levels = [s for s in w.rows["stock_level"] if s[w.fk("site")] == site["id"]]
        low = sum(s["quantity"] < s["reorder_level"] for s in levels)
        if levels:
            options.append((site, low))
    if not options:
        return None
    site, low = w.rng.choice(options)
    say = Say("ask", (
        "at {site}, how many {ITEM/pl} are stocked below their reorder level",
        "how many of the {STOCK_LEVEL/pl} at {site} have fallen under the reorder level",
    ), {"site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("stock_level"), {w.fk("site"): site["id"], "limit": 100})],
                [w.number_answer(low)], say, answer=str(low))


@intent("infeasible", needs=("stock_level",))
def write_off_too_much(w: World) -> Plan | None:
    level = w.pick([s for s in w.rows["stock_level"] if 1 <= s["quantity"] <= 60])
    if level is None:
        return None
    item, site = _level(w, level)
    n = level["quantity"] + w.rng.randint(3, 20)
    say = Say("do", (
        "write off {n} units of {item} at {site}",
        "{n} units of {item} at {site} are damaged || take them out of stock",
        "reduce the {item} stock at {site} by {n}",
    ), {"n": n, "item": quote(item["name"]), "site": site["name"]})
    calls = [w.find_item(item), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]})]
    return Plan(calls, [w.number_answer(level["quantity"])], say,
                answer=f"Only {level['quantity']} units are held there, so that many cannot be written off.",
                targets={("stock_level", level["id"])}, refused=(_adjust(w, level, -n, "stock write-off"), "insufficient_stock"))


@intent("conditional", needs=("stock_level",))
def restock_if_low(w: World) -> Plan | None:
    low = [s for s in w.rows["stock_level"] if s["quantity"] < s["reorder_level"]]
    fine = [s for s in w.rows["stock_level"] if s["quantity"] >= s["reorder_level"]]
    if not low or not fine:
        return None
    level = w.pick(low if w.chance(0.5) else fine)
    item, site = _level(w, level)
    n = w.pick([10, 20, 25, 30])
    calls = [w.find_item(item), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("item"): item["id"], w.fk("site"): site["id"]})]
    if level["quantity"] < level["reorder_level"]:
        calls.append(_adjust(w, level, n, "low stock top-up"))
        goals = [Goal(kind="row_delta", table=w.table("stock_level"), pk=level["id"], column="quantity", delta=n)]
        answer = None
    else:
        goals, answer = [w.number_answer(level["quantity"])], str(level["quantity"])
    say = Say("do", (
        "if {site} has fewer units of {item} than its reorder level, add {n} units; otherwise tell me how many it has",
        "check the {item} stock at {site} || top it up by {n} units if it is below the reorder level, and "
        "otherwise just give me the current count",
        "[look at|review] how much {item} {site} [holds|has in stock] || add {n} units if it is [below|under] its "
        "reorder level; at or above it, [leave it|change nothing] and tell me the count",
        "[restock|replenish] {item} at {site} with {n} units, but only if it has dropped below the reorder level; "
        "if it hasn't, [tell me|let me know] how many units are there",
        "[we may be|we might be] running short of {item} at {site} || if so (below the reorder level), book in {n} "
        "more units; if not, [report|tell me] the quantity on hand",
    ), {"site": site["name"], "item": quote(item["name"]), "n": n})
    return Plan(calls, goals, say, answer=answer, targets={("stock_level", level["id"])})


# --- support tickets ---------------------------------------------------------------------------------------


def _subject_names(w: World, t: dict) -> bool:
    """Whether "their ticket about '<subject>'" names `t`: no other ticket of its person has its subject."""
    return sum(x["subject"] == t["subject"] for x in w.children("ticket", "party", t[w.fk("party")])) == 1


def _ticket(w: World, t: dict, ref) -> T:
    if ref is not None and _subject_names(w, t):
        return T(f"[{{their}} {{TICKET}} about {quote(t['subject'])}|{{TICKET}} {t['number']}]")
    return T(f"{{TICKET}} {t['number']}")


@intent("action", needs=("ticket",))
def escalate_ticket(w: World) -> Plan | None:
    ticket = w.pick([t for t in w.rows["ticket"] if t["status"] == "open" and w.party_of(t)["status"] == "active"])
    member = w.pick(w.staff_pool())
    if ticket is None or member is None:
        return None
    party = w.party_of(ticket)
    comment = w.pick(("We are looking into this with priority", "Escalated to the senior team",
                      "A specialist will call you today"))
    t = w.plan["ticket"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("ticket"), {w.fk("party"): party["id"], "status": "open"}),
             w.find_staff(member),
             (w.n.action("ticket", "assign"), {t.fk: ticket["id"], w.fk("staff"): member["id"]}),
             (w.n.create("ticket_comment"), {t.fk: ticket["id"], "body": comment, w.fk("staff"): member["id"]}),
             (w.n.action("ticket", "escalate"), {w.pk("ticket"): ticket["id"]})]
    say = Say("do", (
        "assign {ticket} to {STAFF} {staff}, add a comment from {staff} saying {comment}, and escalate it",
        "{ticket} needs senior attention || give it to {staff}, post the comment {comment} in {staff}'s name, then "
        "escalate it",
        "escalate {ticket} after assigning it to {staff} and adding {staff}'s comment {comment}",
    ), {"ticket": _ticket(w, ticket, ref), "staff": w.person(member), "comment": quote(comment)}, party=ref)
    goals = [Goal(kind="row_equals", table=t.table, pk=ticket["id"],
                  expect={"status": "escalated", w.fk("staff"): member["id"]}),
             Goal(kind="rows_created", table=w.table("ticket_comment"), count=1,
                  expect={t.fk: ticket["id"], "body": {"text": comment}, w.fk("staff"): member["id"]})]
    return Plan(calls, goals, say, targets={("ticket", ticket["id"])})


@intent("action", needs=("ticket",))
def resolve_ticket(w: World) -> Plan | None:
    ticket = w.pick([t for t in w.rows["ticket"] if t["status"] in ("open", "in_progress", "escalated")])
    if ticket is None:
        return None
    comment = w.pick(("Issue fixed, closing the loop", "Refund processed and confirmed", "Walked the customer "
                      "through the fix", "Replacement sent"))
    t = w.plan["ticket"]
    calls = [(w.n.list("ticket"), {"number": ticket["number"]}),
             (w.n.create("ticket_comment"), {t.fk: ticket["id"], "body": comment}),
             (w.n.action("ticket", "resolve"), {w.pk("ticket"): ticket["id"]})]
    say = Say("do", (
        "add the comment {comment} to {ticket} and resolve it",
        "{ticket} is sorted || leave the comment {comment} and mark it resolved",
        "resolve {ticket} with a final comment: {comment}",
    ), {"ticket": _ticket(w, ticket, None), "comment": quote(comment)})
    goals = [Goal(kind="row_equals", table=t.table, pk=ticket["id"], expect={"status": "resolved"}),
             Goal(kind="rows_created", table=w.table("ticket_comment"), count=1,
                  expect={t.fk: ticket["id"], "body": {"text": comment}})]
    return Plan(calls, goals, say, targets={("ticket", ticket["id"])})


@intent("action", needs=("ticket",))
def open_ticket(w: World) -> Plan | None:
    party = w.pick(w.active_parties())
    if party is None:
        return None
    subject = w.pick(("Cannot log in to the portal", "Question about my last bill", "Wrong item received",
                      "Request for a copy of my contract", "Charged twice this month", "Complaint about the service"))
    priority = w.pick(["low", "normal", "high", "urgent"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("ticket"), {w.fk("party"): party["id"]}),
             (w.n.create("ticket"), {w.fk("party"): party["id"], "subject": subject, "priority": priority})]
    say = Say("do", (
        "open a new {TICKET} for {them} with the subject {subject} and {priority} priority",
        "log {a TICKET} for {them}: subject {subject}, priority {priority}",
        "{they} reported a problem || create {a TICKET} titled {subject} at {priority} priority",
    ), {"subject": quote(subject), "priority": priority}, party=ref, voices=BOTH)
    goal = Goal(kind="rows_created", table=w.table("ticket"), count=1,
                expect={w.fk("party"): party["id"], "subject": {"text": subject}, "priority": priority,
                        "status": "open"})
    return Plan(calls, [goal], say, targets={("party", party["id"])})


@intent("action", needs=("ticket",))
def raise_ticket_priority(w: World) -> Plan | None:
    ticket = w.pick([t for t in w.rows["ticket"] if t["status"] in ("open", "in_progress", "escalated")
                     and t["priority"] != "urgent"])
    if ticket is None:
        return None
    comment = w.pick(("Customer called again", "Affects several users", "Deadline is tomorrow"))
    t = w.plan["ticket"]
    calls = [(w.n.list("ticket"), {"number": ticket["number"]}),
             (w.n.change("ticket", "set", "priority"), {t.fk: ticket["id"], "priority": "urgent"}),
             (w.n.create("ticket_comment"), {t.fk: ticket["id"], "body": comment})]
    say = Say("do", (
        "make {ticket} urgent and add the comment {comment}",
        "bump {ticket} up to urgent priority, with the comment {comment}",
        "{ticket} can't wait || set its priority to urgent and note {comment} in a comment",
    ), {"ticket": _ticket(w, ticket, None), "comment": quote(comment)})
    goals = [Goal(kind="row_equals", table=t.table, pk=ticket["id"], expect={"priority": "urgent"}),
             Goal(kind="rows_created", table=w.table("ticket_comment"), count=1,
                  expect={t.fk: ticket["id"], "body": {"text": comment}})]
    return Plan(calls, goals, say, targets={("ticket", ticket["id"])})


@intent("aggregate", needs=("ticket",))
def open_tickets_question(w: World) -> Plan | None:
    options = [(p, [t for t in w.children("ticket", "party", p["id"]) if t["status"] in ("open", "in_progress",
                                                                                          "escalated")])
               for p in w.rows["party"] if w.children("ticket", "party", p["id"])]
    if not options:
        return None
    party, live = w.rng.choice(options)
    ref = w.party_ref(party)
    say = Say("ask", (
        "how many of {their} {TICKET/pl} are still unresolved (open, in progress or escalated)",
        "how many {TICKET/pl} {do_they} have with {us} that are not resolved or closed yet",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("ticket"), {w.fk("party"): party["id"]})],
                [w.number_answer(len(live))], say, answer=str(len(live)))


@intent("infeasible", needs=("ticket",))
def escalate_finished_ticket(w: World) -> Plan | None:
    ticket = w.pick([t for t in w.rows["ticket"] if t["status"] in ("resolved", "closed")])
    if ticket is None:
        return None
    party = w.party_of(ticket)
    if party["status"] == "active" and _subject_names(w, ticket) and w.chance(0.5):
        # the person says it is not sorted and names it by its subject: the agent finds them, then their tickets
        ref = w.party_ref(party)
        calls = [w.find_party(ref), (w.n.list("ticket"), {w.fk("party"): party["id"]})]
        say = Say("do", (
            "{their} {TICKET} about {subject} is still not sorted || escalate it",
            "escalate {their} {TICKET} about {subject}; the problem is back",
            "{their} {TICKET} about {subject} needs to go up a level || push it to the escalation team",
        ), {"subject": quote(ticket["subject"])}, party=ref, voices=BOTH)
    else:
        calls = [(w.n.list("ticket"), {"number": ticket["number"]})]
        say = Say("do", (
            "escalate {ticket}",
            "{ticket} needs to go up a level || escalate it",
            "push {ticket} to the escalation team",
        ), {"ticket": _ticket(w, ticket, None)})
    return Plan(calls,
                [w.text_answer(ticket["status"], ["open", "in_progress", "escalated", "resolved", "closed"])], say,
                answer=f"That is not possible any more: it is already {ticket['status']}.", targets={("ticket", ticket["id"])},
                refused=((w.n.action("ticket", "escalate"), {w.pk("ticket"): ticket["id"]}), "invalid_state"))


# --- notifications ------------------------------------------------------------------------------------------


@intent("action", flavours=("appointment", "reservation"), needs=("notification",))
def remind_upcoming(w: World) -> Plan | None:
    tc = w.fl.time_column
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.editable and c[tc] > TODAY
                   and w.party_of(c)["status"] == "active"])
    if case is None:
        return None
    party = w.party_of(case)
    channel, named = message_channel(w)
    subject = f"Reminder: {case['code']} on {long_date(case[tc])}"
    call, goal = notify(w, party, channel, subject, f"See you at {case[tc][11:16]}.")
    calls = [(w.n.list("case"), {"code": case["code"]}), (w.n.get("party"), {w.pk("party"): party["id"]}), call]
    say = Say("do", (
        "send the {PARTY} of {CASE} {code} a reminder by {channel} with the subject {subject}",
        "remind whoever booked {CASE} {code} about it: {a via} {NOTIFICATION}, subject {subject}",
    ), {"code": case["code"], **named, "subject": quote(subject)})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


# --- subscriptions --------------------------------------------------------------------------------------


def _subscription_options(w: World, status: str) -> list[tuple[dict, dict]]:
    options = []
    for sub in w.rows["subscription"]:
        party = w.party_of(sub)
        same = [s for s in w.children("subscription", "party", party["id"]) if s[w.fk("item")] == sub[w.fk("item")]]
        if sub["status"] == status and party["status"] == "active" and len(same) == 1:
            options.append((sub, party))
    return options


@intent("action", needs=("subscription",))
def pause_subscription(w: World) -> Plan | None:
    options = _subscription_options(w, "active")
    if not options:
        return None
    sub, party = w.rng.choice(options)
    item = w.by_id("item", sub[w.fk("item")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"]}),
             (w.n.action("subscription", "pause"), {w.pk("subscription"): sub["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("subscription"), pk=sub["id"], expect={"status": "paused"})]
    slots = {"item": quote(item["name"])}
    tail = ""
    if w.has("notification"):
        subject = "Your plan is paused"
        call, goal = notify(w, party, "email", subject, f"{item['name']} is paused.")
        calls.append(call)
        goals.append(goal)
        slots["subject"] = quote(subject)
        tail = " and send {them} an email {NOTIFICATION} with the subject {subject}"
    say = Say("do", (
        "pause {their} active {item} {SUBSCRIPTION}" + tail,
        "{they_are} away for a while || put {their} {item} {SUBSCRIPTION} on pause" + tail,
        "pause the {item} {SUBSCRIPTION} {they_have} with {us}" + tail,
    ), slots, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("subscription", sub["id"])})


@intent("action", needs=("subscription",))
def resume_subscription(w: World) -> Plan | None:
    options = _subscription_options(w, "paused")
    if not options:
        return None
    sub, party = w.rng.choice(options)
    item = w.by_id("item", sub[w.fk("item")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "paused"}),
             (w.n.action("subscription", "resume"), {w.pk("subscription"): sub["id"]})]
    say = Say("do", (
        "resume {their} paused {item} {SUBSCRIPTION}",
        "{they_are} back || restart {their} {item} {SUBSCRIPTION}",
        "take {their} {item} {SUBSCRIPTION} off pause",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    goal = Goal(kind="row_equals", table=w.table("subscription"), pk=sub["id"], expect={"status": "active"})
    return Plan(calls, [goal], say, targets={("subscription", sub["id"])})


@intent("action", needs=("subscription",))
def cancel_subscription(w: World) -> Plan | None:
    options = _subscription_options(w, "active") + _subscription_options(w, "paused")
    if not options:
        return None
    sub, party = w.rng.choice(options)
    item = w.by_id("item", sub[w.fk("item")])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"]}),
             (w.n.action("subscription", "cancel"), {w.pk("subscription"): sub["id"]})]
    say = Say("do", (
        "cancel {their} {item} {SUBSCRIPTION} so that it does not renew",
        "{they} no longer want the {item} {SUBSCRIPTION} || cancel it",
        "end {their} {item} {SUBSCRIPTION}",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    goal = Goal(kind="row_equals", table=w.table("subscription"), pk=sub["id"],
                expect={"status": "cancelled", "renews_on": None})
    return Plan(calls, [goal], say, targets={("subscription", sub["id"])})


@intent("action", needs=("subscription",))
def change_plan(w: World) -> Plan | None:
    options = _subscription_options(w, "active") + _subscription_options(w, "paused")
    items = subscribable_items(w.rows, w.plan.scenario.item_kind, w.L)
    if not options or len(items) < 2:
        return None
    sub, party = w.rng.choice(options)
    old = w.by_id("item", sub[w.fk("item")])
    new = w.pick([i for i in items if i["id"] != old["id"]])
    price = round(new["price"] / 10, 2)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"]}), w.find_item(new),
             (w.n.change("subscription", "change", "plan"), {w.pk("subscription"): sub["id"],
                                                             w.fk("item"): new["id"]})]
    say = Say("do", (
        "switch {their} {old} {SUBSCRIPTION} to {new} and tell me the new monthly price",
        "{they} would like to move from {old} to {new} || change the {SUBSCRIPTION} over and tell me what it "
        "costs per month now",
        "change {their} {SUBSCRIPTION} from {old} to {new}, then give me the new monthly price",
    ), {"old": quote(old["name"]), "new": quote(new["name"])}, party=ref, voices=BOTH)
    goals = [Goal(kind="row_equals", table=w.table("subscription"), pk=sub["id"],
                  expect={w.fk("item"): new["id"], "monthly_price": {"approx": price}}), w.money_answer(price)]
    return Plan(calls, goals, say, answer=money(price), targets={("subscription", sub["id"])})


@intent("aggregate", needs=("subscription",))
def monthly_total_question(w: World) -> Plan | None:
    return _party_total_question(w, "subscription", "monthly_price", (
        "what do {their} active {SUBSCRIPTION/pl} cost per month in total",
        "how much {do_they} pay each month for all of {their} active {SUBSCRIPTION/pl} together",
    ), keep=lambda s: s["status"] == "active")


@intent("infeasible", needs=("subscription",))
def resume_cancelled_subscription(w: World) -> Plan | None:
    options = _subscription_options(w, "cancelled")
    if not options:
        return None
    sub, party = w.rng.choice(options)
    item = w.by_id("item", sub[w.fk("item")])
    ref = w.party_ref(party)
    say = Say("do", (
        "resume {their} {item} {SUBSCRIPTION}",
        "{they} would like {their} {item} {SUBSCRIPTION} running again || resume it",
        "restart the {item} {SUBSCRIPTION} for {them}",
    ), {"item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"]})],
                [w.text_answer("cancelled", ["active", "paused", "cancelled"])], say,
                answer="It was cancelled, and a cancelled plan cannot be resumed.",
                refused=((w.n.action("subscription", "resume"), {w.pk("subscription"): sub["id"]}), "invalid_state"),
                targets={("subscription", sub["id"])})


# --- shifts -----------------------------------------------------------------------------------------------


@intent("action", needs=("shift",))
def schedule_shift(w: World) -> Plan | None:
    member = w.pick(w.staff_pool())
    if member is None:
        return None
    taken = {s["shift_date"] for s in w.children("shift", "staff", member["id"])}
    date = next(d for d in (f"2025-06-{n:02d}" for n in range(10, 29)) if d not in taken)
    start = w.pick(["07:00", "08:00", "09:00", "12:00"])
    end = f"{int(start[:2]) + 8:02d}:00"
    site = w.by_id("site", member[w.fk("site")])
    calls = [w.find_staff(member), w.find_site(site),
             (w.n.list("shift"), {w.fk("staff"): member["id"], "shift_date": date}),
             (w.n.create("shift"), {w.fk("staff"): member["id"], w.fk("site"): site["id"], "shift_date": date,
                                    "start_time": start, "end_time": end})]
    say = Say("do", (
        "schedule {staff} for {a SHIFT} at {site} on {date} from {start} to {end}",
        "put {staff} on the rota at {site}: {date}, {start} to {end}",
        "{site} needs cover on {date} || book {staff} for {a SHIFT} from {start} until {end}",
    ), {"staff": w.person(member), "site": site["name"], "date": date, "start": start, "end": end})
    goal = Goal(kind="rows_created", table=w.table("shift"), count=1,
                expect={w.fk("staff"): member["id"], w.fk("site"): site["id"], "shift_date": date,
                        "start_time": start, "end_time": end, "status": "scheduled"})
    return Plan(calls, [goal], say, targets={("staff_shift", member["id"])})


@intent("action", needs=("shift",))
def cancel_shift(w: World) -> Plan | None:
    options = []
    for shift in w.rows["shift"]:
        member = w.by_id("staff", shift[w.fk("staff")])
        same_day = [s for s in w.rows["shift"] if s[w.fk("staff")] == member["id"]
                    and s["shift_date"] == shift["shift_date"]]
        if shift["status"] == "scheduled" and len(same_day) == 1 and w.unique_person("staff", member):
            options.append((shift, member))
    if not options:
        return None
    shift, member = w.rng.choice(options)
    calls = [w.find_staff(member), (w.n.list("shift"), {w.fk("staff"): member["id"], "shift_date": shift["shift_date"]}),
             (w.n.action("shift", "cancel"), {w.pk("shift"): shift["id"]})]
    say = Say("do", (
        "cancel {staff}'s {SHIFT} on {date}",
        "{staff} is off sick on {date} || cancel their {SHIFT} that day",
        "take {staff} off the rota for {date}",
    ), {"staff": w.person(member), "date": shift["shift_date"]})
    goal = Goal(kind="row_equals", table=w.table("shift"), pk=shift["id"], expect={"status": "cancelled"})
    return Plan(calls, [goal], say, targets={("staff_shift", member["id"])})


@intent("question", needs=("shift",))
def who_is_on_shift_question(w: World) -> Plan | None:
    options = []
    for shift in w.rows["shift"]:
        same = [s for s in w.rows["shift"] if s[w.fk("site")] == shift[w.fk("site")]
                and s["shift_date"] == shift["shift_date"] and s["status"] == "scheduled"]
        if shift["status"] == "scheduled" and len(same) == 1:
            options.append(shift)
    shift = w.pick(options)
    if shift is None:
        return None
    member, site = w.by_id("staff", shift[w.fk("staff")]), w.by_id("site", shift[w.fk("site")])
    say = Say("ask", (
        "who is scheduled to work at {site} on {date}",
        "which {STAFF} has the {SHIFT} at {site} on {date}",
    ), {"site": site["name"], "date": shift["shift_date"]})
    calls = [w.find_site(site), (w.n.list("shift"), {w.fk("site"): site["id"], "shift_date": shift["shift_date"]}),
             (w.n.get("staff"), {w.pk("staff"): member["id"]})]
    return Plan(calls, [w.staff_answer(member)], say, answer=w.person(member))


@intent("infeasible", needs=("shift",))
def shift_for_inactive_staff(w: World) -> Plan | None:
    member = w.pick([s for s in w.rows["staff"] if not s["active"] and w.unique_person("staff", s)])
    if member is None:
        return None
    site = w.by_id("site", member[w.fk("site")])
    date = f"2025-06-{w.rng.randint(10, 28):02d}"
    say = Say("do", (
        "schedule {staff} for {a SHIFT} at {site} on {date} from 09:00 to 17:00",
        "book {staff} in at {site} on {date}, 09:00 to 17:00",
    ), {"staff": w.person(member), "site": site["name"], "date": date})
    return Plan([w.find_staff(member)], [w.text_answer("inactive", ["active"])], say,
                answer=f"{w.person(member)} is inactive, so no {w.L['shift']} can be scheduled.",
                targets={("staff_shift", member["id"])},
                refused=((w.n.create("shift"), {w.fk("staff"): member["id"], w.fk("site"): site["id"], "shift_date": date,
                                                "start_time": "09:00", "end_time": "17:00"}), "staff_inactive"))


# --- loyalty ---------------------------------------------------------------------------------------------


@intent("action", needs=("loyalty_account",))
def redeem_points(w: World) -> Plan | None:
    acct = w.pick([a for a in w.rows["loyalty_account"] if a["points"] >= 100])
    if acct is None:
        return None
    party = w.party_of(acct)
    n = w.rng.randint(1, acct["points"] // 50) * 50
    reason = w.pick(("reward redemption", "gift card", "free upgrade"))
    la = w.plan["loyalty_account"]
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("loyalty_account"), {w.fk("party"): party["id"]}),
             (w.n.points("redeem"), {la.fk: acct["id"], "points": n, "reason": reason})]
    say = Say("do", (
        "redeem {n} points from {their} {LOYALTY_ACCOUNT} with the reason {reason}, and tell me how many points "
        "remain",
        "{they} would like to use {n} points || take them off {their} {LOYALTY_ACCOUNT} (reason {reason}) and "
        "tell me the balance left",
        "spend {n} of {their} points, reason {reason}, and let me know the new points balance",
    ), {"n": n, "reason": quote(reason)}, party=ref, voices=BOTH)
    goals = [Goal(kind="row_delta", table=la.table, pk=acct["id"], column="points", delta=-n),
             Goal(kind="rows_created", table=w.table("loyalty_entry"), count=1,
                  expect={la.fk: acct["id"], "points": -n, "reason": {"text": reason}}),
             w.number_answer(acct["points"] - n)]
    return Plan(calls, goals, say, answer=str(acct["points"] - n), targets={("loyalty_account", acct["id"])})


@intent("chained", needs=("loyalty_account",))
def award_points_for_case(w: World) -> Plan | None:
    accounts = {a[w.fk("party")]: a for a in w.rows["loyalty_account"]}
    cases = [c for c in w.rows["case"] if c[w.fk("party")] in accounts and c["total_amount"] >= 1]
    case = w.pick(cases)
    if case is None:
        return None
    acct = accounts[case[w.fk("party")]]
    points = int(case["total_amount"])
    if points > 100000:  # the points tool takes at most this many at once
        return None
    reason = f"Points for {case['code']}"
    la = w.plan["loyalty_account"]
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("loyalty_account"), {w.fk("party"): case[w.fk("party")]}),
             (w.n.points("award"), {la.fk: acct["id"], "points": points, "reason": reason})]
    say = Say("do", (
        "award the {PARTY} of {CASE} {code} one point per whole unit of its total, with the reason {reason}",
        "give points for {CASE} {code}: as many as its total rounded down, credited to its {PARTY}'s "
        "{LOYALTY_ACCOUNT} with the reason {reason}",
        "[credit|add] loyalty points for {CASE} {code} to the {PARTY}'s {LOYALTY_ACCOUNT}: [one per whole unit of|"
        "the whole-number part of] its total, reason {reason}",
    ), {"code": case["code"], "reason": quote(reason)})
    goals = [Goal(kind="row_delta", table=la.table, pk=acct["id"], column="points", delta=points),
             Goal(kind="rows_created", table=w.table("loyalty_entry"), count=1,
                  expect={la.fk: acct["id"], "points": points, "reason": {"text": reason}})]
    return Plan(calls, goals, say, targets={("loyalty_account", acct["id"])}).derive(w.n.points("award"), "points")


@intent("question", needs=("loyalty_account",))
def points_question(w: World) -> Plan | None:
    acct = w.pick(w.rows["loyalty_account"])
    if acct is None:
        return None
    ref = w.party_ref(w.party_of(acct))
    say = Say("ask", (
        "how many points are on {their} {LOYALTY_ACCOUNT}",
        "what is {their} points balance right now",
        "how many points {have_they} collected so far",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("loyalty_account"), {w.fk("party"): acct[w.fk("party")]})],
                [w.number_answer(acct["points"])], say, answer=str(acct["points"]))


@intent("infeasible", needs=("loyalty_account",))
def redeem_too_many_points(w: World) -> Plan | None:
    acct = w.pick([a for a in w.rows["loyalty_account"] if a["points"] >= 10])
    if acct is None:
        return None
    n = (acct["points"] // 100 + w.rng.randint(1, 5)) * 100
    ref = w.party_ref(w.party_of(acct))
    say = Say("do", (
        "redeem {n} points from {their} {LOYALTY_ACCOUNT} for a reward",
        "{they} would like to cash in {n} points || take them off {their} {LOYALTY_ACCOUNT}",
    ), {"n": n}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("loyalty_account"), {w.fk("party"): acct[w.fk("party")]})],
                [w.number_answer(acct["points"])], say,
                answer=f"Only {acct['points']} points are available, so that many cannot be redeemed.",
                refused=((w.n.points("redeem"), {w.plan["loyalty_account"].fk: acct["id"], "points": n, "reason": "reward"}),
                         "insufficient_points"),
                targets={("loyalty_account", acct["id"])})


# --- departments -------------------------------------------------------------------------------------------


@intent("question", needs=("department",))
def department_budget_question(w: World) -> Plan | None:
    dept = w.pick(w.rows["department"])
    if dept is None:
        return None
    site = w.by_id("site", dept[w.fk("site")])
    say = Say("ask", (
        "what is the budget of the {dept} {DEPARTMENT} at {site}",
        "how much budget does {site}'s {dept} {DEPARTMENT} have",
    ), {"dept": dept["name"], "site": site["name"]})
    calls = [w.find_site(site), (w.n.list("department"), {w.fk("site"): site["id"]})]
    return Plan(calls, [w.money_answer(dept["budget"])], say, answer=money(dept["budget"]))


@intent("aggregate", needs=("department",))
def department_headcount_question(w: World) -> Plan | None:
    dept = w.pick(w.rows["department"])
    if dept is None:
        return None
    site = w.by_id("site", dept[w.fk("site")])
    count_ = sum(1 for s in w.rows["staff"] if s.get(w.fk("department")) == dept["id"] and s["active"])
    say = Say("ask", (
        "how many active {STAFF/pl} work in the {dept} {DEPARTMENT} at {site}",
        "what is the active headcount of {site}'s {dept} {DEPARTMENT}",
    ), {"dept": dept["name"], "site": site["name"]})
    calls = [w.find_site(site), (w.n.list("department"), {w.fk("site"): site["id"]}),
             (w.n.list("staff"), {w.fk("site"): site["id"]})]
    return Plan(calls, [w.number_answer(count_)], say, answer=str(count_))
