"""Verifier code: the prelude's helpers called directly on real read-only database handles, and the
goal-check templates rendered, assembled with only the helpers they need, and compiled under the sandbox."""

import ast
import sqlite3

import pytest

from awm.builder.codegen import TemplateError, splice
from awm.builder.templates import verifier as templates
from awm.builder.templates import verifier_prelude as prelude
from awm.builder.verifiergen import goal_bindings, goal_check, verifier_source
from awm.contracts import Goal, Task, ToolCall
from awm.runtime.db import DBHandle
from awm.runtime.sandbox import load_module


def database(*statements):
    conn = sqlite3.connect(":memory:", isolation_level=None)
    conn.executescript("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL);"
                       "CREATE TABLE lines (id INTEGER PRIMARY KEY, order_id INTEGER, sku TEXT);"
                       "INSERT INTO orders (status, total) VALUES ('pending', 10.0), ('shipped', 25.5);"
                       + "".join(statements))
    return DBHandle(conn, readonly=True)


def test_values_are_read_from_answers_the_way_the_answer_contract_says():
    assert prelude.numbers_in("Paid $1,250.50 on 2025-06-01 at 09:30 for ORD-1042, and -3") == [
        (1250.5, True), (-3.0, False)]
    assert prelude.dates_in("from 2025-06-01 to 2025-6-3") == [(2025, 6, 1), (2025, 6, 3)]
    assert prelude.words("Checked-In!") == "checked in"
    assert prelude.matches("Leave  at the door.", {"text": "leave at the door"})
    assert prelude.matches(10.001, 10.0) and not prelude.matches(10.01, 10.0)
    assert prelude.structured('{"status": "shipped"}') == {"status": "shipped"} and prelude.structured("{oops") is None


def test_check_answer_refuses_a_hedge_and_accepts_the_value():
    failures = []
    prelude.check_answer("It is shipped.", "status", "shipped", ["pending"], [], [], failures)
    assert failures == []
    prelude.check_answer("shipped or pending", "status", "shipped", ["pending"], [], [], failures)
    assert failures == ["the answer also names 'pending', conflicting with 'shipped'"]
    failures.clear()
    prelude.check_answer("shipped, or possibly something else", "status", "shipped", ["pending"], [], [], failures)
    assert failures == ["the answer hedges ('possibly'), leaving 'shipped' open"]
    failures.clear()
    prelude.check_answer("12, or so", "count", 12, [], [12], [], failures)
    assert failures == ["the answer hedges ('or so'), leaving 12 open"]
    failures.clear()
    prelude.check_answer("It might be closed: the request says 'it might be closed'.", "status", "closed", [],
                         ["Check whether it might be closed."], [], failures)
    assert failures == []


def test_a_negation_reaches_only_to_the_end_of_its_sentence():
    failures = []
    prelude.check_answer("The refund cannot go through; the card does not. Active is its status.", "status", "active",
                         [], [], [], failures)
    assert failures == []
    prelude.check_answer("It is not active.", "status", "active", [], [], [], failures)
    assert failures == ["the answer negates 'active'"]


def test_a_label_holding_a_rivals_word_names_no_rival():
    goal = Goal(kind="answer", slot="status", expect={"value": "requested", "others": ["scheduled"],
                                                      "nouns": ["scheduled move"]})
    task = TASK.model_copy(update={"goals": [goal], "instruction": "Refund the payment on my move SCH-1012."})
    verify = load_module(verifier_source("movers__00", task))["verify"]
    assert verify(database(), database(), "No: the scheduled move SCH-1012 has the status requested.")["complete"]
    verdict = verify(database(), database(), "It is requested, or scheduled.")
    assert verdict["evidence"] == ["the answer also names 'scheduled', conflicting with 'requested'"]


def test_row_checks_read_initial_and_final_databases():
    initial = database()
    final = database("UPDATE orders SET status = 'shipped', total = 12.5 WHERE id = 1;",
                     "INSERT INTO orders (status, total) VALUES ('pending', 3.0);",
                     "INSERT INTO lines (order_id, sku) VALUES (3, 'A');", "DELETE FROM orders WHERE id = 2;")
    failures = []
    prelude.check_row_equals(final, "orders", 1, {"status": "shipped"}, failures)
    prelude.check_row_delta(initial, final, "orders", 1, "total", 2.5, failures)
    prelude.check_rows_created(initial, final, "orders", {"status": "pending"}, 1, "lines", "order_id", [{"sku": "A"}],
                               failures)
    prelude.check_row_deleted(final, "orders", 2, failures)
    assert failures == []
    prelude.check_row_equals(final, "orders", 1, {"status": "pending"}, failures)
    prelude.check_row_deleted(initial, "orders", 2, failures)
    assert failures == ["orders row 1: status is 'shipped', expected 'pending'", "orders row 2 still exists"]


TASK = Task(task_id="t01", kind="question", template="ship_and_tell", reference_answer="shipped",
            instruction="Ship order 1 and say the status of order 2, reduce the total by 5",
            goals=[Goal(kind="row_equals", table="orders", pk=1, expect={"status": "shipped"}),
                   Goal(kind="row_delta", table="orders", pk=1, column="total", delta=-5.0),
                   Goal(kind="answer", slot="status", expect={"value": "shipped", "others": ["pending"]})],
            reference_solution=[ToolCall(tool="ship_order", arguments={"order_id": 1})])


def test_each_goal_kind_renders_as_one_call_of_its_check():
    assert ast.unparse(goal_check(TASK, TASK.goals[1], None)) == \
        "check_row_delta(initial, final, 'orders', 1, 'total', -5.0, failures)"
    with pytest.raises(ValueError, match="no verifier check for a goal of kind 'answer'"):
        goal_bindings(TASK.goals[2])


def test_a_verifier_carries_only_the_helpers_it_needs_and_runs_in_the_sandbox():
    only_rows = TASK.model_copy(update={"goals": TASK.goals[:1]})
    source = verifier_source("shop__00", only_rows)
    assert "def check_row_equals" in source and "def check_answer" not in source and "import json" not in source
    verify = load_module(verifier_source("shop__00", TASK))["verify"]
    final = database("UPDATE orders SET status = 'shipped', total = 5.0 WHERE id = 1;")
    assert verify(database(), final, "Order 2 is shipped.") == {"complete": True, "evidence": ["every goal is met"]}
    verdict = verify(database(), final, "pending")
    assert not verdict["complete"] and verdict["evidence"] == ["the answer does not state 'shipped'"]


def test_splicing_needs_exactly_one_marker():
    with pytest.raises(TemplateError, match="expected one NOWHERE line, found 0"):
        splice(templates, "verify", "NOWHERE", [])
