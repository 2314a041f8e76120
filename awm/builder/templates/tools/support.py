"""Templates of the support ticket tools (escalating and resolving are generic transitions)."""

from awm.builder.templates.placeholders import (
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    TICKET_COMMENT_TABLE,
    TICKET_FK,
    TICKET_LABEL,
    TICKET_PREFIX,
    TICKET_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, next_code, update_row


def assign_TICKET(db, TICKET_id, STAFF_id):
    TICKET = get_row(db, TICKET_TABLE, TICKET_id)
    if TICKET is None:
        return missing(TICKET_LABEL, TICKET_id)
    if TICKET["status"] in ("resolved", "closed"):
        return error("invalid_state", TICKET_LABEL + " " + TICKET["number"] + " is " + TICKET["status"])
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("staff_inactive", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    status = "in_progress" if TICKET["status"] == "open" else TICKET["status"]
    return update_row(db, TICKET_TABLE, TICKET_id, {STAFF_FK: STAFF_id, "status": status})


def open_TICKET(db, PARTY_id, subject, priority, STAFF_id=None):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    status = "open"
    if STAFF_id is not None:
        STAFF = get_row(db, STAFF_TABLE, STAFF_id)
        if STAFF is None:
            return missing(STAFF_LABEL, STAFF_id)
        if not STAFF["active"]:
            return error("staff_inactive", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
        status = "in_progress"
    return insert_row(db, TICKET_TABLE, {"number": next_code(db, TICKET_TABLE, "number", TICKET_PREFIX, 801), PARTY_FK: PARTY_id, STAFF_FK: STAFF_id, "subject": subject, "priority": priority, "status": status, "opened_at": REFERENCE_NOW})


def set_TICKET_priority(db, TICKET_id, priority):
    TICKET = get_row(db, TICKET_TABLE, TICKET_id)
    if TICKET is None:
        return missing(TICKET_LABEL, TICKET_id)
    if TICKET["status"] in ("resolved", "closed"):
        return error("invalid_state", TICKET_LABEL + " " + TICKET["number"] + " is " + TICKET["status"])
    if TICKET["priority"] == priority:
        return error("invalid_argument", TICKET_LABEL + " " + TICKET["number"] + " is already " + priority)
    return update_row(db, TICKET_TABLE, TICKET_id, {"priority": priority})


def add_TICKET_COMMENT(db, TICKET_id, body, STAFF_id=None):
    TICKET = get_row(db, TICKET_TABLE, TICKET_id)
    if TICKET is None:
        return missing(TICKET_LABEL, TICKET_id)
    return insert_row(db, TICKET_COMMENT_TABLE, {TICKET_FK: TICKET_id, STAFF_FK: STAFF_id, "body": body, "created_at": REFERENCE_NOW})
