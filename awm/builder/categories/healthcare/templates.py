"""Templates of the healthcare entities' tools: booking appointment slots, planning procedures, claims."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    CUTOFF,
    EDITABLE,
    INSURANCE_CLAIM_LABEL,
    INSURANCE_CLAIM_TABLE,
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    PROCEDURE_TABLE,
    SLOT_LABEL,
    SLOT_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    TIME_COLUMN,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def book_SLOT(db, SLOT_id, CASE_id):
    SLOT = get_row(db, SLOT_TABLE, SLOT_id)
    if SLOT is None:
        return missing(SLOT_LABEL, SLOT_id)
    if refused := require_status(SLOT, "open", SLOT_LABEL, str(SLOT_id)):
        return refused
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if refused := require_status_in(CASE, EDITABLE, CASE_LABEL, CASE["code"]):
        return refused
    db.execute("UPDATE " + SLOT_TABLE + " SET status = 'open', " + CASE_FK + " = NULL WHERE " + CASE_FK + " = ? AND status = 'booked'", [CASE_id])
    update_row(db, CASE_TABLE, CASE_id, {TIME_COLUMN: SLOT["starts_at"], STAFF_FK: SLOT[STAFF_FK]})
    return update_row(db, SLOT_TABLE, SLOT_id, {"status": "booked", CASE_FK: CASE_id})


def create_PROCEDURE(db, CASE_id, ITEM_id, procedure_code, body_site=None):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] in ("cancelled", "no_show", "returned", "withdrawn", "rejected"):
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " is " + CASE["status"])
    if CASE[STAFF_FK] is None:
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " has no " + STAFF_LABEL + " yet")
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    return insert_row(db, PROCEDURE_TABLE, {CASE_FK: CASE_id, ITEM_FK: ITEM_id, STAFF_FK: CASE[STAFF_FK], "procedure_code": procedure_code, "body_site": body_site, "status": "planned", "fee": ITEM["price"], "performed_on": None})


def submit_INSURANCE_CLAIM(db, INSURANCE_CLAIM_id):
    INSURANCE_CLAIM = get_row(db, INSURANCE_CLAIM_TABLE, INSURANCE_CLAIM_id)
    if INSURANCE_CLAIM is None:
        return missing(INSURANCE_CLAIM_LABEL, INSURANCE_CLAIM_id)
    if refused := require_status(INSURANCE_CLAIM, "draft", INSURANCE_CLAIM_LABEL, INSURANCE_CLAIM["number"], ", not draft"):
        return refused
    if INSURANCE_CLAIM["service_date"] < CUTOFF:
        return error("window_closed", INSURANCE_CLAIM_LABEL + " " + INSURANCE_CLAIM["number"] + " is for a service on " + INSURANCE_CLAIM["service_date"] + ", past the " + WINDOW_TEXT + "-day filing window")
    return update_row(db, INSURANCE_CLAIM_TABLE, INSURANCE_CLAIM_id, {"status": "submitted", "submitted_on": TODAY})


def approve_INSURANCE_CLAIM(db, INSURANCE_CLAIM_id, amount_approved):
    INSURANCE_CLAIM = get_row(db, INSURANCE_CLAIM_TABLE, INSURANCE_CLAIM_id)
    if INSURANCE_CLAIM is None:
        return missing(INSURANCE_CLAIM_LABEL, INSURANCE_CLAIM_id)
    if refused := require_status(INSURANCE_CLAIM, "submitted", INSURANCE_CLAIM_LABEL, INSURANCE_CLAIM["number"], ", not submitted"):
        return refused
    if amount_approved > INSURANCE_CLAIM["amount_claimed"]:
        return error("invalid_argument", "more than the " + str(INSURANCE_CLAIM["amount_claimed"]) + " claimed")
    return update_row(db, INSURANCE_CLAIM_TABLE, INSURANCE_CLAIM_id, {"status": "approved", "amount_approved": round(amount_approved, 2)})
