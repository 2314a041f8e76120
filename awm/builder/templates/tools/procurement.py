"""Templates of the procurement tools: purchase orders, their lines, and receiving them into stock."""

from awm.builder.templates.placeholders import (
    HAS_STOCK,
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    PURCHASE_LINE_TABLE,
    PURCHASE_ORDER_FK,
    PURCHASE_ORDER_LABEL,
    PURCHASE_ORDER_PREFIX,
    PURCHASE_ORDER_TABLE,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
    STOCK_LEVEL_TABLE,
    VENDOR_FK,
    VENDOR_LABEL,
    VENDOR_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, get_row, insert_row, missing, next_code, transition
from awm.builder.templates.tool_rules import require_status


def create_PURCHASE_ORDER(db, VENDOR_id, SITE_id):
    VENDOR = get_row(db, VENDOR_TABLE, VENDOR_id)
    if VENDOR is None:
        return missing(VENDOR_LABEL, VENDOR_id)
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    return insert_row(db, PURCHASE_ORDER_TABLE, {"number": next_code(db, PURCHASE_ORDER_TABLE, "number", PURCHASE_ORDER_PREFIX, 301), VENDOR_FK: VENDOR_id, SITE_FK: SITE_id, "status": "draft", "total_cost": 0.0, "ordered_on": TODAY})


def add_PURCHASE_LINE(db, PURCHASE_ORDER_id, ITEM_id, quantity):
    PURCHASE_ORDER = get_row(db, PURCHASE_ORDER_TABLE, PURCHASE_ORDER_id)
    if PURCHASE_ORDER is None:
        return missing(PURCHASE_ORDER_LABEL, PURCHASE_ORDER_id)
    if refused := require_status(PURCHASE_ORDER, "draft", PURCHASE_ORDER_LABEL, PURCHASE_ORDER["number"], ", not draft"):
        return refused
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    cost = round(ITEM["price"] * 0.55, 2)
    row = insert_row(db, PURCHASE_LINE_TABLE, {PURCHASE_ORDER_FK: PURCHASE_ORDER_id, ITEM_FK: ITEM_id, "quantity": quantity, "unit_cost": cost})
    db.execute("UPDATE " + PURCHASE_ORDER_TABLE + " SET total_cost = ROUND(total_cost + ?, 2) WHERE id = ?", [quantity * cost, PURCHASE_ORDER_id])
    return row


def receive_PURCHASE_ORDER(db, PURCHASE_ORDER_id):
    if HAS_STOCK:
        order = get_row(db, PURCHASE_ORDER_TABLE, PURCHASE_ORDER_id)
        if order is not None and order["status"] == "approved":
            for line in db.query("SELECT * FROM " + PURCHASE_LINE_TABLE + " WHERE " + PURCHASE_ORDER_FK + " = ?", [PURCHASE_ORDER_id]):
                level = db.one("SELECT * FROM " + STOCK_LEVEL_TABLE + " WHERE " + ITEM_FK + " = ? AND " + SITE_FK + " = ?", [line[ITEM_FK], order[SITE_FK]])
                if level is None:
                    insert_row(db, STOCK_LEVEL_TABLE, {ITEM_FK: line[ITEM_FK], SITE_FK: order[SITE_FK], "quantity": line["quantity"], "reorder_level": 10})
                else:
                    db.execute("UPDATE " + STOCK_LEVEL_TABLE + " SET quantity = quantity + ? WHERE id = ?", [line["quantity"], level["id"]])
    return transition(db, PURCHASE_ORDER_TABLE, PURCHASE_ORDER_LABEL, PURCHASE_ORDER_id, "receive", ("approved",), "received", None)
