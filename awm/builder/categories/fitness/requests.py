"""Requests about the fitness category's own entities (awm/builder/modules/packs/fitness.py), each needing the
tables it asks about."""

from __future__ import annotations

from datetime import datetime, timedelta

from awm.builder.categories.fitness.entities import MAX_FREEZE_DAYS
from awm.builder.intents.base import Plan, World, intent, long_date
from awm.builder.intents.entities.common import BOTH, NOW, TODAY, active_party
from awm.builder.intents.shapes import (
    call_off_day,
    define,
    follow_up_booking,
    note_every_open_case,
    notify_item_holders,
)
from awm.builder.phrasing import Say
from awm.contracts import Goal


def _open_classes(w: World) -> list[dict]:
    return [c for c in w.rows["class_session"] if c["status"] == "scheduled" and c["starts_at"] > NOW]


@intent("infeasible", categories=("fitness",), needs=("class_session",))
def fit_shrink_booked_class(w: World) -> Plan | None:
    session = w.pick([c for c in _open_classes(w) if c["spots_booked"] >= 8])
    if session is None:
        return None
    capacity = session["spots_booked"] - w.pick([2, 3, 5])
    site = w.by_id("site", session[w.fk("site")])
    say = Say("do", (
        "cut the {item} {CLASS_SESSION} at {site} on {long} at {time} down to {capacity} places",
        "we are short of equipment for the {time} {item} {CLASS_SESSION} at {site} on {long} || make it "
        "{capacity} places",
    ), {"item": session["title"], "site": site["name"],
        "long": long_date(session["starts_at"]), "time": session["starts_at"][11:16], "capacity": capacity})
    return Plan([w.find_site(site), (w.n.list("class_session"), {w.fk("site"): site["id"], "status": "scheduled"})],
                [w.number_answer(session["spots_booked"])], say,
                answer=f"{session['spots_booked']} spots are already booked, so the class cannot have fewer places.",
                targets={("class_session", session["id"])},
                refused=((w.n.action("class_session", "set_capacity"), {w.pk("class_session"): session["id"],
                                                                        "capacity": capacity}), "below_booked"))


FREEZE_WHY = {"travel": "{they} will be away travelling", "injury": "{they_are} off with an injury",
              "medical": "{they_are} on medical leave"}


def _freezable(w: World) -> list[tuple[dict, dict]]:
    """(subscription, party): the only active subscription of an active person, with no freeze pending or running."""
    out = []
    for sub in w.rows["subscription"]:
        party = active_party(w, sub)
        if sub["status"] != "active" or party is None:
            continue
        mine = [s for s in w.children("subscription", "party", party["id"]) if s["status"] == "active"]
        frozen = [f for f in w.children("freeze", "subscription", sub["id"]) if f["status"] in ("scheduled", "active")]
        if len(mine) == 1 and not frozen:
            out.append((sub, party))
    return out


@intent("action", categories=("fitness",), needs=("freeze",))
def fit_freeze_membership(w: World) -> Plan | None:
    pick = w.pick(_freezable(w))
    if pick is None:
        return None
    sub, party = pick
    start = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([3, 7, 10, 14]))).date()
    days, reason = w.pick([14, 21, 30, 45, 60]), w.pick(["travel", "injury", "medical"])
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "active"}),
             (w.n.create("freeze"), {w.fk("subscription"): sub["id"], "starts_on": start.isoformat(), "days": days,
                                     "reason": reason})]
    goal = Goal(kind="rows_created", table=w.table("freeze"), count=1, expect={
        w.fk("subscription"): sub["id"], "starts_on": start.isoformat(),
        "ends_on": (start + timedelta(days=days)).isoformat(), "reason": reason, "status": "scheduled"})
    say = Say("do", (
        "freeze {their} {SUBSCRIPTION} for {days} days from {start}, reason {reason}",
        FREEZE_WHY[reason] + " || freeze {their} {SUBSCRIPTION} for {days} days starting {start}",
    ), {"days": days, "start": start.isoformat(), "reason": reason}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("subscription", sub["id"])})


@intent("infeasible", categories=("fitness",), needs=("freeze",))
def fit_freeze_too_long(w: World) -> Plan | None:
    pick = w.pick(_freezable(w))
    if pick is None:
        return None
    sub, party = pick
    start = (datetime.fromisoformat(TODAY) + timedelta(days=w.pick([5, 7, 14]))).date().isoformat()
    days = w.pick([120, 150, 180])
    ref = w.party_ref(party)
    say = Say("do", (
        "freeze {their} {SUBSCRIPTION} for {days} days starting {long}, reason travel",
        "{they} will be travelling for a while || freeze {their} {SUBSCRIPTION} from {long} for {days} days",
    ), {"days": days, "long": long_date(start)}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("subscription"), {w.fk("party"): party["id"], "status": "active"})],
                [w.number_answer(MAX_FREEZE_DAYS)], say,
                answer=f"A freeze lasts at most {MAX_FREEZE_DAYS} days.",
                targets={("subscription", sub["id"])},
                refused=((w.n.create("freeze"), {w.fk("subscription"): sub["id"], "starts_on": start, "days": days,
                                                 "reason": "travel"}), "over_limit"))


def _live_packages(w: World, party: dict) -> list[dict]:
    return [t for t in w.children("training_package", "party", party["id"]) if t["status"] == "active"]


