"""Templates of the notification tools."""

from awm.builder.templates.placeholders import NOTIFICATION_TABLE, PARTY_FK, PARTY_LABEL, PARTY_TABLE
from awm.builder.templates.tool_prelude import REFERENCE_NOW, get_row, insert_row, missing


def send_NOTIFICATION(db, PARTY_id, channel, subject, body):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    return insert_row(db, NOTIFICATION_TABLE, {PARTY_FK: PARTY_id, "channel": channel, "subject": subject, "body": body, "sent_at": REFERENCE_NOW})
