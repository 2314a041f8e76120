"""Task checks: count, repeats, and self-containment."""

from awm.contracts import TaskSet
from awm.quality.tasks import CHECK_COUNT, CHECK_DISTINCT, CHECK_SELF_CONTAINED, task_findings, value_stated
from tests.awm.quality.conftest import TASKS_JSON


def taskset(**changes) -> TaskSet:
    data = {**TASKS_JSON, "tasks": [dict(t) for t in TASKS_JSON["tasks"]]}
    for task_id, update in changes.items():
        for t in data["tasks"]:
            if t["task_id"] == task_id:
                t.update(update)
    return TaskSet.model_validate(data)


def test_a_good_task_set_has_no_findings():
    assert task_findings(taskset(), "library__00", 2) == []


def test_a_task_that_does_not_state_its_values_is_not_self_contained():
    findings = task_findings(taskset(t01={"instruction": "Rename book 2 and set its stock to 7."}), "library__00", 2)
    assert [(f.check, f.task, f.tool) for f in findings] == [(CHECK_SELF_CONTAINED, "t01", "rename_book")]
    assert "Collected Poems" in findings[0].error


def test_values_inside_an_object_argument_must_be_stated_too():
    """A list tool of the `object` filter style takes its filters in one object: a value hidden in it is judged
    like a flat argument, and its paging arguments are not values to state."""
    lookup = {"tool": "list_books", "arguments": {"filters": {"title": "Collected Poems"}, "page_size": 100,
                                                  "page": 1, "cursor": "c1.3"}}
    solution = [lookup] + TASKS_JSON["tasks"][0]["reference_solution"][1:]
    stated = taskset(t01={"reference_solution": solution})
    assert task_findings(stated, "library__00", 2) == []
    unstated = taskset(t01={"reference_solution": solution, "instruction": "Rename book 2 and set its stock to 7."})
    findings = task_findings(unstated, "library__00", 2)
    assert {(f.tool, f.value) for f in findings} == {("list_books", "'Collected Poems'"),
                                                       ("rename_book", "'Collected Poems'")}


def test_the_wrong_number_of_tasks_and_repeats_are_found():
    repeated = taskset(t02={"instruction": TASKS_JSON["tasks"][0]["instruction"]})
    checks = {f.check for f in task_findings(repeated, "library__00", 10)}
    assert checks == {CHECK_COUNT, CHECK_DISTINCT}


def test_values_may_be_spelled_as_people_write_them():
    assert value_stated("bank_transfer", "record a bank transfer payment")
    assert value_stated("2025-08-27T10:00:00", "move it to 2025-08-27 10:00")
    assert value_stated(-3.0, "reduce the stock there by 3")
    assert value_stated(11.0, "prep fridge at 11.0 °C")
    assert value_stated(1200, "a credit of 1,200.00")
    assert not value_stated("Collected Poems", "rename book 2")
    assert not value_stated(166.01, "record a payment of 166.10")
    # one of an item where a case holds one of each: "one 'Roof Inspection'", "just the one"; "the one with" is no count
    assert value_stated(1, "add one 'Roof Inspection' to my appointment")
    assert value_stated(1, "book the dearest service I can afford, just the one, at the North office")
    assert not value_stated(1, "book the one with the best rating")
    assert not value_stated(2, "add one 'Roof Inspection' to my appointment")


def test_digits_inside_a_date_a_time_a_code_or_a_percentage_state_no_number():
    # a price raised "by 12%" is learnt from the current price (the task marks it derived), not stated
    assert not value_stated(2231.46, "raise the price by 12% (rounded to the cent)")
    assert value_stated(12, "raise the price by 12% (rounded to the cent)")
    assert not value_stated(1, "book it for June 1, 2025 at the North office")
    assert not value_stated(1, "move it to 2025-06-01")
    assert not value_stated(10, "move it to 10:00 tomorrow")
    assert not value_stated(15, "cancel order ORD-1015")
    assert not value_stated(3, "add it to booking A3")
    assert value_stated(3, "add 3 of them to booking A3")
    assert value_stated(1, "on June 1, 2025, add 1 unit")


def test_every_offline_task_is_self_contained(corpus):
    for env_id in corpus.env_ids():
        tasks = corpus.read_model(env_id, "tasks.json", TaskSet)
        assert task_findings(tasks, env_id, 10) == [], env_id
