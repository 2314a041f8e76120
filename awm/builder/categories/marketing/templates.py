"""Templates of the marketing entities' tools: opening an approval round within the rounds the fee includes,
setting a campaign budget no lower than its spend, releasing a verified contact list before it lapses, closing
survey fieldwork once its quota is met."""

from awm.builder.templates.placeholders import (
    AD_CAMPAIGN_LABEL,
    AD_CAMPAIGN_TABLE,
    APPROVAL_ROUND_TABLE,
    CASE_FK,
    CASE_LABEL,
    CASE_TABLE,
    CLOSED,
    CONTACT_LIST_LABEL,
    CONTACT_LIST_TABLE,
    MAX_LIMIT,
    SURVEY_WAVE_LABEL,
    SURVEY_WAVE_TABLE,
)
from awm.builder.templates.tool_prelude import TODAY, error, get_row, insert_row, missing, update_row


def create_APPROVAL_ROUND(db, CASE_id, deliverable):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    if CASE["status"] in CLOSED:
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " is " + CASE["status"])
    rounds = db.query("SELECT status FROM " + APPROVAL_ROUND_TABLE + " WHERE " + CASE_FK + " = ?", [CASE_id])
    if any(r["status"] == "pending" for r in rounds):
        return error("invalid_state", CASE_LABEL + " " + CASE["code"] + " already has a round waiting for the client")
    if len(rounds) >= MAX_LIMIT:
        return error("over_limit", CASE_LABEL + " " + CASE["code"] + " has used all " + str(MAX_LIMIT) + " approval rounds the fee includes; another needs a change order")
    return insert_row(db, APPROVAL_ROUND_TABLE, {CASE_FK: CASE_id, "round_number": len(rounds) + 1, "deliverable": deliverable, "status": "pending", "sent_on": TODAY, "feedback": None})


def set_budget_AD_CAMPAIGN(db, AD_CAMPAIGN_id, budget):
    AD_CAMPAIGN = get_row(db, AD_CAMPAIGN_TABLE, AD_CAMPAIGN_id)
    if AD_CAMPAIGN is None:
        return missing(AD_CAMPAIGN_LABEL, AD_CAMPAIGN_id)
    if AD_CAMPAIGN["status"] == "ended":
        return error("invalid_state", AD_CAMPAIGN_LABEL + " " + AD_CAMPAIGN["name"] + " has ended")
    if budget < AD_CAMPAIGN["spent"]:
        return error("below_spend", AD_CAMPAIGN_LABEL + " " + AD_CAMPAIGN["name"] + " has already spent " + str(AD_CAMPAIGN["spent"]) + "; its budget cannot be lower")
    return update_row(db, AD_CAMPAIGN_TABLE, AD_CAMPAIGN_id, {"budget": round(budget, 2)})


def release_CONTACT_LIST(db, CONTACT_LIST_id):
    CONTACT_LIST = get_row(db, CONTACT_LIST_TABLE, CONTACT_LIST_id)
    if CONTACT_LIST is None:
        return missing(CONTACT_LIST_LABEL, CONTACT_LIST_id)
    if CONTACT_LIST["status"] == "lapsed" or CONTACT_LIST["usable_until"] < TODAY:
        return error("expired", CONTACT_LIST_LABEL + " " + CONTACT_LIST["name"] + " could only be used until " + CONTACT_LIST["usable_until"])
    if CONTACT_LIST["status"] != "verified":
        return error("not_verified", CONTACT_LIST_LABEL + " " + CONTACT_LIST["name"] + " is " + CONTACT_LIST["status"] + "; only a verified list is released")
    return update_row(db, CONTACT_LIST_TABLE, CONTACT_LIST_id, {"status": "released"})


def close_SURVEY_WAVE(db, SURVEY_WAVE_id):
    SURVEY_WAVE = get_row(db, SURVEY_WAVE_TABLE, SURVEY_WAVE_id)
    if SURVEY_WAVE is None:
        return missing(SURVEY_WAVE_LABEL, SURVEY_WAVE_id)
    if SURVEY_WAVE["status"] == "closed":
        return error("invalid_state", SURVEY_WAVE_LABEL + " " + str(SURVEY_WAVE_id) + " is already closed")
    if SURVEY_WAVE["completes"] < SURVEY_WAVE["target_completes"]:
        return error("quota_not_met", SURVEY_WAVE_LABEL + " " + str(SURVEY_WAVE_id) + " has " + str(SURVEY_WAVE["completes"]) + " of " + str(SURVEY_WAVE["target_completes"]) + " completes")
    return update_row(db, SURVEY_WAVE_TABLE, SURVEY_WAVE_id, {"status": "closed"})
