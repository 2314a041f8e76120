"""Every row an episode inserts is compared whole with the reference's, through the real runtime (sandbox
workers, the outcome check): created then cancelled, an optional field set without being asked, an open
free-text column left empty or filled, and a footprint written before whole rows were recorded."""

import pytest

from awm.contracts import Footprint
from awm.runtime.environment import Environment
from tests.awm.quality.bookings import ENV_ID, write_bookings

BOOK_2 = ("book_room", {"room_id": 2, "member_id": 1, "starts_at": "2025-06-03T10:00:00"})
BOOK_1 = ("book_room", {"room_id": 1, "member_id": 2, "note": "Guest arrives early"})


@pytest.fixture
def env(store):
    write_bookings(store)
    environment = Environment.from_store(store, ENV_ID)
    yield environment
    environment.close()


def play(env: Environment, calls, task: str) -> dict:
    with env.reset(task) as episode:
        for tool, arguments in calls:
            result = episode.call(tool, arguments)
            assert "error" not in result, result
        return episode.score(None)


def test_the_reference_scores_one_and_its_footprint_holds_the_whole_row(env):
    score = play(env, [("get_room", {"room_id": 2}), BOOK_2], "t01")
    assert score["reward"] == 1.0, score["evidence"]
    footprint = Footprint.model_validate(env.footprint("t01"))
    (row,) = footprint.inserted["bookings"]
    # every column but the generated code (open: made up by the tool, BK-102 or BK-103 by insertion order)
    assert row == {"id": 3, "room_id": 2, "member_id": 1, "starts_at": "2025-06-03T10:00:00", "kind": "standard",
                   "status": "pending", "note": None, "created_at": "2025-06-01T09:00:00"}
    assert footprint.open == {"bookings": [["code"]]}


def test_a_row_created_then_cancelled_is_not_the_row_asked_for(env):
    score = play(env, [BOOK_2, ("cancel_booking", {"booking_id": 3})], "t01")
    assert score["reward"] == 0.0 and score["diff"]["unexpected"] == 1
    assert "unexpected change: bookings row 3 inserted: status 'cancelled', expected 'pending'" in score["evidence"]


def test_a_row_created_then_moved_on_fails_and_a_wrong_row_cancelled_on_the_way_is_one_too_many(env):
    assert play(env, [BOOK_2, ("confirm_booking", {"booking_id": 3})], "t01")["reward"] == 0.0
    # a wrong booking made and cancelled first, then the right one: the right one (row 4) is the row asked for,
    # the cancelled one is an insert the reference never makes
    score = play(env, [("book_room", {"room_id": 2, "member_id": 1}), ("cancel_booking", {"booking_id": 3}), BOOK_2],
                 "t01")
    assert score["reward"] == 0.0 and score["diff"]["unexpected"] == 1 and score["diff"]["expected"] == 1
    assert score["evidence"][-1].startswith("unexpected change: bookings row 3 inserted (id=3, ")


@pytest.mark.parametrize("extra, column, value", [
    ({"starts_at": "2024-01-01T09:00:00"}, "starts_at", "'2024-01-01T09:00:00', expected '2025-06-03T10:00:00'"),
    ({"kind": "priority"}, "kind", "'priority', expected 'standard'"),
    ({"note": "VIP, waive the fee"}, "note", "'VIP, waive the fee', expected None"),
])
def test_an_optional_field_the_request_never_mentions_set_otherwise_fails(env, extra, column, value):
    tool, arguments = BOOK_2
    score = play(env, [(tool, {**arguments, **extra})], "t01")
    assert score["reward"] == 0.0 and score["diff"]["unexpected"] == 1
    assert score["evidence"][-1] == f"unexpected change: bookings row 3 inserted: {column} {value}"


def test_a_backdated_start_on_a_create_that_leaves_it_to_the_tool_fails(env):
    tool, arguments = BOOK_1
    score = play(env, [(tool, {**arguments, "starts_at": "2024-01-01T09:00:00"})], "t02")
    assert score["reward"] == 0.0
    assert score["evidence"][-1] == ("unexpected change: bookings row 3 inserted: starts_at '2024-01-01T09:00:00', "
                                     "expected '2025-06-01T09:00:00'")


@pytest.mark.parametrize("note", ["Guest arrives early", "  guest ARRIVES early. ", "Please have tea ready",
                                  "Visitor expected before ten"])
def test_an_open_free_text_column_takes_any_text(env, note):
    """The note is neither stated by the request nor a value of the world: any non-empty text is the row asked for."""
    tool, arguments = BOOK_1
    assert play(env, [(tool, {**arguments, "note": note})], "t02")["reward"] == 1.0
    assert Footprint.model_validate(env.footprint("t02")).open == {"bookings": [["code", "note"]]}


@pytest.mark.parametrize("note", [None, "", "   "])
def test_an_open_free_text_column_left_empty_fails(env, note):
    tool, arguments = BOOK_1
    arguments = {k: v for k, v in arguments.items() if k != "note"}
    if note is not None:
        arguments["note"] = note
    score = play(env, [(tool, arguments)], "t02")
    assert score["reward"] == 0.0
    assert score["evidence"][-1] == (f"unexpected change: bookings row 3 inserted: note {note!r}, "
                                     "expected any non-empty text")


def test_a_footprint_written_before_whole_rows_still_loads_and_judges_anchors(store):
    """verifiers.json of an earlier build: an inserted row listed by the columns pointing at other rows only."""
    old = {"updated": {}, "values": {}, "deleted": {}, "inserted": {"bookings": [{"room_id": 2, "member_id": 1}]}}
    write_bookings(store, {"t01": old})
    with Environment.from_store(store, ENV_ID) as env:
        assert env.footprint("t01")["inserted"] == old["inserted"] and env.footprint("t01")["open"] == {}
        assert play(env, [BOOK_2], "t01")["reward"] == 1.0
        wrong_room = play(env, [("book_room", {"room_id": 1, "member_id": 1})], "t01")
        assert wrong_room["reward"] == 0.0


def test_an_open_column_row_must_belong_to_the_footprints_inserted_rows():
    with pytest.raises(ValueError, match="2 rows of open columns for table bookings, which has 1 inserted rows"):
        Footprint.model_validate({"inserted": {"bookings": [{"room_id": 2}]}, "open": {"bookings": [["note"], []]}})
