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


def spec(value, kind, others=(), allowed=(), vocabulary=(), denials=False, slots=("answer_1",), echoes=(),
         proper=()):
    """The bindings of one answer check, as awm.builder.verifiergen renders them."""
    return {"slot": slots[0], "slots": list(slots), "type": kind, "value": value, "others": list(others),
            "allowed": list(allowed), "names": [], "echoes": list(echoes), "vocabulary": list(vocabulary),
            "said": prelude.words(value).split() if isinstance(value, str) else [], "proper": list(proper),
            "denials": denials}


def judged(answer, bindings):
    failures = []
    prelude.check_answer(answer, bindings, failures)
    return failures


def test_a_name_the_task_writes_is_no_hedge_and_the_hedge_spelt_the_same_still_is():
    """'Andrew May' in a refusal's answer names the person spoken for; 'may' in lower case leaves the value open."""
    holder = spec("Christy Knox", "name", ["Zachary Parker"], vocabulary="eric chase is not the authorised representative of andrew may".split(),
                  denials=True, proper=["Andrew", "Chase", "Christy", "Knox", "May"])
    assert judged("Eric Chase is not the authorised representative of Andrew May; Christy Knox is.", holder) == []
    assert judged("It may be Christy Knox.", holder) == ["the answer hedges ('may'), leaving 'Christy Knox' open"]
    assert verifiergen_proper("Eric Chase here. I act for Andrew May as their delegate. Cancel it, may I ask?") == [
        "Andrew", "Chase", "May"]


def test_check_answer_refuses_a_hedge_and_accepts_the_value():
    status = spec("shipped", "status", ["pending"])
    assert judged("It is shipped.", status) == []
    assert judged("shipped and pending", status) == ["the answer also names 'pending', conflicting with 'shipped'"]
    assert judged("shipped, or possibly something else", status) == [
        "the answer hedges ('or'), leaving 'shipped' open"]
    assert judged("12, or so", spec(12, "count")) == ["the answer hedges ('or'), leaving 12 open"]
    echo = [verifiergen_echo("Check whether it might be closed today")]
    assert judged("It is closed: check whether it might be closed today.", spec("closed", "status", echoes=echo)) == []


def verifiergen_echo(instruction):
    from awm.builder.verifiergen import _echoes

    return _echoes(instruction)[0]


def verifiergen_proper(text):
    from awm.builder.verifiergen import _proper

    return _proper(text)


@pytest.mark.parametrize("answer, kind, value, reason", [
    ("It is not 591.55.", "amount", 591.55, "negates ('not')"),
    ("It wasn't closed.", "status", "closed", "negates ('wasn')"),
    ("Presumably 591.55, give or take; it may be otherwise", "amount", 591.55, "hedges ('presumably')"),
    ("591.55, I reckon", "amount", 591.55, "says 'reckon', which the answer check cannot vouch for"),
    ("441.84 or 442", "amount", 441.84, "hedges ('or')"),
    ("441.84 (442 rounded)", "amount", 441.84, "says 'rounded', which the answer check cannot vouch for"),
])
def test_a_prose_answer_that_denies_or_hedges_its_value_in_any_wording_fails(answer, kind, value, reason):
    assert judged(answer, spec(value, kind)) == [f"the answer {reason}, leaving {value!r} open"]


@pytest.mark.parametrize("answer, kind, value, conflict", [
    ("441.84, 442", "amount", 441.84, "the answer also states [442.0], conflicting with 441.84"),
    ("3; 3.5", "count", 3, "the answer also states [3.5], conflicting with 3"),
    ("three, four", "count", 3, "the answer also states [4.0], conflicting with 3"),
    ("0.0, 1.0, 2.0, 3.0", "count", 3, "the answer also states [0.0, 1.0, 2.0], conflicting with 3"),
    ("It is due June 4, 2025, June 5, 2025", "date", "2025-06-04",
     "the answer also states the date 2025-6-5, conflicting with '2025-06-04'"),
])
def test_a_second_candidate_of_the_slots_type_in_any_written_form_fails(answer, kind, value, conflict):
    assert judged(answer, spec(value, kind, vocabulary=["due"])) == [conflict]


