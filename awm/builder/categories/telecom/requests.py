"""Requests about the telecom category's own entities (awm/builder/modules/packs/telecom.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.telecom.entities import DONORS as DONOR_CARRIERS
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, active_party
from awm.builder.intents.shapes import define, notify_item_holders, reroute_to_quietest_site
from awm.builder.phrasing import Say, quote
from awm.contracts import Goal


@intent("action", categories=("telecom",), needs=("service_line",))
def telecom_suspend_lost_phone(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if ln["status"] == "active" and active_party(w, ln)])
    if line is None:
        return None
    ref = w.party_ref(w.party_of(line))
    calls = [w.find_party(ref), (w.n.list("service_line"), {w.fk("party"): line[w.fk("party")]}),
             (w.n.action("service_line", "suspend"), {w.pk("service_line"): line["id"], "reason": "lost_device"})]
    goal = Goal(kind="row_equals", table=w.table("service_line"), pk=line["id"],
                expect={"status": "suspended", "suspend_reason": "lost_device"})
    say = Say("do", (
        "{they} lost the phone with the number {number} || suspend that {SERVICE_LINE}, reason lost_device",
        "suspend {their} {SERVICE_LINE} {number} because the device was lost (reason lost_device)",
    ), {"number": line["phone_number"]}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("service_line", line["id"])})


@intent("infeasible", categories=("telecom",), needs=("service_line",))
def telecom_change_plan_while_suspended(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if ln["status"] == "suspended" and active_party(w, ln)])
    item = w.pick([i for i in w.rows["item"] if i["active"]])
    if line is None or item is None or item["id"] == line[w.fk("item")]:
        return None
    ref = w.party_ref(w.party_of(line))
    say = Say("do", (
        "move {their} {SERVICE_LINE} {number} onto {item}",
        "switch the plan of {SERVICE_LINE} {number} to {item}",
    ), {"number": line["phone_number"], "item": quote(item["name"])}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("service_line"), {w.fk("party"): line[w.fk("party")]})],
                [w.status_answer("suspended")], say,
                answer="That line is suspended; its plan cannot change until it is restored.",
                targets={("service_line", line["id"])},
                refused=((w.n.action("service_line", "change_plan"), {w.pk("service_line"): line["id"],
                                                                      w.fk("item"): item["id"]}), "invalid_state"))


@intent("aggregate", categories=("telecom",), needs=("usage",))
def telecom_data_used(w: World) -> Plan | None:
    line = w.pick([ln for ln in w.rows["service_line"] if w.children("usage", "service_line", ln["id"])])
    if line is None:
        return None
    used = round(sum(u["data_gb"] for u in w.children("usage", "service_line", line["id"])), 2)
    say = Say("ask", (
        "how many GB of data has {SERVICE_LINE} {number} used across all its {USAGE/pl}",
        "what is the total data (in GB) recorded across the {USAGE/pl} of {SERVICE_LINE} {number}",
    ), {"number": line["phone_number"]})
    return Plan([(w.n.list("service_line"), {"phone_number": line["phone_number"]}),
                 (w.n.list("usage"), {w.fk("service_line"): line["id"]})],
                [w.number_answer(used)], say, answer=f"{used} GB", targets={("service_line", line["id"])})


@intent("conditional", categories=("telecom",), needs=("port_request",))
def telecom_finish_port(w: World) -> Plan | None:
    request = w.pick([r for r in w.rows["port_request"] if r["status"] == "pending" and active_party(w, r)])
    if request is None:
        return None
    ref = w.party_ref(w.party_of(request))
    calls = [w.find_party(ref), (w.n.list("port_request"), {w.fk("party"): request[w.fk("party")],
                                                            "phone_number": request["phone_number"]})]
    if request["pin_verified"]:
        calls.append((w.n.action("port_request", "complete"), {w.pk("port_request"): request["id"]}))
        goals = [Goal(kind="row_equals", table=w.table("port_request"), pk=request["id"], expect={"status": "completed"})]
        answer = None
    else:
        goals, answer = [w.text_answer(request["donor_carrier"], list(DONOR_CARRIERS))], request["donor_carrier"]
    say = Say("do", (
        "if the PIN on {their} port of {number} is verified, complete the port; if not, tell me which carrier we are "
        "still waiting on",
        "check {their} {PORT_REQUEST} for {number} || complete it when its PIN is verified, otherwise tell me the "
        "donor carrier",
    ), {"number": request["phone_number"]}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, answer=answer, targets={("port_request", request["id"])})


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("telecom_plan_change_notice", "aggregate", ("telecom",), lambda w: notify_item_holders(
    w, ("Changes to {item}", "An update about {item}"), (
        "the terms of {item} are changing next month || let every {PARTY} with {a CASE} that is {open} and "
        "includes it know by {channel}, subject {subject}",
        "send {a via} {NOTIFICATION} titled {subject} to each {PARTY} whose {CASE} ({open}) includes {item}",
    )), needs=("notification",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("telecom_store_overloaded", "chained", ("telecom",), lambda w: reroute_to_quietest_site(
    w, ("Moved: store overloaded", "Rerouted to a quieter store"), (
        "{site} can't keep up with orders this week || move {CASE} {code} to the other {SITE} with the fewest "
        "{open} {CASE/pl} and add the note {note}",
        "transfer {CASE} {code} from {site} to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "noting {note}",
    )), flavours=("fulfillment",))
