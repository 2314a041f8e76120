"""What only a gym, studio, club or league keeps: its group class timetable, membership freezes, personal
training packages, fitness assessments, and a league's teams and fixtures; with the rules their tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "fitness"
LABELS = {"class_session": "group class", "freeze": "membership freeze", "training_package": "training package",
          "assessment": "fitness assessment", "team": "league team", "fixture": "fixture"}
ALT_LABELS = {"class_session": "group class", "freeze": "membership hold", "training_package": "session package",
              "assessment": "fitness evaluation", "team": "club team", "fixture": "league fixture"}
GROUPS = {
    "classes": Group(("class_session",), not_for=("sports_league",)),
    "freezes": Group(("freeze",), needs=("subscriptions",), not_for=("sports_league",)),
    "packages": Group(("training_package",), not_for=("sports_league",)),
    "assessments": Group(("assessment",)),
    "fixtures": Group(("team", "fixture"), not_for=("gym_membership", "yoga_studio", "golf_club")),
}
CODED = ()

CLASS_STATUSES = ("scheduled", "completed", "cancelled")
CLASS_TIMES = ("06:30", "09:00", "12:15", "17:30", "18:45")
CLASS_TITLES = {
    "gym_membership": ("HIIT Circuit", "Indoor Cycling", "Barbell Strength", "Boxing Conditioning", "Aqua Aerobics",
                       "Core and Mobility"),
    "yoga_studio": ("Vinyasa Flow", "Hot Yoga", "Yin Yoga", "Reformer Pilates", "Barre Sculpt", "Breathwork"),
    "golf_club": ("Short Game Clinic", "Putting Clinic", "Junior Golf Clinic", "Beginner Swing Clinic",
                  "Bunker Play Clinic"),
}
DEFAULT_TITLES = ("Strength Basics", "Cardio Circuit", "Mobility and Stretch", "Endurance Training")
FREEZE_REASONS = ("travel", "injury", "medical", "financial")
FREEZE_STATUSES = ("scheduled", "active", "ended", "cancelled")
MAX_FREEZE_DAYS = 90  # a membership is frozen for at most this many days at a time
PACKAGE_SIZES = (5, 10, 12, 20)
PACKAGE_STATUSES = ("active", "used_up", "expired")
FIXTURE_STATUSES = ("scheduled", "played", "postponed")
TEAM_PLACES = ("Northside", "Riverside", "Eastview", "Lakeshore", "Hilltop", "Westfield", "Oakridge", "Harbor")
TEAM_WORDS = ("Falcons", "Rovers", "Comets", "Wolves", "Titans", "Hornets", "Mavericks", "Pioneers")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the class_session, freeze, training_package, assessment, team and fixture tables."""
    party_fk, staff_fk = f"{snake(L['party'])}_id", f"{snake(L['staff'])}_id"
    ents: dict[str, Entity] = {}
    if has("class_session"):
        ents["class_session"] = Entity("class_session", L["class_session"], [
            pk_col(), Col("title", "TEXT"), fk_col(L, "site"), fk_col(L, "staff"), Col("starts_at", "TEXT"),
            Col("capacity", "INTEGER", minimum=1), Col("spots_booked", "INTEGER", minimum=0),
            Col("status", "TEXT", enum=CLASS_STATUSES),
        ], f"The timetable of classes at each {L['site']}; a class is cancelled only before it starts, and its "
           "capacity never drops below the spots already booked.",
            filters=("title", f"{snake(L['site'])}_id", staff_fk, "status"))
    if has("freeze"):
        ents["freeze"] = Entity("freeze", L["freeze"], [
            pk_col(), fk_col(L, "subscription"), Col("reason", "TEXT", enum=FREEZE_REASONS),
            Col("starts_on", "TEXT"), Col("ends_on", "TEXT"), Col("status", "TEXT", enum=FREEZE_STATUSES),
            Col("requested_at", "TEXT"),
        ], f"Pauses of {plural(L['subscription'])}, at most {MAX_FREEZE_DAYS} days each and never two at once.",
            filters=(f"{snake(L['subscription'])}_id", "status"))
    if has("training_package"):
        ents["training_package"] = Entity("training_package", L["training_package"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "staff"), Col("sessions_total", "INTEGER", minimum=1),
            Col("sessions_used", "INTEGER", minimum=0), Col("price", "REAL", minimum=0),
            Col("purchased_on", "TEXT"), Col("expires_on", "TEXT"), Col("status", "TEXT", enum=PACKAGE_STATUSES),
        ], f"Prepaid one-to-one sessions with a {L['staff']}; a session is redeemed only while some remain and "
           "before the package expires.", filters=(party_fk, staff_fk, "status"))
    if has("assessment"):
        ents["assessment"] = Entity("assessment", L["assessment"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "staff"), Col("weight_kg", "REAL", minimum=30, maximum=250),
            Col("body_fat_pct", "REAL", minimum=3, maximum=60), Col("resting_heart_rate", "INTEGER", minimum=30,
                                                                     maximum=120),
            Col("assessed_on", "TEXT"),
        ], f"Measurements taken of {plural(L['party'])}; only of one who has signed the waiver.",
            filters=(party_fk, staff_fk))
    if has("team"):
        ents["team"] = Entity("team", L["team"], [
            pk_col(), Col("name", "TEXT", unique=True), fk_col(L, "category"), fk_col(L, "party", name="captain_id"),
            Col("wins", "INTEGER", minimum=0), Col("losses", "INTEGER", minimum=0),
        ], f"Teams entered in a {L['category']}, each with a captain and its record.",
            filters=("name", f"{snake(L['category'])}_id"))
    if has("fixture"):
        team_fk = f"{snake(L['team'])}_id"
        ents["fixture"] = Entity("fixture", L["fixture"], [
            pk_col(), fk_col(L, "team", name=f"home_{team_fk}"), fk_col(L, "team", name=f"away_{team_fk}"),
            fk_col(L, "site"), Col("starts_at", "TEXT"), Col("home_score", "INTEGER", nullable=True, minimum=0),
            Col("away_score", "INTEGER", nullable=True, minimum=0), Col("status", "TEXT", enum=FIXTURE_STATUSES),
        ], f"Games between {plural(L['team'])}; a result is recorded only once the game has started.",
            filters=(f"home_{team_fk}", f"away_{team_fk}", f"{snake(L['site'])}_id", "status"))
    return ents


