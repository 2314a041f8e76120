"""Templates of the transportation entities' tools: servicing fleet vehicles and putting them back on the road,
settling damage reports, handing over lost property, announcing disruptions."""

from awm.builder.templates.placeholders import (
    DAMAGE_REPORT_LABEL,
    DAMAGE_REPORT_TABLE,
    DISRUPTION_TABLE,
    FAR_CUTOFF,
    FLEET_VEHICLE_LABEL,
    FLEET_VEHICLE_TABLE,
    LOST_ITEM_LABEL,
    LOST_ITEM_TABLE,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    SITE_FK,
    SITE_LABEL,
    SITE_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def record_service_FLEET_VEHICLE(db, FLEET_VEHICLE_id):
    FLEET_VEHICLE = get_row(db, FLEET_VEHICLE_TABLE, FLEET_VEHICLE_id)
    if FLEET_VEHICLE is None:
        return missing(FLEET_VEHICLE_LABEL, FLEET_VEHICLE_id)
    if FLEET_VEHICLE["status"] == "retired":
        return error("invalid_state", FLEET_VEHICLE_LABEL + " " + FLEET_VEHICLE["unit_number"] + " is retired")
    return update_row(db, FLEET_VEHICLE_TABLE, FLEET_VEHICLE_id, {"last_serviced_on": TODAY, "next_service_due": FAR_CUTOFF})


def return_to_service_FLEET_VEHICLE(db, FLEET_VEHICLE_id):
    FLEET_VEHICLE = get_row(db, FLEET_VEHICLE_TABLE, FLEET_VEHICLE_id)
    if FLEET_VEHICLE is None:
        return missing(FLEET_VEHICLE_LABEL, FLEET_VEHICLE_id)
    if refused := require_status(FLEET_VEHICLE, "out_of_service", FLEET_VEHICLE_LABEL, FLEET_VEHICLE["unit_number"]):
        return refused
    if FLEET_VEHICLE["next_service_due"] < TODAY:
        return error("service_overdue", FLEET_VEHICLE_LABEL + " " + FLEET_VEHICLE["unit_number"] + " was due for service on " + FLEET_VEHICLE["next_service_due"])
    return update_row(db, FLEET_VEHICLE_TABLE, FLEET_VEHICLE_id, {"status": "in_service"})


def settle_DAMAGE_REPORT(db, DAMAGE_REPORT_id, amount):
    DAMAGE_REPORT = get_row(db, DAMAGE_REPORT_TABLE, DAMAGE_REPORT_id)
    if DAMAGE_REPORT is None:
        return missing(DAMAGE_REPORT_LABEL, DAMAGE_REPORT_id)
    if refused := require_status(DAMAGE_REPORT, "assessed", DAMAGE_REPORT_LABEL, str(DAMAGE_REPORT_id)):
        return refused
    if amount > DAMAGE_REPORT["estimated_cost"]:
        return error("over_limit", DAMAGE_REPORT_LABEL + " " + str(DAMAGE_REPORT_id) + " was assessed at " + str(DAMAGE_REPORT["estimated_cost"]) + "; it cannot be settled for more")
    return update_row(db, DAMAGE_REPORT_TABLE, DAMAGE_REPORT_id, {"status": "settled", "settled_amount": round(amount, 2)})


def hand_over_LOST_ITEM(db, LOST_ITEM_id, PARTY_id):
    LOST_ITEM = get_row(db, LOST_ITEM_TABLE, LOST_ITEM_id)
    if LOST_ITEM is None:
        return missing(LOST_ITEM_LABEL, LOST_ITEM_id)
    if refused := require_status(LOST_ITEM, "held", LOST_ITEM_LABEL, LOST_ITEM["tag"]):
        return refused
    if LOST_ITEM["found_on"] < FAR_CUTOFF:
        return error("expired", LOST_ITEM_LABEL + " " + LOST_ITEM["tag"] + " was found on " + LOST_ITEM["found_on"] + ", past the holding period; it is due for disposal")
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    return update_row(db, LOST_ITEM_TABLE, LOST_ITEM_id, {"status": "claimed", PARTY_FK: PARTY_id})


def create_DISRUPTION(db, SITE_id, kind, starts_at, message):
    SITE = get_row(db, SITE_TABLE, SITE_id)
    if SITE is None:
        return missing(SITE_LABEL, SITE_id)
    if kind == "planned_works" and starts_at[:10] < FAR_CUTOFF:
        return error("short_notice", "planned works are announced in advance: they may start on " + FAR_CUTOFF + " at the earliest")
    status = "active" if starts_at <= REFERENCE_NOW else "planned"
    return insert_row(db, DISRUPTION_TABLE, {SITE_FK: SITE_id, "kind": kind, "status": status, "starts_at": starts_at, "ends_at": None, "message": message})
