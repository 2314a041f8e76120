"""Templates of the education entities' tools: enrolling (a full section waitlists, a hold blocks), dropping,
sending transcripts (not while fees are unpaid)."""

from awm.builder.templates.placeholders import (
    ENROLMENT_LABEL,
    ENROLMENT_TABLE,
    HAS_HOLDS,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    REGISTRATION_HOLD_TABLE,
    SECTION_FK,
    SECTION_LABEL,
    SECTION_TABLE,
    TRANSCRIPT_REQUEST_LABEL,
    TRANSCRIPT_REQUEST_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def create_ENROLMENT(db, PARTY_id, SECTION_id):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    if HAS_HOLDS:
        hold = db.one("SELECT reason FROM " + REGISTRATION_HOLD_TABLE + " WHERE " + PARTY_FK + " = ? AND status = 'active'", [PARTY_id])
        if hold is not None:
            return error("on_hold", PARTY_LABEL + " " + str(PARTY_id) + " has an active hold: " + hold["reason"])
    SECTION = get_row(db, SECTION_TABLE, SECTION_id)
    if SECTION is None:
        return missing(SECTION_LABEL, SECTION_id)
    if SECTION["status"] != "open":
        return error("invalid_state", SECTION_LABEL + " " + SECTION["code"] + " is closed")
    if db.one("SELECT id FROM " + ENROLMENT_TABLE + " WHERE " + PARTY_FK + " = ? AND " + SECTION_FK + " = ? AND status IN ('enrolled', 'waitlisted')", [PARTY_id, SECTION_id]) is not None:
        return error("conflict", "already enrolled or waitlisted in " + SECTION["code"])
    status = "enrolled" if SECTION["enrolled"] < SECTION["capacity"] else "waitlisted"
    if status == "enrolled":
        db.execute("UPDATE " + SECTION_TABLE + " SET enrolled = enrolled + 1 WHERE id = ?", [SECTION_id])
    return insert_row(db, ENROLMENT_TABLE, {PARTY_FK: PARTY_id, SECTION_FK: SECTION_id, "status": status, "grade": None, "enrolled_at": REFERENCE_NOW})


def drop_ENROLMENT(db, ENROLMENT_id):
    ENROLMENT = get_row(db, ENROLMENT_TABLE, ENROLMENT_id)
    if ENROLMENT is None:
        return missing(ENROLMENT_LABEL, ENROLMENT_id)
    if refused := require_status_in(ENROLMENT, ("enrolled", "waitlisted"), ENROLMENT_LABEL, str(ENROLMENT_id)):
        return refused
    if ENROLMENT["status"] == "enrolled":
        db.execute("UPDATE " + SECTION_TABLE + " SET enrolled = enrolled - 1 WHERE id = ?", [ENROLMENT[SECTION_FK]])
    return update_row(db, ENROLMENT_TABLE, ENROLMENT_id, {"status": "dropped"})


def create_TRANSCRIPT_REQUEST(db, PARTY_id, destination, copies):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    return insert_row(db, TRANSCRIPT_REQUEST_TABLE, {PARTY_FK: PARTY_id, "destination": destination, "copies": copies, "status": "requested", "requested_at": REFERENCE_NOW, "sent_on": None})


def mail_TRANSCRIPT_REQUEST(db, TRANSCRIPT_REQUEST_id):
    TRANSCRIPT_REQUEST = get_row(db, TRANSCRIPT_REQUEST_TABLE, TRANSCRIPT_REQUEST_id)
    if TRANSCRIPT_REQUEST is None:
        return missing(TRANSCRIPT_REQUEST_LABEL, TRANSCRIPT_REQUEST_id)
    if refused := require_status(TRANSCRIPT_REQUEST, "requested", TRANSCRIPT_REQUEST_LABEL, str(TRANSCRIPT_REQUEST_id)):
        return refused
    if HAS_HOLDS:
        if db.one("SELECT id FROM " + REGISTRATION_HOLD_TABLE + " WHERE " + PARTY_FK + " = ? AND status = 'active' AND reason = 'unpaid_fees'", [TRANSCRIPT_REQUEST[PARTY_FK]]) is not None:
            return error("on_hold", "the " + PARTY_LABEL + " has unpaid fees")
    return update_row(db, TRANSCRIPT_REQUEST_TABLE, TRANSCRIPT_REQUEST_id, {"status": "sent", "sent_on": TODAY})
