"""Templates of the automotive entities' tools: mileage that never runs backwards, warranty approval up to a
limit, lending and taking back loaner cars."""

from awm.builder.templates.placeholders import (
    FAR_CUTOFF,
    LOANER_LABEL,
    LOANER_TABLE,
    MAX_LIMIT,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    VEHICLE_LABEL,
    VEHICLE_TABLE,
    WARRANTY_CLAIM_LABEL,
    WARRANTY_CLAIM_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def record_mileage_VEHICLE(db, VEHICLE_id, mileage):
    VEHICLE = get_row(db, VEHICLE_TABLE, VEHICLE_id)
    if VEHICLE is None:
        return missing(VEHICLE_LABEL, VEHICLE_id)
    if mileage < VEHICLE["mileage"]:
        return error("mileage_backwards", VEHICLE_LABEL + " " + VEHICLE["vin"] + " already shows " + str(VEHICLE["mileage"]) + "; mileage cannot go down")
    return update_row(db, VEHICLE_TABLE, VEHICLE_id, {"mileage": mileage})


def approve_WARRANTY_CLAIM(db, WARRANTY_CLAIM_id):
    WARRANTY_CLAIM = get_row(db, WARRANTY_CLAIM_TABLE, WARRANTY_CLAIM_id)
    if WARRANTY_CLAIM is None:
        return missing(WARRANTY_CLAIM_LABEL, WARRANTY_CLAIM_id)
    if refused := require_status(WARRANTY_CLAIM, "submitted", WARRANTY_CLAIM_LABEL, str(WARRANTY_CLAIM_id)):
        return refused
    if WARRANTY_CLAIM["amount"] > MAX_LIMIT:
        return error("over_limit", WARRANTY_CLAIM_LABEL + " " + str(WARRANTY_CLAIM_id) + " is for " + str(WARRANTY_CLAIM["amount"]) + ", above the " + str(MAX_LIMIT) + " that can be approved here")
    return update_row(db, WARRANTY_CLAIM_TABLE, WARRANTY_CLAIM_id, {"status": "approved"})


def lend_LOANER(db, LOANER_id, PARTY_id, due_back):
    LOANER = get_row(db, LOANER_TABLE, LOANER_id)
    if LOANER is None:
        return missing(LOANER_LABEL, LOANER_id)
    if refused := require_status(LOANER, "available", LOANER_LABEL, LOANER["plate"]):
        return refused
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    if due_back <= TODAY or due_back > FAR_CUTOFF:
        return error("invalid_argument", "due_back must be after " + TODAY + " and no later than " + FAR_CUTOFF)
    return update_row(db, LOANER_TABLE, LOANER_id, {"status": "out", PARTY_FK: PARTY_id, "due_back": due_back})
