"""A member of staff's sweep over one site's cases (awm/builder/intents/sweeps.py): every case at the first step of
its lifecycle that is paid in full moved on a step; everyone with an open case there that still owes money emailed,
and the total still owed told; every case that can still be cancelled with nothing paid on it cancelled; a note on
every open case that still owes. Each is planned in many worlds, picks exactly the cases its condition picks (read
off the payments, never stated), reads as one message, is proven by the verification stage, and an agent that
ignores the payments (every case moved on, cancelled or noted, everyone emailed, the totals summed without what was
paid) scores zero."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.intents import INTENTS, World
from awm.builder.intents.steps import balance_due, captured
from awm.builder.intents.sweeps import OWING, SWEEP_INTENTS, advance_options, remind_options, unpaid_options
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

ADVANCE, REMIND, UNPAID, NOTE = SWEEP_INTENTS
PER_INTENT = 2  # worlds each request is proven in (fast lane: 1)


def test_the_sweeps_are_planned_in_many_worlds_and_read_every_case_they_could_concern():
    counted, steps = Counter(), Counter()
    for name, _, world, built in planned_requests(SWEEP_INTENTS, 1, 2):
        counted[name] += 1
        steps[name] += len(built.calls)
        reads = [a[world.fk("case")] for t, a in built.calls if t == world.n.list("payment")]
        assert len(reads) >= 2 and built.say.voices == ("staff",) and built.derived, name
    assert counted[ADVANCE] >= 60 and counted[REMIND] >= 30 and counted[UNPAID] >= 50 and counted[NOTE] >= 50, counted
    assert steps[ADVANCE] / counted[ADVANCE] >= 5.5 and all(steps[n] / counted[n] >= 6.5 for n in (REMIND, UNPAID, NOTE)), \
        (steps, counted)


def test_the_cases_picked_are_exactly_those_the_payments_pick():
    """Advanced: the site's cases at the first step whose captured payments cover their total; reminded: the people
    of the site's open cases owing `OWING` or more. Some cases are left each time, none sits in between, and each
    person picked is picked once."""
    checked = Counter()
    for plan, rows in builtin_worlds(1):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[ADVANCE].fits(world):
            continue
        sfk, first = world.fk("site"), world.fl.action(world.fl.forward[0])
        for site, cases, paid in advance_options(world):
            assert cases == sorted((c for c in rows["case"] if c[sfk] == site["id"] and c["status"] in first.sources),
                                   key=lambda c: c["id"])
            assert paid == [c for c in cases if balance_due(world, c) <= 0] and 0 < len(paid) < len(cases)
            assert all(balance_due(world, c) >= OWING for c in cases if c not in paid)
            checked[ADVANCE] += 1
        if not INTENTS[REMIND].fits(world):
            continue
        for site, cases, owing in remind_options(world):
            assert all(c["status"] in world.fl.open and c[sfk] == site["id"] for c in cases)
            assert owing == [c for c in cases if balance_due(world, c) >= OWING] and 0 < len(owing) < len(cases)
            assert len({c[world.fk("party")] for c in owing}) == len(owing)
            checked[REMIND] += 1
        if not INTENTS[UNPAID].fits(world):
            continue
        for site, cases, unpaid in unpaid_options(world):
            assert cases == sorted((c for c in rows["case"] if c[sfk] == site["id"]
                                    and c["status"] in world.fl.cancel.sources), key=lambda c: c["id"])
            assert unpaid == [c for c in cases if not captured(world, c)] and 0 < len(unpaid) < len(cases)
            checked[UNPAID] += 1
    assert checked[ADVANCE] >= 60 and checked[REMIND] >= 30 and checked[UNPAID] >= 50, checked


def test_each_sweep_reads_as_one_staff_message():
    seen = Counter()
    for name, seed, world, built in planned_requests(SWEEP_INTENTS, 2, 2, range(3)):
        codes = [world.by_id("case", c)["code"] for t, a in built.calls for k, c in a.items()
                 if k == world.fk("case") and not t.startswith(("get_", "list_", "search_"))]
        seen[name] += read_aloud(world.plan, built, ("staff",), seed, codes)
    assert seen[ADVANCE] >= 24 and seen[REMIND] >= 12 and seen[UNPAID] >= 24 and seen[NOTE] >= 24, seen


@pytest.mark.parametrize("lane", sample_or_whole((2, 1), (1, 2)))
def test_task_sets_draw_the_sweeps(lane):
    step, slots = lane
    drawn = Counter()
    for name, _task in drawn_requests(SWEEP_INTENTS, builtin_worlds(step, slots)):
        drawn[name] += 1
    assert (all(drawn[name] >= 3 for name in SWEEP_INTENTS) if slots > 1 else sum(drawn.values()) >= 1), drawn


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, SWEEP_INTENTS, "sweeps", PER_INTENT)


def test_every_sweep_passes_every_proof(proven):
    assert_proven_in_each_voice(proven[1], {name: ("staff",) for name in SWEEP_INTENTS})


def _site_cases_and_reads(world, built, statuses) -> tuple[list[dict], list]:
    """The cases of the site the sweep names whose status is one of `statuses`, and the sweep's reads."""
    site = next(s for s in world.rows["site"] if s["name"] == built.say.slots["site"])
    cases = [c for c in world.rows["case"] if c[world.fk("site")] == site["id"] and c["status"] in statuses]
    return cases, [(t, a) for t, a in built.calls if t.startswith(("get_", "list_", "search_"))]


