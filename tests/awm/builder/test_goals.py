"""Requests whose one goal chooses by a preference or a constraint and then acts on it (awm/builder/intents/goals.py):
of two open cases the bigger cancelled, its items moved onto the other and that one settled; one item of an open
case swapped for the best-rated item under a budget and the case settled; the dearest item of an open case swapped
for the cheapest of its category and the case settled. Each is planned in many worlds where one answer is right,
deep (eight steps or more, five tools or more), written in every voice it allows without naming what the agent must
find, uses only tools a customer may ask for, is proven by the verification stage in each voice, and an agent
following a plausible wrong policy (the smaller case cancelled, the runner-up or the best-rated item over budget
taken, the category ignored) scores zero."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from functools import cache

import pytest

from awm.builder.intents import INTENTS, World
from awm.builder.intents.goals import (
    GOAL_INTENTS,
    downgrade_options,
    move_dearer_options,
    swap_top_rated_options,
)
from awm.builder.intents.preferences import top_rated_options
from awm.quality.realism import voice_of
from awm.store import ArtifactStore
from tests.awm.builder.families import (
    builtin_worlds,
    drawn_requests,
    fitting_worlds,
    judged,
    planned,
    planned_requests,
    proven_in,
    read_in_each_voice,
    wrong_runs,
)
from tests.awm.builder.test_intents import assert_every_proof_passed
from tests.awm.builder.worlds import worlds_planning
from tests.lanes import sample_in_fast_lane, sample_or_whole

MOVE, TOP_RATED, DOWNGRADE = GOAL_INTENTS
VOICES = {MOVE: ("staff", "self"), TOP_RATED: ("self",), DOWNGRADE: ("staff", "self")}
PER_INTENT = 2  # worlds each request is proven in, of different lifecycles where the catalogue has them (fast lane: 1)



def _customer_writes(w: World) -> set[str]:
    """The writes a customer may ask for themself in these requests (adding and removing a case's lines, paying,
    refunding their own payment, cancelling), and the confirmation message the business sends them."""
    writes = {w.n.create("line"), w.n.delete("line"), w.n.create("payment"), w.n.action("payment", "refund"),
              w.n.action("case", w.fl.cancel.verb)}
    return writes | ({w.n.create("notification")} if w.has("notification") else set())


def _writes(world: World, built) -> list[tuple[str, dict]]:
    return [(t, a) for t, a in built.calls if not t.startswith(("get_", "list_", "search_", "send_"))]


def test_the_requests_are_planned_in_many_worlds_each_deep_and_with_customer_tools_only():
    counted, steps = Counter(), Counter()
    for plan, rows in builtin_worlds(2, 2):
        for name in GOAL_INTENTS:
            world = World(plan, rows, random.Random(1))
            built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
            if built is None:
                continue
            counted[name] += 1
            tools = [tool for tool, _ in built.calls]
            assert len(tools) >= 8 and len(set(tools)) >= 5, (name, tools)
            writes = {t for t in tools if not t.startswith(("get_", "list_", "search_"))}
            assert writes <= _customer_writes(world), (name, writes)
            assert built.say.voices == VOICES[name] and built.derived
            steps[name] += len(tools)
    assert counted[MOVE] >= 25 and counted[DOWNGRADE] >= 25 and counted[TOP_RATED] >= 5, counted
    assert sum(steps.values()) / sum(counted.values()) >= 8, (steps, counted)


def test_the_case_cancelled_is_the_bigger_of_exactly_two_and_its_items_land_on_the_other():
    """The person has exactly two cases that can change and be cancelled, the one cancelled has the higher total,
    its lines are added to the other in the same quantities, what was captured on it is refunded, and the payment is
    what the other then owes."""
    checked = 0
    for plan, rows in builtin_worlds(3):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[MOVE].fits(world):
            continue
        for party, dearer, kept, lines, due in move_dearer_options(world):
            both = [c for c in world.party_cases(party) if c["status"] in world.fl.editable
                    and c["status"] in world.fl.cancel.sources]
            assert sorted(c["id"] for c in both) == sorted((dearer["id"], kept["id"]))
            assert dearer["total_amount"] >= kept["total_amount"] + 1 and len(lines) >= 2 and due >= 1
            assert {x[world.fk("case")] for x in lines} == {dearer["id"]}
            checked += 1
        built = INTENTS[MOVE].build(World(plan, rows, random.Random(0)))
        if built is not None:
            writes = _writes(world, built)
            cfk = world.fk("case")
            cancelled = [a[cfk] for t, a in writes if t == world.n.action("case", world.fl.cancel.verb)]
            added = [a for t, a in writes if t == world.n.create("line")]
            dearer = world.by_id("case", cancelled[0])
            kept = world.by_id("case", added[0][cfk])
            assert len(cancelled) == 1 and dearer["total_amount"] > kept["total_amount"]
            assert sorted((a[world.fk("item")], a["quantity"]) for a in added) == sorted(
                (x[world.fk("item")], x["quantity"]) for x in world.children("line", "case", dearer["id"]))
            refunded = {a[world.pk("payment")] for t, a in writes if t == world.n.action("payment", "refund")}
            assert refunded == {p["id"] for p in world.children("payment", "case", dearer["id"])
                                if p["status"] == "captured"}
            paid = next(a for t, a in writes if t == world.n.create("payment"))
            owed = kept["total_amount"] + sum(a["quantity"] * world.by_id("item", a[world.fk("item")])["price"]
                                              for a in added) - sum(
                p["amount"] for p in world.children("payment", "case", kept["id"]) if p["status"] == "captured")
            assert paid[cfk] == kept["id"] and abs(paid["amount"] - owed) < 0.005
    assert checked >= 20, checked


def _averages(world: World) -> dict[int, Fraction]:
    ratings: dict[int, list[int]] = {}
    for review in world.rows["review"]:
        ratings.setdefault(review[world.fk("item")], []).append(review["rating"])
    return {i: Fraction(sum(r), len(r)) for i, r in ratings.items()}


def test_the_item_swapped_in_is_the_strictly_best_rated_under_the_budget_with_a_runner_up():
    """The item put on the case is rated strictly better on average than every other rated item under the budget, a
    runner-up is under the budget too, an item over it is rated better still, and the case did not hold it."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[TOP_RATED].fits(world):
            continue
        budgets = {budget: (best, second, overall) for budget, best, second, overall in top_rated_options(world)}
        averages = _averages(world)
        for case, line, old, budget, best, due in swap_top_rated_options(world):
            under = {i: a for i, a in averages.items() if world.by_id("item", i)["price"] < budget}
            _, second, overall = budgets[budget]
            assert all(a < under[best["id"]] for i, a in under.items() if i != best["id"]) and best["active"]
            assert second["id"] in under and overall["id"] not in under and averages[overall["id"]] > under[best["id"]]
            assert case["status"] in world.fl.editable and line[world.fk("case")] == case["id"]
            assert best["id"] not in {x[world.fk("item")] for x in world.children("line", "case", case["id"])}
            assert old["id"] == line[world.fk("item")] and due >= 1
            checked += 1
    assert checked >= 10, checked


