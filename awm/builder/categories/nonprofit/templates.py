"""Templates of the nonprofit entities' tools: submitting grant applications by their deadline, recording awards and
pledge payments within what was asked or promised, registering for events with seats left, logging service hours."""

from awm.builder.templates.placeholders import (
    CHARITY_EVENT_FK,
    CHARITY_EVENT_LABEL,
    CHARITY_EVENT_TABLE,
    EVENT_SIGNUP_TABLE,
    GRANT_APPLICATION_LABEL,
    GRANT_APPLICATION_TABLE,
    MAX_LIMIT,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    PLEDGE_LABEL,
    PLEDGE_TABLE,
    SERVICE_LOG_TABLE,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def submit_GRANT_APPLICATION(db, GRANT_APPLICATION_id):
    GRANT_APPLICATION = get_row(db, GRANT_APPLICATION_TABLE, GRANT_APPLICATION_id)
    if GRANT_APPLICATION is None:
        return missing(GRANT_APPLICATION_LABEL, GRANT_APPLICATION_id)
    if refused := require_status(GRANT_APPLICATION, "drafting", GRANT_APPLICATION_LABEL, GRANT_APPLICATION["number"]):
        return refused
    if GRANT_APPLICATION["deadline"] < TODAY:
        return error("window_closed", GRANT_APPLICATION_LABEL + " " + GRANT_APPLICATION["number"] + " was due by " + GRANT_APPLICATION["deadline"])
    return update_row(db, GRANT_APPLICATION_TABLE, GRANT_APPLICATION_id, {"status": "submitted"})


def record_award_GRANT_APPLICATION(db, GRANT_APPLICATION_id, amount_awarded):
    GRANT_APPLICATION = get_row(db, GRANT_APPLICATION_TABLE, GRANT_APPLICATION_id)
    if GRANT_APPLICATION is None:
        return missing(GRANT_APPLICATION_LABEL, GRANT_APPLICATION_id)
    if refused := require_status(GRANT_APPLICATION, "submitted", GRANT_APPLICATION_LABEL, GRANT_APPLICATION["number"]):
        return refused
    if amount_awarded <= 0 or amount_awarded > GRANT_APPLICATION["amount_requested"]:
        return error("over_limit", "the award must be more than 0 and at most the " + str(GRANT_APPLICATION["amount_requested"]) + " requested")
    return update_row(db, GRANT_APPLICATION_TABLE, GRANT_APPLICATION_id, {"status": "awarded", "amount_awarded": round(amount_awarded, 2)})


def record_payment_PLEDGE(db, PLEDGE_id, amount):
    PLEDGE = get_row(db, PLEDGE_TABLE, PLEDGE_id)
    if PLEDGE is None:
        return missing(PLEDGE_LABEL, PLEDGE_id)
    if refused := require_status(PLEDGE, "open", PLEDGE_LABEL, PLEDGE["number"]):
        return refused
    owed = round(PLEDGE["amount_pledged"] - PLEDGE["amount_paid"], 2)
    if amount <= 0 or amount > owed:
        return error("over_limit", PLEDGE_LABEL + " " + PLEDGE["number"] + " has " + str(owed) + " still owed")
    paid = round(PLEDGE["amount_paid"] + amount, 2)
    return update_row(db, PLEDGE_TABLE, PLEDGE_id, {"amount_paid": paid, "status": "fulfilled" if paid >= PLEDGE["amount_pledged"] else "open"})


def create_EVENT_SIGNUP(db, CHARITY_EVENT_id, PARTY_id):
    CHARITY_EVENT = get_row(db, CHARITY_EVENT_TABLE, CHARITY_EVENT_id)
    if CHARITY_EVENT is None:
        return missing(CHARITY_EVENT_LABEL, CHARITY_EVENT_id)
    if CHARITY_EVENT["status"] != "scheduled" or CHARITY_EVENT["starts_on"] < TODAY:
        return error("invalid_state", CHARITY_EVENT_LABEL + " " + CHARITY_EVENT["name"] + " is " + CHARITY_EVENT["status"])
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    if db.one("SELECT id FROM " + EVENT_SIGNUP_TABLE + " WHERE " + CHARITY_EVENT_FK + " = ? AND " + PARTY_FK + " = ? AND status = 'registered'", [CHARITY_EVENT_id, PARTY_id]) is not None:
        return error("conflict", PARTY_LABEL + " " + str(PARTY_id) + " is already registered")
    taken = db.one("SELECT COUNT(*) AS n FROM " + EVENT_SIGNUP_TABLE + " WHERE " + CHARITY_EVENT_FK + " = ? AND status = 'registered'", [CHARITY_EVENT_id])["n"]
    if taken >= CHARITY_EVENT["capacity"]:
        return error("event_full", CHARITY_EVENT_LABEL + " " + CHARITY_EVENT["name"] + " has all " + str(CHARITY_EVENT["capacity"]) + " places taken")
    return insert_row(db, EVENT_SIGNUP_TABLE, {CHARITY_EVENT_FK: CHARITY_EVENT_id, PARTY_FK: PARTY_id, "status": "registered", "registered_on": TODAY})


def create_SERVICE_LOG(db, PARTY_id, SITE_id, served_on, hours, activity):
    if get_row(db, PARTY_TABLE, PARTY_id) is None:
        return missing(PARTY_LABEL, PARTY_id)
    if get_row(db, SITE_TABLE, SITE_id) is None:
        return missing(SITE_LABEL, SITE_id)
    if served_on > TODAY:
        return error("invalid_argument", "served_on must not be after " + TODAY)
    logged = db.one("SELECT COALESCE(SUM(hours), 0) AS n FROM " + SERVICE_LOG_TABLE + " WHERE " + PARTY_FK + " = ? AND served_on = ? AND status != 'rejected'", [PARTY_id, served_on])["n"]
    if hours <= 0 or logged + hours > MAX_LIMIT:
        return error("over_limit", PARTY_LABEL + " " + str(PARTY_id) + " already has " + str(logged) + " hours on " + served_on + "; at most " + str(MAX_LIMIT) + " a day")
    return insert_row(db, SERVICE_LOG_TABLE, {PARTY_FK: PARTY_id, SITE_FK: SITE_id, "served_on": served_on, "hours": round(hours, 2), "activity": activity, "status": "pending"})
