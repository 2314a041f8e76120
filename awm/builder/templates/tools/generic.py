"""Templates every concern uses: list (filters, text search, paging: one template per paging style of
awm.builder.dialect), get (with child rows), a status transition, and a plain delete. ENTITY is the tool's
role; FILTERS the expression of the filters given (flat arguments, or the `filters` object's)."""

from awm.builder.templates.placeholders import (
    CHILD_KEY,
    CHILD_TABLE,
    CHILDREN,
    ENTITY_FK,
    ENTITY_LABEL,
    ENTITY_TABLE,
    EXTRA,
    FILTERS,
    SEARCH,
    SEARCH_COLUMNS,
    SOURCES,
    TARGET,
    VERB_TEXT,
)
from awm.builder.templates.tool_paging import list_after, list_page, list_rows
from awm.builder.templates.tool_prelude import get_row, missing, transition


def list_ENTITIES(db, query=None, limit=20, offset=0):
    if SEARCH:
        return list_rows(db, ENTITY_TABLE, FILTERS, limit, offset, search=query, search_columns=SEARCH_COLUMNS)
    else:
        return list_rows(db, ENTITY_TABLE, FILTERS, limit, offset)


def page_ENTITIES(db, query=None, page=1, page_size=20):
    if SEARCH:
        return list_page(db, ENTITY_TABLE, FILTERS, page, page_size, search=query, search_columns=SEARCH_COLUMNS)
    else:
        return list_page(db, ENTITY_TABLE, FILTERS, page, page_size)


def cursor_ENTITIES(db, query=None, limit=20, cursor=None):
    if SEARCH:
        return list_after(db, ENTITY_TABLE, FILTERS, limit, cursor, search=query, search_columns=SEARCH_COLUMNS)
    else:
        return list_after(db, ENTITY_TABLE, FILTERS, limit, cursor)


def get_ENTITY(db, ENTITY_id):
    row = get_row(db, ENTITY_TABLE, ENTITY_id)
    if row is None:
        return missing(ENTITY_LABEL, ENTITY_id)
    for _ in CHILDREN:
        row[CHILD_KEY] = db.query("SELECT * FROM " + CHILD_TABLE + " WHERE " + ENTITY_FK + " = ? ORDER BY id", [ENTITY_id])
    return row


def transition_ENTITY(db, ENTITY_id):
    return transition(db, ENTITY_TABLE, ENTITY_LABEL, ENTITY_id, VERB_TEXT, SOURCES, TARGET, EXTRA)


def delete_ENTITY(db, ENTITY_id):
    ENTITY = get_row(db, ENTITY_TABLE, ENTITY_id)
    if ENTITY is None:
        return missing(ENTITY_LABEL, ENTITY_id)
    db.execute("DELETE FROM " + ENTITY_TABLE + " WHERE id = ?", [ENTITY_id])
    return {"deleted": ENTITY_id}
