"""Requests about the marketing category's own entities (awm/builder/modules/packs/marketing.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.marketing.entities import MAX_ROUNDS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import TODAY, active_party
from awm.builder.intents.shapes import call_off_day, define, notify_item_holders, reroute_to_quietest_site
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


def _rounds_of(w: World, case: dict) -> list[dict]:
    return w.children("approval_round", "case", case["id"])


@intent("action", categories=("marketing",), needs=("approval_round",))
def mkt_approve_round(w: World) -> Plan | None:
    pick = w.pick([(c, r) for c in w.rows["case"] for r in _rounds_of(w, c) if r["status"] == "pending"])
    if pick is None:
        return None
    case, rnd = pick
    calls = [(w.n.list("case"), {"code": case["code"]}),
             (w.n.list("approval_round"), {w.fk("case"): case["id"], "status": "pending"}),
             (w.n.action("approval_round", "approve"), {w.pk("approval_round"): rnd["id"]})]
    goal = Goal(kind="row_equals", table=w.table("approval_round"), pk=rnd["id"], expect={"status": "approved"})
    say = Say("do", (
        "the client signed off the {deliverable} || approve the {APPROVAL_ROUND} waiting on {CASE} {code}",
        "record the client's approval of round {n} on {CASE} {code}",
    ), {"deliverable": rnd["deliverable"], "code": case["code"], "n": rnd["round_number"]})
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("marketing",), needs=("approval_round",))
def mkt_round_over_limit(w: World) -> Plan | None:
    case = w.pick([c for c in w.rows["case"] if c["status"] in w.fl.open and len(_rounds_of(w, c)) >= MAX_ROUNDS
                   and all(r["status"] != "pending" for r in _rounds_of(w, c))])
    if case is None:
        return None
    deliverable = _rounds_of(w, case)[0]["deliverable"]
    say = Say("do", (
        "the client wants one more look at the {deliverable} || send a new {APPROVAL_ROUND} on {CASE} {code}",
        "open another {APPROVAL_ROUND} for the {deliverable} on {CASE} {code}",
    ), {"deliverable": deliverable, "code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("approval_round"), {w.fk("case"): case["id"]})],
                [w.number_answer(MAX_ROUNDS)], say,
                answer=f"All {MAX_ROUNDS} approval rounds the fee includes are used; another needs a change order.",
                targets={("case", case["id"])},
                refused=((w.n.create("approval_round"), {w.fk("case"): case["id"], "deliverable": deliverable}),
                         "over_limit"))


def _campaigns(w: World) -> list[tuple[dict, dict]]:
    """(campaign, party) for campaigns still running or to come, of active clients, with a name no other has."""
    return [(c, p) for c in w.rows["ad_campaign"] if c["status"] in ("draft", "live", "paused")
            and (p := active_party(w, c)) is not None
            and sum(x["name"] == c["name"] for x in w.rows["ad_campaign"]) == 1]


@intent("action", categories=("marketing",), needs=("ad_campaign",))
def mkt_raise_budget(w: World) -> Plan | None:
    pick = w.pick(_campaigns(w))
    if pick is None:
        return None
    campaign, party = pick
    budget = campaign["budget"] + w.pick([2500.0, 5000.0, 7500.0, 10000.0])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("ad_campaign"), {w.fk("party"): party["id"]}),
             (w.n.action("ad_campaign", "set_budget"), {w.pk("ad_campaign"): campaign["id"], "budget": budget})]
    goal = Goal(kind="row_equals", table=w.table("ad_campaign"), pk=campaign["id"],
                expect={"budget": {"approx": budget}})
    say = Say("do", (
        "raise the budget of {their} {campaign} {AD_CAMPAIGN} to {budget}",
        "{they} approved more spend on {campaign} || set that {AD_CAMPAIGN}'s budget to {budget}",
    ), {"campaign": quote(campaign["name"]), "budget": money(budget)}, party=ref)
    return Plan(calls, [goal], say, targets={("ad_campaign", campaign["id"])})


@intent("infeasible", categories=("marketing",), needs=("ad_campaign",))
def mkt_budget_below_spend(w: World) -> Plan | None:
    pick = w.pick([(c, p) for c, p in _campaigns(w) if c["spent"] >= 1000])
    if pick is None:
        return None
    campaign, party = pick
    budget = float(int(campaign["spent"] * 0.6 // 100 * 100))
    ref = w.party_ref(party)
    say = Say("do", (
        "cut the budget of {their} {campaign} {AD_CAMPAIGN} to {budget}",
        "{they} want to spend less on {campaign} || lower that {AD_CAMPAIGN}'s budget to {budget}",
    ), {"campaign": quote(campaign["name"]), "budget": money(budget)}, party=ref)
    return Plan([w.find_party(ref), (w.n.list("ad_campaign"), {w.fk("party"): party["id"]})],
                [w.money_answer(campaign["spent"])], say,
                answer=f"The campaign has already spent {money(campaign['spent'])}; its budget cannot go below that.",
                targets={("ad_campaign", campaign["id"])},
                refused=((w.n.action("ad_campaign", "set_budget"), {w.pk("ad_campaign"): campaign["id"], "budget": budget}),
                         "below_spend"))


@intent("action", categories=("marketing",), needs=("contact_list",))
def mkt_release_list(w: World) -> Plan | None:
    lst = w.pick([c for c in w.rows["contact_list"] if c["status"] == "verified" and c["usable_until"] >= TODAY
                  and sum(x["name"] == c["name"] for x in w.rows["contact_list"]) == 1])
    if lst is None:
        return None
    calls = [(w.n.list("contact_list"), {"query": lst["name"]}),
             (w.n.action("contact_list", "release"), {w.pk("contact_list"): lst["id"]})]
    goal = Goal(kind="row_equals", table=w.table("contact_list"), pk=lst["id"], expect={"status": "released"})
    say = Say("do", (
        "release the {name} {CONTACT_LIST} so the team can start using it",
        "the job is ready to go || release {CONTACT_LIST} {name}",
    ), {"name": quote(lst["name"])})
    return Plan(calls, [goal], say, targets={("contact_list", lst["id"])})


@intent("question", categories=("marketing",), needs=("survey_wave",))
def mkt_completes_needed(w: World) -> Plan | None:
    case = w.pick([c for c in w.rows["case"] if any(s["status"] == "fielding" for s in
                                                    w.children("survey_wave", "case", c["id"]))])
    if case is None:
        return None
    waves = [s for s in w.children("survey_wave", "case", case["id"]) if s["status"] == "fielding"]
    needed = sum(s["target_completes"] - s["completes"] for s in waves)
    say = Say("ask", (
        "how many more completes do the {SURVEY_WAVE/pl} still fielding on {CASE} {code} need to reach their targets",
        "across the {SURVEY_WAVE/pl} of {CASE} {code} that are still in the field, how many completes are missing",
    ), {"code": case["code"]})
    return Plan([(w.n.list("case"), {"code": case["code"]}),
                 (w.n.list("survey_wave"), {w.fk("case"): case["id"], "status": "fielding"})],
                [w.number_answer(needed)], say, answer=str(needed), targets={("case", case["id"])})


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("mkt_supplier_change_notice", "aggregate", ("marketing",), lambda w: notify_item_holders(
    w, ("Changes to {item}", "About {item}"), (
        "our supplier has changed the terms for {item} || notify every {PARTY} with {a CASE} that is {open} and "
        "includes it, by {channel}, subject {subject}",
        "tell each {PARTY} who has {item} on {a CASE} that is {open}, by {channel}, subject {subject}",
    )), needs=("notification",))


# a site closed for a day: its bookings that day cancelled, refunded and their people told (shapes.call_off_day)
define("mkt_venue_closed_day", "aggregate", ("marketing",), lambda w: call_off_day(
    w, ("Cancelled: venue unavailable", "Cancelled: hall closed"), (
        "{site} is unavailable on {long} || cancel every {CASE} there that day that can still be cancelled and "
        "note {note} on each",
        "call off every cancellable {CASE} at {site} on {date}, with the note {note}",
    )), flavours=("appointment", "reservation"))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("mkt_studio_at_capacity", "chained", ("marketing",), lambda w: reroute_to_quietest_site(
    w, ("Moved: team at capacity", "Rerouted to balance the work"), (
        "the team at {site} is at capacity || move {CASE} {code} to whichever other {SITE} has the fewest "
        "{CASE/pl} that are {open}, and record {note} on it",
        "reassign {CASE} {code} from {site} to the other {SITE} with the fewest {open} {CASE/pl}, noting {note}",
    )), flavours=("fulfillment", "service"))