def test_an_agent_that_ignores_the_payments_scores_zero(proven):
    """Every case at the first step moved on, paid or not; everyone with an open case at the site emailed, and the
    cases' totals summed without what was paid (where something was); every case that can still be cancelled
    cancelled; every open case noted: each incomplete, while the reference is complete."""
    checked = Counter()
    for name in (ADVANCE, UNPAID):  # every case of the site at the statuses the step starts from moved by it
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            step = world.fl.action(world.fl.forward[0]) if name == ADVANCE else world.fl.cancel
            every, reads = _site_cases_and_reads(world, built, step.sources)
            wrong = reads + [(world.n.action("case", step.verb), {world.fk("case"): c["id"]}) for c in every]
            bad, good = judged(store, env_id, plan, task, wrong)
            assert good["complete"] and not bad["complete"], (bad, good)
            checked[name] += 1
    for store, env_id, plan, world, built, task in wrong_runs(proven, REMIND):
        cases, reads = _site_cases_and_reads(world, built, world.fl.open)
        message = next(a for t, a in built.calls if t == world.n.create("notification"))
        everyone = reads + [(world.n.create("notification"), {**message, world.fk("party"): pid})
                            for pid in sorted({c[world.fk("party")] for c in cases})]
        bad, good = judged(store, env_id, plan, task, everyone, task.reference_answer)
        assert good["complete"] and not bad["complete"], (bad, good)
        summed = round(sum(c["total_amount"] for c in cases if balance_due(world, c) >= OWING), 2)
        if f"{summed:.2f}" not in task.reference_answer:  # where nothing was paid on them, the same sum
            bad, _ = judged(store, env_id, plan, task, built.calls, f"{summed:.2f} is outstanding on them.")
            assert not bad["complete"], bad
        checked[REMIND] += 1
    for store, env_id, plan, world, built, task in wrong_runs(proven, NOTE):
        cases, reads = _site_cases_and_reads(world, built, world.fl.open)
        note = next(a for t, a in built.calls if t == world.n.create("note"))
        wrong = reads + [(world.n.create("note"), {**note, world.fk("case"): c["id"]}) for c in cases]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[NOTE] += 1
    assert all(checked[name] >= 1 for name in SWEEP_INTENTS), checked
