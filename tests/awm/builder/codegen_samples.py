"""Small templates for the emitter's tests (awm.builder.codegen): each exercises one rule."""

from awm.builder.codegen import rule
from awm.builder.templates.tool_prelude import error
from awm.builder.templates.tool_rules import require_status, require_status_in

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


def guarded(db, THING_id):
    THING = db.one("SELECT * FROM " + TABLE + " WHERE id = ?", [THING_id])
    for other in (THING, THING):
        if refused := require_status(other, "open", LABEL, str(THING_id), ", not open"):
            return refused
    if refused := require_status_in(THING, ITEMS, LABEL, THING["code"]):
        return refused
    return THING


def guarded_by_hand(db, THING_id):
    THING = db.one("SELECT * FROM " + TABLE + " WHERE id = ?", [THING_id])
    for other in (THING, THING):
        if other["status"] != "open":
            return error("invalid_state", LABEL + " " + str(THING_id) + " is " + other["status"] + ", not open")
    if THING["status"] not in ITEMS:
        return error("invalid_state", LABEL + " " + THING["code"] + " is " + THING["status"])
    return THING


def checked_by_a_function(db, THING_id):
    if refused := select_THING(db, THING_id):
        return refused
    return None


def misusing_a_rule(db, THING_id):
    if refused := require_status(THING_id, "open"):
        return refused
    return None


@rule
def assigning_rule(row):
    if row["status"]:
        text = "x"
        return text


def calling_a_bad_rule(db, row):
    if refused := assigning_rule(row):
        return refused
    return None
