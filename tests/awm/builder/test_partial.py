"""Goals one part of which the rules forbid (awm/builder/intents/partial.py): a person moving to another city whose
named case is too far along to follow them, a complaint logged either way about a case too far along to cancel, a
review posted either way about a purchase past its return window. Each is planned in many worlds, written in both
voices without naming the status that forbids the refused part, proven by the verification stage in each voice
(the refused call made after the reference comes back with the rule the answer names), and an agent that refuses
everything (the parts that stand on their own left undone) or does the parts that stand alone and says all is done
scores zero."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta

import pytest

from awm.builder.clock import REFERENCE_NOW
from awm.builder.intents import INTENTS, World
from awm.builder.intents.partial import PARTIAL_INTENTS, moved_locked_options, under_way
from awm.builder.intents.standing import return_review_options
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    drawn_requests,
    judged,
    planned_requests,
    prove_family,
    read_aloud,
    wrong_runs,
)
from tests.lanes import sample_or_whole

MOVE, COMPLAINT, REVIEW, CANCEL_TWO, MOVE_TWO, ADD_TWO, SWAP_TWO, RETURN_TWO = PARTIAL_INTENTS
TWO_CASES = (CANCEL_TWO, MOVE_TWO, ADD_TWO, SWAP_TWO, RETURN_TWO)
LATE = (REVIEW, RETURN_TWO)  # refused as past the return window (the others: the case is too far along)
PER_INTENT = 2  # worlds each request is proven in (fast lane: 1)


def _writes(built) -> list[tuple[str, dict]]:
    return [(t, a) for t, a in built.calls if not t.startswith(("get_", "list_", "search_"))]


def _alone(world: World, name: str) -> set[str]:
    """The writes a request may make beside its refused part: the person's city and address, the ticket, the review;
    the other case cancelled and refunded, or moved."""
    if name == CANCEL_TWO:
        return {world.n.action("case", world.fl.cancel.verb), world.n.action("payment", "refund")}
    if name == MOVE_TWO:
        return {world.n.action("case", "transfer")}
    if name == ADD_TWO:
        return {world.n.create("line")}
    if name == SWAP_TWO:
        return {world.n.create("line"), world.n.delete("line")}
    if name == RETURN_TWO:
        return {world.n.action("case", "return"), world.n.action("payment", "refund")}
    roles = {MOVE: ("party", "address"), COMPLAINT: ("ticket",), REVIEW: ("review",)}[name]
    return {world.n.change(r, "update", "contact") if r == "party" else world.n.create(r)
            for r in roles if world.has(r)}


def test_the_requests_are_planned_in_many_worlds_with_writes_that_stand_alone_and_a_refused_part():
    """Each plan makes the writes that stand on their own (never one to the case it refuses) and refuses a write to
    a case still under way that can no longer change (or, for the review, the return of a delivered case); where
    it names two cases of the person, the other can still change."""
    counted, steps = Counter(), Counter()
    for name, _, world, built in planned_requests(PARTIAL_INTENTS, 1, 2):
        counted[name] += 1
        steps[name] += len(built.calls)
        writes = _writes(built)
        (tool, args), code = built.refused
        case = world.by_id("case", args[world.fk("case")])
        # the person told which part could not be done, where the request asks for it (base.explain_refusal)
        told = [(t, a) for t, a in writes if world.has("notification") and t == world.n.create("notification")]
        assert all(a[world.fk("party")] == case[world.fk("party")] for _, a in told), (name, told)
        assert len(told) <= 1, (name, told)
        writes = [w for w in writes if w not in told]
        assert writes and {t for t, _ in writes} <= _alone(world, name), (name, writes)
        assert all(a.get(world.fk("case")) != case["id"] for _, a in writes), (name, writes)
        assert case["status"] in (world.fl.action("return").sources if name in LATE else under_way(world)), \
            (name, case["status"])
        assert code == ("window_closed" if name in LATE else "invalid_state")
        assert built.say.voices == ("staff", "self")
        if name in TWO_CASES:
            other = world.by_id("case", next(a[world.fk("case")] for t, a in writes if world.fk("case") in a))
            assert other["id"] != case["id"] and other[world.fk("party")] == case[world.fk("party")]
            if name == RETURN_TWO:
                assert other["placed_at"] >= (REFERENCE_NOW - timedelta(days=30)).isoformat() > case["placed_at"]
            else:
                assert other["status"] in world.fl.editable
    assert counted[MOVE] >= 100 and counted[COMPLAINT] >= 30 and counted[REVIEW] >= 5, counted
    assert counted[CANCEL_TWO] >= 60 and counted[MOVE_TWO] >= 60, counted
    assert counted[ADD_TWO] >= 60 and counted[SWAP_TWO] >= 30 and counted[RETURN_TWO] >= 3, counted
    assert all(steps[name] / counted[name] >= 6 for name in TWO_CASES), (steps, counted)
    assert steps[MOVE] / counted[MOVE] >= 5, (steps, counted)


def test_the_moved_persons_case_is_too_far_along_and_at_another_site_than_the_one_in_their_new_city():
    checked = 0
    for plan, rows in builtin_worlds(2):
        world = World(plan, rows, random.Random(0))
        for party, site, case in moved_locked_options(world):
            assert site["city"] != party["city"] and case[world.fk("party")] == party["id"]
            assert [s["id"] for s in rows["site"] if site["city"] in s["name"]] == [site["id"]]
            assert case["status"] not in world.fl.editable and case[world.fk("site")] != site["id"]
            checked += 1
    assert checked >= 100, checked


def test_the_late_review_is_of_an_item_on_a_delivered_case_placed_before_the_return_window():
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[REVIEW].fits(world):
            continue
        back = world.fl.action("return")
        for case, item in return_review_options(world, inside=False):
            assert case["status"] in back.sources and case["placed_at"] < (REFERENCE_NOW - timedelta(days=30)).isoformat()
            assert item["id"] in {x[world.fk("item")] for x in world.children("line", "case", case["id"])}
            checked += 1
    assert checked >= 5, checked


def test_each_request_reads_as_one_persons_message_in_each_voice():
    """Read aloud in both voices, grammatical, and without the fact that forbids the refused part (the case's
    status; the date a case past its return window was placed)."""
    seen = Counter()
    for name, seed, world, built in planned_requests(PARTIAL_INTENTS, 2, 2, range(3)):
        if len(set(built.say.party.name.split())) == 1:
            continue  # a person named 'Charles Charles' reads as a doubled word, whoever writes
        case = world.by_id("case", built.refused[0][1][world.fk("case")])
        fact = case["placed_at"][:10] if name in LATE else f" {case['status']} "
        seen[name] += read_aloud(world.plan, built, ("staff", "self"), seed, [fact])
    assert seen[MOVE] >= 24 and seen[COMPLAINT] >= 12 and seen[REVIEW] >= 3 and seen[CANCEL_TWO] >= 24 and \
        seen[MOVE_TWO] >= 24 and seen[ADD_TWO] >= 24 and seen[SWAP_TWO] >= 12, seen


@pytest.mark.parametrize("lane", sample_or_whole((2, 1), (1, 2)))
def test_task_sets_draw_the_requests(lane):
    step, slots = lane
    drawn = Counter()
    for name, task in drawn_requests(PARTIAL_INTENTS, builtin_worlds(step, slots)):
        drawn[name] += 1
        assert task.refusals and any(g.kind != "answer" for g in task.goals)
    assert sum(drawn.values()) >= (10 if slots > 1 else 1), drawn


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, PARTIAL_INTENTS, "partial", PER_INTENT)


def test_every_request_passes_every_proof_in_each_voice(proven):
    assert_proven_in_each_voice(proven[1], {name: ("staff", "self") for name in PARTIAL_INTENTS})


def test_refusing_everything_or_claiming_all_done_scores_zero(proven):
    """Two policies the refusal of a whole request would reward: the reads and the reference's refusal, the
    parts that stand on their own left undone; and those parts done with "All done." in place of the refusal.
    Each incomplete, while the reference is complete."""
    checked = Counter()
    for name in PARTIAL_INTENTS:
        for store, env_id, plan, _, built, task in wrong_runs(proven, name):
            reads = [(t, a) for t, a in built.calls if t.startswith(("get_", "list_", "search_"))]
            refused, _ = judged(store, env_id, plan, task, reads, task.reference_answer)
            done, good = judged(store, env_id, plan, task, built.calls, "All done.")
            assert good["complete"] and not refused["complete"] and not done["complete"], (name, refused, done)
            checked[name] += 1
    assert all(checked[name] >= 2 for name in PARTIAL_INTENTS), checked