def fill_classes(gen: RowGen) -> None:
    titles = CLASS_TITLES.get(gen.sc.domain, DEFAULT_TITLES)
    for site in gen.rows["site"]:
        staff = [s["id"] for s in gen.rows["staff"] if s[gen.fk("site")] == site["id"]] or [gen.rows["staff"][0]["id"]]
        for offset in range(-2, 5):
            for at in gen.rng.sample(CLASS_TIMES, 2):
                starts = f"{day(REFERENCE_NOW + timedelta(days=offset))}T{at}:00"
                capacity = gen.rng.choice((12, 16, 20, 24))
                status = "completed" if starts < iso(REFERENCE_NOW) else "scheduled"
                if status == "scheduled" and gen.rng.random() < 0.08:
                    status = "cancelled"
                gen.add("class_session", {"title": gen.rng.choice(titles), gen.fk("site"): site["id"],
                                          gen.fk("staff"): gen.rng.choice(staff), "starts_at": starts,
                                          "capacity": capacity, "spots_booked": gen.rng.randint(capacity // 3, capacity),
                                          "status": status})


def fill_freezes(gen: RowGen) -> None:
    for sub in gen.rows["subscription"]:
        if sub["status"] == "cancelled" or gen.rng.random() < 0.6:
            continue
        start = gen.between(sub["started_on"] + "T09:00:00", REFERENCE_NOW + timedelta(days=20))
        end = start + timedelta(days=gen.rng.choice((14, 21, 30, 45, 60)))
        status = "scheduled" if start > REFERENCE_NOW else "active" if end > REFERENCE_NOW else "ended"
        if status == "scheduled" and gen.rng.random() < 0.2:
            status = "cancelled"
        gen.add("freeze", {gen.fk("subscription"): sub["id"], "reason": gen.rng.choice(FREEZE_REASONS),
                           "starts_on": day(start), "ends_on": day(end), "status": status,
                           "requested_at": iso(start - timedelta(days=gen.rng.randint(1, 10)))})


def fill_packages(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"]]
    for party in gen.rows["party"]:
        if gen.rng.random() < 0.55:
            continue
        total = gen.rng.choice(PACKAGE_SIZES)
        bought = gen.between(party["created_at"], gen.past(3, 3))
        expires = bought + timedelta(days=180)
        used = gen.rng.randint(0, total)
        status = "used_up" if used == total else "expired" if expires < REFERENCE_NOW else "active"
        gen.add("training_package", {gen.fk("party"): party["id"], gen.fk("staff"): gen.rng.choice(staff),
                                     "sessions_total": total, "sessions_used": used,
                                     "price": round(total * gen.rng.choice((55, 65, 70, 85, 95)), 2),
                                     "purchased_on": day(bought), "expires_on": day(expires), "status": status})


def fill_assessments(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"]]
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2))):
            gen.add("assessment", {gen.fk("party"): party["id"], gen.fk("staff"): gen.rng.choice(staff),
                                   "weight_kg": round(gen.rng.uniform(48, 115), 1),
                                   "body_fat_pct": round(gen.rng.uniform(9, 38), 1),
                                   "resting_heart_rate": gen.rng.randint(48, 88),
                                   "assessed_on": day(gen.between(party["created_at"]))})


