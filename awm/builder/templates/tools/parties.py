"""Templates of the party tools (registering, contact changes, tiers)."""

from awm.builder.templates.placeholders import PARTY_LABEL, PARTY_TABLE
from awm.builder.templates.tool_prelude import REFERENCE_NOW, error, get_row, insert_row, missing, update_row


def create_PARTY(db, first_name, last_name, email, phone, city):
    if db.one("SELECT id FROM " + PARTY_TABLE + " WHERE email = ?", [email]) is not None:
        return error("conflict", "a " + PARTY_LABEL + " with email " + email + " already exists")
    return insert_row(db, PARTY_TABLE, {"first_name": first_name, "last_name": last_name, "email": email, "phone": phone, "city": city, "tier": "standard", "status": "active", "created_at": REFERENCE_NOW})


def update_PARTY_contact(db, PARTY_id, email=None, phone=None, city=None):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    changes = {}
    if email is not None:
        other = db.one("SELECT id FROM " + PARTY_TABLE + " WHERE email = ? AND id != ?", [email, PARTY_id])
        if other is not None:
            return error("conflict", "email " + email + " is used by another record")
        changes["email"] = email
    if phone is not None:
        changes["phone"] = phone
    if city is not None:
        changes["city"] = city
    if not changes:
        return error("invalid_argument", "give at least one of email, phone, city")
    return update_row(db, PARTY_TABLE, PARTY_id, changes)


def set_PARTY_tier(db, PARTY_id, tier):
    PARTY = get_row(db, PARTY_TABLE, PARTY_id)
    if PARTY is None:
        return missing(PARTY_LABEL, PARTY_id)
    if PARTY["tier"] == tier:
        return error("invalid_argument", "the " + PARTY_LABEL + " is already " + tier)
    return update_row(db, PARTY_TABLE, PARTY_id, {"tier": tier})
