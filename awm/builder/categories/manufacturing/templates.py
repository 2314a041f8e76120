"""Templates of the manufacturing entities' tools: recording and completing production runs, dispositioning and
closing nonconformances, checking out calibrated instruments, returning customer assets."""

from awm.builder.templates.placeholders import (
    CUSTOMER_ASSET_LABEL,
    CUSTOMER_ASSET_TABLE,
    FAR_CUTOFF,
    INSTRUMENT_LABEL,
    INSTRUMENT_TABLE,
    NONCONFORMANCE_LABEL,
    NONCONFORMANCE_TABLE,
    PRODUCTION_RUN_LABEL,
    PRODUCTION_RUN_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def record_output_PRODUCTION_RUN(db, PRODUCTION_RUN_id, good, scrap):
    PRODUCTION_RUN = get_row(db, PRODUCTION_RUN_TABLE, PRODUCTION_RUN_id)
    if PRODUCTION_RUN is None:
        return missing(PRODUCTION_RUN_LABEL, PRODUCTION_RUN_id)
    if refused := require_status(PRODUCTION_RUN, "running", PRODUCTION_RUN_LABEL, PRODUCTION_RUN["run_number"]):
        return refused
    return update_row(db, PRODUCTION_RUN_TABLE, PRODUCTION_RUN_id, {"quantity_good": PRODUCTION_RUN["quantity_good"] + good, "quantity_scrap": PRODUCTION_RUN["quantity_scrap"] + scrap})


def complete_PRODUCTION_RUN(db, PRODUCTION_RUN_id):
    PRODUCTION_RUN = get_row(db, PRODUCTION_RUN_TABLE, PRODUCTION_RUN_id)
    if PRODUCTION_RUN is None:
        return missing(PRODUCTION_RUN_LABEL, PRODUCTION_RUN_id)
    if refused := require_status(PRODUCTION_RUN, "running", PRODUCTION_RUN_LABEL, PRODUCTION_RUN["run_number"]):
        return refused
    if PRODUCTION_RUN["quantity_good"] < PRODUCTION_RUN["quantity_planned"]:
        return error("short_quantity", PRODUCTION_RUN_LABEL + " " + PRODUCTION_RUN["run_number"] + " has " + str(PRODUCTION_RUN["quantity_good"]) + " good units of the " + str(PRODUCTION_RUN["quantity_planned"]) + " planned")
    return update_row(db, PRODUCTION_RUN_TABLE, PRODUCTION_RUN_id, {"status": "completed"})


def set_disposition_NONCONFORMANCE(db, NONCONFORMANCE_id, disposition):
    NONCONFORMANCE = get_row(db, NONCONFORMANCE_TABLE, NONCONFORMANCE_id)
    if NONCONFORMANCE is None:
        return missing(NONCONFORMANCE_LABEL, NONCONFORMANCE_id)
    if refused := require_status(NONCONFORMANCE, "open", NONCONFORMANCE_LABEL, str(NONCONFORMANCE_id)):
        return refused
    return update_row(db, NONCONFORMANCE_TABLE, NONCONFORMANCE_id, {"disposition": disposition})


def close_NONCONFORMANCE(db, NONCONFORMANCE_id):
    NONCONFORMANCE = get_row(db, NONCONFORMANCE_TABLE, NONCONFORMANCE_id)
    if NONCONFORMANCE is None:
        return missing(NONCONFORMANCE_LABEL, NONCONFORMANCE_id)
    if refused := require_status(NONCONFORMANCE, "open", NONCONFORMANCE_LABEL, str(NONCONFORMANCE_id)):
        return refused
    if NONCONFORMANCE["disposition"] is None:
        return error("no_disposition", NONCONFORMANCE_LABEL + " " + str(NONCONFORMANCE_id) + " has no disposition yet; set one before closing it")
    return update_row(db, NONCONFORMANCE_TABLE, NONCONFORMANCE_id, {"status": "closed"})


def check_out_INSTRUMENT(db, INSTRUMENT_id, STAFF_id):
    INSTRUMENT = get_row(db, INSTRUMENT_TABLE, INSTRUMENT_id)
    if INSTRUMENT is None:
        return missing(INSTRUMENT_LABEL, INSTRUMENT_id)
    if refused := require_status(INSTRUMENT, "available", INSTRUMENT_LABEL, INSTRUMENT["asset_tag"]):
        return refused
    if INSTRUMENT["calibration_due"] < TODAY:
        return error("calibration_due", INSTRUMENT_LABEL + " " + INSTRUMENT["asset_tag"] + " was due for calibration on " + INSTRUMENT["calibration_due"])
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    return update_row(db, INSTRUMENT_TABLE, INSTRUMENT_id, {"status": "checked_out", STAFF_FK: STAFF_id})


def record_calibration_INSTRUMENT(db, INSTRUMENT_id):
    INSTRUMENT = get_row(db, INSTRUMENT_TABLE, INSTRUMENT_id)
    if INSTRUMENT is None:
        return missing(INSTRUMENT_LABEL, INSTRUMENT_id)
    if INSTRUMENT["status"] == "checked_out":
        return error("invalid_state", INSTRUMENT_LABEL + " " + INSTRUMENT["asset_tag"] + " is checked out")
    return update_row(db, INSTRUMENT_TABLE, INSTRUMENT_id, {"calibrated_on": TODAY, "calibration_due": FAR_CUTOFF, "status": "available"})


def return_to_owner_CUSTOMER_ASSET(db, CUSTOMER_ASSET_id):
    CUSTOMER_ASSET = get_row(db, CUSTOMER_ASSET_TABLE, CUSTOMER_ASSET_id)
    if CUSTOMER_ASSET is None:
        return missing(CUSTOMER_ASSET_LABEL, CUSTOMER_ASSET_id)
    if refused := require_status(CUSTOMER_ASSET, "in_storage", CUSTOMER_ASSET_LABEL, CUSTOMER_ASSET["asset_tag"], "; only one in storage can be handed back"):
        return refused
    return update_row(db, CUSTOMER_ASSET_TABLE, CUSTOMER_ASSET_id, {"status": "returned", "returned_on": TODAY})
