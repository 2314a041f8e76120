"""Templates of the catalogue tools (an item's price and availability)."""

from awm.builder.templates.placeholders import ITEM_LABEL, ITEM_TABLE
from awm.builder.templates.tool_prelude import error, get_row, missing, update_row


def update_ITEM_price(db, ITEM_id, price):
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    return update_row(db, ITEM_TABLE, ITEM_id, {"price": round(price, 2)})


def set_ITEM_availability(db, ITEM_id, active):
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    value = 1 if active else 0
    if ITEM["active"] == value:
        return error("invalid_state", ITEM_LABEL + " " + ITEM["name"] + (" is already offered" if active else " is already withdrawn"))
    return update_row(db, ITEM_TABLE, ITEM_id, {"active": value})
