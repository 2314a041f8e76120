"""The prelude of every generated tools.py: the helpers its tools call.

This module is real code (linted, importable, tested directly against a database handle); the builder
renders it, without this docstring and its imports, at the top of each environment's tools.py
(awm.builder.tools.render_source), so what an environment runs is what is tested here. A helper takes
the episode's database handle `db` (`one`, `query`, `execute`, as awm.runtime's handles provide).
Business-rule violations are returned as {"error": {"code", "message", ...}}, never raised. The parts that
differ by API style (awm.builder.dialect) live beside it: `error` is replaced by the style's own
(tool_errors.py), and the style's paging helpers (tool_paging.py) follow these.
"""

from awm.builder.data import REFERENCE_NOW_ISO

REFERENCE_NOW = REFERENCE_NOW_ISO
TODAY = REFERENCE_NOW[:10]


# The error shape of the `plain` API style; every environment gets its style's `error` in its place
# (awm.builder.templates.tool_errors): `details` (the states allowed, the argument at fault) are what the
# `detailed` style reports.
def error(code, message, **details):
    return {"error": {"code": code, "message": message}}


def get_row(db, table, row_id):
    return db.one("SELECT * FROM " + table + " WHERE id = ?", [row_id])


def missing(label, row_id):
    return error("not_found", label + " " + str(row_id) + " does not exist")


# One page of rows matching `filters` (None values ignored) and `search`, and how many match in all: the
# paging helpers of the API styles (awm.builder.templates.tool_paging) answer from these.
def select_rows(db, table, filters, limit, offset, search=None, search_columns=(), order_by="id"):
    where = []
    params = []
    for column in filters:
        value = filters[column]
        if value is not None:
            where.append(column + " = ?")
            params.append(value)
    if search:
        where.append("(" + " OR ".join([c + " LIKE ?" for c in search_columns]) + ")")
        params.extend(["%" + search + "%" for c in search_columns])
    clause = " WHERE " + " AND ".join(where) if where else ""
    total = db.one("SELECT COUNT(*) AS n FROM " + table + clause, params)["n"]
    rows = db.query(
        "SELECT * FROM " + table + clause + " ORDER BY " + order_by + " LIMIT ? OFFSET ?",
        params + [limit, offset],
    )
    return rows, total


def insert_row(db, table, values):
    columns = list(values)
    sql = ("INSERT INTO " + table + " (" + ", ".join(columns) + ") VALUES ("
           + ", ".join(["?" for c in columns]) + ")")
    new_id = db.execute(sql, [values[c] for c in columns])["lastrowid"]
    return get_row(db, table, new_id)


def update_row(db, table, row_id, values):
    columns = list(values)
    db.execute("UPDATE " + table + " SET " + ", ".join([c + " = ?" for c in columns]) + " WHERE id = ?",
               [values[c] for c in columns] + [row_id])
    return get_row(db, table, row_id)


def next_code(db, table, column, prefix, start):
    row = db.one("SELECT COUNT(*) AS n FROM " + table, [])
    return prefix + "-" + str(start + row["n"])


def transition(db, table, label, row_id, verb, sources, target, extra=None):
    row = get_row(db, table, row_id)
    if row is None:
        return missing(label, row_id)
    if row["status"] not in sources:
        name = row.get("code") or row.get("number") or str(row_id)
        return error("invalid_state", "cannot " + verb + " " + label + " " + str(name) + " because it is "
                     + row["status"] + " (allowed from: " + ", ".join(sources) + ")", allowed=list(sources))
    values = {"status": target}
    if extra:
        values.update(extra)
    return update_row(db, table, row_id, values)
