"""Templates of the promotion tools."""

from awm.builder.templates.placeholders import (
    CASE_LABEL,
    CASE_TABLE,
    EDITABLE,
    PROMOTION_FK,
    PROMOTION_LABEL,
    PROMOTION_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status_in


def apply_PROMOTION(db, CASE_id, code):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if refused := require_status_in(CASE, EDITABLE, CASE_LABEL, CASE["code"]):
        return refused
    if CASE[PROMOTION_FK] is not None:
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " already has a " + PROMOTION_LABEL)
    promo = db.one("SELECT * FROM " + PROMOTION_TABLE + " WHERE code = ?", [code])
    if promo is None:
        return error("not_found", "no " + PROMOTION_LABEL + " with code " + code)
    if promo["active"] and promo["valid_to"] < TODAY:
        return error("expired", PROMOTION_LABEL + " " + code + " expired on " + promo["valid_to"])
    if not promo["active"] or not (promo["valid_from"] <= TODAY <= promo["valid_to"]):
        return error("invalid_state", PROMOTION_LABEL + " " + code + " is not valid today")
    discount = round(CASE["total_amount"] * promo["percent_off"] / 100, 2)
    return update_row(db, CASE_TABLE, CASE_id, {PROMOTION_FK: promo["id"], "discount_amount": discount, "total_amount": round(CASE["total_amount"] - discount, 2)})
