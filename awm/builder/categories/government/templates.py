"""Templates of the government entities' tools: renewing licences near expiry, recording inspection results,
appealing fines within their window, extending records requests once."""

from awm.builder.templates.placeholders import (
    CUTOFF,
    FAR_CUTOFF,
    FINE_NOTICE_LABEL,
    FINE_NOTICE_TABLE,
    INSPECTION_VISIT_LABEL,
    INSPECTION_VISIT_TABLE,
    ISSUED_LICENCE_LABEL,
    ISSUED_LICENCE_TABLE,
    RECORDS_REQUEST_LABEL,
    RECORDS_REQUEST_TABLE,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def renew_ISSUED_LICENCE(db, ISSUED_LICENCE_id, expires_on):
    ISSUED_LICENCE = get_row(db, ISSUED_LICENCE_TABLE, ISSUED_LICENCE_id)
    if ISSUED_LICENCE is None:
        return missing(ISSUED_LICENCE_LABEL, ISSUED_LICENCE_id)
    if refused := require_status_in(ISSUED_LICENCE, ("active", "expired"), ISSUED_LICENCE_LABEL, ISSUED_LICENCE["number"]):
        return refused
    if ISSUED_LICENCE["expires_on"] > FAR_CUTOFF:
        return error("window_closed", ISSUED_LICENCE_LABEL + " " + ISSUED_LICENCE["number"] + " expires on " + ISSUED_LICENCE["expires_on"] + "; renewal opens " + WINDOW_TEXT + " days before")
    if expires_on <= TODAY or expires_on <= ISSUED_LICENCE["expires_on"]:
        return error("invalid_argument", "the new expiry must be after " + max(TODAY, ISSUED_LICENCE["expires_on"]))
    return update_row(db, ISSUED_LICENCE_TABLE, ISSUED_LICENCE_id, {"status": "active", "expires_on": expires_on})


def record_result_INSPECTION_VISIT(db, INSPECTION_VISIT_id, result, note=None):
    INSPECTION_VISIT = get_row(db, INSPECTION_VISIT_TABLE, INSPECTION_VISIT_id)
    if INSPECTION_VISIT is None:
        return missing(INSPECTION_VISIT_LABEL, INSPECTION_VISIT_id)
    if refused := require_status(INSPECTION_VISIT, "scheduled", INSPECTION_VISIT_LABEL, str(INSPECTION_VISIT_id)):
        return refused
    if INSPECTION_VISIT["scheduled_on"] > TODAY:
        return error("too_early", INSPECTION_VISIT_LABEL + " " + str(INSPECTION_VISIT_id) + " is scheduled for " + INSPECTION_VISIT["scheduled_on"] + "; no result before then")
    return update_row(db, INSPECTION_VISIT_TABLE, INSPECTION_VISIT_id, {"status": result, "result_note": note})


def appeal_FINE_NOTICE(db, FINE_NOTICE_id, grounds):
    FINE_NOTICE = get_row(db, FINE_NOTICE_TABLE, FINE_NOTICE_id)
    if FINE_NOTICE is None:
        return missing(FINE_NOTICE_LABEL, FINE_NOTICE_id)
    if refused := require_status(FINE_NOTICE, "unpaid", FINE_NOTICE_LABEL, FINE_NOTICE["number"]):
        return refused
    if FINE_NOTICE["issued_on"] < CUTOFF:
        return error("window_closed", FINE_NOTICE_LABEL + " " + FINE_NOTICE["number"] + " was issued on " + FINE_NOTICE["issued_on"] + "; appeals close " + WINDOW_TEXT + " days after issue")
    return update_row(db, FINE_NOTICE_TABLE, FINE_NOTICE_id, {"status": "appealed", "appeal_grounds": grounds})


def extend_RECORDS_REQUEST(db, RECORDS_REQUEST_id, due_on):
    RECORDS_REQUEST = get_row(db, RECORDS_REQUEST_TABLE, RECORDS_REQUEST_id)
    if RECORDS_REQUEST is None:
        return missing(RECORDS_REQUEST_LABEL, RECORDS_REQUEST_id)
    if refused := require_status_in(RECORDS_REQUEST, ("received", "in_review"), RECORDS_REQUEST_LABEL, RECORDS_REQUEST["number"]):
        return refused
    if RECORDS_REQUEST["extended"]:
        return error("not_allowed", RECORDS_REQUEST_LABEL + " " + RECORDS_REQUEST["number"] + " was already extended once")
    if due_on <= RECORDS_REQUEST["due_on"]:
        return error("invalid_argument", "the new due date must be after " + RECORDS_REQUEST["due_on"])
    return update_row(db, RECORDS_REQUEST_TABLE, RECORDS_REQUEST_id, {"due_on": due_on, "extended": 1})