def fill_teams(gen: RowGen) -> None:
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    names = [f"{place} {word}" for place in TEAM_PLACES for word in TEAM_WORDS]
    gen.rng.shuffle(names)
    for category in gen.rows["category"]:
        for _ in range(4):
            gen.add("team", {"name": names.pop(), gen.fk("category"): category["id"],
                             "captain_id": gen.rng.choice(parties), "wins": 0, "losses": 0})


def fill_fixtures(gen: RowGen) -> None:
    sites = [s["id"] for s in gen.rows["site"]]
    team_fk = gen.fk("team")
    by_category: dict[int, list[dict]] = {}
    for team in gen.rows["team"]:
        by_category.setdefault(team[gen.fk("category")], []).append(team)
    for teams in by_category.values():
        for k, (home, away) in enumerate((a, b) for i, a in enumerate(teams) for b in teams[i + 1:]):
            starts = gen.past(2, 40) if k % 3 != 2 else gen.future(2, 30)
            status = "played" if starts < REFERENCE_NOW else "scheduled"
            if status == "played" and gen.rng.random() < 0.25:
                status = "scheduled"  # played, its result not yet entered
            elif status == "scheduled" and gen.rng.random() < 0.15:
                status = "postponed"
            scores = (gen.rng.randint(0, 6), gen.rng.randint(0, 6)) if status == "played" else (None, None)
            if status == "played" and scores[0] != scores[1]:
                winner, loser = (home, away) if scores[0] > scores[1] else (away, home)
                winner["wins"] += 1
                loser["losses"] += 1
            gen.add("fixture", {f"home_{team_fk}": home["id"], f"away_{team_fk}": away["id"],
                                gen.fk("site"): gen.rng.choice(sites), "starts_at": iso(starts),
                                "home_score": scores[0], "away_score": scores[1], "status": status})


FILL = {"class_session": fill_classes, "freeze": fill_freezes, "training_package": fill_packages, "assessment": fill_assessments,
        "team": fill_teams, "fixture": fill_fixtures}
