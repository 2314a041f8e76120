"""Two conditional requests that decide by what the agent reads (awm/builder/intents/lifecycle.py): a case at its
first step paid off if it still owes and then moved on a step (settle_then_advance), an unassigned case given to the
less busy of two named colleagues (assign_to_less_busy_of_two). Each is planned in many worlds and takes each way,
reads as one staff message, is proven by the verification stage, and an agent that moves the case on without paying
what it owes, or gives the case to the busier colleague, scores zero. And a request that confirms the case itself is
never followed by "confirm it to them by email" (the confirming message is asked for as a message). A case given to
a colleague and named as its person's (here and in assign_if_unassigned) is named before any colleague."""

from __future__ import annotations

import re
from collections import Counter

import pytest

import awm.builder.intents.base as base
from awm.builder.intents.steps import balance_due
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    judged,
    planned_requests,
    prove_family,
    read_aloud,
    world_and_plan,
    wrong_runs,
)

SETTLE, LESS_BUSY = CHOICES = ("settle_then_advance", "assign_to_less_busy_of_two")
PER_INTENT = 2  # worlds each request is proven in (fast lane: 1)


def test_each_request_is_planned_in_many_worlds_and_takes_each_way():
    """Settled: a payment of what the case owes where it owes 1.00 or more, none where it is paid in full, then the
    case moved on; handed over: to the one of the two colleagues holding strictly fewer open cases, either named
    first."""
    ways = Counter()
    for n, (plan, rows) in enumerate(builtin_worlds(1, 2)):
        world, built = world_and_plan(SETTLE, plan, rows, n)  # a seed of each world's own: the way drawn differs
        if built is not None:
            moves = world.n.action("case", world.fl.forward[0])
            case = world.by_id("case", next(a[world.fk("case")] for t, a in built.calls if t == moves))
            paid = [a["amount"] for t, a in built.calls if t == world.n.create("payment")]
            assert paid == ([balance_due(world, case)] if balance_due(world, case) > 0 else [])
            tools = [t for t, _ in built.calls]
            moved = tools.index(moves)
            assert all(n < moved for n, t in enumerate(tools) if t == world.n.create("payment"))
            ways["paid" if paid else "already paid"] += 1
        world, built = world_and_plan(LESS_BUSY, plan, rows, n)
        if built is not None:
            named = [a[world.fk("staff")] for t, a in built.calls if t == world.n.list("case") and world.fk("staff") in a]
            given = next(a[world.fk("staff")] for t, a in built.calls if t == world.n.action("case", "assign"))
            loads = {s: len(world.open_cases(s)) for s in named}
            assert len(named) == 2 and loads[given] < max(loads.values())
            ways["first named" if given == named[0] else "second named"] += 1
    assert all(ways[w] >= 15 for w in ("paid", "already paid", "first named", "second named")), ways


def test_a_case_named_as_its_persons_is_named_before_the_colleagues_and_its_holder_is_who():
    """Half the time the two requests that give a case to a colleague name it as its person's ("their latest order"):
    the person is then looked up first, every wording names the case before any colleague (after two colleagues,
    "their latest order" would read as theirs), and the holder asked about is "who", never "their name"."""
    named = Counter()
    for name, _seed, world, built in planned_requests((LESS_BUSY, "assign_if_unassigned"), 1, 2, range(2)):
        if built.say.party is None:
            assert built.calls[0] == (world.n.list("case"), {"code": built.say.slots["case"].split()[-1]})
            continue
        assert built.calls[0] == world.find_party(built.say.party), built.calls
        for clause in built.say.clauses:
            assert "their name" not in clause and "their full name" not in clause, clause
            if name == LESS_BUSY:
                assert clause.index("{case}") < clause.index("{a}"), clause
        named[name] += 1
    assert named[LESS_BUSY] >= 20 and named["assign_if_unassigned"] >= 20, named


def test_each_request_reads_as_one_staff_message():
    seen = Counter()
    for name, seed, world, built in planned_requests(CHOICES, 2, 2, range(3)):
        if built.say.party and len(set(built.say.party.name.split())) == 1:
            continue  # a person named 'Charles Charles' reads as a doubled word, whoever writes
        hidden = [f"{a['amount']:.2f}" for t, a in built.calls if t == world.n.create("payment")]  # what it pays
        seen[name] += read_aloud(world.plan, built, ("staff",), seed, hidden)
    assert seen[SETTLE] >= 24 and seen[LESS_BUSY] >= 24, seen


def test_a_request_that_confirms_the_case_asks_for_its_message_as_a_message(monkeypatch):
    """With every change confirmed by a message, a request whose own step confirms the case ends with "send them an
    email titled ..." and never with "confirm it to them by ...", which would read as that step again; a request
    that does not confirm the case keeps that wording among its choices."""
    monkeypatch.setattr(base, "CONFIRMATION_SHARE", 1.0)
    tails = Counter()
    for plan, rows in builtin_worlds(3, 2):
        for name in (SETTLE, "advance_case", "cancel_and_refund"):
            world, built = world_and_plan(name, plan, rows)
            if built is None or not world.has("notification") or world.n.create("notification") not in {
                    t for t, _ in built.calls}:
                continue
            slotted = " ".join(str(v) for k, v in built.say.slots.items() if not k.startswith("confirm_"))
            for clause in built.say.clauses:  # its words, and those of its slots ("{first}": "confirm {case}")
                confirms = bool(re.search(r"\bconfirm\b(?! it to)", f"{clause} {slotted}"))
                tails[confirms, "confirm it to" in clause] += 1
    assert tails[True, True] == 0 and tails[True, False] >= 10 and tails[False, True] >= 10, tails


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, CHOICES, "choices", PER_INTENT)


def test_every_request_passes_every_proof(proven):
    assert_proven_in_each_voice(proven[1], {name: ("staff",) for name in CHOICES})


def test_moving_on_unpaid_or_giving_the_case_to_the_busier_colleague_scores_zero(proven):
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, SETTLE):
        if not any(t == world.n.create("payment") for t, _ in built.calls):
            continue  # nothing owed: the payment is not there to leave out
        wrong = [(t, a) for t, a in built.calls if t != world.n.create("payment")]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[SETTLE] += 1
    for store, env_id, plan, world, built, task in wrong_runs(proven, LESS_BUSY):
        assign = world.n.action("case", "assign")
        named = [a[world.fk("staff")] for t, a in built.calls if t == world.n.list("case") and world.fk("staff") in a]
        given = next(a[world.fk("staff")] for t, a in built.calls if t == assign)
        busier = next(s for s in named if s != given)
        wrong = [(t, {**a, world.fk("staff"): busier} if t == assign else a) for t, a in built.calls]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[LESS_BUSY] += 1
    assert checked[LESS_BUSY] >= 1, checked