def test_the_dearest_item_is_swapped_for_the_cheapest_of_its_category_not_the_cheapest_of_all():
    """The line replaced is strictly the dearest of its case (by unit price and by line total), the item put in its
    place is strictly the cheapest other item still offered of its category, and the cheapest item of all is of
    another category."""
    checked = 0
    for plan, rows in builtin_worlds(3):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[DOWNGRADE].fits(world):
            continue
        cat = world.fk("category")
        for case, top, new, cheapest, due in downgrade_options(world):
            lines = world.children("line", "case", case["id"])
            assert all(x["unit_price"] < top["unit_price"] and x["quantity"] * x["unit_price"]
                       < top["quantity"] * top["unit_price"] for x in lines if x is not top)
            dear = world.by_id("item", top[world.fk("item")])
            alike = [i for i in rows["item"] if i[cat] == dear[cat] and i["active"] and i["id"] != dear["id"]]
            assert all(i["price"] > new["price"] for i in alike if i["id"] != new["id"]) and new in alike
            assert cheapest[cat] != dear[cat] and cheapest["price"] < new["price"] and due >= 1
            checked += 1
    assert checked >= 20, checked


def _hidden(world: World, built) -> list[str]:
    """What the agent must find and the instruction must not give away: the cases' codes, the items it chooses or
    replaces (name and code), the amount it pays."""
    hidden = [f"{next(a['amount'] for t, a in built.calls if t == world.n.create('payment')):.2f}"]
    for _, args in _writes(world, built):
        if world.fk("item") in args:
            item = world.by_id("item", args[world.fk("item")])
            hidden += [item["name"], item["sku"]]
    if built.intent == MOVE:
        hidden += [world.by_id("case", a[world.pk("case")])["code"] for t, a in built.calls
                   if t == world.n.get("case")]
    if built.intent == DOWNGRADE:
        line = next(a[world.pk("line")] for t, a in built.calls if t == world.n.delete("line"))
        item = world.by_id("item", world.by_id("line", line)[world.fk("item")])
        hidden += [item["name"], item["sku"]]
    return hidden


def test_each_request_reads_as_one_persons_message_in_each_voice():
    seen = read_in_each_voice(planned_requests(GOAL_INTENTS, 4, 2, range(3)), VOICES, _hidden)
    assert all(seen[name, voice] >= 12 for name in GOAL_INTENTS for voice in VOICES[name]), seen


@pytest.mark.parametrize("lane", sample_or_whole((4, 1), (1, 2)))
def test_task_sets_draw_the_requests(lane):
    """Every request drawn over the built-in domains in two slots; in the fast lane's sample (every fourth domain,
    one slot), the requests drawn are checked but not that each one is."""
    step, slots = lane
    drawn = Counter()
    for name, task in drawn_requests(GOAL_INTENTS, fitting_worlds(GOAL_INTENTS, step, slots)):
        drawn[name] += 1
        assert len(task.reference_solution) >= 8
        if name == TOP_RATED:
            assert voice_of(task.instruction) == "self" and task.requester == "party", task.instruction
    assert (all(drawn[name] >= 1 for name in GOAL_INTENTS) and sum(drawn.values()) >= 10) if slots > 1 else \
        sum(drawn.values()) >= 1, drawn


