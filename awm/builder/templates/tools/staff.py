"""Templates of the staff tools."""

from awm.builder.templates.placeholders import (
    CASE_PLURAL,
    CASE_TABLE,
    OPEN_STATUSES_SQL,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import error, get_row, missing, update_row


def deactivate_STAFF(db, STAFF_id):
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is already inactive")
    held = db.one("SELECT COUNT(*) AS n FROM " + CASE_TABLE + " WHERE " + STAFF_FK + " = ? AND status IN (" + OPEN_STATUSES_SQL + ")", [STAFF_id])
    if held["n"] > 0:
        return error("cases_assigned", str(held["n"]) + " open " + CASE_PLURAL + " are still assigned to this " + STAFF_LABEL)
    return update_row(db, STAFF_TABLE, STAFF_id, {"active": 0})
