"""Templates of the stock tools."""

from awm.builder.templates.placeholders import ITEM_FK, ITEM_LABEL, SITE_FK, SITE_LABEL, STOCK_LEVEL_TABLE
from awm.builder.templates.tool_prelude import error, update_row


def adjust_STOCK_LEVEL(db, ITEM_id, SITE_id, change, reason):
    level = db.one("SELECT * FROM " + STOCK_LEVEL_TABLE + " WHERE " + ITEM_FK + " = ? AND " + SITE_FK + " = ?", [ITEM_id, SITE_id])
    if level is None:
        return error("not_found", "no stock of " + ITEM_LABEL + " " + str(ITEM_id) + " at " + SITE_LABEL + " " + str(SITE_id))
    if change == 0:
        return error("invalid_argument", "change must not be zero")
    if level["quantity"] + change < 0:
        return error("insufficient_stock", "only " + str(level["quantity"]) + " units held")
    return update_row(db, STOCK_LEVEL_TABLE, level["id"], {"quantity": level["quantity"] + change})
