"""Solvability proofs on crafted verifiers and reference solutions, and mutation testing."""

import pytest

from awm.contracts import SchemaSpec, TaskSet, ToolSet, VerificationReport
from awm.quality.mutations import Mutator
from awm.quality.proofs import prove_task
from awm.runtime.environment import Environment
from tests.awm.quality.conftest import (
    ENV_ID,
    HONEST_VERIFIER,
    LAX_QUESTION_VERIFIER,
    QUESTION_VERIFIER,
    TASKS_JSON,
    write_library,
)

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
    mutator = Mutator(toolset, spec, db, taskset.tasks)
    try:
        return {t.task_id: prove_task(env, t, mutator)[0] for t in taskset.tasks}
    finally:
        env.close()


def test_an_honest_verifier_is_proven_and_kills_every_mutation(store):
    reports = prove(store)
    for report in reports.values():
        assert report.publishable, report
        assert report.deterministic and report.read_only
        assert report.mutations_tried >= 1 and report.mutations_killed == report.mutations_tried
        assert all(p.right == p.tried for p in report.proofs.values()), report.proofs
    t01, t02 = reports["t01"].proofs, reports["t02"].proofs
    assert t01["wrong_row"].tried == 1 and t01["half_change"].tried == 1  # the wrong book, half of the change
    # rename_book and set_stock on another book: the task's own write tools on a row it does not change
    assert t01["collateral_write"].tried == 2
    # the title and the stock the instruction states, each changed; the quoted title negated
    assert t01["detail_changed"].tried == 2 and t01["text_negated"].tried == 1
    assert t01["extra_reads"].tried == t01["skipped_lookups"].tried == t01["corrected_write"].tried == 1
    assert t02["wrong_answer"].tried == 1  # a different author (no number to shift)
    for kind in ("hedged_answer", "dumped_answer", "echoed_instruction", "equivalent_answer"):
        assert t02[kind].tried >= 1 and t02[kind].right == t02[kind].tried, kind


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


@pytest.mark.parametrize(("task", "verifier", "survivors"), [
    # the stock changed to 8 is caught by the outcome check (the column must end as the reference leaves it)
    ("t01", TITLE_ONLY, {"half_change"}),
    ("t02", LAX_QUESTION_VERIFIER, {"hedged_answer", "dumped_answer", "negated_answer", "unlisted_hedge",
                                    "malformed_submission"}),
])
def test_weak_verifiers_let_mutations_survive(store, task, verifier, survivors):
    report = prove(store, **{task: verifier})[task]
    assert report.reference_passed and not report.null_passed
    assert report.mutations_killed < report.mutations_tried
    assert {s.split(":")[0] for s in report.survivors} == survivors
    assert not report.publishable and report.failure_check() == "mutation_testing"


def test_the_outcome_check_rejects_the_wrong_row_even_when_the_verifier_does_not(store):
    """ANY_ROW accepts the title and stock on any book; the outcome check fails the change made to book 3
    (not in the task's footprint), so the wrong row is still rejected and no collateral write survives."""
    report = prove(store, t01=ANY_ROW)["t01"]
    assert report.proofs["wrong_row"].right == report.proofs["wrong_row"].tried == 1
    assert report.proofs["collateral_write"].right == report.proofs["collateral_write"].tried == 2


def test_a_verifier_that_rejects_a_valid_alternative_is_caught(store):
    """A verifier that wants the exact reference answer text rejects the structured and reformatted answers."""
    exact = 'def verify(initial, final, answer):\n    return {"complete": answer == "Ada Lovelace", "evidence": []}\n'
    report = prove(store, t02=exact)["t02"]
    assert report.reference_passed and not report.publishable
    assert report.failure_check() == "acceptance_testing"
    assert any(s.startswith("equivalent_answer: a structured answer") for s in report.rejected_alternatives)


def test_a_wrong_answer_must_be_rejected(store):
    lenient = 'def verify(initial, final, answer):\n    return {"complete": answer is not None, "evidence": []}\n'
    report = prove(store, t02=lenient)["t02"]
    assert report.reference_passed and not report.null_passed
    assert report.mutations_killed < report.mutations_tried
    # no blind_answer: an answer given with no call fails whatever the verifier says (the runtime's evidence rule)
    assert {s.split(":")[0] for s in report.survivors} == {"wrong_answer", "hedged_answer", "dumped_answer",
                                                          "echoed_instruction", "negated_answer", "unlisted_hedge",
                                                          "malformed_submission"}
    assert any(other in s for s in report.survivors for other in ("Mary Shelley", "Emily Bronte"))


def test_a_verifier_cannot_carry_state_from_one_judgement_to_the_next(store):
    """A verifier that counts its judgements in a default argument once flipped its verdict between them; each
    judgement now runs a new instance of its module, so it judges the same every time (and, saying complete on
    every state, fails the null proof)."""
    report = prove(store, t01=FLIPPING)["t01"]
    assert report.deterministic and report.null_passed and not report.publishable


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
