"""Requests about the media category's own entities (awm/builder/modules/packs/media.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, TODAY
from awm.builder.intents.shapes import define, notify_item_holders, reroute_to_quietest_site, ticket_for_case
from awm.builder.phrasing import Say, count, quote
from awm.contracts import Goal

_REGION_WORDS = {"north_america": "North American", "europe": "European", "asia_pacific": "Asia-Pacific",
                 "latin_america": "Latin American", "worldwide": "worldwide"}


def _licence_say(licence: dict, clauses: tuple[str, ...], **slots: object) -> Say:
    return Say("do", clauses, {"title": quote(licence["title"]), "region": _REGION_WORDS[licence["territory"]],
                               **slots})


@intent("action", categories=("media",), needs=("content_licence",))
def media_extend_licence(w: World) -> Plan | None:
    licence = w.pick([c for c in w.rows["content_licence"] if c["status"] == "active"])
    if licence is None:
        return None
    ends = (datetime.fromisoformat(licence["ends_on"]) + timedelta(days=w.pick([180, 365, 730]))).date().isoformat()
    calls = [(w.n.list("content_licence"), {"title": licence["title"], "territory": licence["territory"]}),
             (w.n.action("content_licence", "extend"), {w.pk("content_licence"): licence["id"], "ends_on": ends})]
    goal = Goal(kind="row_equals", table=w.table("content_licence"), pk=licence["id"], expect={"ends_on": ends})
    say = _licence_say(licence, (
        "extend our {region} {CONTENT_LICENCE} for {title} so it runs until {ends}",
        "{counterparty} agreed to more time on {title} || move the end of our {region} {CONTENT_LICENCE} to {ends}",
    ), ends=ends, counterparty=licence["counterparty"])
    return Plan(calls, [goal], say, targets={("content_licence", licence["id"])})


@intent("infeasible", categories=("media",), needs=("content_licence",))
def media_extend_expired_licence(w: World) -> Plan | None:
    licence = w.pick([c for c in w.rows["content_licence"] if c["status"] == "expired"])
    if licence is None:
        return None
    ends = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([180, 365]))).date().isoformat()
    say = _licence_say(licence, (
        "extend the {region} {CONTENT_LICENCE} for {title} to {ends}",
        "keep {title} licensed for the {region} market until {ends} by extending its {CONTENT_LICENCE}",
    ), ends=ends)
    return Plan([(w.n.list("content_licence"), {"title": licence["title"], "territory": licence["territory"]})],
                [w.status_answer("expired")], say,
                answer="That licence has expired; it has to be negotiated anew, not extended.",
                targets={("content_licence", licence["id"])},
                refused=((w.n.action("content_licence", "extend"), {w.pk("content_licence"): licence["id"], "ends_on": ends}),
                         "expired"))


@intent("aggregate", categories=("media",), needs=("royalty_statement",))
def media_approve_statements(w: World) -> Plan | None:
    options = []
    for party in w.active_parties():
        drafts = [s for s in w.children("royalty_statement", "party", party["id"]) if s["status"] == "draft"]
        if drafts:
            options.append((party, drafts))
    pick = w.pick(options)
    if pick is None:
        return None
    party, drafts = pick
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("royalty_statement"), {w.fk("party"): party["id"], "status": "draft"}),
             *[(w.n.action("royalty_statement", "approve"), {w.pk("royalty_statement"): s["id"]}) for s in drafts]]
    goals = [Goal(kind="row_equals", table=w.table("royalty_statement"), pk=s["id"], expect={"status": "approved"})
             for s in drafts]
    say = Say("do", (
        "the sales figures are checked || approve every {ROYALTY_STATEMENT} of {party} still in draft",
        "approve all the draft {ROYALTY_STATEMENT/pl} for {party}",
    ), {}, party=ref, voices=("staff",))
    return Plan(calls, goals, say, targets={("party", party["id"])})


@intent("action", categories=("media",), needs=("title_release",))
def media_postpone_release(w: World) -> Plan | None:
    release = w.pick([r for r in w.rows["title_release"] if r["status"] == "scheduled"])
    if release is None:
        return None
    new = (datetime.fromisoformat(release["release_on"]) + timedelta(days=w.pick([14, 21, 30, 45]))).date().isoformat()
    calls = [(w.n.list("title_release"), {"title": release["title"]}),
             (w.n.action("title_release", "postpone"), {w.pk("title_release"): release["id"], "release_on": new})]
    goal = Goal(kind="row_equals", table=w.table("title_release"), pk=release["id"],
                expect={"release_on": new, "status": "scheduled"})
    say = Say("do", (
        "push the release of {title} ({format}) back to {new}",
        "{title} has been delayed || postpone its {TITLE_RELEASE} to {new}",
    ), {"title": quote(release["title"]), "format": release["format"], "new": new})
    return Plan(calls, [goal], say, targets={("title_release", release["id"])})


def _events(w: World, full: bool) -> list[tuple[dict, int]]:
    """(event, seats left) for events on sale whose name no other event has, sold out or not."""
    out = []
    for event in w.rows["live_event"]:
        if event["status"] != "on_sale" or sum(e["name"] == event["name"] for e in w.rows["live_event"]) > 1:
            continue
        left = event["capacity"] - sum(t["seats"] for t in w.children("event_ticket", "live_event", event["id"])
                                       if t["status"] == "booked")
        if (left == 0) == full:
            out.append((event, left))
    return out


@intent("action", categories=("media",), needs=("event_ticket",))
def media_book_event_seats(w: World) -> Plan | None:
    pick = w.pick([(e, left) for e, left in _events(w, full=False) if left >= 2])
    party = w.pick(w.active_parties())
    if pick is None or party is None:
        return None
    event, left = pick
    seats = w.pick([1, 2, 2]) if left < 4 else w.pick([2, 3, 4])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("live_event"), {"query": event["name"]}),
             (w.n.create("event_ticket"), {w.fk("live_event"): event["id"], w.fk("party"): party["id"], "seats": seats})]
    goal = Goal(kind="rows_created", table=w.table("event_ticket"), count=1, expect={
        w.fk("live_event"): event["id"], w.fk("party"): party["id"], "seats": seats, "status": "booked"})
    say = Say("do", (
        "book {seats} for {them} at {event} on {when}",
        "{they} would like to come to {event} on {when} || book {seats} for {them}",
    ), {"seats": count(seats, "seat"), "event": quote(event["name"]), "when": long_date(event["starts_at"])},
        party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("live_event", event["id"])})


@intent("infeasible", categories=("media",), needs=("event_ticket",))
def media_event_sold_out(w: World) -> Plan | None:
    pick = w.pick(_events(w, full=True))
    party = w.pick(w.active_parties())
    if pick is None or party is None:
        return None
    event, _ = pick
    ref = w.party_ref(party)
    say = Say("do", (
        "book {seats} for {them} at {event} on {when}",
        "{they} would like a place at {event} on {when} || book {seats} for {them}",
    ), {"seats": count(2, "seat"), "event": quote(event["name"]), "when": long_date(event["starts_at"])},
        party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("live_event"), {"query": event["name"]}),
                 (w.n.list("event_ticket"), {w.fk("live_event"): event["id"], "status": "booked"})],
                [w.text_answer("sold out", ["available"])], say,
                answer=f"{event['name']} is sold out; no seats are left.",
                targets={("live_event", event["id"])},
                refused=((w.n.create("event_ticket"), {w.fk("live_event"): event["id"], w.fk("party"): party["id"],
                                                       "seats": 2}), "sold_out"))


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("media_streaming_issue", "action", ("media", "technology", "telecom"), lambda w: ticket_for_case(
    w, ("Service issue with {code}", "Cannot access {code}", "Problem reported with {code}"), "normal",
    ("Customer reported a problem", "Troubleshooting started"), (
        "{they} can't use what {they} paid for in {case} || open {a TICKET} with the subject {subject} at normal "
        "priority and note {note} on the {CASE}",
        "log a normal-priority {TICKET} titled {subject} for {them} and add the note {note} to {case}",
    )), needs=("ticket",))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("media_delay_notice", "aggregate", ("media",), lambda w: notify_item_holders(
    w, ("Delay notice: {item}", "An update on {item}"), (
        "{item} is running late || tell each {PARTY} who has {a CASE} that is {open} with it on, by {channel}, "
        "subject {subject}",
        "let every {PARTY} with an open {CASE} ({open}) that includes {item} know about the delay, by {channel}, "
        "subject {subject}",
    )), needs=("notification",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("media_busy_site_reroute", "chained", ("media",), lambda w: reroute_to_quietest_site(
    w, ("Moved: too busy to handle", "Rerouted to a quieter site"), (
        "{site} is swamped this month || move {CASE} {code} to the other {SITE} with the fewest {open} {CASE/pl},"
        " and note {note} on it",
        "hand {CASE} {code} from {site} over to whichever other {SITE} has the fewest {CASE/pl} that are {open}, "
        "with the note {note}",
    )), flavours=("fulfillment", "application"))
