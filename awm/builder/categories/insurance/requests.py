"""Requests about the insurance category's own entities (awm/builder/modules/packs/insurance.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.insurance.entities import RENEWAL_WINDOW_DAYS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, notify_item_holders, reroute_to_quietest_site, ticket_for_case
from awm.builder.intents.steps import act, add_note, status_goal
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


def _policies(w: World, renewable: bool) -> list[dict]:
    window = (datetime.fromisoformat(TODAY) + timedelta(days=RENEWAL_WINDOW_DAYS)).date().isoformat()
    return [p for p in w.rows["policy"] if p["status"] == "active" and active_party(w, p) is not None
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
                [w.text_answer(policy["ends_on"][:10], [])], say,
                answer=f"Renewal only opens in the last {RENEWAL_WINDOW_DAYS} days of the term, and this policy runs "
                       f"until {policy['ends_on'][:10]}.", targets={("policy", policy["id"])},
                refused=((w.n.action("policy", "renew"), {w.pk("policy"): policy["id"]}), "too_early"))


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
        if policy["status"] == "active" and active_party(w, policy) is not None:
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
    # a policy with some share still free where one exists: "nothing is left" everywhere would be a guessable answer
    pick = w.pick([(p, free) for p, free in _shares(w) if 0 < free < 50]
                  or [(p, free) for p, free in _shares(w) if free < 50])
    if pick is None:
        return None
    policy, free = pick
    share = w.pick([s for s in (50, 60, 75) if s > free])
    ref = w.party_ref(w.party_of(policy))
    name = f"Alex {w.party_of(policy)['last_name']}"
    relationship = w.pick(["spouse", "child", "parent", "sibling"])
    say = Say("do", (
        "add {person_named} ({relationship}) as {a BENEFICIARY} on {POLICY} {number} with a {share}% share",
        "name {their} {relationship} {person_named} on {POLICY} {number} for {share}% of the benefit",
    ), {"person_named": name, "relationship": relationship, "share": share, "number": policy["number"]}, party=ref,
        voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("policy"), {w.fk("party"): policy[w.fk("party")]}),
                 (w.n.list("beneficiary"), {w.fk("policy"): policy["id"]})], [w.number_answer(free)], say,
                answer=f"Only {free}% of the benefit is still unallocated, so a larger share cannot be added.",
                targets={("policy", policy["id"])},
                refused=((w.n.create("beneficiary"), {w.fk("policy"): policy["id"], "full_name": name,
                                                      "relationship": relationship, "share_percent": share}),
                         "over_allocated"))


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------


@intent("conditional", categories=("insurance",), flavours=("application",), needs=("invoice",))
def insurance_approve_unless_overdue(w: World) -> Plan | None:
    """An application under review approved, unless its person has an overdue invoice: then rejected with a note."""
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
define("insurance_missing_documents", "action", ("insurance", "government", "human_resources"),
       lambda w: ticket_for_case(w, ("Missing documents for {code}", "Documents needed: {code}"), "normal",
                                 ("Waiting for documents", "Asked for the missing paperwork"), (
           "{case} can't move until we have the paperwork || open {a TICKET} for {them} with the subject {subject} "
           "at normal priority and note {note} on the {CASE}",
           "raise a normal-priority {TICKET} titled {subject} for {them} and add the note {note} to {case}",
       ), statuses=("draft", "submitted", "under_review")), flavours=("application",), needs=("ticket",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("insurance_swamped_office", "chained", ("insurance",), lambda w: reroute_to_quietest_site(
    w, ("Reassigned: office over capacity", "Moved to a quieter office"), (
        "the team at {site} is swamped || reassign {CASE} {code} to the other {SITE} with the fewest {open} "
        "{CASE/pl} and note {note}",
        "take {CASE} {code} off {site}'s desk: move it to whichever other {SITE} has the fewest {CASE/pl} that "
        "are {open}, with the note {note}",
    )))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("insurance_terms_change_notice", "aggregate", ("insurance",), lambda w: notify_item_holders(
    w, ("Revised terms: {item}", "Changes to {item}"), (
        "the terms of {item} are being revised || notify every {PARTY} with {a CASE} that is {open} and includes "
        "it, by {channel}, subject {subject}",
        "send each {PARTY} whose {CASE} ({open}) includes {item} {a via} {NOTIFICATION} titled {subject}",
    )), needs=("notification",))
