"""Rewards that cannot be gamed: the outcome check through the real runtime, and the answer contract of the
builder's verifiers (docs/runtime.md), judged by the generated verifier code in the sandbox."""

import json

import pytest

from awm.builder.verifiergen import verifier_source
from awm.contracts import Goal, Task
from awm.runtime.environment import Environment
from awm.runtime.sandbox import load_module
from tests.awm.quality.conftest import ENV_ID, TASKS_JSON

REFERENCE = [(c["tool"], c["arguments"]) for c in TASKS_JSON["tasks"][0]["reference_solution"]]


@pytest.fixture
def env(library):
    environment = Environment.from_store(library, ENV_ID)
    yield environment
    environment.close()


def play(env: Environment, calls, answer=None, task="t01") -> dict:
    with env.reset(task) as episode:
        for tool, arguments in calls:
            episode.call(tool, arguments)
        return episode.score(answer)


def test_the_reference_scores_one_with_its_diff_and_counts(env):
    score = play(env, REFERENCE)
    assert score["reward"] == 1.0 and score["complete"]
    assert score["diff"] == {"tables": {"books": {"inserted": 0, "updated": 1, "deleted": 0, "unexpected": 0}},
                             "changed": 1, "expected": 1, "unexpected": 0}
    assert score["calls"] == 3 and score["tool_errors"] == 0


@pytest.mark.parametrize("extra", [
    ("set_stock", {"book_id": 3, "stock": 0}),            # another book's stock emptied
    ("rename_book", {"book_id": 4, "title": "Collected Poems"}),  # the same change on a second row
])
def test_the_right_change_plus_collateral_damage_scores_zero(env, extra):
    score = play(env, REFERENCE + [extra])
    assert score["reward"] == 0.0 and not score["complete"]
    assert score["diff"]["unexpected"] == 1
    book = extra[1]["book_id"]
    assert any(e.startswith(f"unexpected change: books row {book} updated") for e in score["evidence"])


def test_a_changed_column_the_reference_leaves_alone_is_collateral(env):
    """Same row, another column: book 2's author reassigned is not in the footprint (title and stock are)."""
    with env.reset("t01") as episode:
        for tool, arguments in REFERENCE:
            episode.call(tool, arguments)
        assert env.footprint("t01")["updated"] == {"books": {"2": ["stock", "title"]}}
    tools = env.tools
    assert {t["name"] for t in tools} >= {"rename_book", "set_stock"}


def test_a_wrong_write_later_corrected_leaves_no_diff_and_passes(env):
    undo = [("rename_book", {"book_id": 3, "title": "Oops"}), ("rename_book", {"book_id": 3, "title": "Frankenstein"})]
    score = play(env, undo + REFERENCE)
    assert score["reward"] == 1.0, score["evidence"]
    assert score["diff"]["changed"] == 1


def test_tool_errors_are_counted(env):
    score = play(env, [("get_book", {"book_id": 99}), ("set_stock", {"book_id": 2, "stock": -1})] + REFERENCE)
    assert score["reward"] == 1.0 and score["calls"] == 5 and score["tool_errors"] == 2


def test_a_saved_final_state_is_judged_with_the_same_outcome_check(env, tmp_path):
    with env.reset("t01") as episode:
        for tool, arguments in REFERENCE + [("set_stock", {"book_id": 3, "stock": 0})]:
            episode.call(tool, arguments)
        saved = tmp_path / "final.db"
        saved.write_bytes(episode.snapshot())
    score = env.score_database("t01", saved)
    assert score["reward"] == 0.0 and score["diff"]["unexpected"] == 1


# --- the answer contract -------------------------------------------------------------------------------

QUESTION = Task(
    task_id="t01", kind="question", template="probe",
    instruction="What is the status of booking BK-1042 of Ann Lee (ann.lee@example.com), and what is its total? "
                "Also, how many bookings with status 'cancelled' does she have?",
    reference_solution=[{"tool": "get_booking", "arguments": {"booking_id": 42}}],
    reference_answer="checked_in, 1234.50; 2",
    goals=[Goal(kind="answer", slot="status", expect={"value": "checked_in",
                                                      "others": ["cancelled", "confirmed", "checked_out"]}),
           Goal(kind="answer", slot="total", expect={"value": 1234.5}),
           Goal(kind="answer", slot="cancelled", expect={"value": 2})],
)


