"""Templates of the banking entities' tools: cards, disputes of account transactions, standing orders, holds."""

from awm.builder.templates.placeholders import (
    ACCOUNT_ENTRY_FK,
    ACCOUNT_ENTRY_LABEL,
    ACCOUNT_ENTRY_TABLE,
    ACCOUNT_FK,
    ACCOUNT_LABEL,
    ACCOUNT_PLURAL,
    ACCOUNT_TABLE,
    CARD_LABEL,
    CARD_TABLE,
    CODE_PREFIX,
    CUTOFF,
    DISPUTE_LABEL,
    DISPUTE_TABLE,
    HOLD_TABLE,
    MAX_LIMIT,
    STANDING_ORDER_TABLE,
    WINDOW_TEXT,
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
from awm.builder.templates.tool_rules import require_status, require_status_in


def unblock_CARD(db, CARD_id):
    CARD = get_row(db, CARD_TABLE, CARD_id)
    if CARD is None:
        return missing(CARD_LABEL, CARD_id)
    if refused := require_status(CARD, "blocked", CARD_LABEL, CARD["number"], ", not blocked"):
        return refused
    if CARD["block_reason"] in ("lost", "stolen"):
        return error("not_allowed", CARD_LABEL + " " + CARD["number"] + " was blocked as " + CARD["block_reason"] + "; it must be replaced")
    if CARD["expires_on"] < TODAY:
        return error("expired", CARD_LABEL + " " + CARD["number"] + " expired on " + CARD["expires_on"])
    ACCOUNT = get_row(db, ACCOUNT_TABLE, CARD[ACCOUNT_FK])
    if ACCOUNT is None:
        return missing(ACCOUNT_LABEL, CARD[ACCOUNT_FK])
    if refused := require_status(ACCOUNT, "active", ACCOUNT_LABEL, ACCOUNT["number"]):
        return refused
    return update_row(db, CARD_TABLE, CARD_id, {"status": "active", "block_reason": None})


def set_limit_CARD(db, CARD_id, daily_limit):
    CARD = get_row(db, CARD_TABLE, CARD_id)
    if CARD is None:
        return missing(CARD_LABEL, CARD_id)
    if refused := require_status(CARD, "active", CARD_LABEL, CARD["number"]):
        return refused
    if daily_limit > MAX_LIMIT:
        return error("invalid_argument", "daily_limit may be at most " + str(MAX_LIMIT))
    return update_row(db, CARD_TABLE, CARD_id, {"daily_limit": round(daily_limit, 2)})


def create_DISPUTE(db, ACCOUNT_ENTRY_id, reason):
    ACCOUNT_ENTRY = get_row(db, ACCOUNT_ENTRY_TABLE, ACCOUNT_ENTRY_id)
    if ACCOUNT_ENTRY is None:
        return missing(ACCOUNT_ENTRY_LABEL, ACCOUNT_ENTRY_id)
    if ACCOUNT_ENTRY["amount"] >= 0 or ACCOUNT_ENTRY["entry_type"] not in ("withdrawal", "fee"):
        return error("invalid_argument", ACCOUNT_ENTRY_LABEL + " " + str(ACCOUNT_ENTRY_id) + " is not a charge")
    if ACCOUNT_ENTRY["posted_at"][:10] < CUTOFF:
        return error("window_closed", ACCOUNT_ENTRY_LABEL + " " + str(ACCOUNT_ENTRY_id) + " was posted on " + ACCOUNT_ENTRY["posted_at"][:10] + ", more than " + WINDOW_TEXT + " days ago")
    if db.one("SELECT id FROM " + DISPUTE_TABLE + " WHERE " + ACCOUNT_ENTRY_FK + " = ?", [ACCOUNT_ENTRY_id]) is not None:
        return error("conflict", ACCOUNT_ENTRY_LABEL + " " + str(ACCOUNT_ENTRY_id) + " is already disputed")
    return insert_row(db, DISPUTE_TABLE, {"number": next_code(db, DISPUTE_TABLE, "number", CODE_PREFIX, 2201), ACCOUNT_ENTRY_FK: ACCOUNT_ENTRY_id, ACCOUNT_FK: ACCOUNT_ENTRY[ACCOUNT_FK], "amount": -ACCOUNT_ENTRY["amount"], "reason": reason, "status": "open", "opened_at": REFERENCE_NOW, "resolved_at": None})


def uphold_DISPUTE(db, DISPUTE_id):
    DISPUTE = get_row(db, DISPUTE_TABLE, DISPUTE_id)
    if DISPUTE is None:
        return missing(DISPUTE_LABEL, DISPUTE_id)
    if refused := require_status_in(DISPUTE, ("open", "investigating"), DISPUTE_LABEL, DISPUTE["number"]):
        return refused
    db.execute("UPDATE " + ACCOUNT_TABLE + " SET balance = ROUND(balance + ?, 2) WHERE id = ?", [DISPUTE["amount"], DISPUTE[ACCOUNT_FK]])
    insert_row(db, ACCOUNT_ENTRY_TABLE, {ACCOUNT_FK: DISPUTE[ACCOUNT_FK], "amount": DISPUTE["amount"], "entry_type": "deposit", "memo": "Dispute " + DISPUTE["number"] + " upheld", "posted_at": REFERENCE_NOW})
    return update_row(db, DISPUTE_TABLE, DISPUTE_id, {"status": "upheld", "resolved_at": REFERENCE_NOW})


def create_STANDING_ORDER(db, from_ACCOUNT_id, to_ACCOUNT_id, amount, frequency, first_run_on, reference=None):
    if from_ACCOUNT_id == to_ACCOUNT_id:
        return error("invalid_argument", "the two " + ACCOUNT_PLURAL + " are the same")
    for side in (from_ACCOUNT_id, to_ACCOUNT_id):
        ACCOUNT = get_row(db, ACCOUNT_TABLE, side)
        if ACCOUNT is None:
            return missing(ACCOUNT_LABEL, side)
        if refused := require_status(ACCOUNT, "active", ACCOUNT_LABEL, ACCOUNT["number"]):
            return refused
    if first_run_on <= TODAY:
        return error("invalid_argument", "first_run_on must be after " + TODAY)
    return insert_row(db, STANDING_ORDER_TABLE, {"number": next_code(db, STANDING_ORDER_TABLE, "number", CODE_PREFIX, 602), "from_" + ACCOUNT_FK: from_ACCOUNT_id, "to_" + ACCOUNT_FK: to_ACCOUNT_id, "amount": round(amount, 2), "frequency": frequency, "next_run_on": first_run_on, "reference": reference or "Standing transfer", "status": "active", "created_at": REFERENCE_NOW})


def create_HOLD(db, ACCOUNT_id, amount, reason, expires_on):
    ACCOUNT = get_row(db, ACCOUNT_TABLE, ACCOUNT_id)
    if ACCOUNT is None:
        return missing(ACCOUNT_LABEL, ACCOUNT_id)
    if refused := require_status(ACCOUNT, "active", ACCOUNT_LABEL, ACCOUNT["number"]):
        return refused
    held = db.one("SELECT COALESCE(SUM(amount), 0) AS n FROM " + HOLD_TABLE + " WHERE " + ACCOUNT_FK + " = ? AND status = 'active'", [ACCOUNT_id])["n"]
    if held + amount > ACCOUNT["balance"]:
        return error("insufficient_funds", ACCOUNT_LABEL + " " + ACCOUNT["number"] + " has only " + str(round(ACCOUNT["balance"] - held, 2)) + " not yet held")
    if expires_on <= TODAY:
        return error("invalid_argument", "expires_on must be after " + TODAY)
    return insert_row(db, HOLD_TABLE, {ACCOUNT_FK: ACCOUNT_id, "amount": round(amount, 2), "reason": reason, "status": "active", "placed_at": REFERENCE_NOW, "expires_on": expires_on})
