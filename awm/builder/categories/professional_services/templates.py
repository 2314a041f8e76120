"""Templates of the professional services entities' tools: logging time on open matters, drawing on retainers
within their balance, extending deadlines before they pass, signing letters before they lapse."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    CLIENT_RETAINER_LABEL,
    CLIENT_RETAINER_TABLE,
    ENGAGEMENT_LETTER_LABEL,
    ENGAGEMENT_LETTER_TABLE,
    FILING_DEADLINE_LABEL,
    FILING_DEADLINE_TABLE,
    MAX_LIMIT,
    OPEN_STATUSES,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    TIME_ENTRY_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def create_TIME_ENTRY(db, CASE_id, STAFF_id, worked_on, hours, description):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if refused := require_status_in(CASE, OPEN_STATUSES, CASE_LABEL, CASE["code"], "; time is logged only on an open one"):
        return refused
    if get_row(db, STAFF_TABLE, STAFF_id) is None:
        return missing(STAFF_LABEL, STAFF_id)
    if worked_on > TODAY:
        return error("invalid_argument", "worked_on must not be after " + TODAY)
    if hours <= 0 or hours > 12:
        return error("invalid_argument", "hours must be more than 0 and at most 12")
    logged = db.one("SELECT COALESCE(SUM(hours), 0) AS n FROM " + TIME_ENTRY_TABLE + " WHERE " + STAFF_FK + " = ? AND worked_on = ?", [STAFF_id, worked_on])["n"]
    if logged + hours > MAX_LIMIT:
        return error("over_limit", STAFF_LABEL + " " + str(STAFF_id) + " already has " + str(logged) + " hours on " + worked_on)
    return insert_row(db, TIME_ENTRY_TABLE, {CASE_FK: CASE_id, STAFF_FK: STAFF_id, "worked_on": worked_on, "hours": round(hours, 2), "description": description, "billable": 1, "status": "unbilled"})


def draw_CLIENT_RETAINER(db, CLIENT_RETAINER_id, amount):
    CLIENT_RETAINER = get_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id)
    if CLIENT_RETAINER is None:
        return missing(CLIENT_RETAINER_LABEL, CLIENT_RETAINER_id)
    if refused := require_status(CLIENT_RETAINER, "active", CLIENT_RETAINER_LABEL, CLIENT_RETAINER["number"]):
        return refused
    if amount <= 0:
        return error("invalid_argument", "amount must be positive")
    if amount > CLIENT_RETAINER["balance"]:
        return error("insufficient_funds", CLIENT_RETAINER_LABEL + " " + CLIENT_RETAINER["number"] + " holds only " + str(CLIENT_RETAINER["balance"]))
    return update_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id, {"balance": round(CLIENT_RETAINER["balance"] - amount, 2)})


def top_up_CLIENT_RETAINER(db, CLIENT_RETAINER_id, amount):
    CLIENT_RETAINER = get_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id)
    if CLIENT_RETAINER is None:
        return missing(CLIENT_RETAINER_LABEL, CLIENT_RETAINER_id)
    if refused := require_status(CLIENT_RETAINER, "active", CLIENT_RETAINER_LABEL, CLIENT_RETAINER["number"]):
        return refused
    if amount <= 0:
        return error("invalid_argument", "amount must be positive")
    return update_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id, {"balance": round(CLIENT_RETAINER["balance"] + amount, 2)})


def close_CLIENT_RETAINER(db, CLIENT_RETAINER_id):
    CLIENT_RETAINER = get_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id)
    if CLIENT_RETAINER is None:
        return missing(CLIENT_RETAINER_LABEL, CLIENT_RETAINER_id)
    if refused := require_status(CLIENT_RETAINER, "active", CLIENT_RETAINER_LABEL, CLIENT_RETAINER["number"]):
        return refused
    if CLIENT_RETAINER["balance"] > 0:
        return error("not_allowed", CLIENT_RETAINER_LABEL + " " + CLIENT_RETAINER["number"] + " still holds " + str(CLIENT_RETAINER["balance"]))
    return update_row(db, CLIENT_RETAINER_TABLE, CLIENT_RETAINER_id, {"status": "closed"})


def extend_FILING_DEADLINE(db, FILING_DEADLINE_id, due_on):
    FILING_DEADLINE = get_row(db, FILING_DEADLINE_TABLE, FILING_DEADLINE_id)
    if FILING_DEADLINE is None:
        return missing(FILING_DEADLINE_LABEL, FILING_DEADLINE_id)
    if refused := require_status(FILING_DEADLINE, "open", FILING_DEADLINE_LABEL, str(FILING_DEADLINE_id), "; only an open deadline is extended, once"):
        return refused
    if FILING_DEADLINE["due_on"] < TODAY:
        return error("window_closed", FILING_DEADLINE_LABEL + " " + str(FILING_DEADLINE_id) + " passed on " + FILING_DEADLINE["due_on"])
    if due_on <= FILING_DEADLINE["due_on"]:
        return error("invalid_argument", "the new date must be after " + FILING_DEADLINE["due_on"])
    return update_row(db, FILING_DEADLINE_TABLE, FILING_DEADLINE_id, {"status": "extended", "due_on": due_on})


def sign_ENGAGEMENT_LETTER(db, ENGAGEMENT_LETTER_id):
    ENGAGEMENT_LETTER = get_row(db, ENGAGEMENT_LETTER_TABLE, ENGAGEMENT_LETTER_id)
    if ENGAGEMENT_LETTER is None:
        return missing(ENGAGEMENT_LETTER_LABEL, ENGAGEMENT_LETTER_id)
    if refused := require_status(ENGAGEMENT_LETTER, "sent", ENGAGEMENT_LETTER_LABEL, str(ENGAGEMENT_LETTER_id)):
        return refused
    if ENGAGEMENT_LETTER["expires_on"] < TODAY:
        return error("expired", ENGAGEMENT_LETTER_LABEL + " " + str(ENGAGEMENT_LETTER_id) + " expired on " + ENGAGEMENT_LETTER["expires_on"] + "; send a new one")
    return update_row(db, ENGAGEMENT_LETTER_TABLE, ENGAGEMENT_LETTER_id, {"status": "signed"})
