"""Templates of the travel entities' tools: verifying documents, confirming segments, special requests."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    FAR_CUTOFF,
    SPECIAL_REQUEST_TABLE,
    TRAVEL_DOCUMENT_LABEL,
    TRAVEL_DOCUMENT_TABLE,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def verify_TRAVEL_DOCUMENT(db, TRAVEL_DOCUMENT_id):
    TRAVEL_DOCUMENT = get_row(db, TRAVEL_DOCUMENT_TABLE, TRAVEL_DOCUMENT_id)
    if TRAVEL_DOCUMENT is None:
        return missing(TRAVEL_DOCUMENT_LABEL, TRAVEL_DOCUMENT_id)
    if refused := require_status(TRAVEL_DOCUMENT, "pending", TRAVEL_DOCUMENT_LABEL, TRAVEL_DOCUMENT["document_number"]):
        return refused
    if TRAVEL_DOCUMENT["expires_on"] < FAR_CUTOFF:
        return error("expires_too_soon", TRAVEL_DOCUMENT_LABEL + " " + TRAVEL_DOCUMENT["document_number"] + " expires on " + TRAVEL_DOCUMENT["expires_on"] + ", less than " + WINDOW_TEXT + " days from today")
    return update_row(db, TRAVEL_DOCUMENT_TABLE, TRAVEL_DOCUMENT_id, {"status": "verified"})


def create_SPECIAL_REQUEST(db, CASE_id, kind):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] == "cancelled":
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " is cancelled")
    if db.one("SELECT id FROM " + SPECIAL_REQUEST_TABLE + " WHERE " + CASE_FK + " = ? AND kind = ? AND status != 'declined'", [CASE_id, kind]) is not None:
        return error("conflict", CASE_LABEL + " " + CASE["code"] + " already has a " + kind + " request")
    return insert_row(db, SPECIAL_REQUEST_TABLE, {CASE_FK: CASE_id, "kind": kind, "status": "requested", "requested_at": REFERENCE_NOW})
