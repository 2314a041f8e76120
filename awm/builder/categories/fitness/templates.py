"""Templates of the fitness entities' tools: cancelling a class before it starts, resizing it to no fewer places
than are booked, freezing a membership for a limited time, redeeming a training
session, recording an assessment of someone who signed the waiver, entering a game's result."""

from awm.builder.templates.placeholders import (
    ASSESSMENT_TABLE,
    CLASS_SESSION_LABEL,
    CLASS_SESSION_TABLE,
    FIXTURE_LABEL,
    FIXTURE_TABLE,
    FREEZE_TABLE,
    MAX_LIMIT,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    SUBSCRIPTION_FK,
    SUBSCRIPTION_LABEL,
    SUBSCRIPTION_TABLE,
    TEAM_FK,
    TEAM_TABLE,
    TRAINING_PACKAGE_LABEL,
    TRAINING_PACKAGE_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def cancel_CLASS_SESSION(db, CLASS_SESSION_id):
    CLASS_SESSION = get_row(db, CLASS_SESSION_TABLE, CLASS_SESSION_id)
    if CLASS_SESSION is None:
        return missing(CLASS_SESSION_LABEL, CLASS_SESSION_id)
    if refused := require_status(CLASS_SESSION, "scheduled", CLASS_SESSION_LABEL, str(CLASS_SESSION_id)):
        return refused
    if CLASS_SESSION["starts_at"] <= REFERENCE_NOW:
        return error("window_closed", CLASS_SESSION_LABEL + " " + str(CLASS_SESSION_id) + " started at " + CLASS_SESSION["starts_at"])
    return update_row(db, CLASS_SESSION_TABLE, CLASS_SESSION_id, {"status": "cancelled"})


def set_capacity_CLASS_SESSION(db, CLASS_SESSION_id, capacity):
    CLASS_SESSION = get_row(db, CLASS_SESSION_TABLE, CLASS_SESSION_id)
    if CLASS_SESSION is None:
        return missing(CLASS_SESSION_LABEL, CLASS_SESSION_id)
    if refused := require_status(CLASS_SESSION, "scheduled", CLASS_SESSION_LABEL, str(CLASS_SESSION_id)):
        return refused
    if capacity < CLASS_SESSION["spots_booked"]:
        return error("below_booked", CLASS_SESSION_LABEL + " " + str(CLASS_SESSION_id) + " already has " + str(CLASS_SESSION["spots_booked"]) + " spots booked")
    return update_row(db, CLASS_SESSION_TABLE, CLASS_SESSION_id, {"capacity": capacity})


def create_FREEZE(db, SUBSCRIPTION_id, starts_on, days, reason):
    SUBSCRIPTION = get_row(db, SUBSCRIPTION_TABLE, SUBSCRIPTION_id)
    if SUBSCRIPTION is None:
        return missing(SUBSCRIPTION_LABEL, SUBSCRIPTION_id)
    if refused := require_status(SUBSCRIPTION, "active", SUBSCRIPTION_LABEL, str(SUBSCRIPTION_id)):
        return refused
    if days > MAX_LIMIT:
        return error("over_limit", "a freeze lasts at most " + str(MAX_LIMIT) + " days, not " + str(days))
    if starts_on < TODAY:
        return error("invalid_argument", "starts_on must be " + TODAY + " or later")
    ends_on = db.one("SELECT date(?, ?) AS d", [starts_on, "+" + str(days) + " days"])["d"]
    if db.one("SELECT id FROM " + FREEZE_TABLE + " WHERE " + SUBSCRIPTION_FK + " = ? AND status IN ('scheduled', 'active') AND starts_on < ? AND ends_on > ?", [SUBSCRIPTION_id, ends_on, starts_on]) is not None:
        return error("conflict", SUBSCRIPTION_LABEL + " " + str(SUBSCRIPTION_id) + " already has a freeze in that time")
    status = "active" if starts_on == TODAY else "scheduled"
    return insert_row(db, FREEZE_TABLE, {SUBSCRIPTION_FK: SUBSCRIPTION_id, "reason": reason, "starts_on": starts_on, "ends_on": ends_on, "status": status, "requested_at": REFERENCE_NOW})


def redeem_session_TRAINING_PACKAGE(db, TRAINING_PACKAGE_id):
    TRAINING_PACKAGE = get_row(db, TRAINING_PACKAGE_TABLE, TRAINING_PACKAGE_id)
    if TRAINING_PACKAGE is None:
        return missing(TRAINING_PACKAGE_LABEL, TRAINING_PACKAGE_id)
    if TRAINING_PACKAGE["expires_on"] < TODAY:
        return error("expired", TRAINING_PACKAGE_LABEL + " " + str(TRAINING_PACKAGE_id) + " expired on " + TRAINING_PACKAGE["expires_on"])
    if TRAINING_PACKAGE["sessions_used"] >= TRAINING_PACKAGE["sessions_total"]:
        return error("over_limit", "all " + str(TRAINING_PACKAGE["sessions_total"]) + " sessions of " + TRAINING_PACKAGE_LABEL + " " + str(TRAINING_PACKAGE_id) + " are used")
    used = TRAINING_PACKAGE["sessions_used"] + 1
    status = "used_up" if used == TRAINING_PACKAGE["sessions_total"] else "active"
    return update_row(db, TRAINING_PACKAGE_TABLE, TRAINING_PACKAGE_id, {"sessions_used": used, "status": status})


def create_ASSESSMENT(db, PARTY_id, STAFF_id, weight_kg, body_fat_pct, resting_heart_rate):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if PARTY["waiver_signed"] != "yes":
        return error("waiver_missing", PARTY_LABEL + " " + str(PARTY_id) + " has not signed the waiver")
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is not active")
    return insert_row(db, ASSESSMENT_TABLE, {PARTY_FK: PARTY_id, STAFF_FK: STAFF_id, "weight_kg": round(weight_kg, 1), "body_fat_pct": round(body_fat_pct, 1), "resting_heart_rate": resting_heart_rate, "assessed_on": TODAY})


def record_result_FIXTURE(db, FIXTURE_id, home_score, away_score):
    FIXTURE = get_row(db, FIXTURE_TABLE, FIXTURE_id)
    if FIXTURE is None:
        return missing(FIXTURE_LABEL, FIXTURE_id)
    if refused := require_status(FIXTURE, "scheduled", FIXTURE_LABEL, str(FIXTURE_id)):
        return refused
    if FIXTURE["starts_at"] > REFERENCE_NOW:
        return error("not_started", FIXTURE_LABEL + " " + str(FIXTURE_id) + " starts at " + FIXTURE["starts_at"] + "; its result cannot be entered yet")
    if home_score > away_score:
        db.execute("UPDATE " + TEAM_TABLE + " SET wins = wins + 1 WHERE id = ?", [FIXTURE["home_" + TEAM_FK]])
        db.execute("UPDATE " + TEAM_TABLE + " SET losses = losses + 1 WHERE id = ?", [FIXTURE["away_" + TEAM_FK]])
    if away_score > home_score:
        db.execute("UPDATE " + TEAM_TABLE + " SET wins = wins + 1 WHERE id = ?", [FIXTURE["away_" + TEAM_FK]])
        db.execute("UPDATE " + TEAM_TABLE + " SET losses = losses + 1 WHERE id = ?", [FIXTURE["home_" + TEAM_FK]])
    return update_row(db, FIXTURE_TABLE, FIXTURE_id, {"home_score": home_score, "away_score": away_score, "status": "played"})
