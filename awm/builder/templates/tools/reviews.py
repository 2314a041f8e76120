"""Templates of the review tools (deleting a review is the generic delete)."""

from awm.builder.templates.placeholders import (
    ITEM_FK,
    ITEM_LABEL,
    ITEM_TABLE,
    PARTY_FK,
    PARTY_LABEL,
    PARTY_TABLE,
    REVIEW_TABLE,
)
from awm.builder.templates.tool_prelude import REFERENCE_NOW, get_row, insert_row, missing


def add_REVIEW(db, PARTY_id, ITEM_id, rating, comment):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    ITEM = get_row(db, ITEM_TABLE, ITEM_id)
    if ITEM is None:
        return missing(ITEM_LABEL, ITEM_id)
    return insert_row(db, REVIEW_TABLE, {PARTY_FK: PARTY_id, ITEM_FK: ITEM_id, "rating": rating, "comment": comment, "created_at": REFERENCE_NOW})
