"""Templates of the payment tools."""

from awm.builder.templates.placeholders import (
    CANCELLED,
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    PAYMENT_LABEL,
    PAYMENT_TABLE,
    REFUNDABLE,
    REFUNDABLE_TEXT,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, transition


def record_PAYMENT(db, CASE_id, amount, method):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] == CANCELLED:
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " is " + CANCELLED)
    return insert_row(db, PAYMENT_TABLE, {CASE_FK: CASE_id, "amount": round(amount, 2), "method": method, "status": "captured", "paid_at": REFERENCE_NOW, "refund_reason": None})


def refund_PAYMENT(db, PAYMENT_id, reason):
    PAYMENT = get_row(db, PAYMENT_TABLE, PAYMENT_id)
    if PAYMENT is None:
        return missing(PAYMENT_LABEL, PAYMENT_id)
    CASE = get_row(db, CASE_TABLE, PAYMENT[CASE_FK])
    if CASE["status"] not in REFUNDABLE:
        return error("invalid_state", "cannot refund: " + CASE_LABEL + " " + CASE["code"] + " is " + CASE["status"] + ", not " + REFUNDABLE_TEXT)
    return transition(db, PAYMENT_TABLE, PAYMENT_LABEL, PAYMENT_id, "refund", ("captured",), "refunded", {"refund_reason": reason})
