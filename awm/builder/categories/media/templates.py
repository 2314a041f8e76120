"""Templates of the media entities' tools: extending a licence still in force, paying an approved royalty
statement above the minimum, postponing a scheduled release, booking seats at a live event within its capacity."""

from awm.builder.templates.placeholders import (
    CONTENT_LICENCE_LABEL,
    CONTENT_LICENCE_TABLE,
    EVENT_TICKET_TABLE,
    LIVE_EVENT_FK,
    LIVE_EVENT_LABEL,
    LIVE_EVENT_TABLE,
    MAX_LIMIT,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    ROYALTY_STATEMENT_LABEL,
    ROYALTY_STATEMENT_TABLE,
    TITLE_RELEASE_LABEL,
    TITLE_RELEASE_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, update_row
from awm.builder.templates.tool_rules import require_status


def extend_CONTENT_LICENCE(db, CONTENT_LICENCE_id, ends_on):
    CONTENT_LICENCE = get_row(db, CONTENT_LICENCE_TABLE, CONTENT_LICENCE_id)
    if CONTENT_LICENCE is None:
        return missing(CONTENT_LICENCE_LABEL, CONTENT_LICENCE_id)
    if CONTENT_LICENCE["status"] == "expired":
        return error("expired", CONTENT_LICENCE_LABEL + " " + str(CONTENT_LICENCE_id) + " expired on " + CONTENT_LICENCE["ends_on"] + "; it must be negotiated anew, not extended")
    if refused := require_status(CONTENT_LICENCE, "active", CONTENT_LICENCE_LABEL, str(CONTENT_LICENCE_id)):
        return refused
    if ends_on <= CONTENT_LICENCE["ends_on"]:
        return error("invalid_argument", "ends_on must be after the current end, " + CONTENT_LICENCE["ends_on"])
    return update_row(db, CONTENT_LICENCE_TABLE, CONTENT_LICENCE_id, {"ends_on": ends_on})


def pay_ROYALTY_STATEMENT(db, ROYALTY_STATEMENT_id):
    ROYALTY_STATEMENT = get_row(db, ROYALTY_STATEMENT_TABLE, ROYALTY_STATEMENT_id)
    if ROYALTY_STATEMENT is None:
        return missing(ROYALTY_STATEMENT_LABEL, ROYALTY_STATEMENT_id)
    if refused := require_status(ROYALTY_STATEMENT, "approved", ROYALTY_STATEMENT_LABEL, str(ROYALTY_STATEMENT_id), "; only an approved one is paid"):
        return refused
    if ROYALTY_STATEMENT["amount"] < MAX_LIMIT:
        return error("below_minimum", ROYALTY_STATEMENT_LABEL + " " + str(ROYALTY_STATEMENT_id) + " is for " + str(ROYALTY_STATEMENT["amount"]) + ", below the " + str(MAX_LIMIT) + " paid out; it is carried into the next period")
    return update_row(db, ROYALTY_STATEMENT_TABLE, ROYALTY_STATEMENT_id, {"status": "paid"})


def postpone_TITLE_RELEASE(db, TITLE_RELEASE_id, release_on):
    TITLE_RELEASE = get_row(db, TITLE_RELEASE_TABLE, TITLE_RELEASE_id)
    if TITLE_RELEASE is None:
        return missing(TITLE_RELEASE_LABEL, TITLE_RELEASE_id)
    if TITLE_RELEASE["status"] != "scheduled":
        return error("invalid_state", TITLE_RELEASE_LABEL + " of " + TITLE_RELEASE["title"] + " is " + TITLE_RELEASE["status"])
    if release_on <= TITLE_RELEASE["release_on"]:
        return error("invalid_argument", "a release is postponed, never brought forward: release_on must be after " + TITLE_RELEASE["release_on"])
    return update_row(db, TITLE_RELEASE_TABLE, TITLE_RELEASE_id, {"release_on": release_on})


def create_EVENT_TICKET(db, LIVE_EVENT_id, PARTY_id, seats):
    LIVE_EVENT = get_row(db, LIVE_EVENT_TABLE, LIVE_EVENT_id)
    if LIVE_EVENT is None:
        return missing(LIVE_EVENT_LABEL, LIVE_EVENT_id)
    if refused := require_status(LIVE_EVENT, "on_sale", LIVE_EVENT_LABEL, LIVE_EVENT["name"]):
        return refused
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if refused := require_status(PARTY, "active", PARTY_LABEL, str(PARTY_id)):
        return refused
    booked = db.one("SELECT COALESCE(SUM(seats), 0) AS n FROM " + EVENT_TICKET_TABLE + " WHERE " + LIVE_EVENT_FK + " = ? AND status = 'booked'", [LIVE_EVENT_id])["n"]
    if booked + seats > LIVE_EVENT["capacity"]:
        return error("sold_out", LIVE_EVENT_LABEL + " " + LIVE_EVENT["name"] + " has " + str(LIVE_EVENT["capacity"] - booked) + " of " + str(LIVE_EVENT["capacity"]) + " seats left")
    return insert_row(db, EVENT_TICKET_TABLE, {LIVE_EVENT_FK: LIVE_EVENT_id, PARTY_FK: PARTY_id, "seats": seats, "status": "booked", "booked_at": REFERENCE_NOW})
