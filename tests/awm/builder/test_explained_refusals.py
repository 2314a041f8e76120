"""A refused request about a person that also asks for the person to be told why (awm/builder/intents/base.
explain_refusal: "...; if that can't be done, let them know why by email, subject 'About your request'"). Where it
is asked, the reference sends exactly one message, to that person, with a subject that does not give the refusal
away; the request reads as one message in each voice; the verification stage proves it; and an agent that refuses
without telling the person, or tells someone else, scores zero."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from awm.builder.intents import base
from tests.awm.builder.families import judged, planned_requests, prove_family, read_aloud, wrong_runs
from tests.awm.builder.test_intents import assert_every_proof_passed

# refusals of a person's case (one a plain refusal of a move, one a goal one part of which is refused)
REFUSALS = ("transfer_locked_case", "add_to_locked_case", "move_two_one_locked", "cancel_latest_with_item_too_late")
GIVES_AWAY = re.compile(r"\b(not|cannot|can't|couldn't|unable|refus\w*|declin\w*|sorry|rejected)\b")


def _party_row(world, built) -> dict:
    return next(p for p in world.rows["party"] if p["email"] == built.say.party.email)


def test_the_person_is_told_why_in_a_neutral_message_where_the_request_asks():
    planned, asked = Counter(), Counter()
    for name, seed, world, built in planned_requests(REFUSALS, 1, 2, seeds=(1, 2)):
        if not world.has("notification"):
            assert "explain_subject" not in built.say.slots
            continue
        planned[name] += 1
        message = world.n.create("notification")
        told = [a for t, a in built.calls if t == message]
        if not told:
            assert "explain_subject" not in built.say.slots and not any("{explain_" in c for c in built.say.clauses)
            continue
        asked[name] += 1
        assert len(told) == 1 and built.calls[-1][0] == message, built.calls
        assert told[0][world.fk("party")] == _party_row(world, built)["id"]
        subject = told[0]["subject"]
        assert built.say.slots["explain_subject"] == f"'{subject}'" and not GIVES_AWAY.search(subject.lower())
        assert all("{explain_subject}" in clause for clause in built.say.clauses)
        # the refused call is still the one the tools refuse, after the message
        assert built.refused is not None and built.refused[0][0] != message
        if sum(asked.values()) <= 40:
            read_aloud(world.plan, built, built.say.voices, seed, [])
    assert set(asked) == set(REFUSALS), asked
    share = sum(asked.values()) / sum(planned.values())
    assert 0.3 < share < 0.75, (share, asked, planned)


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    """The refusals proven with the message always asked for (where the world sends messages)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(base, "REFUSAL_NOTICE_SHARE", 1.0)
        return prove_family(tmp_path_factory, request.config, REFUSALS, "explained_refusals", 1)


def test_every_explained_refusal_passes_every_proof(proven):
    assert_every_proof_passed(proven[1])


def test_refusing_without_telling_the_person_or_telling_someone_else_scores_zero(proven):
    """With the right answer (the rule named) and the refused part left undone: no message, or the message sent to
    another person, leaves the task incomplete, while the reference is complete."""
    checked = 0
    for name in REFUSALS:
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            message = world.n.create("notification") if world.has("notification") else None
            if not any(t == message for t, _ in built.calls):
                continue
            fk = world.fk("party")
            other = next(p for p in world.rows["party"] if p["status"] == "active"
                         and p["id"] != _party_row(world, built)["id"])
            silent = [c for c in built.calls if c[0] != message]
            elsewhere = [(t, {**a, fk: other["id"]}) if t == message else (t, a) for t, a in built.calls]
            for wrong in (silent, elsewhere):
                bad, good = judged(store, env_id, plan, task, wrong, answer=task.reference_answer)
                assert good["complete"] and not bad["complete"], (name, wrong, bad, good)
                checked += 1
    assert checked >= 4, checked
