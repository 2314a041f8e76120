"""Templates of the note tools (deleting a note is the generic delete)."""

from awm.builder.templates.placeholders import CASE_FK, CASE_LABEL, CASE_TABLE, NOTE_TABLE, STAFF_FK
from awm.builder.templates.tool_prelude import REFERENCE_NOW, get_row, insert_row, missing


def add_NOTE(db, CASE_id, body, STAFF_id=None):
    CASE = get_row(db, CASE_TABLE, CASE_id)
    if CASE is None:
        return missing(CASE_LABEL, CASE_id)
    return insert_row(db, NOTE_TABLE, {CASE_FK: CASE_id, STAFF_FK: STAFF_id, "body": body, "created_at": REFERENCE_NOW})
