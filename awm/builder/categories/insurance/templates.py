"""Templates of the insurance entities' tools: renewing policies, naming beneficiaries."""

from awm.builder.templates.placeholders import (
    BENEFICIARY_TABLE,
    CUTOFF,
    POLICY_FK,
    POLICY_LABEL,
    POLICY_TABLE,
    WINDOW_TEXT,
)
from awm.builder.templates.tool_prelude import error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def renew_POLICY(db, POLICY_id):
    POLICY = get_row(db, POLICY_TABLE, POLICY_id)
    if POLICY is None:
        return missing(POLICY_LABEL, POLICY_id)
    if refused := require_status(POLICY, "active", POLICY_LABEL, POLICY["number"]):
        return refused
    if POLICY["ends_on"] > CUTOFF:
        return error("too_early", POLICY_LABEL + " " + POLICY["number"] + " runs until " + POLICY["ends_on"] + "; renewal opens " + WINDOW_TEXT + " days before")
    ends = str(int(POLICY["ends_on"][:4]) + 1) + POLICY["ends_on"][4:]
    if ends[5:] == "02-29":
        ends = ends[:5] + "02-28"
    return update_row(db, POLICY_TABLE, POLICY_id, {"ends_on": ends})


def create_BENEFICIARY(db, POLICY_id, full_name, relationship, share_percent):
    POLICY = get_row(db, POLICY_TABLE, POLICY_id)
    if POLICY is None:
        return missing(POLICY_LABEL, POLICY_id)
    if refused := require_status(POLICY, "active", POLICY_LABEL, POLICY["number"]):
        return refused
    taken = db.one("SELECT COALESCE(SUM(share_percent), 0) AS n FROM " + BENEFICIARY_TABLE + " WHERE " + POLICY_FK + " = ?", [POLICY_id])["n"]
    if taken + share_percent > 100:
        return error("over_allocated", "only " + str(100 - taken) + "% of the benefit is unallocated")
    return insert_row(db, BENEFICIARY_TABLE, {POLICY_FK: POLICY_id, "full_name": full_name, "relationship": relationship, "share_percent": share_percent})
