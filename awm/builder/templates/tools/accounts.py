"""Templates of the account tools: transfers between accounts, credits and debits."""

from awm.builder.templates.placeholders import ACCOUNT_ENTRY_TABLE, ACCOUNT_FK, ACCOUNT_LABEL, ACCOUNT_TABLE
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing
from awm.builder.templates.tool_rules import require_status


def transfer_funds(db, from_ACCOUNT_id, to_ACCOUNT_id, amount, memo=None):
    source = get_row(db, ACCOUNT_TABLE, from_ACCOUNT_id)
    if source is None:
        return missing(ACCOUNT_LABEL, from_ACCOUNT_id)
    target = get_row(db, ACCOUNT_TABLE, to_ACCOUNT_id)
    if target is None:
        return missing(ACCOUNT_LABEL, to_ACCOUNT_id)
    if from_ACCOUNT_id == to_ACCOUNT_id:
        return error("invalid_argument", "source and target are the same account")
    for side in (source, target):
        if refused := require_status(side, "active", "account", side["number"]):
            return refused
    amount = round(amount, 2)
    if source["balance"] < amount:
        return error("insufficient_funds", "account " + source["number"] + " holds only " + str(source["balance"]))
    db.execute("UPDATE " + ACCOUNT_TABLE + " SET balance = ROUND(balance - ?, 2) WHERE id = ?", [amount, from_ACCOUNT_id])
    db.execute("UPDATE " + ACCOUNT_TABLE + " SET balance = ROUND(balance + ?, 2) WHERE id = ?", [amount, to_ACCOUNT_id])
    text = memo or "transfer"
    insert_row(db, ACCOUNT_ENTRY_TABLE, {ACCOUNT_FK: from_ACCOUNT_id, "amount": -amount, "entry_type": "transfer_out", "memo": text, "posted_at": REFERENCE_NOW})
    insert_row(db, ACCOUNT_ENTRY_TABLE, {ACCOUNT_FK: to_ACCOUNT_id, "amount": amount, "entry_type": "transfer_in", "memo": text, "posted_at": REFERENCE_NOW})
    return {"from": get_row(db, ACCOUNT_TABLE, from_ACCOUNT_id), "to": get_row(db, ACCOUNT_TABLE, to_ACCOUNT_id)}


def credit_ACCOUNT(db, ACCOUNT_id, amount, memo):
    ACCOUNT = get_row(db, ACCOUNT_TABLE, ACCOUNT_id)
    if ACCOUNT is None:
        return missing(ACCOUNT_LABEL, ACCOUNT_id)
    if refused := require_status(ACCOUNT, "active", "account", ACCOUNT["number"]):
        return refused
    amount = round(amount, 2)
    db.execute("UPDATE " + ACCOUNT_TABLE + " SET balance = ROUND(balance + ?, 2) WHERE id = ?", [amount, ACCOUNT_id])
    insert_row(db, ACCOUNT_ENTRY_TABLE, {ACCOUNT_FK: ACCOUNT_id, "amount": amount, "entry_type": "deposit", "memo": memo, "posted_at": REFERENCE_NOW})
    return get_row(db, ACCOUNT_TABLE, ACCOUNT_id)


def debit_ACCOUNT(db, ACCOUNT_id, amount, memo):
    ACCOUNT = get_row(db, ACCOUNT_TABLE, ACCOUNT_id)
    if ACCOUNT is None:
        return missing(ACCOUNT_LABEL, ACCOUNT_id)
    if refused := require_status(ACCOUNT, "active", "account", ACCOUNT["number"]):
        return refused
    amount = round(amount, 2)
    if ACCOUNT["balance"] < amount:
        return error("insufficient_funds", "account " + ACCOUNT["number"] + " holds only " + str(ACCOUNT["balance"]))
    db.execute("UPDATE " + ACCOUNT_TABLE + " SET balance = ROUND(balance - ?, 2) WHERE id = ?", [amount, ACCOUNT_id])
    insert_row(db, ACCOUNT_ENTRY_TABLE, {ACCOUNT_FK: ACCOUNT_id, "amount": -amount, "entry_type": "withdrawal", "memo": memo, "posted_at": REFERENCE_NOW})
    return get_row(db, ACCOUNT_TABLE, ACCOUNT_id)
