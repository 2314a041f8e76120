"""Requests about the education category's own entities (awm/builder/modules/packs/education.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.phrasing import Say
from awm.contracts import Goal


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
                       "enrolment can be made until it is lifted.", targets={("party", party["id"])},
                refused=((w.n.create("enrolment"), {w.fk("party"): party["id"], w.fk("section"): section["id"]}),
                         "on_hold"))


@intent("action", categories=("education",), needs=("transcript_request",))
def edu_send_transcript(w: World) -> Plan | None:
    options = []
    for t in w.rows["transcript_request"]:
        party = active_party(w, t)
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
