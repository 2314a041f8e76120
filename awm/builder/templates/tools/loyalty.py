"""Templates of the loyalty tools: awarding and redeeming points."""

from awm.builder.templates.placeholders import (
    LOYALTY_ACCOUNT_FK,
    LOYALTY_ACCOUNT_LABEL,
    LOYALTY_ACCOUNT_TABLE,
    LOYALTY_ENTRY_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, update_row


def award_points(db, LOYALTY_ACCOUNT_id, points, reason):
    LOYALTY_ACCOUNT = get_row(db, LOYALTY_ACCOUNT_TABLE, LOYALTY_ACCOUNT_id)
    if LOYALTY_ACCOUNT is None:
        return missing(LOYALTY_ACCOUNT_LABEL, LOYALTY_ACCOUNT_id)
    insert_row(db, LOYALTY_ENTRY_TABLE, {LOYALTY_ACCOUNT_FK: LOYALTY_ACCOUNT_id, "points": points, "reason": reason, "posted_at": REFERENCE_NOW})
    return update_row(db, LOYALTY_ACCOUNT_TABLE, LOYALTY_ACCOUNT_id, {"points": LOYALTY_ACCOUNT["points"] + points})


def redeem_points(db, LOYALTY_ACCOUNT_id, points, reason):
    LOYALTY_ACCOUNT = get_row(db, LOYALTY_ACCOUNT_TABLE, LOYALTY_ACCOUNT_id)
    if LOYALTY_ACCOUNT is None:
        return missing(LOYALTY_ACCOUNT_LABEL, LOYALTY_ACCOUNT_id)
    if LOYALTY_ACCOUNT["points"] < points:
        return error("insufficient_points", "only " + str(LOYALTY_ACCOUNT["points"]) + " points available")
    insert_row(db, LOYALTY_ENTRY_TABLE, {LOYALTY_ACCOUNT_FK: LOYALTY_ACCOUNT_id, "points": -points, "reason": reason, "posted_at": REFERENCE_NOW})
    return update_row(db, LOYALTY_ACCOUNT_TABLE, LOYALTY_ACCOUNT_id, {"points": LOYALTY_ACCOUNT["points"] - points})
