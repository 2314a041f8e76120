"""Requests about the professional services category's own entities (awm/builder/modules/packs/professional_services.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, fee_invoice, notify_item_holders, reroute_to_quietest_site, rush
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


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
            and (p := active_party(w, r)) is not None]


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
                targets={("client_retainer", retainer["id"])},
                refused=((w.n.action("client_retainer", "draw"), {w.pk("client_retainer"): retainer["id"], "amount": amount}),
                         "insufficient_funds"))


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
                targets={("case", case["id"])},
                refused=((w.n.action("filing_deadline", "extend"), {w.pk("filing_deadline"): deadline["id"], "due_on": until}),
                         "window_closed"))


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


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

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


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("prof_office_at_capacity", "chained", ("professional_services",), lambda w: reroute_to_quietest_site(
    w, ("Moved: office at capacity", "Reallocated to balance workload"), (
        "{site} is at capacity || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} that are "
        "{open}, with the note {note}",
        "reassign {CASE} {code} from {site} to the other {SITE} with the lightest load of {open} {CASE/pl}, and"
        " note {note} on it",
    )))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("prof_fee_change_notice", "aggregate", ("professional_services",), lambda w: notify_item_holders(
    w, ("New fees for {item}", "Changes to {item}"), (
        "our fee for {item} is changing || let every {PARTY} with {a CASE} that is {open} and includes it know by"
        " {channel}, subject {subject}",
        "notify each {PARTY} whose {CASE} ({open}) includes {item}, by {channel}, subject {subject}",
    )), needs=("notification",))
