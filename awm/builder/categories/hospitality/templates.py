"""Templates of the hospitality entities' tools: housekeeping, incidental charges, resizing room blocks."""

from awm.builder.templates.placeholders import (
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    CHARGE_TABLE,
    OPEN_STATUSES,
    ROOM_BLOCK_LABEL,
    ROOM_BLOCK_TABLE,
    ROOM_LABEL,
    ROOM_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def set_housekeeping_ROOM(db, ROOM_id, housekeeping):
    ROOM = get_row(db, ROOM_TABLE, ROOM_id)
    if ROOM is None:
        return missing(ROOM_LABEL, ROOM_id)
    if housekeeping == "inspected" and ROOM["housekeeping"] != "clean":
        return error("invalid_state", ROOM_LABEL + " " + ROOM["room_number"] + " is " + ROOM["housekeeping"] + ", clean it first")
    return update_row(db, ROOM_TABLE, ROOM_id, {"housekeeping": housekeeping})


def create_CHARGE(db, CASE_id, kind, amount, description):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if refused := require_status_in(CASE, OPEN_STATUSES, CASE_LABEL, CASE["code"]):
        return refused
    return insert_row(db, CHARGE_TABLE, {CASE_FK: CASE_id, "kind": kind, "amount": round(amount, 2), "description": description, "status": "posted", "posted_at": REFERENCE_NOW})


def resize_ROOM_BLOCK(db, ROOM_BLOCK_id, rooms_held):
    ROOM_BLOCK = get_row(db, ROOM_BLOCK_TABLE, ROOM_BLOCK_id)
    if ROOM_BLOCK is None:
        return missing(ROOM_BLOCK_LABEL, ROOM_BLOCK_id)
    if refused := require_status(ROOM_BLOCK, "held", ROOM_BLOCK_LABEL, ROOM_BLOCK["code"]):
        return refused
    if ROOM_BLOCK["release_on"] <= TODAY:
        return error("too_late", ROOM_BLOCK_LABEL + " " + ROOM_BLOCK["code"] + " was due for release on " + ROOM_BLOCK["release_on"])
    return update_row(db, ROOM_BLOCK_TABLE, ROOM_BLOCK_id, {"rooms_held": rooms_held})