@cache
def goal_worlds(per_intent: int = PER_INTENT) -> tuple[tuple[str, int], ...]:
    return worlds_planning(GOAL_INTENTS, lambda *world: planned(*world) is not None, per_intent)


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    """Each request planned in each of its worlds, written once in each voice it allows, as tasks of their own
    through the verification stage: (env_id, plans by name, tasks, reports)."""
    store = ArtifactStore(tmp_path_factory.mktemp("goals"))
    return store, proven_in(store, GOAL_INTENTS, goal_worlds(sample_in_fast_lane(request.config, 1, PER_INTENT)))


def test_every_request_passes_every_proof_in_each_voice(proven):
    _, runs = proven
    proved = Counter((name, t.requester) for _, named, tasks, _ in runs
                     for (name, _), t in zip(named, tasks, strict=True))
    who = {"staff": "staff", "self": "party"}
    assert all(proved[name, who[v]] >= 1 for name in GOAL_INTENTS for v in VOICES[name]), proved
    assert_every_proof_passed(runs)


def _owed(world: World, case: dict, added: float) -> float:
    paid = sum(p["amount"] for p in world.children("payment", "case", case["id"]) if p["status"] == "captured")
    return round(case["total_amount"] + added - paid, 2)


def test_an_agent_that_cancels_the_smaller_case_instead_scores_zero(proven):
    """The reads of the reference, then the smaller case cancelled (its captured payments refunded), its items moved
    onto the bigger one and the bigger one settled: incomplete, while the reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, MOVE):
        cfk, cancel = world.fk("case"), world.n.action("case", world.fl.cancel.verb)
        dearer = world.by_id("case", next(a[cfk] for t, a in built.calls if t == cancel))
        kept = world.by_id("case", next(a[cfk] for t, a in built.calls if t == world.n.create("line")))
        lines = world.children("line", "case", kept["id"])
        reason = next((a["reason"] for t, a in built.calls if t == world.n.action("payment", "refund")), "changed plans")
        method = next(a["method"] for t, a in built.calls if t == world.n.create("payment"))
        added = sum(x["quantity"] * world.by_id("item", x[world.fk("item")])["price"] for x in lines)
        reads = [(t, a) for t, a in built.calls if t.startswith(("get_", "list_", "search_"))]
        wrong = [*reads,
                 *((world.n.create("line"), {cfk: dearer["id"], world.fk("item"): x[world.fk("item")],
                                             "quantity": x["quantity"]}) for x in lines),
                 (cancel, {cfk: kept["id"]}),
                 *((world.n.action("payment", "refund"), {world.pk("payment"): p["id"], "reason": reason})
                   for p in world.children("payment", "case", kept["id"]) if p["status"] == "captured"),
                 (world.n.create("payment"), {cfk: dearer["id"], "amount": _owed(world, dearer, added),
                                              "method": method})]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked


def _swapped(world: World, built, item: dict) -> list[tuple[str, dict]]:
    """The reference with `item` put on the case instead of the one it chose, and the payment what that makes."""
    cfk = world.fk("case")
    add = next(a for t, a in built.calls if t == world.n.create("line"))
    line = world.by_id("line", next(a[world.pk("line")] for t, a in built.calls if t == world.n.delete("line")))
    case = world.by_id("case", add[cfk])
    owed = _owed(world, case, add["quantity"] * item["price"] - line["quantity"] * line["unit_price"])
    calls = []
    for tool, arguments in built.calls:
        if tool == world.n.create("line"):
            arguments = {**arguments, world.fk("item"): item["id"]}
        elif tool == world.n.create("payment"):
            arguments = {**arguments, "amount": owed}
        calls.append((tool, arguments))
    return calls


def test_an_agent_that_takes_the_runner_up_or_the_best_over_budget_scores_zero(proven):
    """The reference with the runner-up under the budget put on the case instead (and the payment what that makes),
    and again with the best-rated item of all, over the budget: each incomplete, while the reference is complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, TOP_RATED):
        budget = float(built.say.slots["budget"])
        chosen = next(a[world.fk("item")] for t, a in built.calls if t == world.n.create("line"))
        _, best, second, overall = next(o for o in top_rated_options(world) if o[0] == budget)
        assert best["id"] == chosen
        for policy, item in (("second", second), ("over budget", overall)):
            bad, good = judged(store, env_id, plan, task, _swapped(world, built, item))
            assert good["complete"] and not bad["complete"], (policy, bad, good)
            checked[policy] += 1
    assert checked["second"] >= 1 and checked["over budget"] >= 1, checked


def test_an_agent_that_ignores_the_category_scores_zero(proven):
    """The reference with the cheapest item of all (of another category) put on the case instead, and the payment
    what that makes: incomplete, while the reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, DOWNGRADE):
        offered = [i for i in world.rows["item"] if i["active"]]
        cheapest = min(offered, key=lambda i: i["price"])
        bad, good = judged(store, env_id, plan, task, _swapped(world, built, cheapest))
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked
