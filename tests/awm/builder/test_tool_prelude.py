"""The helpers every generated tools.py starts with (the prelude, its error helper and paging helpers in each API
style), called directly on a real SQLite database through the runtime's handle (awm.runtime.db.DBHandle), as
generated tools call them."""

import sqlite3

import pytest

from awm.builder.templates import tool_bodies, tool_errors, tool_paging
from awm.builder.templates import tool_prelude as prelude
from awm.runtime.db import DBHandle
from awm.runtime.tools import is_error


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
    page = tool_paging.list_rows(db, "orders", {"status": "pending", "code": None}, 1, 0)
    assert [r["code"] for r in page["items"]] == ["ORD-1"]
    assert (page["total"], page["limit"], page["offset"], page["next_offset"]) == (2, 1, 0, 1)
    last = tool_paging.list_rows(db, "orders", {"status": "pending"}, 1, 1)
    assert [r["code"] for r in last["items"]] == ["ORD-3"] and last["next_offset"] is None
    found = tool_paging.list_rows(db, "orders", {}, 20, 0, search="ann", search_columns=("customer", "code"))
    assert [r["code"] for r in found["items"]] == ["ORD-1", "ORD-3"]


def test_list_page_numbers_pages_from_one(db):
    first = tool_paging.list_page(db, "orders", {}, 1, 2)
    assert [r["code"] for r in first["results"]] == ["ORD-1", "ORD-2"]
    assert (first["page"], first["page_size"], first["total_pages"], first["total_results"]) == (1, 2, 2, 3)
    assert [r["code"] for r in tool_paging.list_page(db, "orders", {}, 2, 2)["results"]] == ["ORD-3"]
    assert tool_paging.list_page(db, "orders", {"status": "lost"}, 1, 2)["total_pages"] == 0


def test_list_after_follows_opaque_cursors_and_refuses_made_up_ones(db):
    seen, cursor = [], None
    while True:
        page = tool_paging.list_after(db, "orders", {}, 2, cursor)
        seen += [r["code"] for r in page["data"]]
        assert page["has_more"] == (page["next_cursor"] is not None)
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
        assert cursor.startswith("c1.") and tool_paging.read_cursor(cursor) == 2
    assert seen == ["ORD-1", "ORD-2", "ORD-3"]
    for bad in ("2", "c1.", "c1.zz", "c1.5", "c1.-1"):
        refused = tool_paging.list_after(db, "orders", {}, 2, bad)
        assert is_error(refused) and refused["error"]["code"] == "invalid_argument", bad


def test_every_error_style_keeps_the_structured_error_contract():
    plain = tool_errors.error_plain("not_found", "order 9 does not exist", allowed=["pending"])
    status = tool_errors.error_status("not_found", "order 9 does not exist")
    detailed = tool_errors.error_detailed("invalid_state", "order ORD-2 is shipped", allowed=["pending"])
    assert plain == {"error": {"code": "not_found", "message": "order 9 does not exist"}}
    assert status == {"error": {"code": "NOT_FOUND", "message": "order 9 does not exist", "status": 404}}
    assert tool_errors.error_status("insufficient_funds", "low")["error"]["status"] == 422
    assert detailed["error"] == {"code": "invalid_state", "message": "order ORD-2 is shipped", "retryable": False,
                                 "details": {"allowed": ["pending"]}}
    assert all(is_error(e) for e in (plain, status, detailed))


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


def test_a_body_is_checked_field_by_field_and_named_by_its_path():
    fields = (("email", "string", True), ("rooms", "integer", False), ("rate", "number", False))
    assert tool_bodies.body_error({"email": "a@b.co", "rooms": 2, "rate": 3}, "contact", fields) is None
    assert tool_bodies.body_error(None, "contact", (("email", "string", False),)) is None
    for body, message in (({}, "contact.email is required"), ({"email": None}, "contact.email is required"),
                          ({"email": "a@b.co", "rooms": True}, "contact.rooms must be integer"),
                          ({"email": "a@b.co", "rate": "3"}, "contact.rate must be number"),
                          ({"email": "a@b.co", "fax": "1"}, "contact.fax is not a field of contact"),
                          (["a@b.co"], "contact must be an object")):
        refused = tool_bodies.body_error(body, "contact", fields)
        assert is_error(refused) and refused["error"]["code"] == "invalid_argument"
        assert refused["error"]["message"].startswith(message), refused
    assert tool_bodies.body_value({"email": None}, "email", "none@x.co") == "none@x.co"
    assert tool_bodies.body_value(None, "rooms", 1) == 1 and tool_bodies.body_value({"rooms": 3}, "rooms", 1) == 3
