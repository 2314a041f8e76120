"""Templates of the food and beverage entities' tools: releasing only lots within their best-before date,
logging temperature checks (a failing one with its corrective action), resizing delivery windows, seating parties."""

from awm.builder.templates.placeholders import (
    DELIVERY_WINDOW_LABEL,
    DELIVERY_WINDOW_TABLE,
    DINING_TABLE_LABEL,
    DINING_TABLE_TABLE,
    PRODUCT_LOT_LABEL,
    PRODUCT_LOT_TABLE,
    SAFE_RANGES,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
    TEMPERATURE_CHECK_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def release_PRODUCT_LOT(db, PRODUCT_LOT_id):
    PRODUCT_LOT = get_row(db, PRODUCT_LOT_TABLE, PRODUCT_LOT_id)
    if PRODUCT_LOT is None:
        return missing(PRODUCT_LOT_LABEL, PRODUCT_LOT_id)
    if refused := require_status(PRODUCT_LOT, "on_hold", PRODUCT_LOT_LABEL, PRODUCT_LOT["lot_code"]):
        return refused
    if PRODUCT_LOT["best_before"] < TODAY:
        return error("expired", PRODUCT_LOT_LABEL + " " + PRODUCT_LOT["lot_code"] + " was best before " + PRODUCT_LOT["best_before"])
    return update_row(db, PRODUCT_LOT_TABLE, PRODUCT_LOT_id, {"status": "released"})


def create_TEMPERATURE_CHECK(db, SITE_id, STAFF_id, unit, temperature_c, corrective_action=None):
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is not active")
    low = SAFE_RANGES[unit][0]
    high = SAFE_RANGES[unit][1]
    result = "pass" if low <= temperature_c <= high else "fail"
    if result == "fail" and not corrective_action:
        return error("action_required", "a " + unit + " reading of " + str(temperature_c) + " is outside " + str(low) + " to " + str(high) + "; give the corrective_action taken")
    return insert_row(db, TEMPERATURE_CHECK_TABLE, {SITE_FK: SITE_id, STAFF_FK: STAFF_id, "unit": unit, "temperature_c": round(temperature_c, 1), "result": result, "corrective_action": corrective_action if result == "fail" else None, "checked_at": REFERENCE_NOW})


def set_capacity_DELIVERY_WINDOW(db, DELIVERY_WINDOW_id, capacity):
    DELIVERY_WINDOW = get_row(db, DELIVERY_WINDOW_TABLE, DELIVERY_WINDOW_id)
    if DELIVERY_WINDOW is None:
        return missing(DELIVERY_WINDOW_LABEL, DELIVERY_WINDOW_id)
    if DELIVERY_WINDOW["status"] == "closed":
        return error("invalid_state", DELIVERY_WINDOW_LABEL + " " + str(DELIVERY_WINDOW_id) + " is closed")
    if capacity < DELIVERY_WINDOW["booked"]:
        return error("below_booked", DELIVERY_WINDOW_LABEL + " " + str(DELIVERY_WINDOW_id) + " already has " + str(DELIVERY_WINDOW["booked"]) + " bookings")
    status = "full" if capacity == DELIVERY_WINDOW["booked"] else "open"
    return update_row(db, DELIVERY_WINDOW_TABLE, DELIVERY_WINDOW_id, {"capacity": capacity, "status": status})


def seat_DINING_TABLE(db, DINING_TABLE_id, party_size):
    DINING_TABLE = get_row(db, DINING_TABLE_TABLE, DINING_TABLE_id)
    if DINING_TABLE is None:
        return missing(DINING_TABLE_LABEL, DINING_TABLE_id)
    if refused := require_status(DINING_TABLE, "available", DINING_TABLE_LABEL, DINING_TABLE["table_number"]):
        return refused
    if party_size > DINING_TABLE["seats"]:
        return error("over_capacity", DINING_TABLE_LABEL + " " + DINING_TABLE["table_number"] + " seats " + str(DINING_TABLE["seats"]) + ", not " + str(party_size))
    return update_row(db, DINING_TABLE_TABLE, DINING_TABLE_id, {"status": "occupied", "party_size": party_size})
