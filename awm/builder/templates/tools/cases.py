"""Templates of the case tools: opening a case, its lines, assigning it, its flavour's actions, moving it."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_PREFIX,
    CASE_TABLE,
    CLOSED,
    CUTOFF,
    DOCUMENT_LABEL,
    DOCUMENT_TABLE,
    EDITABLE,
    EXTRA,
    HAS_DISCOUNT,
    INITIAL,
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    LINE_LABEL,
    LINE_TABLE,
    NEEDS_DOCUMENTS,
    NEEDS_TIME,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    SERVICE,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
    SOURCES,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    TARGET,
    TIME_COLUMN,
    VERB_TEXT,
    WINDOW_DAYS,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import (
    REFERENCE_NOW,
    error,
    get_row,
    insert_row,
    missing,
    next_code,
    transition,
    update_row,
)
from awm.builder.templates.tool_rules import require_status


def create_CASE(db, PARTY_id, SITE_id, TIME=None):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    values = {"code": next_code(db, CASE_TABLE, "code", CASE_PREFIX, 1001), PARTY_FK: PARTY_id, SITE_FK: SITE_id, STAFF_FK: None, "status": INITIAL, TIME_COLUMN: TIME or REFERENCE_NOW, "total_amount": 0.0, "created_at": REFERENCE_NOW}
    if HAS_DISCOUNT:
        values["discount_amount"] = 0.0
    return insert_row(db, CASE_TABLE, values)


def add_LINE(db, CASE_id, ITEM_id, quantity):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] not in EDITABLE:
        return error("invalid_state", "cannot change " + CASE_LABEL + " " + CASE["code"] + " because it is " + CASE["status"])
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    if not ITEM["active"]:
        return error("invalid_state", ITEM_LABEL + " " + ITEM["name"] + " is no longer offered")
    row = insert_row(db, LINE_TABLE, {CASE_FK: CASE_id, ITEM_FK: ITEM_id, "quantity": quantity, "unit_price": ITEM["price"]})
    db.execute("UPDATE " + CASE_TABLE + " SET total_amount = ROUND(total_amount + ?, 2) WHERE id = ?", [quantity * ITEM["price"], CASE_id])
    return row


def remove_LINE(db, LINE_id):
    LINE = get_row(db, LINE_TABLE, LINE_id)
    if LINE is None:
        return missing(LINE_LABEL, LINE_id)
    CASE = get_row(db, CASE_TABLE, LINE[CASE_FK])
    if CASE["status"] not in EDITABLE:
        return error("invalid_state", "cannot change " + CASE_LABEL + " " + CASE["code"] + " because it is " + CASE["status"])
    db.execute("DELETE FROM " + LINE_TABLE + " WHERE id = ?", [LINE_id])
    db.execute("UPDATE " + CASE_TABLE + " SET total_amount = ROUND(MAX(total_amount - ?, 0), 2) WHERE id = ?", [LINE["quantity"] * LINE["unit_price"], CASE["id"]])
    return {"removed": LINE_id}


def assign_CASE(db, CASE_id, STAFF_id):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] in CLOSED:
        return error("invalid_state", "cannot assign " + CASE_LABEL + " " + CASE["code"] + " because it is " + CASE["status"])
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("staff_inactive", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    if SERVICE:
        new_status = "assigned" if CASE["status"] == "open" else CASE["status"]
        return update_row(db, CASE_TABLE, CASE_id, {STAFF_FK: STAFF_id, "status": new_status})
    else:
        return update_row(db, CASE_TABLE, CASE_id, {STAFF_FK: STAFF_id})


def act_on_CASE(db, CASE_id, TIME=None):
    if NEEDS_TIME:
        if TIME <= REFERENCE_NOW:
            return error("invalid_argument", "the new time must be after " + REFERENCE_NOW)
    if WINDOW_DAYS:
        current = get_row(db, CASE_TABLE, CASE_id)
        if current is not None and current[TIME_COLUMN] < CUTOFF:
            return error("window_closed", "cannot " + VERB_TEXT + " " + CASE_LABEL + " " + current["code"] + ": it was placed on " + current[TIME_COLUMN][:10] + ", more than " + WINDOW_TEXT + " days ago")
    if NEEDS_DOCUMENTS:
        pending = db.one("SELECT COUNT(*) AS n FROM " + DOCUMENT_TABLE + " WHERE " + CASE_FK + " = ? AND status != 'verified'", [CASE_id])
        if pending["n"] > 0:
            return error("documents_pending", str(pending["n"]) + " " + DOCUMENT_LABEL + "(s) on this " + CASE_LABEL + " are not verified yet")
    return transition(db, CASE_TABLE, CASE_LABEL, CASE_id, VERB_TEXT, SOURCES, TARGET, EXTRA)


def transfer_CASE(db, CASE_id, SITE_id):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] not in EDITABLE:
        return error("invalid_state", "cannot move " + CASE_LABEL + " " + CASE["code"] + " because it is " + CASE["status"])
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    if CASE[SITE_FK] == SITE_id:
        return error("invalid_argument", CASE_LABEL + " " + CASE["code"] + " is already at that " + SITE_LABEL)
    return update_row(db, CASE_TABLE, CASE_id, {SITE_FK: SITE_id})
