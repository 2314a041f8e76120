"""Templates of the energy entities' tools: warranty repairs, rebate submission up to a programme's cap, inspection
results, taking charge points offline, stopping charging sessions."""

from awm.builder.templates.placeholders import (
    CHARGE_POINT_FK,
    CHARGE_POINT_LABEL,
    CHARGE_POINT_TABLE,
    CHARGING_SESSION_LABEL,
    CHARGING_SESSION_TABLE,
    EQUIPMENT_UNIT_LABEL,
    EQUIPMENT_UNIT_TABLE,
    REBATE_CLAIM_LABEL,
    REBATE_CLAIM_TABLE,
    SAFETY_INSPECTION_LABEL,
    SAFETY_INSPECTION_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status

PROGRAM_CAPS = {"state_solar_rebate": 2500.0}  # rebate programme -> the most it pays on one claim


def repair_under_warranty_EQUIPMENT_UNIT(db, EQUIPMENT_UNIT_id):
    EQUIPMENT_UNIT = get_row(db, EQUIPMENT_UNIT_TABLE, EQUIPMENT_UNIT_id)
    if EQUIPMENT_UNIT is None:
        return missing(EQUIPMENT_UNIT_LABEL, EQUIPMENT_UNIT_id)
    if refused := require_status(EQUIPMENT_UNIT, "faulty", EQUIPMENT_UNIT_LABEL, EQUIPMENT_UNIT["serial"]):
        return refused
    if EQUIPMENT_UNIT["warranty_until"] < TODAY:
        return error("out_of_warranty", EQUIPMENT_UNIT_LABEL + " " + EQUIPMENT_UNIT["serial"] + " was under warranty until " + EQUIPMENT_UNIT["warranty_until"])
    return update_row(db, EQUIPMENT_UNIT_TABLE, EQUIPMENT_UNIT_id, {"status": "operating"})


def submit_REBATE_CLAIM(db, REBATE_CLAIM_id):
    REBATE_CLAIM = get_row(db, REBATE_CLAIM_TABLE, REBATE_CLAIM_id)
    if REBATE_CLAIM is None:
        return missing(REBATE_CLAIM_LABEL, REBATE_CLAIM_id)
    if refused := require_status(REBATE_CLAIM, "draft", REBATE_CLAIM_LABEL, str(REBATE_CLAIM_id)):
        return refused
    cap = PROGRAM_CAPS[REBATE_CLAIM["program"]]
    if REBATE_CLAIM["amount"] > cap:
        return error("over_limit", REBATE_CLAIM_LABEL + " " + str(REBATE_CLAIM_id) + " asks for " + str(REBATE_CLAIM["amount"]) + "; " + REBATE_CLAIM["program"] + " pays at most " + str(cap))
    return update_row(db, REBATE_CLAIM_TABLE, REBATE_CLAIM_id, {"status": "submitted", "submitted_on": TODAY})


def record_result_SAFETY_INSPECTION(db, SAFETY_INSPECTION_id, result, STAFF_id):
    SAFETY_INSPECTION = get_row(db, SAFETY_INSPECTION_TABLE, SAFETY_INSPECTION_id)
    if SAFETY_INSPECTION is None:
        return missing(SAFETY_INSPECTION_LABEL, SAFETY_INSPECTION_id)
    if refused := require_status(SAFETY_INSPECTION, "scheduled", SAFETY_INSPECTION_LABEL, str(SAFETY_INSPECTION_id)):
        return refused
    if SAFETY_INSPECTION["due_on"] > TODAY:
        return error("too_early", SAFETY_INSPECTION_LABEL + " " + str(SAFETY_INSPECTION_id) + " is due on " + SAFETY_INSPECTION["due_on"] + "; no result can be recorded before then")
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    return update_row(db, SAFETY_INSPECTION_TABLE, SAFETY_INSPECTION_id, {"status": result, STAFF_FK: STAFF_id, "inspected_on": TODAY})


def take_offline_CHARGE_POINT(db, CHARGE_POINT_id):
    CHARGE_POINT = get_row(db, CHARGE_POINT_TABLE, CHARGE_POINT_id)
    if CHARGE_POINT is None:
        return missing(CHARGE_POINT_LABEL, CHARGE_POINT_id)
    if CHARGE_POINT["status"] == "in_use":
        return error("in_use", CHARGE_POINT_LABEL + " " + CHARGE_POINT["code"] + " is charging a vehicle; it can be taken offline once the session ends")
    if CHARGE_POINT["status"] == "offline":
        return error("invalid_state", CHARGE_POINT_LABEL + " " + CHARGE_POINT["code"] + " is already offline")
    return update_row(db, CHARGE_POINT_TABLE, CHARGE_POINT_id, {"status": "offline"})


def stop_CHARGING_SESSION(db, CHARGING_SESSION_id, energy_kwh):
    CHARGING_SESSION = get_row(db, CHARGING_SESSION_TABLE, CHARGING_SESSION_id)
    if CHARGING_SESSION is None:
        return missing(CHARGING_SESSION_LABEL, CHARGING_SESSION_id)
    if refused := require_status(CHARGING_SESSION, "active", CHARGING_SESSION_LABEL, str(CHARGING_SESSION_id)):
        return refused
    if energy_kwh < CHARGING_SESSION["energy_kwh"]:
        return error("invalid_argument", CHARGING_SESSION_LABEL + " " + str(CHARGING_SESSION_id) + " has already delivered " + str(CHARGING_SESSION["energy_kwh"]) + " kWh")
    db.execute("UPDATE " + CHARGE_POINT_TABLE + " SET status = 'available' WHERE id = ? AND status = 'in_use'", [CHARGING_SESSION[CHARGE_POINT_FK]])
    return update_row(db, CHARGING_SESSION_TABLE, CHARGING_SESSION_id, {"status": "completed", "ended_at": REFERENCE_NOW, "energy_kwh": round(energy_kwh, 2)})
