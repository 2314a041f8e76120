"""Solvability proofs on crafted verifiers and reference solutions, and mutation testing."""

import pytest

from awm.contracts import SchemaSpec, TaskSet, ToolSet, VerificationReport
from awm.quality.mutations import mutations_for
from awm.runtime.environment import Environment
from awm.stages.verification import prove_task
from tests.awm.quality.conftest import ENV_ID, HONEST_VERIFIER, QUESTION_VERIFIER, TASKS_JSON, write_library

ALWAYS_COMPLETE = 'def verify(initial, final, answer):\n    return {"complete": True, "evidence": ["looks fine"]}\n'
# Checks the title only: accepts a final state where the stock was never set.
TITLE_ONLY = HONEST_VERIFIER.replace('    if row is None or row["stock"] != 7:\n'
                                     '        failures.append("book 2 does not have stock 7")\n', "")
# Looks for the right title anywhere: accepts the change made to the wrong book.
ANY_ROW = '''\
def verify(initial, final, answer):
    rows = final.query("SELECT id FROM books WHERE title = ? AND stock = ?", ["Collected Poems", 7])
    return {"complete": len(rows) > 0, "evidence": [str(len(rows)) + " matching books"]}
'''
# Alternates its verdict: a verifier with state.
FLIPPING = '''\
def verify(initial, final, answer, seen=[]):
    seen.append(1)
    return {"complete": len(seen) % 2 == 1, "evidence": ["call " + str(len(seen))]}
'''
WRITING = HONEST_VERIFIER.replace("    failures = []\n",
                                  "    failures = []\n    final.execute(\"UPDATE books SET stock = 0\", [])\n")


def prove(store, t01=HONEST_VERIFIER, t02=QUESTION_VERIFIER, tasks=None):
    write_library(store, {"t01": t01, "t02": t02})
    taskset = TaskSet.model_validate(tasks or TASKS_JSON)
    toolset = store.read_model(ENV_ID, "tools.json", ToolSet)
    spec = store.read_model(ENV_ID, "schema.json", SchemaSpec)
    db = store.path(ENV_ID, "env.db")
    env = Environment.from_store(store, ENV_ID)
    try:
        return {t.task_id: prove_task(env, t, mutations_for(t, toolset, spec, db)) for t in taskset.tasks}
    finally:
        env.close()


def test_an_honest_verifier_is_proven_and_kills_every_mutation(store):
    reports = prove(store)
    for report in reports.values():
        assert report.publishable, report
        assert report.deterministic and report.read_only
        assert report.mutations_tried >= 1 and report.mutations_killed == report.mutations_tried
    assert reports["t01"].mutations_tried == 2  # the wrong book, half of the change
    assert reports["t02"].mutations_tried == 1  # a different author (no number to shift)


def test_a_verifier_that_always_says_complete_is_caught(store):
    report = prove(store, t01=ALWAYS_COMPLETE)["t01"]
    assert report.reference_passed and report.null_passed
    assert not report.publishable and report.failure_check() == "null_trajectory"
    assert "null trajectory was judged complete" in report.evidence


def test_a_reference_solution_that_does_not_reach_its_goal_is_caught(store):
    tasks = {**TASKS_JSON, "tasks": [dict(TASKS_JSON["tasks"][0]), TASKS_JSON["tasks"][1]]}
    tasks["tasks"][0]["reference_solution"] = TASKS_JSON["tasks"][0]["reference_solution"][:2]  # never sets stock
    report = prove(store, tasks=tasks)["t01"]
    assert not report.reference_passed and report.failure_check() == "reference_solution"
    assert any("stock 7" in e for e in report.evidence)


@pytest.mark.parametrize(("verifier", "survivor"), [(TITLE_ONLY, "half_change"), (ANY_ROW, "wrong_row")])
def test_weak_verifiers_let_mutations_survive(store, verifier, survivor):
    report = prove(store, t01=verifier)["t01"]
    assert report.reference_passed and not report.null_passed
    assert report.mutations_killed < report.mutations_tried
    assert any(s.startswith(survivor) for s in report.survivors)
    assert not report.publishable and report.failure_check() == "mutation_testing"


def test_a_wrong_answer_must_be_rejected(store):
    lenient = 'def verify(initial, final, answer):\n    return {"complete": answer is not None, "evidence": []}\n'
    report = prove(store, t02=lenient)["t02"]
    assert report.reference_passed and not report.null_passed
    assert report.mutations_killed == 0 and all(s.startswith("wrong_answer") for s in report.survivors)
    assert any(other in s for s in report.survivors for other in ("Mary Shelley", "Emily Bronte"))


def test_a_verifier_must_be_deterministic(store):
    report = prove(store, t01=FLIPPING)["t01"]
    assert not report.deterministic and not report.publishable


def test_a_verifier_cannot_write(store):
    report = prove(store, t01=WRITING)["t01"]
    assert not report.read_only and not report.reference_passed and not report.publishable


def test_offline_reports_record_every_proof(corpus):
    tried = killed = 0
    for env_id in corpus.env_ids():
        report = corpus.read_model(env_id, "report.json", VerificationReport)
        assert all(t.publishable for t in report.tasks), env_id
        tried += sum(t.mutations_tried for t in report.tasks)
        killed += sum(t.mutations_killed for t in report.tasks)
    assert tried > 10 * len(corpus.env_ids()) and killed / tried >= 0.9
