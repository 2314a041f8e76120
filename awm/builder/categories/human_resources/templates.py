"""Templates of the human resources entities' tools: approving leave that does not overlap approved leave."""

from awm.builder.templates.placeholders import LEAVE_REQUEST_LABEL, LEAVE_REQUEST_TABLE, STAFF_FK
from awm.builder.templates.tool_prelude import error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def approve_LEAVE_REQUEST(db, LEAVE_REQUEST_id):
    LEAVE_REQUEST = get_row(db, LEAVE_REQUEST_TABLE, LEAVE_REQUEST_id)
    if LEAVE_REQUEST is None:
        return missing(LEAVE_REQUEST_LABEL, LEAVE_REQUEST_id)
    if refused := require_status(LEAVE_REQUEST, "pending", LEAVE_REQUEST_LABEL, str(LEAVE_REQUEST_id)):
        return refused
    clash = db.one("SELECT id FROM " + LEAVE_REQUEST_TABLE + " WHERE " + STAFF_FK + " = ? AND status = 'approved' AND starts_on <= ? AND ends_on >= ?", [LEAVE_REQUEST[STAFF_FK], LEAVE_REQUEST["ends_on"], LEAVE_REQUEST["starts_on"]])
    if clash is not None:
        return error("conflict", "it overlaps approved " + LEAVE_REQUEST_LABEL + " " + str(clash["id"]))
    return update_row(db, LEAVE_REQUEST_TABLE, LEAVE_REQUEST_id, {"status": "approved"})
