"""Templates of the address tools: adding a postal address (a new primary one replaces the old) and deleting one
that is not primary."""

from awm.builder.templates.placeholders import ADDRESS_LABEL, ADDRESS_TABLE, PARTY_FK, PARTY_LABEL, PARTY_TABLE
from awm.builder.templates.tool_prelude import error, get_row, insert_row, missing


def add_ADDRESS(db, PARTY_id, kind, street, city, postal_code, is_primary=False):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if is_primary:
        db.execute("UPDATE " + ADDRESS_TABLE + " SET is_primary = 0 WHERE " + PARTY_FK + " = ?", [PARTY_id])
    return insert_row(db, ADDRESS_TABLE, {PARTY_FK: PARTY_id, "kind": kind, "street": street, "city": city, "postal_code": postal_code, "is_primary": 1 if is_primary else 0})


def delete_ADDRESS(db, ADDRESS_id):
    ADDRESS = get_row(db, ADDRESS_TABLE, ADDRESS_id)
    if ADDRESS is None:
        return missing(ADDRESS_LABEL, ADDRESS_id)
    if ADDRESS["is_primary"]:
        return error("primary_address", "cannot delete the primary " + ADDRESS_LABEL + "; add another primary first")
    db.execute("DELETE FROM " + ADDRESS_TABLE + " WHERE id = ?", [ADDRESS_id])
    return {"deleted": ADDRESS_id}