@pytest.fixture(scope="module")
def verify():
    return load_module(verifier_source("probe__00", QUESTION), "probe__00/t01")["verify"]


@pytest.mark.parametrize("answer", [
    "checked_in, 1234.50; 2",
    "The booking is Checked-In with a total of $1,234.50, and she has had 2 cancellations.",
    "checked in; 1234.5; 2",
    "Status: CHECKED IN. Total: 1,234.50 USD. Cancellations: 2.",
    json.dumps({"status": "checked in", "total": "$1,234.50", "cancelled": 2}),
    json.dumps({"status": "checked_in", "total": 1234.5, "cancelled": 2.0}),
    "The booking was made on 2025-05-01 at 09:30; it is checked_in, total 1234.50, with 2 cancellations.",
    "As of June 1, 2025, the booking is checked in, its total is $1,234.50 and she has two cancellations.",
    "Checked in; 1234.50; 2 (I checked the bookings).",
])
def test_equivalent_forms_pass(verify, answer):
    verdict = verify(None, None, answer)
    assert verdict["complete"], verdict


@pytest.mark.parametrize(("answer", "why"), [
    ("checked_in or maybe checked_out, 1234.50; 2", "hedges ('or')"),
    ("checked_in and checked_out, 1234.50; 2", "also names 'checked_out'"),
    ("checked_in, possibly something else; 1234.50; 2", "hedges ('possibly')"),
    ("checked_in; 1234.50, I think; 2", "hedges ('think')"),
    ("checked_in, 1234.50 (1243.50); 2", "also states [1243.5]"),
    ("checked_in, 1234.50; 2, 3", "also states [3.0]"),
    ("Presumably checked_in, 1234.50, 2, give or take; it may be otherwise.", "hedges ('presumably')"),
    ("checked_in, 1234.50 and 2, by my best reckoning", "cannot vouch for"),
    ("It wasn't checked_in; 1234.50; 2", "negates"),
    ("checked_in; 1234.50; two, or three", "hedges ('or')"),
    ("checked_in; 1234.50 or 1235; 2", "hedges ('or')"),
    ("checked_in; 1234.50, 1235; 2", "also states [1235.0]"),
    ("It is one of cancelled, confirmed, checked_in, checked_out; 1234.50; 2", "also names"),
    ("NOT checked_in; 1234.50; 2", "negates"),
    ("It is not checked in; 1234.50; 2", "negates"),
    (QUESTION.instruction, "does not state"),
    ("checked_in, 1234.50", "does not state 2"),
    (json.dumps({"status": ["checked_in", "checked_out"], "total": 1234.5, "cancelled": 2}), "status = "),
    (json.dumps({"status": "checked_in", "total": 1234.5}), "no 'cancelled'"),
    (None, "no answer given"),
])
def test_hedges_dumps_echoes_and_negations_fail(verify, answer, why):
    verdict = verify(None, None, answer)
    assert not verdict["complete"]
    assert any(why in e for e in verdict["evidence"]), verdict["evidence"]


def test_a_quoted_text_must_match_not_merely_be_contained():
    task = Task(task_id="t01", kind="action", template="probe", instruction="Add the note 'Call back on Monday'.",
                reference_solution=[{"tool": "add_note", "arguments": {"body": "Call back on Monday"}}],
                goals=[Goal(kind="rows_created", table="notes", count=1,
                            expect={"body": {"text": "Call back on Monday"}})])
    namespace = load_module(verifier_source("probe__00", task), "probe__00/t01")
    matches = namespace["matches"]
    expected = {"text": "Call back on Monday"}
    assert matches("call back  on monday.", expected)
    assert not matches("NOT Call back on Monday", expected)
    assert not matches("Call back on Monday or Tuesday", expected)
