"""The outcome diff on real SQLite databases: which tables it reads, what it reports, how a footprint accounts."""

import sqlite3

from awm.runtime import outcome
from awm.runtime.db import DBHandle, fresh_copy

DDL = """
CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, city TEXT);
CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
                     status TEXT NOT NULL);
CREATE TABLE notes (id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL REFERENCES orders(id), body TEXT NOT NULL);
INSERT INTO customers VALUES (1, 'Ann', 'Oslo'), (2, 'Bo', 'Rome');
INSERT INTO orders VALUES (1, 1, 'open'), (2, 2, 'open');
"""


def template(tmp_path) -> sqlite3.Connection:
    path = tmp_path / "env.db"
    conn = sqlite3.connect(path)
    conn.executescript(DDL)
    conn.commit()
    conn.close()
    return sqlite3.connect(f"file:{path}?mode=ro", uri=True)


def episode(tmp_path):
    base = template(tmp_path)
    return base, outcome.Layout.read(base), DBHandle(fresh_copy(base))


def test_the_write_authorizer_names_the_tables_written_and_only_those_are_read(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("UPDATE orders SET status = 'shipped' WHERE id = 1")
    handle.query("SELECT * FROM customers")
    assert handle._written == {"orders"}
    changes = outcome.diff(layout, base, handle._conn, handle._written)
    assert changes == [{"table": "orders", "key": 1, "op": "update", "columns": {"status": ["open", "shipped"]}}]
    assert set(layout.initial_rows) == {"orders"}  # customers and notes were never read


def test_a_cascade_is_seen_in_the_child_table(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("DELETE FROM customers WHERE id = 2")
    assert layout.affected(handle._written) == ["customers", "orders"]
    changes = outcome.diff(layout, base, handle._conn, handle._written)
    assert {(c["table"], c["key"], c["op"]) for c in changes} == {("customers", 2, "delete"), ("orders", 2, "delete")}


def test_a_schema_change_compares_every_table_and_reports_the_new_one(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("CREATE TABLE stash (x TEXT)")
    assert outcome.ALL_TABLES in handle._written
    changes = outcome.diff(layout, base, handle._conn, handle._written)
    assert changes == [{"table": "stash", "key": None, "op": "create_table", "columns": {}}]
    summary, unexpected = outcome.account(layout, changes, {})
    assert summary["unexpected"] == 1 and unexpected == ["unexpected change: table stash: create table"]


def test_a_footprint_accounts_for_rows_columns_and_whole_inserted_rows(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("UPDATE orders SET status = 'cancelled' WHERE id = 1")
    handle.execute("INSERT INTO notes (order_id, body) VALUES (1, 'called')")
    footprint = outcome.footprint_of(layout, outcome.diff(layout, base, handle._conn, handle._written))
    assert footprint == {"updated": {"orders": {"1": ["status"]}}, "values": {"orders": {"1": {"status": "cancelled"}}},
                         "deleted": {}, "inserted": {"notes": [{"id": 1, "order_id": 1, "body": "called"}]}, "open": {}}
    # the same changes, plus a note on another order and another order cancelled
    handle.execute("INSERT INTO notes (order_id, body) VALUES (2, 'called')")
    handle.execute("UPDATE orders SET status = 'cancelled' WHERE id = 2")
    summary, unexpected = outcome.account(layout, outcome.diff(layout, base, handle._conn, handle._written), footprint)
    assert summary["expected"] == 2 and summary["unexpected"] == 2
    assert sorted(unexpected) == ["unexpected change: notes row 2 inserted (id=2, order_id=2, body='called')",
                                  "unexpected change: orders row 2 updated (status 'open' -> 'cancelled')"]
    verdict = outcome.judged({"complete": True, "evidence": ["every goal is met"]}, summary, unexpected)
    assert not verdict["complete"] and verdict["collateral"] and "every goal is met" not in verdict["evidence"]


def test_a_change_undone_leaves_no_diff(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("UPDATE customers SET city = 'Paris' WHERE id = 2")
    handle.execute("UPDATE customers SET city = 'Rome' WHERE id = 2")
    assert outcome.diff(layout, base, handle._conn, handle._written) == []


def test_an_allowed_column_must_end_with_the_references_value(tmp_path):
    """A side effect the task allows (an order's status) set to anything else is not accounted for."""
    base, layout, handle = episode(tmp_path)
    handle.execute("UPDATE orders SET status = 'cancelled' WHERE id = 1")
    footprint = outcome.footprint_of(layout, outcome.diff(layout, base, handle._conn, handle._written))
    handle.execute("UPDATE orders SET status = 'refunded' WHERE id = 1")
    summary, unexpected = outcome.account(layout, outcome.diff(layout, base, handle._conn, handle._written), footprint)
    assert summary["unexpected"] == 1
    assert unexpected == ["unexpected change: orders row 1 updated (status 'open' -> 'refunded')"]


def _account(layout, base, handle, footprint):
    return outcome.account(layout, outcome.diff(layout, base, handle._conn, handle._written), footprint)


def test_an_inserted_row_is_compared_whole_and_the_evidence_names_the_column(tmp_path):
    base, layout, handle = episode(tmp_path)
    handle.execute("INSERT INTO notes (order_id, body) VALUES (1, 'Called the customer')")
    footprint = outcome.footprint_of(layout, outcome.diff(layout, base, handle._conn, handle._written))
    handle.execute("UPDATE notes SET body = '  called THE customer. ' WHERE id = 1")  # the same text, normalised
    assert _account(layout, base, handle, footprint)[0]["unexpected"] == 0
    handle.execute("UPDATE notes SET body = 'Emailed the customer' WHERE id = 1")
    summary, unexpected = _account(layout, base, handle, footprint)
    assert unexpected == ["unexpected change: notes row 1 inserted: body 'Emailed the customer', "
                          "expected 'Called the customer'"]


def test_rows_pointing_at_rows_the_episode_inserted_are_compared_through_their_match(tmp_path):
    """The reference orders for Ann then Bo, each with a note; the episode in the other order (other keys)."""
    base, layout, handle = episode(tmp_path)
    for customer, body in ((1, "for Ann"), (2, "for Bo")):
        order = handle.execute("INSERT INTO orders (customer_id, status) VALUES (?, 'open')", [customer])["lastrowid"]
        handle.execute("INSERT INTO notes (order_id, body) VALUES (?, ?)", [order, body])
    footprint = outcome.footprint_of(layout, outcome.diff(layout, base, handle._conn, handle._written))
    assert [n["order_id"] for n in footprint["inserted"]["notes"]] == [3, 4]

    def other_order(notes, name):
        (tmp_path / name).mkdir()
        _, _, again = episode(tmp_path / name)
        for customer, body in notes:
            order = again.execute("INSERT INTO orders (customer_id, status) VALUES (?, 'open')", [customer])["lastrowid"]
            again.execute("INSERT INTO notes (order_id, body) VALUES (?, ?)", [order, body])
        return _account(layout, base, again, footprint)

    assert other_order([(2, "for Bo"), (1, "for Ann")], "swapped")[0]["unexpected"] == 0
    # each note on the other customer's order
    summary, unexpected = other_order([(2, "for Ann"), (1, "for Bo")], "crossed")
    assert summary["unexpected"] == 2
    assert unexpected[0] == ("unexpected change: notes row 1 inserted: order_id 3 (the reference's orders row 4), "
                             "expected 3")


WORLD = """
CREATE TABLE members (id INTEGER PRIMARY KEY, name TEXT NOT NULL, tier TEXT NOT NULL,
                      CONSTRAINT ck_members_tier_enum CHECK (tier IN ('basic', 'gold')));
CREATE TABLE tickets (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL REFERENCES members(id), code TEXT NOT NULL,
                      subject TEXT NOT NULL, body TEXT, tier TEXT NOT NULL, opened_at TEXT NOT NULL, ref TEXT,
                      amount REAL, CONSTRAINT ck_tickets_tier_enum CHECK (tier IN ('basic', 'gold')));
INSERT INTO members VALUES (1, 'Ann Lee', 'gold');
"""


def test_open_columns_are_prose_the_request_does_not_state_and_the_world_does_not_hold(tmp_path):
    path = tmp_path / "world.db"
    conn = sqlite3.connect(path)
    conn.executescript(WORLD)
    conn.commit()
    conn.close()
    base = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    layout = outcome.Layout.read(base)
    assert layout.tables["tickets"].enums == {"tier"} and layout.tables["tickets"].references == {"member_id": "members"}
    row = {"id": 1, "member_id": 1, "code": "TCK-801", "subject": "Broken locker", "body": "Please look at it soon",
           "tier": "basic", "opened_at": "2025-06-01T09:00:00", "ref": "Ann Lee", "amount": 12.5}
    instruction = "Open a ticket for Ann Lee about a 'broken locker' and tell the team what it is about."
    # code: made up by the tool; body: made up by the reference. Not open: the key, the member (a row), the
    # subject (stated), the tier (an enum), the timestamp (a date), ref (a value of the world), the amount
    assert outcome.open_columns(layout.tables["tickets"], row, base, instruction) == ["code", "body"]
    footprint = outcome.footprint_of(layout, [{"table": "tickets", "key": 1, "op": "insert",
                                               "columns": {c: [None, v] for c, v in row.items()}}], base, instruction)
    assert footprint["open"] == {"tickets": [["code", "body"]]}
    assert "code" not in footprint["inserted"]["tickets"][0] and "body" not in footprint["inserted"]["tickets"][0]
