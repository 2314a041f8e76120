"""The helpers every generated tools.py starts with, called directly on a real SQLite database through the
runtime's handle (awm.runtime.db.DBHandle), as generated tools call them."""

import sqlite3

import pytest

from awm.builder.templates import tool_prelude as prelude
from awm.runtime.db import DBHandle


@pytest.fixture()
def db():
    conn = sqlite3.connect(":memory:", isolation_level=None)  # as the runtime opens an episode
    conn.executescript("""
        CREATE TABLE orders (id INTEGER PRIMARY KEY, code TEXT, status TEXT, customer TEXT, note TEXT);
        INSERT INTO orders (code, status, customer) VALUES ('ORD-1', 'pending', 'Ann Lee'),
            ('ORD-2', 'shipped', 'Bo Chan'), ('ORD-3', 'pending', 'Ann Moss');
    """)
    handle = DBHandle(conn)
    yield handle
    conn.close()


def test_reference_time_is_fixed():
    assert prelude.REFERENCE_NOW == "2025-06-01T09:00:00" and prelude.TODAY == "2025-06-01"


def test_get_row_and_missing(db):
    assert db.one("SELECT code FROM orders WHERE id = 2")["code"] == prelude.get_row(db, "orders", 2)["code"]
    assert prelude.get_row(db, "orders", 99) is None
    assert prelude.missing("order", 99) == {"error": {"code": "not_found", "message": "order 99 does not exist"}}


def test_list_rows_filters_searches_and_pages(db):
    page = prelude.list_rows(db, "orders", {"status": "pending", "code": None}, 1, 0)
    assert [r["code"] for r in page["items"]] == ["ORD-1"]
    assert (page["total"], page["limit"], page["offset"], page["next_offset"]) == (2, 1, 0, 1)
    last = prelude.list_rows(db, "orders", {"status": "pending"}, 1, 1)
    assert [r["code"] for r in last["items"]] == ["ORD-3"] and last["next_offset"] is None
    found = prelude.list_rows(db, "orders", {}, 20, 0, search="ann", search_columns=("customer", "code"))
    assert [r["code"] for r in found["items"]] == ["ORD-1", "ORD-3"]


def test_insert_update_and_next_code(db):
    assert prelude.next_code(db, "orders", "code", "ORD", 1001) == "ORD-1004"
    row = prelude.insert_row(db, "orders", {"code": "ORD-1004", "status": "pending", "customer": "Cy"})
    assert row["id"] == 4 and row["customer"] == "Cy"
    assert prelude.update_row(db, "orders", 4, {"note": "gift"})["note"] == "gift"


def test_transition_moves_only_from_allowed_statuses(db):
    done = prelude.transition(db, "orders", "order", 1, "ship", ("pending",), "shipped", {"note": "fast"})
    assert (done["status"], done["note"]) == ("shipped", "fast")
    refused = prelude.transition(db, "orders", "order", 2, "cancel", ("pending", "confirmed"), "cancelled")
    assert refused == {"error": {"code": "invalid_state", "message": "cannot cancel order ORD-2 because it is "
                                                                     "shipped (allowed from: pending, confirmed)"}}
    assert prelude.transition(db, "orders", "order", 9, "ship", ("pending",), "shipped")["error"]["code"] == "not_found"
