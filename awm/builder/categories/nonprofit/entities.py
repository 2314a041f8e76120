"""What only a nonprofit keeps: its grant applications to funders, pledges from supporters, events people register
for, and the hours volunteers serve; with the rules their tools enforce (a grant goes in by its deadline and is
awarded at most what was asked, a pledge is never paid beyond what was promised, a full event takes no one more,
a volunteer serves at most 12 hours a day)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "nonprofit"
LABELS = {"grant_application": "grant application", "pledge": "pledge", "charity_event": "event",
          "event_signup": "event registration", "service_log": "service log"}
ALT_LABELS = {"grant_application": "funding proposal", "pledge": "pledged gift", "charity_event": "community event",
              "event_signup": "event signup", "service_log": "volunteer time log"}
GROUPS = {
    "grants": Group(("grant_application",)),
    "pledges": Group(("pledge",), not_for=("volunteer_network",)),
    "events": Group(("charity_event", "event_signup")),
    "hours": Group(("service_log",), not_for=("charity_fundraising", "animal_shelter")),
}
CODED = ("grant_application", "pledge")

GRANT_STATUSES = ("drafting", "submitted", "awarded", "declined")
FUNDERS = ("Hartwell Family Foundation", "Community Trust of the Valley", "Northside Giving Circle",
           "Greenleaf Foundation", "State Arts Council", "Rivera Charitable Trust", "United Way Partner Fund")
PURPOSES = ("general operating support", "a new outreach programme", "equipment and supplies",
            "volunteer training", "a capital campaign", "emergency relief work")
PLEDGE_STATUSES = ("open", "fulfilled", "cancelled")
EVENT_STATUSES = ("scheduled", "held", "cancelled")
EVENT_NAMES = ("Spring Open House", "Community Fun Run", "Volunteer Orientation", "Annual Gala Dinner",
               "Supporter Breakfast", "Family Day", "Evening Info Session", "Autumn Benefit Concert")
SIGNUP_STATUSES = ("registered", "cancelled", "attended")
LOG_STATUSES = ("pending", "approved", "rejected")
MAX_DAY_HOURS = 12.0  # a volunteer serves at most this many hours on one day
ACTIVITIES = ("front desk", "event setup", "site cleanup", "mentoring session", "phone bank", "sorting donations")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the grant_application, pledge, charity_event, event_signup and service_log tables."""
    party_fk, site_fk = f"{snake(L['party'])}_id", f"{snake(L['site'])}_id"
    ents: dict[str, Entity] = {}
    if has("grant_application"):
        ents["grant_application"] = Entity("grant_application", L["grant_application"], [
            pk_col(), Col("number", "TEXT", unique=True), Col("funder", "TEXT"), Col("purpose", "TEXT"),
            fk_col(L, "staff"), Col("amount_requested", "REAL", minimum=0),
            Col("amount_awarded", "REAL", nullable=True, minimum=0), Col("deadline", "TEXT"),
            Col("status", "TEXT", enum=GRANT_STATUSES),
        ], "Applications for grants from funders; submitted by the funder's deadline, awarded at most the amount "
           "requested.", filters=("number", "funder", "status"), code="number")
    if has("pledge"):
        ents["pledge"] = Entity("pledge", L["pledge"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), Col("amount_pledged", "REAL", minimum=0),
            Col("amount_paid", "REAL", minimum=0), Col("pledged_on", "TEXT"), Col("status", "TEXT", enum=PLEDGE_STATUSES),
        ], f"Gifts {plural(L['party'])} promised and pay in parts; never paid beyond the amount pledged.",
            filters=("number", party_fk, "status"), code="number")
    if has("charity_event"):
        ents["charity_event"] = Entity("charity_event", L["charity_event"], [
            pk_col(), fk_col(L, "site"), Col("name", "TEXT"), Col("starts_on", "TEXT"),
            Col("capacity", "INTEGER", minimum=1), Col("status", "TEXT", enum=EVENT_STATUSES),
        ], f"Events held at {plural(L['site'])}, each with a capacity.", filters=(site_fk, "status", "name"))
    if has("event_signup"):
        ents["event_signup"] = Entity("event_signup", L["event_signup"], [
            pk_col(), fk_col(L, "charity_event"), fk_col(L, "party"), Col("status", "TEXT", enum=SIGNUP_STATUSES),
            Col("registered_on", "TEXT"),
        ], f"Who is coming to each {L['charity_event']}; a full one takes no more registrations.",
            filters=(f"{snake(L['charity_event'])}_id", party_fk, "status"))
    if has("service_log"):
        ents["service_log"] = Entity("service_log", L["service_log"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "site"), Col("served_on", "TEXT"),
            Col("hours", "REAL", minimum=0.5, maximum=MAX_DAY_HOURS), Col("activity", "TEXT"),
            Col("status", "TEXT", enum=LOG_STATUSES),
        ], f"Hours {plural(L['party'])} served, approved by a {L['staff']}; at most {MAX_DAY_HOURS:.0f} hours a day.",
            filters=(party_fk, site_fk, "status", "served_on"))
    return ents


