"""Templates of the commerce entities' tools: return authorisations, gift card redemption, wishlists."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    CODE_PREFIX,
    CUTOFF,
    GIFT_CARD_LABEL,
    GIFT_CARD_TABLE,
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    LINE_TABLE,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    RETURN_REQUEST_TABLE,
    TIME_COLUMN,
    WINDOW_TEXT,
    WISHLIST_ITEM_TABLE,
)
from awm.builder.templates.tool_prelude import (
    REFERENCE_NOW,
    TODAY,
    error,
    get_row,
    insert_row,
    missing,
    next_code,
    update_row,
)
from awm.builder.templates.tool_rules import require_status


def create_RETURN_REQUEST(db, CASE_id, ITEM_id, quantity, reason):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if refused := require_status(CASE, "delivered", CASE_LABEL, CASE["code"]):
        return refused
    if CASE[TIME_COLUMN] < CUTOFF:
        return error("window_closed", CASE_LABEL + " " + CASE["code"] + " is older than " + WINDOW_TEXT + " days")
    bought = db.one("SELECT COALESCE(SUM(quantity), 0) AS n FROM " + LINE_TABLE + " WHERE " + CASE_FK + " = ? AND " + ITEM_FK + " = ?", [CASE_id, ITEM_id])["n"]
    pending = db.one("SELECT COALESCE(SUM(quantity), 0) AS n FROM " + RETURN_REQUEST_TABLE + " WHERE " + CASE_FK + " = ? AND " + ITEM_FK + " = ? AND status != 'rejected'", [CASE_id, ITEM_id])["n"]
    if quantity > bought - pending:
        return error("invalid_argument", "only " + str(bought - pending) + " can still be returned")
    return insert_row(db, RETURN_REQUEST_TABLE, {"number": next_code(db, RETURN_REQUEST_TABLE, "number", CODE_PREFIX, 5502), CASE_FK: CASE_id, ITEM_FK: ITEM_id, "quantity": quantity, "reason": reason, "status": "requested", "requested_at": REFERENCE_NOW})


def redeem_GIFT_CARD(db, code, amount):
    card = db.one("SELECT * FROM " + GIFT_CARD_TABLE + " WHERE code = ?", [code])
    if card is None:
        return error("not_found", "no " + GIFT_CARD_LABEL + " with code " + code)
    if refused := require_status(card, "active", GIFT_CARD_LABEL, code):
        return refused
    if card["expires_on"] < TODAY:
        return error("expired", GIFT_CARD_LABEL + " " + code + " expired on " + card["expires_on"])
    if round(amount, 2) > card["balance"]:
        return error("insufficient_funds", GIFT_CARD_LABEL + " " + code + " holds only " + str(card["balance"]))
    return update_row(db, GIFT_CARD_TABLE, card["id"], {"balance": round(card["balance"] - amount, 2)})


def create_WISHLIST_ITEM(db, PARTY_id, ITEM_id):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    if not ITEM["active"]:
        return error("invalid_state", ITEM_LABEL + " " + ITEM["name"] + " is no longer sold")
    if db.one("SELECT id FROM " + WISHLIST_ITEM_TABLE + " WHERE " + PARTY_FK + " = ? AND " + ITEM_FK + " = ?", [PARTY_id, ITEM_id]) is not None:
        return error("conflict", "already on the wishlist")
    return insert_row(db, WISHLIST_ITEM_TABLE, {PARTY_FK: PARTY_id, ITEM_FK: ITEM_id, "added_at": REFERENCE_NOW})
