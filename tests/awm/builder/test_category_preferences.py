"""Customer goals chosen within one category (awm/builder/intents/preferences.py, CATEGORY_INTENTS, and
awm/builder/intents/goals.py, ADD_CHEAPEST): the best-rated item of a named category ordered at a named site; a
person's most recent case repeated at the same site, in the same quantity, with the cheapest item still offered of the
same category as the one it held; the cheapest item of a named category the person has had on none of their cases;
the cheapest item still offered of a named category added to an open case and the case settled. Each is planned in many
worlds where one answer is right, deep (seven steps or more, six tools or more), written in every voice it allows
without naming what the agent must find, with only tools a customer may ask for, is drawn by task sets, proven by
the verification stage in each voice, and an agent following a plausible wrong policy (the category's runner-up, the
best-rated or cheapest item of all, the same item again, the cheapest one they have had) scores zero."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.intents import INTENTS, World
from awm.builder.intents.goals import ADD_CHEAPEST, add_cheapest_options
from awm.builder.intents.preferences import (
    CATEGORY_INTENTS,
    _average_ratings,
    cheaper_repeat_options,
    not_had_options,
    top_rated_in_category_options,
)
from awm.quality.realism import voice_of
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    drawn_requests,
    fitting_worlds,
    judged,
    planned_requests,
    prove_family,
    read_in_each_voice,
    wrong_runs,
)
from tests.lanes import sample_or_whole

TOP_RATED, REPEAT, NOT_HAD = CATEGORY_INTENTS
NAMES = (*CATEGORY_INTENTS, ADD_CHEAPEST)
VOICES = {TOP_RATED: ("self",), REPEAT: ("staff", "self"), NOT_HAD: ("staff", "self"), ADD_CHEAPEST: ("staff", "self")}
PER_INTENT = 2  # worlds each request is proven in (fast lane: 1)


def _customer_writes(w: World) -> set[str]:
    """A new case or a line on one, paid for, and the confirmation the business sends: what a customer may ask."""
    writes = {w.n.create("case"), w.n.create("line"), w.n.create("payment")}
    return writes | ({w.n.create("notification")} if w.has("notification") else set())


def test_the_requests_are_planned_in_many_worlds_each_deep_and_with_customer_tools_only():
    counted = Counter()
    for name, _, world, built in planned_requests(NAMES, 1, 2):
        counted[name] += 1
        tools = [tool for tool, _ in built.calls]
        assert len(tools) >= 7 and len(set(tools)) >= 6, (name, tools)
        assert {t for t in tools if not t.startswith(("get_", "list_", "search_"))} <= _customer_writes(world)
        assert built.say.voices == VOICES[name] and built.derived
    assert counted[TOP_RATED] >= 30 and counted[REPEAT] >= 80 and counted[ADD_CHEAPEST] >= 80, counted
    assert counted[NOT_HAD] >= 60, counted


def test_the_item_ordered_is_strictly_the_best_rated_of_its_category_with_a_runner_up():
    """Rated strictly better on average than every other rated item of the category and still offered; a runner-up
    of the category is rated too, and the best-rated item of all is of another category."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[TOP_RATED].fits(world):
            continue
        cat, averages = world.fk("category"), _average_ratings(world)
        for category, best, second, overall in top_rated_in_category_options(world):
            rated = {i["id"]: averages[i["id"]] for i in rows["item"]
                     if i[cat] == category["id"] and i["id"] in averages}
            assert best["active"] and all(a < rated[best["id"]] for i, a in rated.items() if i != best["id"])
            assert second["id"] in rated and second["id"] != best["id"]
            assert overall[cat] != category["id"] and averages[overall["id"]] > rated[best["id"]]
            checked += 1
    assert checked >= 30, checked


