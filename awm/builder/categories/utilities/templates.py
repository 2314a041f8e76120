"""Templates of the utility entities' tools: meter readings that never run backwards, dispatching crews."""

from awm.builder.templates.placeholders import (
    HAS_READINGS,
    METER_FK,
    METER_LABEL,
    METER_READING_TABLE,
    METER_TABLE,
    OUTAGE_LABEL,
    OUTAGE_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def record_reading_METER(db, METER_id, reading, source):
    METER = get_row(db, METER_TABLE, METER_id)
    if METER is None:
        return missing(METER_LABEL, METER_id)
    if refused := require_status(METER, "active", METER_LABEL, METER["serial"]):
        return refused
    if reading < METER["last_reading"]:
        return error("reading_backwards", METER_LABEL + " " + METER["serial"] + " last read " + str(METER["last_reading"]) + "; a reading cannot go backwards")
    if HAS_READINGS:
        insert_row(db, METER_READING_TABLE, {METER_FK: METER_id, "reading": round(reading, 1), "read_on": TODAY, "source": source})
    return update_row(db, METER_TABLE, METER_id, {"last_reading": round(reading, 1), "last_read_on": TODAY})


def dispatch_crew_OUTAGE(db, OUTAGE_id, STAFF_id):
    OUTAGE = get_row(db, OUTAGE_TABLE, OUTAGE_id)
    if OUTAGE is None:
        return missing(OUTAGE_LABEL, OUTAGE_id)
    if refused := require_status(OUTAGE, "reported", OUTAGE_LABEL, str(OUTAGE_id)):
        return refused
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    if not STAFF["active"]:
        return error("invalid_state", STAFF_LABEL + " " + str(STAFF_id) + " is inactive")
    return update_row(db, OUTAGE_TABLE, OUTAGE_id, {"status": "crew_dispatched", STAFF_FK: STAFF_id})