@intent("action", categories=("fitness",), needs=("training_package",))
def fit_redeem_session(w: World) -> Plan | None:
    party = w.pick([p for p in w.active_parties() if len(_live_packages(w, p)) == 1])
    if party is None:
        return None
    package = _live_packages(w, party)[0]
    used = package["sessions_used"] + 1
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("training_package"), {w.fk("party"): party["id"], "status": "active"}),
             (w.n.action("training_package", "redeem_session"), {w.pk("training_package"): package["id"]})]
    goal = Goal(kind="row_equals", table=w.table("training_package"), pk=package["id"], expect={
        "sessions_used": used, "status": "used_up" if used == package["sessions_total"] else "active"})
    say = Say("do", (
        "{they} just finished a session with {staff} || take it off {their} active {TRAINING_PACKAGE}",
        "redeem one session from {their} active {TRAINING_PACKAGE}",
    ), {"staff": w.person(w.by_id("staff", package[w.fk("staff")]))}, party=ref, voices=BOTH)
    return Plan(calls, [goal], say, targets={("training_package", package["id"])})


@intent("question", categories=("fitness",), needs=("training_package",))
def fit_sessions_left(w: World) -> Plan | None:
    party = w.pick([p for p in w.active_parties() if _live_packages(w, p)])
    if party is None:
        return None
    left = sum(t["sessions_total"] - t["sessions_used"] for t in _live_packages(w, party))
    ref = w.party_ref(party)
    say = Say("ask", (
        "how many sessions {do_they} have left across {their} active {TRAINING_PACKAGE/pl}",
        "how many prepaid sessions are still unused on {their} active {TRAINING_PACKAGE/pl}",
    ), {}, party=ref, voices=BOTH)
    return Plan([w.find_party(ref), (w.n.list("training_package"), {w.fk("party"): party["id"], "status": "active"})],
                [w.number_answer(left)], say, answer=str(left), targets={("party", party["id"])})


@intent("action", categories=("fitness",), needs=("fixture",))
def fit_record_result(w: World) -> Plan | None:
    home_fk, away_fk = f"home_{w.fk('team')}", f"away_{w.fk('team')}"
    fixture = w.pick([f for f in w.rows["fixture"] if f["status"] == "scheduled" and f["starts_at"] < NOW])
    if fixture is None:
        return None
    home, away = w.by_id("team", fixture[home_fk]), w.by_id("team", fixture[away_fk])
    if sum(f[home_fk] == home["id"] and f[away_fk] == away["id"] for f in w.rows["fixture"]) != 1:
        return None
    scores = w.pick([(3, 1), (2, 0), (1, 4), (0, 2), (5, 3)])
    winner, loser = (home, away) if scores[0] > scores[1] else (away, home)
    calls = [(w.n.list("team"), {"name": home["name"]}), (w.n.list("fixture"), {home_fk: home["id"], away_fk: away["id"]}),
             (w.n.action("fixture", "record_result"), {w.pk("fixture"): fixture["id"], "home_score": scores[0],
                                                       "away_score": scores[1]})]
    goals = [Goal(kind="row_equals", table=w.table("fixture"), pk=fixture["id"],
                  expect={"home_score": scores[0], "away_score": scores[1], "status": "played"}),
             Goal(kind="row_equals", table=w.table("team"), pk=winner["id"], expect={"wins": winner["wins"] + 1}),
             Goal(kind="row_equals", table=w.table("team"), pk=loser["id"], expect={"losses": loser["losses"] + 1})]
    say = Say("do", (
        "the {home} beat the {away} {high} to {low} on {long} || enter that result",
        "record the result of {home} (home) against {away} on {long}: {hs} to {as_}",
    ), {"home": home["name"], "away": away["name"], "long": long_date(fixture["starts_at"]), "hs": scores[0],
        "as_": scores[1], "high": max(scores), "low": min(scores)})
    if winner is away:
        say = Say("do", (
            "the {away} won away at the {home} {high} to {low} on {long} || enter that result",
            "record the result of {home} (home) against {away} on {long}: {hs} to {as_}",
        ), say.slots)
    return Plan(calls, goals, say, targets={("fixture", fixture["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

# an injury matters to sessions and visits, not to a pharmacy's orders (a healthcare domain with fulfillment cases)
define("fitness_injury_note", "aggregate", ("fitness", "healthcare"), lambda w: note_every_open_case(
    w, ("Knee injury: no high-impact exercise", "Recovering from back surgery", "Physio clearance required"), (
        "add the note {note} to each of {their} {CASE/pl} that are {open}",
        "{they_are} recovering from an injury || note {note} on every {CASE} of {theirs} that is {open}",
    )), flavours=("appointment", "reservation", "application"))
# not marketing's: a trade show's booth reservations have no session leader to fall ill
define("fitness_class_cancellation", "aggregate", ("fitness", "human_resources"),
       lambda w: call_off_day(w, ("Cancelled: instructor ill", "Cancelled: room unavailable"), (
           "the instructor at {site} is ill on {long} || cancel each {CASE} there that day that can still "
           "be cancelled and note {note} on it",
           "call off every cancellable {CASE} at {site} on {date}, with the note {note}",
       )), flavours=("reservation", "appointment"))
define("fitness_training_follow_up", "chained", ("fitness",), lambda w: follow_up_booking(w, 7, (
    "book {their} next training {CASE} for {item} {days} after the upcoming one, same time, same {STAFF}, same "
    "{SITE}",
    "{they} would like to keep going || set up {a CASE} for {item} {days} after {their} next one with the same "
    "{STAFF} at the same time and {SITE}",
)), flavours=("appointment", "reservation"))


# a change to one item: every person with an open case that includes it told (shapes.notify_item_holders)
define("fitness_timetable_notice", "aggregate", ("fitness",), lambda w: notify_item_holders(
    w, ("New times for {item}", "Timetable change: {item}"), (
        "the timetable for {item} has changed || notify every {PARTY} with {a CASE} that is {open} and includes "
        "it, by {channel}, subject {subject}",
        "tell each {PARTY} who has {item} on {a CASE} that is {open} about the new times, by {channel}, subject "
        "{subject}",
    )), needs=("notification",))