def test_the_repeat_takes_the_cheapest_of_the_category_of_the_item_on_the_newest_case():
    """The case repeated is strictly the person's newest and holds one line; the item taken instead is strictly the
    cheapest still offered of that line's item's category, not that item, with a runner-up; the cheapest item of all
    is of another category."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[REPEAT].fits(world):
            continue
        cat = world.fk("category")
        for party, latest, line, new, cheapest in cheaper_repeat_options(world):
            mine = world.party_cases(party)
            assert all(c["created_at"] < latest["created_at"] for c in mine if c is not latest)
            assert world.children("line", "case", latest["id"]) == [line]
            had = world.by_id("item", line[world.fk("item")])
            alike = [i for i in rows["item"] if i["active"] and i[cat] == had[cat]]
            assert new in alike and new["id"] != had["id"] and len(alike) >= 2
            assert all(i["price"] > new["price"] for i in alike if i is not new)
            assert cheapest[cat] != had[cat] and cheapest["price"] < new["price"]
            checked += 1
    assert checked >= 100, checked


def test_the_item_tried_is_the_cheapest_of_the_category_the_person_has_never_had():
    """On none of the person's cases (every one of which the agent reads), strictly the cheapest such item still
    offered of the category, while the cheapest of the category is one they have had."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[NOT_HAD].fits(world):
            continue
        cat, ifk = world.fk("category"), world.fk("item")
        for party, mine, category, item in not_had_options(world):
            assert sorted(c["id"] for c in mine) == sorted(c["id"] for c in world.party_cases(party))
            had = {x[ifk] for c in mine for x in world.children("line", "case", c["id"])}
            alike = [i for i in rows["item"] if i["active"] and i[cat] == category["id"]]
            assert item in alike and item["id"] not in had
            assert all(i["price"] > item["price"] for i in alike if i is not item and i["id"] not in had)
            assert min(alike, key=lambda i: i["price"])["id"] in had
            checked += 1
    assert checked >= 100, checked


def test_the_item_added_is_strictly_the_cheapest_of_the_category_and_the_payment_settles_the_case():
    """The item added is strictly the cheapest still offered of the named category and not on the case already, the
    cheapest item of all is of another category, and the payment is the case's total with the new line less what
    was captured on it."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[ADD_CHEAPEST].fits(world):
            continue
        cat = world.fk("category")
        for case, category, item, cheapest in add_cheapest_options(world):
            alike = [i for i in rows["item"] if i["active"] and i[cat] == category["id"]]
            assert item in alike and all(i["price"] > item["price"] for i in alike if i is not item)
            assert item["id"] not in {x[world.fk("item")] for x in world.children("line", "case", case["id"])}
            assert cheapest[cat] != category["id"] and cheapest["price"] < item["price"]
            checked += 1
        built = INTENTS[ADD_CHEAPEST].build(World(plan, rows, random.Random(0)))
        if built is not None:
            line = next(a for t, a in built.calls if t == world.n.create("line"))
            paid = next(a for t, a in built.calls if t == world.n.create("payment"))
            case = world.by_id("case", line[world.fk("case")])
            captured = sum(p["amount"] for p in world.children("payment", "case", case["id"])
                           if p["status"] == "captured")
            added = line["quantity"] * world.by_id("item", line[world.fk("item")])["price"]
            assert paid[world.fk("case")] == case["id"]
            assert abs(paid["amount"] - (case["total_amount"] + added - captured)) < 0.005
    assert checked >= 100, checked


def _hidden(world: World, built) -> list[str]:
    """What the agent must find: the item it orders (name and code), the amount it pays where it pays, the code of
    the case it repeats."""
    item = world.by_id("item", next(a[world.fk("item")] for t, a in built.calls if t == world.n.create("line")))
    hidden = [item["name"], item["sku"]]
    hidden += [f"{a['amount']:.2f}" for t, a in built.calls if t == world.n.create("payment")]
    if built.intent in (REPEAT, NOT_HAD):
        hidden += [world.by_id("case", a[world.pk("case")])["code"] for t, a in built.calls
                   if t == world.n.get("case")]
    return hidden


def test_each_request_reads_as_one_persons_message_in_each_voice():
    seen = read_in_each_voice(planned_requests(NAMES, 3, 2, range(3)), VOICES, _hidden)
    assert all(seen[name, voice] >= 12 for name in NAMES for voice in VOICES[name]), seen


@pytest.mark.parametrize("lane", sample_or_whole((4, 1), (1, 2)))
def test_task_sets_draw_the_requests(lane):
    """Every request drawn over the built-in domains in two slots, deep, the best-rated order in the customer's own
    voice; in the fast lane's sample (every fourth domain, one slot), what is drawn is checked."""
    step, slots = lane
    drawn = Counter()
    for name, task in drawn_requests(NAMES, fitting_worlds(NAMES, step, slots)):
        drawn[name] += 1
        assert len(task.reference_solution) >= 7
        if name == TOP_RATED:
            assert voice_of(task.instruction) == "self" and task.requester == "party", task.instruction
    assert all(drawn[name] >= 1 for name in NAMES) if slots > 1 else sum(drawn.values()) >= 1, drawn


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, NAMES, "category_preferences", PER_INTENT)


