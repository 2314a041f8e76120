"""The proofs about rows a task creates, on a crafted room-booking environment through the real runtime: the
reference then a write that breaks or moves on the created row, and a create with an optional argument the
request never mentions, must all be rejected; the valid alternatives still pass."""

import pytest

from awm.contracts import MUTANT_CLASSES, SchemaSpec, TaskSet, ToolSet
from awm.quality.mutations import Mutator, _unrequested_values
from awm.quality.proofs import prove_task
from awm.runtime.environment import Environment
from tests.awm.quality.bookings import ENV_ID, TASKS_JSON, write_bookings

NEW_CLASSES = ("created_then_broken", "extra_transition", "unrequested_field")


@pytest.fixture
def proven(store):
    write_bookings(store)
    taskset = TaskSet.model_validate(TASKS_JSON)
    toolset = store.read_model(ENV_ID, "tools.json", ToolSet)
    spec = store.read_model(ENV_ID, "schema.json", SchemaSpec)
    env = Environment.from_store(store, ENV_ID)
    mutator = Mutator(toolset, spec, store.path(ENV_ID, "env.db"), taskset.tasks)
    try:
        yield {t.task_id: prove_task(env, t, mutator) for t in taskset.tasks}
    finally:
        env.close()


def test_the_new_classes_are_mutant_classes():
    assert set(NEW_CLASSES) <= set(MUTANT_CLASSES)


def test_every_write_on_a_created_row_and_every_unrequested_field_is_rejected(proven):
    for task_id, (report, _) in proven.items():
        assert report.publishable, (task_id, report.survivors, report.rejected_alternatives, report.evidence)
        for kind in NEW_CLASSES:
            proof = report.proofs.get(kind)
            assert proof is not None and proof.tried >= 1 and proof.right == proof.tried, (task_id, kind, proof)
    t01 = proven["t01"][0].proofs
    # cancel_booking ends the booking the task made; confirm_booking moves it on (suspend_member acts on a member)
    assert t01["created_then_broken"].tried == 1 and t01["extra_transition"].tried == 1
    # kind (another enum member) and note (a text where the reference leaves none); starts_at is stated
    assert t01["unrequested_field"].tried == 2
    # t02 leaves the start to the tool: a year back; kind as above; the note is open (any text), so not tried
    assert proven["t02"][0].proofs["unrequested_field"].tried == 2
    for kind in ("extra_reads", "skipped_lookups"):
        assert t01[kind].tried == t01[kind].right == 1


def test_the_footprint_recorded_keeps_whole_rows_and_open_columns(proven):
    _, footprint = proven["t02"]
    assert footprint["open"] == {"bookings": [["code", "note"]]}
    assert footprint["inserted"]["bookings"] == [{"id": 3, "room_id": 1, "member_id": 2,
                                                  "starts_at": "2025-06-01T09:00:00", "kind": "standard",
                                                  "status": "pending", "created_at": "2025-06-01T09:00:00"}]


@pytest.mark.parametrize("value, schema, name, expected", [
    ("2025-06-01T09:00:00", {"type": "string"}, "starts_at", ["2024-06-01T09:00:00", "2025-06-08T09:00:00"]),
    ("2025-06-01", {"type": "string", "format": "date"}, "due_on", ["2024-06-01", "2025-06-08"]),
    (None, {"type": "string", "format": "date"}, "due_on", ["2024-01-01"]),
    (None, {"type": "string"}, "submitted_at", ["2024-01-01T09:00:00"]),
    ("standard", {"type": "string", "enum": ["standard", "priority", "rush"]}, "kind", ["priority", "rush"]),
    (2, {"type": "integer"}, "quantity", [3, 1]),
    (False, {"type": "boolean"}, "notify", [True]),
    ("Standing transfer", {"type": "string"}, "reference", ["Standing transfer (amended)"]),
    ("10:30", {"type": "string"}, "start_time", []),
])
def test_unrequested_values_differ_from_what_the_reference_leaves(value, schema, name, expected):
    assert _unrequested_values(value, schema, name) == expected