@pytest.mark.parametrize("answer, kind, value", [
    ("There are three open orders.", "count", 3),
    ("twenty-one", "count", 21),
    ("It is due June 4, 2025.", "date", "2025-06-04"),
    ("It is due on the 4th of June 2025.", "date", "2025-06-04"),
    ("As of June 1, 2025, the balance is $1,591.55.", "amount", 1591.55),
    ("The balance is 591.55 (I checked 4 records).", "amount", 591.55),
    ("There are 3 open orders (I checked the records).", "count", 3),
])
def test_plain_answers_in_other_written_forms_pass(answer, kind, value):
    assert judged(answer, spec(value, kind, vocabulary=["open", "orders", "due"])) == []


def test_a_refusal_may_deny_other_things_and_paraphrase_its_value_but_never_deny_the_value():
    refusal = spec("inactive", "status", ["active"], vocabulary=["mary", "smith", "assigned"], denials=True)
    assert judged("Mary Smith is inactive, so nothing can be assigned to them.", refusal) == []
    assert judged("She is not active any more.", refusal) == []
    assert judged("It is not inactive.", refusal) == ["the answer negates 'inactive'"]
    assert judged("She is active.", refusal) == ["the answer does not state 'inactive'"]
    window = spec(30, "count", vocabulary=["window", "days"], denials=True)
    assert judged("No: the window is 30 days.", window) == []
    assert judged("The window is not 30 days.", window) == ["the answer negates 30"]


def test_a_structured_answer_is_compared_slot_by_slot_with_no_extra_keys():
    two = spec("inactive", "status", ["active"], slots=("answer_1", "answer_2"))
    assert judged('{"answer_1": "Inactive", "answer_2": 3}', two) == []
    assert judged('{"answer_1": "inactive", "answer_2": 3, "other_possibilities": ["active"]}', two) == [
        "the structured answer has keys the task does not ask for: other_possibilities"]
    assert judged('{"answer_1": ["inactive", "active"], "answer_2": 3}', two) == [
        "the answer gives answer_1 = ['inactive', 'active'], not 'inactive'"]
    date = spec("2025-06-04", "date")
    assert judged('{"answer_1": "June 4, 2025"}', date) == []
    assert judged('{"answer_1": "three"}', spec(3, "count")) == []


def test_answer_values_are_read_in_any_written_form():
    assert prelude.iso_dates("June 4, 2025; 4th of June 2025; Jun 4 2025; 2025/06/04; 06/04/2025") == \
        "2025-06-04; 2025-06-04; 2025-06-04; 2025-06-04; 2025-06-04"
    assert prelude.number_words("three orders, twenty-one items; this one is older") == \
        "3 orders, 21 items; this one is older"
    assert prelude.amounts_in("$1,200.50 or 442 (I checked 4 records), 5 dollars") == [1200.5, 442.0, 5.0]


def test_a_negation_reaches_only_to_the_end_of_its_sentence():
    refusal = spec("active", "status", denials=True, vocabulary=["refund", "go", "through", "card"])
    assert judged("The refund cannot go through; the card does not. Active is its status.", refusal) == []
    assert judged("It is not active.", refusal) == ["the answer negates 'active'"]


def test_a_label_holding_a_rivals_word_names_no_rival():
    goal = Goal(kind="answer", slot="status", expect={"value": "requested", "others": ["scheduled"],
                                                      "nouns": ["scheduled move"], "refusal": True})
    task = TASK.model_copy(update={"goals": [goal], "instruction": "Refund the payment on my move SCH-1012."})
    verify = load_module(verifier_source("movers__00", task))["verify"]
    assert verify(database(), database(), "No: the scheduled move SCH-1012 has the status requested.")["complete"]
    verdict = verify(database(), database(), "It is requested and scheduled.")
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


_VERIFIER_DIGEST = """
import hashlib
from awm.builder.data import generate_rows
from awm.builder.taskgen import generate_tasks
from awm.builder.verifiergen import verifier_source
from awm.builder.world import make_scenario, plan_world
digest = hashlib.sha256()
for domain in ("contract_manufacturing", "retail_banking", "dental_clinic"):
    plan = plan_world(make_scenario(domain, 0))
    for task in generate_tasks(plan, generate_rows(plan)).tasks:
        digest.update(verifier_source(plan.scenario.env_id, task).encode())
print(digest.hexdigest())
"""


@pytest.mark.slow
def test_a_verifier_is_the_same_whatever_the_interpreters_hash_seed():
    """Verifiers are written in worker processes, each with its own string hash seed: nothing of a verifier may
    follow a set's order (two expected names of one length were once listed in set order)."""
    import os
    import subprocess
    import sys

    digests = {subprocess.run([sys.executable, "-c", _VERIFIER_DIGEST], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2", "3")}
    assert len(digests) == 1, digests
