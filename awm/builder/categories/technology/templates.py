"""Templates of the technology entities' tools: seat counts never below the seats in use, incidents resolved only
once mitigated, instances resized only while stopped, API keys issued for at most a year and a few at a time."""

from awm.builder.templates.placeholders import (
    API_KEY_TABLE,
    FAR_CUTOFF,
    MAX_LIMIT,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    SEAT_LICENCE_LABEL,
    SEAT_LICENCE_TABLE,
    SERVER_INSTANCE_LABEL,
    SERVER_INSTANCE_TABLE,
    SERVICE_INCIDENT_LABEL,
    SERVICE_INCIDENT_TABLE,
    SIZE_COSTS,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def set_seats_SEAT_LICENCE(db, SEAT_LICENCE_id, seats):
    SEAT_LICENCE = get_row(db, SEAT_LICENCE_TABLE, SEAT_LICENCE_id)
    if SEAT_LICENCE is None:
        return missing(SEAT_LICENCE_LABEL, SEAT_LICENCE_id)
    if refused := require_status(SEAT_LICENCE, "active", SEAT_LICENCE_LABEL, str(SEAT_LICENCE_id)):
        return refused
    if seats < SEAT_LICENCE["seats_in_use"]:
        return error("seats_in_use", SEAT_LICENCE_LABEL + " " + str(SEAT_LICENCE_id) + " has " + str(SEAT_LICENCE["seats_in_use"]) + " seats in use; free some before going below that")
    return update_row(db, SEAT_LICENCE_TABLE, SEAT_LICENCE_id, {"seats": seats})


def resolve_SERVICE_INCIDENT(db, SERVICE_INCIDENT_id, root_cause):
    SERVICE_INCIDENT = get_row(db, SERVICE_INCIDENT_TABLE, SERVICE_INCIDENT_id)
    if SERVICE_INCIDENT is None:
        return missing(SERVICE_INCIDENT_LABEL, SERVICE_INCIDENT_id)
    if SERVICE_INCIDENT["status"] != "mitigated":
        return error("not_mitigated", SERVICE_INCIDENT_LABEL + " " + str(SERVICE_INCIDENT_id) + " is " + SERVICE_INCIDENT["status"] + "; only a mitigated one is resolved")
    return update_row(db, SERVICE_INCIDENT_TABLE, SERVICE_INCIDENT_id, {"status": "resolved", "root_cause": root_cause, "resolved_at": REFERENCE_NOW})


def resize_SERVER_INSTANCE(db, SERVER_INSTANCE_id, size):
    SERVER_INSTANCE = get_row(db, SERVER_INSTANCE_TABLE, SERVER_INSTANCE_id)
    if SERVER_INSTANCE is None:
        return missing(SERVER_INSTANCE_LABEL, SERVER_INSTANCE_id)
    if refused := require_status(SERVER_INSTANCE, "stopped", SERVER_INSTANCE_LABEL, SERVER_INSTANCE["hostname"], "; only a stopped one is resized"):
        return refused
    if size == SERVER_INSTANCE["size"]:
        return error("invalid_argument", SERVER_INSTANCE_LABEL + " " + SERVER_INSTANCE["hostname"] + " is already " + size)
    return update_row(db, SERVER_INSTANCE_TABLE, SERVER_INSTANCE_id, {"size": size, "monthly_cost": SIZE_COSTS[size]})


def create_API_KEY(db, PARTY_id, name, scope, expires_on):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    if expires_on <= TODAY:
        return error("invalid_argument", "expires_on must be after " + TODAY)
    if expires_on > FAR_CUTOFF:
        return error("over_limit", "a key expires no later than " + FAR_CUTOFF)
    active = db.one("SELECT COUNT(*) AS n FROM " + API_KEY_TABLE + " WHERE " + PARTY_FK + " = ? AND status = 'active'", [PARTY_id])["n"]
    if active >= MAX_LIMIT:
        return error("over_limit", PARTY_LABEL + " " + str(PARTY_id) + " already has " + str(active) + " active keys")
    serial = db.one("SELECT COALESCE(MAX(id), 0) + 1 AS n FROM " + API_KEY_TABLE, [])["n"]
    return insert_row(db, API_KEY_TABLE, {PARTY_FK: PARTY_id, "name": name, "key_prefix": "ak_%08x" % (serial * 2654435761 % 4294967296), "scope": scope, "status": "active", "expires_on": expires_on, "created_at": REFERENCE_NOW})
