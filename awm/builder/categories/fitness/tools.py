"""The tools of a gym's, studio's, club's or league's own entities (awm/builder/modules/packs/fitness.py):
group classes, membership freezes, training packages, fitness assessments, teams and fixtures; each with the rules its template
enforces."""

from __future__ import annotations

from awm.builder.categories.fitness import templates
from awm.builder.categories.fitness.entities import FREEZE_REASONS, MAX_FREEZE_DAYS
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLES = ("class_session", "freeze", "training_package", "assessment", "team", "fixture")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("class_session"):
        c = b.ent("class_session")
        b.list_tool("class_session")
        b.add(b.names.action("class_session", "cancel"), f"Cancel a scheduled {c.label} that has not started yet.",
              [b.id_param("class_session")], templates, "cancel_CLASS_SESSION", role="class_session", kind="action")
        b.add(b.names.action("class_session", "set_capacity"),
              f"Change how many places a scheduled {c.label} has; never fewer than the spots already booked.",
              [b.id_param("class_session"), Param("capacity", {**integer("places in the class"), "maximum": 60}, True)],
              templates, "set_capacity_CLASS_SESSION", role="class_session", kind="update")
    if b.has("freeze"):
        f, s = b.ent("freeze"), b.ent("subscription")
        b.list_tool("freeze")
        b.add(b.names.create("freeze"),
              f"Freeze an active {s.label} from a date (today or later) for a number of days, at most "
              f"{MAX_FREEZE_DAYS}; a {s.label} has one {f.label} at a time.",
              [b.id_param("subscription"), Param("starts_on", DATE, True),
               Param("days", integer("how many days the freeze lasts"), True),
               Param("reason", string("why", FREEZE_REASONS), True)],
              templates, "create_FREEZE", role="freeze", kind="create", MAX_LIMIT=MAX_FREEZE_DAYS)
        b.status_action("freeze", "cancel", ("scheduled",), "cancelled", f"Cancel a {f.label} that has not started.")
    if b.has("training_package"):
        t = b.ent("training_package")
        b.list_tool("training_package")
        b.add(b.names.action("training_package", "redeem_session"),
              f"Redeem one session of a {t.label}: it must not have expired and must have sessions left.",
              [b.id_param("training_package")], templates, "redeem_session_TRAINING_PACKAGE",
              role="training_package", kind="update")
    if b.has("assessment"):
        a, p = b.ent("assessment"), b.ent("party")
        b.list_tool("assessment")
        b.add(b.names.create("assessment"),
              f"Record a {a.label} taken today of a {p.label} who has signed the waiver, by an active "
              f"{b.ent('staff').label}.",
              [b.id_param("party"), b.id_param("staff"),
               Param("weight_kg", {**number("body weight in kg", 30), "maximum": 250}, True),
               Param("body_fat_pct", {**number("body fat in percent", 3), "maximum": 60}, True),
               Param("resting_heart_rate", {**integer("beats per minute", 30), "maximum": 120}, True)],
              templates, "create_ASSESSMENT", role="assessment", kind="create")
    if b.has("team"):
        b.list_tool("team")
    if b.has("fixture"):
        fx = b.ent("fixture")
        b.list_tool("fixture")
        b.add(b.names.action("fixture", "record_result"),
              f"Enter the final score of a scheduled {fx.label} that has started; the winner's and loser's records "
              "are updated.",
              [b.id_param("fixture"), Param("home_score", integer("points of the home team", 0), True),
               Param("away_score", integer("points of the away team", 0), True)],
              templates, "record_result_FIXTURE", role="fixture", kind="update")
        b.status_action("fixture", "postpone", ("scheduled",), "postponed", f"Postpone a scheduled {fx.label}.")
