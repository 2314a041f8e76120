"""Templates of the agriculture entities' tools: applying crop inputs within their label rate, recording soil
results, treating animals and returning them to milking after the withdrawal period, readying and allocating
growing batches."""

from awm.builder.templates.placeholders import (
    ANIMAL_LABEL,
    ANIMAL_TABLE,
    CROP_BATCH_LABEL,
    CROP_BATCH_TABLE,
    FIELD_APPLICATION_TABLE,
    FIELD_FK,
    FIELD_LABEL,
    FIELD_TABLE,
    MAX_RATES,
    SOIL_SAMPLE_LABEL,
    SOIL_SAMPLE_TABLE,
    STAFF_FK,
    STAFF_LABEL,
    STAFF_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status, require_status_in


def create_FIELD_APPLICATION(db, FIELD_id, STAFF_id, product, rate_per_acre):
    FIELD = get_row(db, FIELD_TABLE, FIELD_id)
    if FIELD is None:
        return missing(FIELD_LABEL, FIELD_id)
    if refused := require_status(FIELD, "active", FIELD_LABEL, FIELD["name"]):
        return refused
    STAFF = get_row(db, STAFF_TABLE, STAFF_id)
    if STAFF is None:
        return missing(STAFF_LABEL, STAFF_id)
    unit = MAX_RATES[product][0]
    top = MAX_RATES[product][1]
    if rate_per_acre > top:
        return error("over_limit", "the label of " + product + " allows at most " + str(top) + " " + unit + " per acre, not " + str(rate_per_acre))
    return insert_row(db, FIELD_APPLICATION_TABLE, {FIELD_FK: FIELD_id, STAFF_FK: STAFF_id, "product": product, "rate_per_acre": round(rate_per_acre, 2), "unit": unit, "applied_on": TODAY, "status": "applied"})


def record_results_SOIL_SAMPLE(db, SOIL_SAMPLE_id, ph, organic_matter_pct, phosphorus_ppm, potassium_ppm):
    SOIL_SAMPLE = get_row(db, SOIL_SAMPLE_TABLE, SOIL_SAMPLE_id)
    if SOIL_SAMPLE is None:
        return missing(SOIL_SAMPLE_LABEL, SOIL_SAMPLE_id)
    if SOIL_SAMPLE["status"] != "received":
        return error("invalid_state", SOIL_SAMPLE_LABEL + " " + SOIL_SAMPLE["sample_code"] + " is already " + SOIL_SAMPLE["status"])
    return update_row(db, SOIL_SAMPLE_TABLE, SOIL_SAMPLE_id, {"ph": round(ph, 1), "organic_matter_pct": round(organic_matter_pct, 1), "phosphorus_ppm": phosphorus_ppm, "potassium_ppm": potassium_ppm, "status": "analysed"})


def treat_ANIMAL(db, ANIMAL_id, treatment, withdrawal_days):
    ANIMAL = get_row(db, ANIMAL_TABLE, ANIMAL_id)
    if ANIMAL is None:
        return missing(ANIMAL_LABEL, ANIMAL_id)
    if ANIMAL["status"] == "sold":
        return error("invalid_state", ANIMAL_LABEL + " " + ANIMAL["tag"] + " is sold")
    until = db.one("SELECT date(?, ?) AS d", [TODAY, "+" + str(withdrawal_days) + " days"])["d"]
    return update_row(db, ANIMAL_TABLE, ANIMAL_id, {"status": "treated", "treatment": treatment, "withdrawal_until": until})


def return_to_milking_ANIMAL(db, ANIMAL_id):
    ANIMAL = get_row(db, ANIMAL_TABLE, ANIMAL_id)
    if ANIMAL is None:
        return missing(ANIMAL_LABEL, ANIMAL_id)
    if refused := require_status_in(ANIMAL, ("treated", "dry"), ANIMAL_LABEL, ANIMAL["tag"]):
        return refused
    if ANIMAL["withdrawal_until"] is not None and ANIMAL["withdrawal_until"] >= TODAY:
        return error("withdrawal_period", ANIMAL_LABEL + " " + ANIMAL["tag"] + " is under withdrawal until " + ANIMAL["withdrawal_until"] + "; its milk cannot be shipped before then")
    return update_row(db, ANIMAL_TABLE, ANIMAL_id, {"status": "milking", "treatment": None, "withdrawal_until": None})


def mark_ready_CROP_BATCH(db, CROP_BATCH_id):
    CROP_BATCH = get_row(db, CROP_BATCH_TABLE, CROP_BATCH_id)
    if CROP_BATCH is None:
        return missing(CROP_BATCH_LABEL, CROP_BATCH_id)
    if refused := require_status(CROP_BATCH, "growing", CROP_BATCH_LABEL, str(CROP_BATCH_id)):
        return refused
    if CROP_BATCH["ready_on"] > TODAY:
        return error("too_early", CROP_BATCH_LABEL + " " + str(CROP_BATCH_id) + " is not ready before " + CROP_BATCH["ready_on"])
    return update_row(db, CROP_BATCH_TABLE, CROP_BATCH_id, {"status": "ready"})


def allocate_CROP_BATCH(db, CROP_BATCH_id, quantity):
    CROP_BATCH = get_row(db, CROP_BATCH_TABLE, CROP_BATCH_id)
    if CROP_BATCH is None:
        return missing(CROP_BATCH_LABEL, CROP_BATCH_id)
    if refused := require_status(CROP_BATCH, "ready", CROP_BATCH_LABEL, str(CROP_BATCH_id)):
        return refused
    if quantity > CROP_BATCH["quantity"]:
        return error("over_limit", CROP_BATCH_LABEL + " " + str(CROP_BATCH_id) + " holds only " + str(CROP_BATCH["quantity"]) + " plants")
    left = CROP_BATCH["quantity"] - quantity
    return update_row(db, CROP_BATCH_TABLE, CROP_BATCH_id, {"quantity": left, "status": "ready" if left else "sold_out"})