def fill_grants(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["grant_application"]
    staff = [s["id"] for s in gen.rows["staff"]]
    for n in range(gen.rng.randint(8, 14)):
        deadline = REFERENCE_NOW + timedelta(days=gen.rng.randint(-90, 75))
        status = gen.rng.choices(("drafting", "submitted"), (2, 1))[0] if deadline > REFERENCE_NOW else \
            gen.rng.choices(GRANT_STATUSES, (2, 4, 3, 2))[0]
        asked = float(gen.rng.choice((5000, 10000, 15000, 25000, 40000, 75000)))
        gen.add("grant_application", {
            "number": f"{prefix}-{901 + n * 4}", "funder": gen.rng.choice(FUNDERS), "purpose": gen.rng.choice(PURPOSES),
            gen.fk("staff"): gen.rng.choice(staff), "amount_requested": asked,
            "amount_awarded": asked * gen.rng.choice((0.5, 0.8, 1.0)) if status == "awarded" else None,
            "deadline": day(deadline), "status": status,
        })


def fill_pledges(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["pledge"]
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(12, len(gen.rows["party"])))):
        pledged = float(gen.rng.choice((100, 250, 500, 1000, 2500, 5000)))
        status = gen.rng.choices(PLEDGE_STATUSES, (6, 3, 1))[0]
        paid = pledged if status == "fulfilled" else pledged * gen.rng.choice((0.0, 0.2, 0.5, 0.6))
        gen.add("pledge", {
            "number": f"{prefix}-{401 + n * 3}", gen.fk("party"): party["id"], "amount_pledged": pledged,
            "amount_paid": round(paid, 2), "pledged_on": day(gen.between(party["created_at"])), "status": status,
        })


def fill_events(gen: RowGen) -> None:
    """Events at every site, some past; some upcoming ones full."""
    parties = [p["id"] for p in gen.rows["party"]]
    for site in gen.rows["site"]:
        for name in gen.rng.sample(EVENT_NAMES, gen.rng.randint(1, 3)):
            starts = REFERENCE_NOW + timedelta(days=gen.rng.randint(-40, 60))
            status = ("held" if starts < REFERENCE_NOW else "scheduled") if gen.rng.random() < 0.9 else "cancelled"
            capacity = gen.rng.choice((8, 10, 12, 15))
            event = gen.add("charity_event", {gen.fk("site"): site["id"], "name": name, "starts_on": day(starts),
                                              "capacity": capacity, "status": status})
            if not gen.has("event_signup") or status == "cancelled":
                continue
            taken = capacity if gen.rng.random() < 0.35 else gen.rng.randint(1, capacity - 3)
            for party in gen.rng.sample(parties, min(taken, len(parties))):
                gen.add("event_signup", {gen.fk("charity_event"): event["id"], gen.fk("party"): party,
                                         "status": "attended" if status == "held" else "registered",
                                         "registered_on": day(min(starts, REFERENCE_NOW) - timedelta(days=gen.rng.randint(1, 30)))})


def fill_service_logs(gen: RowGen) -> None:
    sites = [s["id"] for s in gen.rows["site"]]
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 2, 3))):
            served = gen.past(1, 90)
            gen.add("service_log", {
                gen.fk("party"): party["id"], gen.fk("site"): gen.rng.choice(sites), "served_on": day(served),
                "hours": gen.rng.choice((1.5, 2.0, 3.0, 4.0, 6.0)), "activity": gen.rng.choice(ACTIVITIES),
                "status": gen.rng.choices(LOG_STATUSES, (3, 6, 1))[0],
            })


FILL = {"grant_application": fill_grants, "pledge": fill_pledges, "charity_event": fill_events,
        "service_log": fill_service_logs}