def test_every_request_passes_every_proof_in_each_voice(proven):
    assert_proven_in_each_voice(proven[1], VOICES)


def _ordering(world: World, built, item: dict) -> list[tuple[str, dict]]:
    """The reference with `item` ordered or added instead (in the same quantity), and the payment what that makes."""
    line = next(a for t, a in built.calls if t == world.n.create("line"))
    old = world.by_id("item", line[world.fk("item")])
    calls = []
    for tool, arguments in built.calls:
        if tool == world.n.create("line"):
            arguments = {**arguments, world.fk("item"): item["id"]}
        elif tool == world.n.create("payment"):
            change = line["quantity"] * (item["price"] - old["price"])
            arguments = {**arguments, "amount": round(arguments["amount"] + change, 2)}
        calls.append((tool, arguments))
    return calls


def _wrong_policies_score_zero(proven, name: str, policies) -> Counter:
    """How often each wrong policy (`policies(world, built)`: (policy, the item it takes)) was judged, each run
    incomplete while the reference is complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, name):
        for policy, item in policies(world, built):
            bad, good = judged(store, env_id, plan, task, _ordering(world, built, item))
            assert good["complete"] and not bad["complete"], (policy, bad, good)
            checked[policy] += 1
    return checked


def _listed_category(world: World, built) -> int:
    return next(a[world.fk("category")] for t, a in built.calls if t == world.n.list("item"))


def test_an_agent_that_takes_the_runner_up_or_the_best_of_another_category_scores_zero(proven):
    def policies(world, built):
        _, best, second, overall = next(o for o in top_rated_in_category_options(world)
                                        if o[0]["id"] == _listed_category(world, built))
        assert best["id"] == next(a[world.fk("item")] for t, a in built.calls if t == world.n.create("line"))
        return (("runner-up", second), ("another category", overall))
    checked = _wrong_policies_score_zero(proven, TOP_RATED, policies)
    assert checked["runner-up"] >= 1 and checked["another category"] >= 1, checked


def test_an_agent_that_repeats_the_same_item_or_takes_the_cheapest_of_all_scores_zero(proven):
    def policies(world, built):
        latest = world.by_id("case", next(a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")))
        (line,) = world.children("line", "case", latest["id"])
        cheapest = min((i for i in world.rows["item"] if i["active"]), key=lambda i: i["price"])
        return (("same item", world.by_id("item", line[world.fk("item")])), ("cheapest of all", cheapest))
    checked = _wrong_policies_score_zero(proven, REPEAT, policies)
    assert checked["same item"] >= 2 and checked["cheapest of all"] >= 2, checked


def test_an_agent_that_adds_the_cheapest_of_all_or_the_runner_up_scores_zero(proven):
    def policies(world, built):
        offered = sorted((i for i in world.rows["item"] if i["active"]), key=lambda i: i["price"])
        alike = [i for i in offered if i[world.fk("category")] == _listed_category(world, built)]
        return (("cheapest of all", offered[0]), ("runner-up", alike[1]))
    checked = _wrong_policies_score_zero(proven, ADD_CHEAPEST, policies)
    assert checked["cheapest of all"] >= 2 and checked["runner-up"] >= 2, checked


def test_an_agent_that_orders_the_cheapest_of_the_category_without_reading_the_history_scores_zero(proven):
    def policies(world, built):
        offered = [i for i in world.rows["item"] if i["active"]]
        alike = [i for i in offered if i[world.fk("category")] == _listed_category(world, built)]
        return (("cheapest they had", min(alike, key=lambda i: i["price"])),)
    checked = _wrong_policies_score_zero(proven, NOT_HAD, policies)
    assert checked["cheapest they had"] >= 2, checked


def test_a_plan_is_bought_and_a_programme_applied_for_never_booked():
    """The verb a customer's choice is asked with follows what the world sells: a policy, hosting plan or
    subscription is bought and a degree programme applied for ("book the priciest coverage plan" read wrongly),
    goods ordered, rooms and visits booked."""
    said = Counter()
    for name, _seed, world, built in planned_requests((TOP_RATED, NOT_HAD, "order_top_rated_under_budget",
                                                      "order_dearest_within_budget"), 1, 1):
        kind = world.plan.scenario.item_kind
        verb = built.say.slots["order"]
        assert verb == {"goods": "order", "made_to_order": "order", "plan": "buy",
                        "program": "apply for"}.get(kind, "book"), (name, kind, verb)
        said[kind] += 1
    assert said["plan"] >= 3 and said["goods"] >= 3 and said["booking"] >= 3, said
