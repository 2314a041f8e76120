"""Templates of the subscription tools (pausing, resuming and cancelling are generic transitions)."""

from awm.builder.templates.placeholders import ITEM_FK, ITEM_LABEL, ITEM_TABLE, SUBSCRIPTION_LABEL, SUBSCRIPTION_TABLE
from awm.builder.templates.tool_prelude import error, get_row, missing, update_row


def change_SUBSCRIPTION_plan(db, SUBSCRIPTION_id, ITEM_id):
    SUBSCRIPTION = get_row(db, SUBSCRIPTION_TABLE, SUBSCRIPTION_id)
    if SUBSCRIPTION is None:
        return missing(SUBSCRIPTION_LABEL, SUBSCRIPTION_id)
    if SUBSCRIPTION["status"] not in ("active", "paused"):
        return error("invalid_state", "the " + SUBSCRIPTION_LABEL + " is " + SUBSCRIPTION["status"])
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    if not ITEM["active"]:
        return error("invalid_state", ITEM_LABEL + " " + ITEM["name"] + " is no longer offered")
    if SUBSCRIPTION[ITEM_FK] == ITEM_id:
        return error("invalid_argument", "the " + SUBSCRIPTION_LABEL + " is already on that " + ITEM_LABEL)
    return update_row(db, SUBSCRIPTION_TABLE, SUBSCRIPTION_id, {ITEM_FK: ITEM_id, "monthly_price": round(ITEM["price"] / 10, 2)})
