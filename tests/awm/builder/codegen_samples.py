"""Small templates for the emitter's tests (awm.builder.codegen): each exercises one rule."""

from awm.builder.templates.tool_prelude import error

FLAG = False
TABLE = "things"
LABEL = "thing"
VERB = "close"
ITEMS: tuple = ()
KEY = "k"
EXTRA = None


def select_THING(db, THING_id):
    """A docstring the renderer drops."""
    THING = db.one("SELECT * FROM " + TABLE + " WHERE id = ?", [THING_id])
    return THING


def message(db, name):
    return error("invalid_state", "cannot " + VERB + " " + LABEL + " " + name + " because it is " + LABEL + " closed")


def optional(db):
    rows = []
    if FLAG:
        rows.append(1)
    else:
        rows.append(2)
    if not FLAG:
        rows.append(3)
    return rows


def unrolled(db):
    row = {}
    for _ in ITEMS:
        row[KEY] = db.query("SELECT * FROM " + TABLE, [])
    return row


def with_expression(db, comment):
    return EXTRA


def unbound(db):
    return db.one("SELECT * FROM " + MISSING_TABLE, [])  # noqa: F821
