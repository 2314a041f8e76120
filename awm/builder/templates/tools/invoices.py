"""Templates of the invoice tools (paying and voiding are generic transitions)."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    INVOICE_PREFIX,
    INVOICE_TABLE,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, next_code


def issue_INVOICE(db, PARTY_id, amount, due_on, CASE_id=None):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if CASE_id is not None:
        CASE = get_row(db, CASE_TABLE, CASE_id)
        if CASE is None:
            return missing(CASE_LABEL, CASE_id)
        if CASE[PARTY_FK] != PARTY_id:
            return error("invalid_argument", CASE_LABEL + " " + CASE["code"] + " belongs to another " + PARTY_LABEL)
    if due_on <= TODAY:
        return error("invalid_argument", "due_on must be after " + TODAY)
    return insert_row(db, INVOICE_TABLE, {"number": next_code(db, INVOICE_TABLE, "number", INVOICE_PREFIX, 5001), PARTY_FK: PARTY_id, CASE_FK: CASE_id, "amount": round(amount, 2), "issued_on": TODAY, "due_on": due_on, "status": "open"})
