"""Templates of the telecom entities' tools: changing a line's plan, verifying and completing number ports."""

from awm.builder.templates.placeholders import (
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    PORT_REQUEST_LABEL,
    PORT_REQUEST_TABLE,
    SERVICE_LINE_LABEL,
    SERVICE_LINE_TABLE,
)
from awm.builder.templates.tool_prelude import error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def change_plan_SERVICE_LINE(db, SERVICE_LINE_id, ITEM_id):
    SERVICE_LINE = get_row(db, SERVICE_LINE_TABLE, SERVICE_LINE_id)
    if SERVICE_LINE is None:
        return missing(SERVICE_LINE_LABEL, SERVICE_LINE_id)
    if refused := require_status(SERVICE_LINE, "active", SERVICE_LINE_LABEL, SERVICE_LINE["phone_number"]):
        return refused
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    if not ITEM["active"]:
        return error("invalid_state", ITEM_LABEL + " " + str(ITEM_id) + " is no longer sold")
    if SERVICE_LINE[ITEM_FK] == ITEM_id:
        return error("invalid_argument", SERVICE_LINE_LABEL + " " + SERVICE_LINE["phone_number"] + " is already on it")
    return update_row(db, SERVICE_LINE_TABLE, SERVICE_LINE_id, {ITEM_FK: ITEM_id})


def verify_pin_PORT_REQUEST(db, PORT_REQUEST_id):
    PORT_REQUEST = get_row(db, PORT_REQUEST_TABLE, PORT_REQUEST_id)
    if PORT_REQUEST is None:
        return missing(PORT_REQUEST_LABEL, PORT_REQUEST_id)
    if refused := require_status(PORT_REQUEST, "pending", PORT_REQUEST_LABEL, str(PORT_REQUEST_id)):
        return refused
    return update_row(db, PORT_REQUEST_TABLE, PORT_REQUEST_id, {"pin_verified": 1})


def complete_PORT_REQUEST(db, PORT_REQUEST_id):
    PORT_REQUEST = get_row(db, PORT_REQUEST_TABLE, PORT_REQUEST_id)
    if PORT_REQUEST is None:
        return missing(PORT_REQUEST_LABEL, PORT_REQUEST_id)
    if refused := require_status(PORT_REQUEST, "pending", PORT_REQUEST_LABEL, str(PORT_REQUEST_id)):
        return refused
    if not PORT_REQUEST["pin_verified"]:
        return error("pin_not_verified", "the PIN of " + PORT_REQUEST_LABEL + " " + str(PORT_REQUEST_id) + " is not verified yet")
    return update_row(db, PORT_REQUEST_TABLE, PORT_REQUEST_id, {"status": "completed"})
