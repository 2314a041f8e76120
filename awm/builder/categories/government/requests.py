"""Requests about the government category's own entities (awm/builder/modules/packs/government.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.government.entities import APPEAL_DAYS
from awm.builder.categories.government.entities import RENEWAL_DAYS as LICENCE_RENEWAL_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import call_off_day, define, notify_item_holders, reroute_to_quietest_site
from awm.builder.intents.steps import notify
from awm.builder.phrasing import Say, T, money, quote
from awm.contracts import Goal


def _licences(w: World, renewable: bool) -> list[tuple[dict, dict]]:
    opens = (datetime.fromisoformat(TODAY) + timedelta(days=LICENCE_RENEWAL_DAYS)).date().isoformat()
    return [(li, p) for li in w.rows["issued_licence"] if li["status"] == "active" and li["expires_on"] != opens
            and (li["expires_on"] < opens) == renewable and (p := active_party(w, li)) is not None]


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
                       "that.", targets={("issued_licence", licence["id"])},
                refused=((w.n.action("issued_licence", "renew"), {w.pk("issued_licence"): licence["id"],
                                                                  "expires_on": until}), "window_closed"))


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
                targets={("case", case["id"])},
                refused=((w.n.action("inspection_visit", "record_result"), {w.pk("inspection_visit"): visit["id"],
                                                                            "result": "passed"}), "too_early"))


def _fines(w: World, open_: bool) -> list[tuple[dict, dict]]:
    cutoff = (datetime.fromisoformat(TODAY) - timedelta(days=APPEAL_DAYS)).date().isoformat()
    return [(f, p) for f in w.rows["fine_notice"] if f["status"] == "unpaid" and f["issued_on"] != cutoff
            and (f["issued_on"] > cutoff) == open_ and (p := active_party(w, f)) is not None]


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
    grounds = "The notice went to an old address"
    say = Say("do", (
        "file an appeal against {their} {FINE_NOTICE} {number}, giving the grounds as {grounds}",
        "{they} think {FINE_NOTICE} {number} is wrong || file an appeal against it ({grounds})",
    ), {"number": fine["number"], "grounds": quote(grounds)}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("fine_notice"), {"number": fine["number"]})],
                [w.text_answer(fine["issued_on"], [])], say,
                answer=f"That fine was issued on {fine['issued_on']}; appeals close {APPEAL_DAYS} days after issue.",
                targets={("fine_notice", fine["id"])},
                refused=((w.n.action("fine_notice", "appeal"), {w.pk("fine_notice"): fine["id"], "grounds": grounds}),
                         "window_closed"))


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


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------


@intent("chained", categories=("government",), needs=("invoice",))
def gov_reissue_corrected_fee(w: World) -> Plan | None:
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


@intent("action", categories=("government", "travel"), needs=("document", "notification"))
def gov_reject_id_and_notify(w: World) -> Plan | None:
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
define("gov_office_closure", "aggregate", ("government", "healthcare"), lambda w: call_off_day(
    w, ("Cancelled: office closed", "Cancelled: unplanned closure"), (
        "{site} is closed on {long} || cancel every {CASE} booked there that day that can still be cancelled, "
        "and note {note} on each",
        "cancel the cancellable {CASE/pl} at {site} on {date}, each with the note {note}",
    )), flavours=("appointment", "reservation"))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("gov_office_backlog", "chained", ("government",), lambda w: reroute_to_quietest_site(
    w, ("Transferred: office backlog", "Moved to reduce waiting times"), (
        "{site} has a backlog || transfer {CASE} {code} to the {SITE}, of the others, with the fewest {open} "
        "{CASE/pl}, and add the note {note}",
        "move {CASE} {code} out of {site}, where the waiting times are too long, to whichever other {SITE} has "
        "the fewest {CASE/pl} that are {open}, and note {note} on it",
    )))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("gov_fee_change_notice", "aggregate", ("government",), lambda w: notify_item_holders(
    w, ("Fee change: {item}", "About your {item}"), (
        "the fee for {item} is changing || notify every {PARTY} with {a CASE} that is {open} and includes it, by "
        "{channel}, subject {subject}",
        "tell each {PARTY} whose {CASE} ({open}) includes {item} about the new fee, by {channel}, subject {subject}",
    )), needs=("notification",))
