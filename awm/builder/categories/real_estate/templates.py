"""Templates of the real estate entities' tools: terminating and extending leases, scheduling repairs."""

from awm.builder.templates.placeholders import (
    FAR_CUTOFF,
    LEASE_LABEL,
    LEASE_TABLE,
    REPAIR_REQUEST_LABEL,
    REPAIR_REQUEST_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def terminate_LEASE(db, LEASE_id, ends_on):
    LEASE = get_row(db, LEASE_TABLE, LEASE_id)
    if LEASE is None:
        return missing(LEASE_LABEL, LEASE_id)
    if refused := require_status(LEASE, "active", LEASE_LABEL, LEASE["number"]):
        return refused
    if ends_on < FAR_CUTOFF:
        return error("notice_too_short", "the earliest end is " + FAR_CUTOFF + " (" + WINDOW_TEXT + " days' notice)")
    if ends_on >= LEASE["ends_on"]:
        return error("invalid_argument", LEASE_LABEL + " " + LEASE["number"] + " already ends on " + LEASE["ends_on"])
    return update_row(db, LEASE_TABLE, LEASE_id, {"status": "terminated", "ends_on": ends_on})


def extend_LEASE(db, LEASE_id, ends_on):
    LEASE = get_row(db, LEASE_TABLE, LEASE_id)
    if LEASE is None:
        return missing(LEASE_LABEL, LEASE_id)
    if refused := require_status(LEASE, "active", LEASE_LABEL, LEASE["number"]):
        return refused
    if ends_on <= LEASE["ends_on"]:
        return error("invalid_argument", "the new end must be after " + LEASE["ends_on"])
    return update_row(db, LEASE_TABLE, LEASE_id, {"ends_on": ends_on})


def schedule_REPAIR_REQUEST(db, REPAIR_REQUEST_id, STAFF_id, scheduled_for):
    REPAIR_REQUEST = get_row(db, REPAIR_REQUEST_TABLE, REPAIR_REQUEST_id)
    if REPAIR_REQUEST is None:
        return missing(REPAIR_REQUEST_LABEL, REPAIR_REQUEST_id)
    if refused := require_status(REPAIR_REQUEST, "open", REPAIR_REQUEST_LABEL, str(REPAIR_REQUEST_id)):
        return refused
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    if scheduled_for <= REFERENCE_NOW:
        return error("invalid_argument", "scheduled_for must be after " + REFERENCE_NOW)
    return update_row(db, REPAIR_REQUEST_TABLE, REPAIR_REQUEST_id, {"status": "scheduled", STAFF_FK: STAFF_id, "scheduled_for": scheduled_for})
