"""Templates of the shift tools (cancelling is a generic transition)."""

from awm.builder.templates.placeholders import (
    SHIFT_LABEL,
    SHIFT_TABLE,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing


def schedule_SHIFT(db, STAFF_id, SITE_id, shift_date, start_time, end_time):
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("staff_inactive", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    if shift_date <= TODAY:
        return error("invalid_argument", "shift_date must be after " + TODAY)
    if end_time <= start_time:
        return error("invalid_argument", "end_time must be after start_time")
    if db.one("SELECT id FROM " + SHIFT_TABLE + " WHERE " + STAFF_FK + " = ? AND shift_date = ? AND status = 'scheduled'", [STAFF_id, shift_date]) is not None:
        return error("conflict", STAFF_LABEL + " already has a " + SHIFT_LABEL + " on " + shift_date)
    return insert_row(db, SHIFT_TABLE, {STAFF_FK: STAFF_id, SITE_FK: SITE_id, "shift_date": shift_date, "start_time": start_time, "end_time": end_time, "status": "scheduled"})
