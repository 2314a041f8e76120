"""Templates of the logistics entities' tools: carriers on shipments, legs departing, exceptions, rate quotes."""

from awm.builder.templates.placeholders import (
    CARRIER_FK,
    CARRIER_LABEL,
    CARRIER_TABLE,
    EXCEPTION_LABEL,
    EXCEPTION_TABLE,
    LEG_LABEL,
    LEG_TABLE,
    RATE_QUOTE_LABEL,
    RATE_QUOTE_TABLE,
    SHIPMENT_FK,
    SHIPMENT_LABEL,
    SHIPMENT_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def assign_carrier_SHIPMENT(db, SHIPMENT_id, CARRIER_id):
    SHIPMENT = get_row(db, SHIPMENT_TABLE, SHIPMENT_id)
    if SHIPMENT is None:
        return missing(SHIPMENT_LABEL, SHIPMENT_id)
    if refused := require_status(SHIPMENT, "booked", SHIPMENT_LABEL, SHIPMENT["number"], ", not booked"):
        return refused
    CARRIER = get_row(db, CARRIER_TABLE, CARRIER_id)
    if CARRIER is None:
        return missing(CARRIER_LABEL, CARRIER_id)
    if not CARRIER["active"]:
        return error("invalid_state", CARRIER_LABEL + " " + CARRIER["name"] + " is inactive")
    return update_row(db, SHIPMENT_TABLE, SHIPMENT_id, {CARRIER_FK: CARRIER_id})


def depart_LEG(db, LEG_id):
    LEG = get_row(db, LEG_TABLE, LEG_id)
    if LEG is None:
        return missing(LEG_LABEL, LEG_id)
    if refused := require_status(LEG, "planned", LEG_LABEL, str(LEG_id)):
        return refused
    before = db.one("SELECT status FROM " + LEG_TABLE + " WHERE " + SHIPMENT_FK + " = ? AND sequence = ?", [LEG[SHIPMENT_FK], LEG["sequence"] - 1])
    if before is not None and before["status"] != "arrived":
        return error("invalid_state", "the " + LEG_LABEL + " before it has not arrived")
    shipment = get_row(db, SHIPMENT_TABLE, LEG[SHIPMENT_FK])
    if refused := require_status_in(shipment, ("booked", "in_transit"), SHIPMENT_LABEL, shipment["number"]):
        return refused
    update_row(db, SHIPMENT_TABLE, shipment["id"], {"status": "in_transit"})
    return update_row(db, LEG_TABLE, LEG_id, {"status": "departed", "departs_at": REFERENCE_NOW})


def create_EXCEPTION(db, SHIPMENT_id, kind):
    SHIPMENT = get_row(db, SHIPMENT_TABLE, SHIPMENT_id)
    if SHIPMENT is None:
        return missing(SHIPMENT_LABEL, SHIPMENT_id)
    if refused := require_status_in(SHIPMENT, ("booked", "in_transit"), SHIPMENT_LABEL, SHIPMENT["number"]):
        return refused
    update_row(db, SHIPMENT_TABLE, SHIPMENT_id, {"status": "exception"})
    return insert_row(db, EXCEPTION_TABLE, {SHIPMENT_FK: SHIPMENT_id, "kind": kind, "status": "open", "reported_at": REFERENCE_NOW, "resolution": None})


def resolve_EXCEPTION(db, EXCEPTION_id, resolution):
    EXCEPTION = get_row(db, EXCEPTION_TABLE, EXCEPTION_id)
    if EXCEPTION is None:
        return missing(EXCEPTION_LABEL, EXCEPTION_id)
    if EXCEPTION["status"] != "open":
        return error("invalid_state", EXCEPTION_LABEL + " " + str(EXCEPTION_id) + " is already resolved")
    db.execute("UPDATE " + SHIPMENT_TABLE + " SET status = 'in_transit' WHERE id = ? AND status = 'exception'", [EXCEPTION[SHIPMENT_FK]])
    return update_row(db, EXCEPTION_TABLE, EXCEPTION_id, {"status": "resolved", "resolution": resolution})


def accept_RATE_QUOTE(db, RATE_QUOTE_id):
    RATE_QUOTE = get_row(db, RATE_QUOTE_TABLE, RATE_QUOTE_id)
    if RATE_QUOTE is None:
        return missing(RATE_QUOTE_LABEL, RATE_QUOTE_id)
    if refused := require_status(RATE_QUOTE, "offered", RATE_QUOTE_LABEL, RATE_QUOTE["number"]):
        return refused
    if RATE_QUOTE["valid_until"] < TODAY:
        return error("expired", RATE_QUOTE_LABEL + " " + RATE_QUOTE["number"] + " lapsed on " + RATE_QUOTE["valid_until"])
    return update_row(db, RATE_QUOTE_TABLE, RATE_QUOTE_id, {"status": "accepted"})
