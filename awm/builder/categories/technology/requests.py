"""Requests about the technology category's own entities (awm/builder/modules/packs/technology.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.categories.technology.entities import MAX_ACTIVE_KEYS, SIZES
from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, active_party
from awm.builder.intents.shapes import define, escalate_urgent, notify_item_holders, reroute_to_quietest_site
from awm.builder.phrasing import Say, count, money, quote
from awm.contracts import Goal


def _seat_licences(w: World) -> list[tuple[dict, dict, dict]]:
    """(licence, party, item) for active licences of active clients."""
    return [(s, p, w.by_id("item", s[w.fk("item")])) for s in w.rows["seat_licence"]
            if s["status"] == "active" and (p := active_party(w, s)) is not None]


@intent("action", categories=("technology",), needs=("seat_licence",))
def tech_add_seats(w: World) -> Plan | None:
    pick = w.pick(_seat_licences(w))
    if pick is None:
        return None
    licence, party, item = pick
    seats = licence["seats"] + w.pick([5, 10, 15, 25])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("seat_licence"), {w.fk("party"): party["id"], w.fk("item"): item["id"]}),
             (w.n.action("seat_licence", "set_seats"), {w.pk("seat_licence"): licence["id"], "seats": seats})]
    goal = Goal(kind="row_equals", table=w.table("seat_licence"), pk=licence["id"], expect={"seats": seats})
    say = Say("do", (
        "{their} team is growing || take {their} {SEAT_LICENCE} for {item} up to {seats}",
        "set {their} {item} {SEAT_LICENCE} to {seats}",
    ), {"item": quote(item["name"]), "seats": count(seats, "seat")}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("seat_licence", licence["id"])})


@intent("infeasible", categories=("technology",), needs=("seat_licence",))
def tech_cut_seats_in_use(w: World) -> Plan | None:
    pick = w.pick([(s, p, i) for s, p, i in _seat_licences(w) if s["seats_in_use"] >= 8])
    if pick is None:
        return None
    licence, party, item = pick
    seats = licence["seats_in_use"] // 2
    ref = w.party_ref(party)
    say = Say("do", (
        "cut {their} {SEAT_LICENCE} for {item} down to {seats}",
        "fewer people need {item} now || reduce {their} {SEAT_LICENCE} for it to {seats}",
    ), {"item": quote(item["name"]), "seats": count(seats, "seat")}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("seat_licence"), {w.fk("party"): party["id"], w.fk("item"): item["id"]})],
                [w.number_answer(licence["seats_in_use"])], say,
                answer=f"{licence['seats_in_use']} seats are in use; the licence cannot go below that until some "
                       "are freed.", targets={("seat_licence", licence["id"])},
                refused=((w.n.action("seat_licence", "set_seats"), {w.pk("seat_licence"): licence["id"], "seats": seats}),
                         "seats_in_use"))


@intent("action", categories=("technology",), needs=("service_incident",))
def tech_resolve_incident(w: World) -> Plan | None:
    incident = w.pick([i for i in w.rows["service_incident"] if i["status"] in ("investigating", "mitigated")])
    if incident is None:
        return None
    cause = w.pick(["an expired certificate", "a bad configuration push", "a full disk on a primary node",
                    "an upstream provider outage"])
    pk = {w.pk("service_incident"): incident["id"]}
    calls = [(w.n.list("service_incident"), {"query": incident["title"]})]
    if incident["status"] == "investigating":
        calls.append((w.n.action("service_incident", "mitigate"), pk))
    calls.append((w.n.action("service_incident", "resolve"), {**pk, "root_cause": cause}))
    goal = Goal(kind="row_equals", table=w.table("service_incident"), pk=incident["id"],
                expect={"status": "resolved", "root_cause": {"text": cause}})
    say = Say("do", (
        "the {title} {SERVICE_INCIDENT} is fixed || resolve it, giving the root cause as {cause}",
        "close out the {SERVICE_INCIDENT} {title} as resolved; the root cause was {cause}",
    ), {"title": quote(incident["title"]), "cause": quote(cause)})
    return Plan(calls, [goal], say, targets={("service_incident", incident["id"])})


@intent("question", categories=("technology",), needs=("service_incident",))
def tech_open_incidents(w: World) -> Plan | None:
    severity = w.pick([s for s in ("sev1", "sev2") if any(i["severity"] == s for i in w.rows["service_incident"])])
    if severity is None:
        return None
    unresolved = [i for i in w.rows["service_incident"] if i["severity"] == severity and i["status"] != "resolved"]
    say = Say("ask", (
        "how many {severity} {SERVICE_INCIDENT/pl} are not resolved yet",
        "how many {SERVICE_INCIDENT/pl} of severity {severity} are still open, investigating or mitigated",
    ), {"severity": severity})
    return Plan([(w.n.list("service_incident"), {"severity": severity})], [w.number_answer(len(unresolved))], say,
                answer=str(len(unresolved)), targets={("service_incident", i["id"]) for i in unresolved})


@intent("chained", categories=("technology",), needs=("server_instance",))
def tech_resize_instance(w: World) -> Plan | None:
    instance = w.pick([s for s in w.rows["server_instance"] if s["status"] == "running" and active_party(w, s)
                       and s["size"] != SIZES[-1]])
    if instance is None:
        return None
    size = SIZES[SIZES.index(instance["size"]) + 1]
    pk = {w.pk("server_instance"): instance["id"]}
    calls = [(w.n.list("server_instance"), {"hostname": instance["hostname"]}),
             (w.n.action("server_instance", "stop"), pk),
             (w.n.action("server_instance", "resize"), {**pk, "size": size}),
             (w.n.action("server_instance", "start"), pk)]
    goal = Goal(kind="row_equals", table=w.table("server_instance"), pk=instance["id"],
                expect={"size": size, "status": "running"})
    say = Say("do", (
        "the {SERVER_INSTANCE} {host} is running out of memory || move it up to the {size} size and have it "
        "running again afterwards",
        "resize the {SERVER_INSTANCE} {host} to {size}, and make sure it is back up when you are done",
    ), {"host": instance["hostname"], "size": size})
    return Plan(calls, [goal], say, targets={("server_instance", instance["id"])})


@intent("aggregate", categories=("technology",), needs=("api_key",))
def tech_revoke_keys(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        keys = [k for k in w.children("api_key", "party", party["id"]) if k["status"] == "active"]
        if 1 <= len(keys) <= MAX_ACTIVE_KEYS:
            options.append((party, keys))
    pick = w.pick(options)
    if pick is None:
        return None
    party, keys = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("api_key"), {w.fk("party"): party["id"], "status": "active"}),
             *[(w.n.action("api_key", "revoke"), {w.pk("api_key"): k["id"]}) for k in keys]]
    goals = [Goal(kind="row_equals", table=w.table("api_key"), pk=k["id"], expect={"status": "revoked"}) for k in keys]
    say = Say("do", (
        "{their} credentials may have leaked || revoke every active {API_KEY} {they_have}",
        "revoke all of {their} active {API_KEY/pl}",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("tech_escalate_urgent", "aggregate", ("technology", "telecom", "utilities"), lambda w: escalate_urgent(w, (
    "we have a major incident || escalate every urgent {TICKET} that is still open or in progress",
    "escalate all the urgent {TICKET/pl} that are open or in progress right now",
)), needs=("ticket",))


@intent("chained", categories=("technology", "telecom", "media"), needs=("subscription",))
def tech_plan_upgrade(w: World) -> Plan | None:
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


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("tech_security_advisory", "aggregate", ("technology",), lambda w: notify_item_holders(
    w, ("Security advisory: {item}", "Action needed: {item}"), (
        "a security advisory has been issued for {item} || notify every {PARTY} with {a CASE} that is {open} and "
        "includes it, by {channel}, subject {subject}",
        "contact each {PARTY} whose {CASE} ({open}) includes {item} about the advisory, by {channel}, "
        "subject {subject}",
    )), needs=("notification",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("tech_site_at_capacity", "chained", ("technology",), lambda w: reroute_to_quietest_site(
    w, ("Moved: site at capacity", "Rebalanced across sites"), (
        "{site} is at capacity || move {CASE} {code} to whichever other {SITE} has the fewest {CASE/pl} that are "
        "{open}, noting {note}",
        "transfer {CASE} {code} from {site} to the other {SITE} with the lightest load of {open} {CASE/pl} and "
        "add the note {note}",
    )), flavours=("digital", "application"))
