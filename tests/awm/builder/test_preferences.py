"""A customer's request with preferences and constraints ("the best-rated one under 100.00", "the cheapest one the
Riverside store has 4 of", "the earliest open slot with Dr Lee that starts before 12:00"): planned only where one
row is strictly best, asked in the customer's own voice without naming that row, proven by the verification stage
like every other request, and scored 0 for an agent that takes the runner-up or ignores the constraint
(awm/builder/intents/preferences.py)."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest

from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.categories.healthcare.requests import _fits, _rule_words, earliest_slot_options
from awm.builder.data import generate_rows
from awm.builder.dialect import PAGE_ITEMS
from awm.builder.intents import INTENTS, World, steps
from awm.builder.intents.preferences import (
    PREFERENCE_INTENTS,
    cheapest_in_stock_options,
    top_rated_options,
    within_budget_options,
)
from awm.builder.phrasing import Realiser, grammar_faults, money
from awm.builder.taskgen import _task, generate_tasks
from awm.builder.toolgen import dialect_for
from awm.builder.world import make_scenario, plan_world
from awm.quality.realism import RealismText, voice_of, voice_violation
from awm.quality.tasks import unstated_values
from awm.runtime.environment import Environment
from awm.store import ArtifactStore
from tests.awm.builder.test_intents import assert_every_proof_passed, prove_requests
from tests.awm.builder.worlds import worlds_planning
from tests.lanes import sample_in_fast_lane, sample_or_whole

TOP_RATED, DEAREST, CHEAPEST, EARLIEST = PREFERENCE_INTENTS
OPTIONS = {TOP_RATED: top_rated_options, DEAREST: within_budget_options, CHEAPEST: cheapest_in_stock_options,
           EARLIEST: earliest_slot_options}
PER_INTENT = 2  # worlds each request is proven in, of different lifecycles where the catalogue has them


@cache
def _rows(domain: str, slot: int):
    plan = plan_world(make_scenario(domain, slot))
    return plan, generate_rows(plan)


def _builds(name: str, domain: str, slot: int) -> bool:
    plan = plan_world(make_scenario(domain, slot))
    if not INTENTS[name].fits(World(plan, {}, random.Random(0))):
        return False
    plan, rows = _rows(domain, slot)
    return INTENTS[name].build(World(plan, rows, random.Random(0))) is not None


@cache
def preference_worlds(per_intent: int = PER_INTENT) -> tuple[tuple[str, int], ...]:
    """For each request, the first worlds (catalogue and slot order) it can be planned in, one per lifecycle, up to
    `per_intent`."""
    return worlds_planning(PREFERENCE_INTENTS, _builds, per_intent)


def test_the_requests_fit_only_worlds_that_have_what_they_compare():
    """Ratings need reviews, stock needs stock levels, slots need a clinic's appointment slots; prices need priced
    items a customer chooses among (a savings account or a donation has no price to compare; a dental procedure or
    a licence is taken by need, not by price or rating)."""
    assert INTENTS[TOP_RATED].needs == ("review",) and INTENTS[TOP_RATED].item == "chosen"
    assert INTENTS[DEAREST].needs == () and INTENTS[DEAREST].item == "chosen"
    assert INTENTS[CHEAPEST].needs == ("stock_level",) and INTENTS[CHEAPEST].item == "chosen"
    assert INTENTS[EARLIEST].needs == ("slot",) and INTENTS[EARLIEST].categories == ("healthcare",)
    planned = Counter()
    for domain in builtin_domains()[::3]:
        plan = plan_world(make_scenario(domain, 0))
        world = World(plan, {}, random.Random(0))
        for name in PREFERENCE_INTENTS:
            if not INTENTS[name].fits(world):
                continue
            assert all(plan.has(role) for role in INTENTS[name].needs) and world.priced or name == EARLIEST
            planned[name] += INTENTS[name].build(World(plan, generate_rows(plan), random.Random(0))) is not None
    assert planned[TOP_RATED] >= 5 and planned[CHEAPEST] >= 3 and planned[DEAREST] >= 25, planned
    # a world whose items have no price (a savings account, a donation) gets none of the priced requests
    unpriced = next(plan for d in builtin_domains() if not World(plan := plan_world(make_scenario(d, 0)), {},
                                                                 random.Random(0)).priced)
    assert not any(INTENTS[n].fits(World(unpriced, {}, random.Random(0))) for n in (TOP_RATED, DEAREST, CHEAPEST))
    # nor a clinic, a pharmacy or a tax office, whose customers take what they need; a library's rooms are chosen
    for domain, chosen in (("dental_clinic", False), ("retail_pharmacy", False), ("tax_authority", False),
                           ("public_library", True), ("hotel_group", True)):
        world = World(plan_world(make_scenario(domain, 0)), {}, random.Random(0))
        assert world.items_are("chosen") is chosen and INTENTS[DEAREST].fits(world) is chosen, domain


@pytest.mark.parametrize("name", PREFERENCE_INTENTS)
def test_every_option_has_one_strict_best_a_runner_up_and_a_constraint_that_bites(name):
    """Each option the planner may choose: the chosen row is strictly better than every other row that meets the
    constraint (no tie), a runner-up meets it too, and the best row ignoring the constraint is another one."""
    checked = 0
    for domain, slot in preference_worlds():
        plan, rows = _rows(domain, slot)
        world = World(plan, rows, random.Random(0))
        if not INTENTS[name].fits(world):
            continue
        for option in OPTIONS[name](world):
            checked += 1
            if name == TOP_RATED:
                budget, best, second, overall = option
                averages = _averages(world)
                under = {i: a for i, a in averages.items() if world.by_id("item", i)["price"] < budget}
                assert all(a < under[best["id"]] for i, a in under.items() if i != best["id"])
                assert second["id"] in under and overall["id"] not in under
                assert averages[overall["id"]] > under[best["id"]] and best["active"]
            elif name == DEAREST:
                n, budget, best, second, dearest = option
                affordable = [i for i in rows["item"] if n * i["price"] < budget]
                assert all(i["price"] < best["price"] for i in affordable if i["id"] != best["id"])
                assert second in affordable and dearest not in affordable and best["active"]
            elif name == CHEAPEST:
                site, n, best, second, cheapest = option
                held = _held(world, site["id"])
                enough = [i for i in rows["item"] if held.get(i["id"], 0) >= n]
                assert all(i["price"] > best["price"] for i in enough if i["id"] != best["id"])
                assert second in enough and cheapest not in enough and cheapest["price"] < best["price"]
            else:
                member, rule, value, best, second, first = option
                fitting = sorted((s for s in rows["slot"] if s[world.fk("staff")] == member["id"]
                                  and s["status"] == "open" and _fits(s, rule, value)), key=lambda s: s["starts_at"])
                assert fitting[:2] == [best, second] and best["starts_at"] < second["starts_at"]
                assert first["starts_at"] < best["starts_at"] and not _fits(first, rule, value)
    assert checked >= 3, (name, checked)


def _averages(world: World) -> dict[int, Fraction]:
    ratings: dict[int, list[int]] = {}
    for review in world.rows["review"]:
        ratings.setdefault(review[world.fk("item")], []).append(review["rating"])
    return {i: Fraction(sum(r), len(r)) for i, r in ratings.items()}


def _held(world: World, site_id: int) -> dict[int, int]:
    return {s[world.fk("item")]: s["quantity"] for s in world.rows["stock_level"] if s[world.fk("site")] == site_id}


def test_the_instruction_states_the_criteria_in_the_customers_voice_never_the_answer():
    """In every phrasing the request allows (its own voice only): no grammar fault, no voice violation, and the row
    it asks for (its name, its code, its time) is never named: the agent must find it."""
    seen = Counter()
    for domain, slot in preference_worlds():
        plan, rows = _rows(domain, slot)
        for name in PREFERENCE_INTENTS:
            for seed in range(8):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None:
                    continue
                assert built.say.voices == ("self",)
                for clause in built.say.clauses:  # every wording, each with another frame and introduction
                    say = replace(built.say, clauses=(clause,))
                    text = Realiser(plan.scenario.labels, random.Random(seed)).instruction([say])
                    assert voice_of(text) == "self", text
                    assert not grammar_faults(text), (text, grammar_faults(text))
                    assert voice_violation(RealismText(text, (name,), False)) is None, text
                    assert not unstated_values(_task("t01", [replace(built, say=say)], text, dialect_for(plan))), text
                    for hidden in _chosen(world, built):
                        assert hidden not in text, (hidden, text)
                    seen[name] += 1
    assert all(seen[name] >= 12 for name in PREFERENCE_INTENTS), seen


def _chosen(world: World, built) -> list[str]:
    """How the row a request chooses could be named: an item's name and code, a slot's time."""
    if built.intent == EARLIEST:
        slot_id = next(a[world.pk("slot")] for t, a in built.calls if world.pk("slot") in a)
        starts = world.by_id("slot", slot_id)["starts_at"]
        return [starts, starts[11:16]]
    item = world.by_id("item", next(a[world.fk("item")] for t, a in built.calls if t == world.n.create("line")))
    return [item["name"], item["sku"]]


@pytest.mark.parametrize("domains", sample_or_whole("planned", "every"))
def test_task_sets_draw_the_requests_and_write_them_in_the_customers_voice(domains):
    """Over the worlds (every built-in domain, three slots, and further slots until each request is drawn: few
    worlds keep bookable slots, 27 of the first ten slots', and a set draws the earliest-slot booking in about one
    of five of them) that one of the requests fits. The fast lane's sample: the domains of the worlds each request
    is first planned in (preference_worlds), in the first five slots (a set draws one of these requests in a few
    of them only: 1 task there at this writing), where the requests drawn are checked but not that each one is."""
    sample = list(dict.fromkeys(domain for domain, _ in preference_worlds()))
    drawn = Counter()
    slots = range(10) if domains == "every" else range(5)
    for domain, slot in [(d, s) for s in slots for d in (builtin_domains() if domains == "every" else sample)]:
        if slot >= 3 and all(drawn[name] for name in PREFERENCE_INTENTS):
            break
        plan = plan_world(make_scenario(domain, slot))
        if not any(INTENTS[n].fits(World(plan, {}, random.Random(0))) for n in PREFERENCE_INTENTS):
            continue
        plan, rows = _rows(domain, slot)
        for task in generate_tasks(plan, rows).tasks:
            for name in set(task.template.split("+")) & set(PREFERENCE_INTENTS):
                drawn[name] += 1
                assert voice_of(task.instruction) == "self" and task.requester == "party", task.instruction
    if domains == "every":
        assert all(drawn[name] >= 1 for name in PREFERENCE_INTENTS) and sum(drawn.values()) >= 5, drawn
    else:  # a task set draws each request in a few of these worlds only: which of them, the draws decide
        assert sum(drawn.values()) >= 1, drawn


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    """Every request in each of its worlds (the fast lane: the first), as a task of its own, through the
    verification stage."""
    store = ArtifactStore(tmp_path_factory.mktemp("preferences"))
    runs = []
    for domain, slot in preference_worlds(sample_in_fast_lane(request.config, 1, PER_INTENT)):
        runs.append(prove_requests(store, domain, slot, PREFERENCE_INTENTS))
    return store, runs


def test_every_request_passes_every_proof(proven):
    _, runs = proven
    proved = Counter(name for _, plans, _, _ in runs for name in plans)
    assert all(proved[name] >= 1 for name in PREFERENCE_INTENTS) and sum(proved.values()) >= 5, proved
    assert_every_proof_passed(runs)
    assert all(task.requester == "party" for _, _, tasks, _ in runs for task in tasks)  # the customer writes


def test_a_customer_who_pays_at_once_pays_what_they_chose_learnt_from_the_reads(tmp_path, monkeypatch):
    """With the payment asked for every time (`PAY_SHARE` 1): the request names the method, the payment on the new
    case is the chosen item's price times the quantity, an amount the agent learns from its reads (never stated),
    and every such task passes every proof."""
    monkeypatch.setattr(steps, "PAY_SHARE", 1.0)
    domain, slot = preference_worlds()[0]
    run = prove_requests(ArtifactStore(tmp_path), domain, slot, PREFERENCE_INTENTS)
    env_id, plans, tasks, _ = run
    plan, rows = _rows(domain, slot)
    world = World(plan, rows, random.Random(0))
    paid = 0
    for (name, built), task in zip(plans.items(), tasks, strict=True):
        if name == EARLIEST:
            continue
        n = next(k for k, (tool, _) in enumerate(built.calls) if tool == world.n.create("payment"))
        line = next(args for tool, args in built.calls if tool == world.n.create("line"))
        price = world.by_id("item", line[world.fk("item")])["price"]
        assert built.calls[n][1]["amount"] == round(line["quantity"] * price, 2), (name, built.calls[n])
        assert (n, "amount") in built.derived and built.calls[n][1]["method"].replace("_", " ") in task.instruction
        assert money(built.calls[n][1]["amount"]) not in task.instruction, task.instruction
        paid += 1
    assert paid >= 2, plans
    assert_every_proof_passed([run])


def _choose(name: str, say_slots: dict, option_rule, results: list, rows_key: str, world: World, policy: str) -> int:
    """What a policy picks from what the reference's reads returned (in the environment's own dialect): the right
    row, the runner-up, or the best row ignoring the constraint. Returns the chosen row's id."""
    def listed(result) -> list[dict]:
        return result[rows_key]

    if name == TOP_RATED:
        items = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "sku"))
        reviews = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "rating"))
        ratings: dict[int, list[int]] = {}
        for review in reviews:
            ratings.setdefault(review[world.fk("item")], []).append(review["rating"])
        budget = float(say_slots["budget"])
        rated = [i for i in items if i["id"] in ratings]
        pool = rated if policy == "ignore" else [i for i in rated if i["price"] < budget]
        ranked = sorted(pool, key=lambda i: -Fraction(sum(ratings[i["id"]]), len(ratings[i["id"]])))
    elif name == DEAREST:
        items = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "sku"))
        n, budget = say_slots["n"], float(say_slots["budget"])
        pool = items if policy == "ignore" else [i for i in items if n * i["price"] <= budget]
        ranked = sorted(pool, key=lambda i: -i["price"])
    elif name == CHEAPEST:
        levels = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "reorder_level"))
        items = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "sku"))
        held = {level[world.fk("item")]: level["quantity"] for level in levels}
        pool = items if policy == "ignore" else [i for i in items if held.get(i["id"], 0) >= say_slots["n"]]
        ranked = sorted(pool, key=lambda i: i["price"])
    else:
        slots = next(listed(r) for r in results if isinstance(r, dict) and listed_has(r, rows_key, "duration_minutes"))
        rule, value = option_rule
        pool = slots if policy == "ignore" else [s for s in slots if _fits(s, rule, value)]
        ranked = sorted(pool, key=lambda s: s["starts_at"])
    return ranked[1 if policy == "second" else 0]["id"]


def listed_has(result: dict, rows_key: str, column: str) -> bool:
    rows = result.get(rows_key)
    return isinstance(rows, list) and bool(rows) and column in rows[0]


def test_an_agent_that_takes_the_runner_up_or_ignores_the_constraint_scores_zero(proven):
    """In the built environment, through its own tools: the reads of the reference, then the write made with the row
    each policy picks from what those reads returned. The right pick scores 1; the runner-up and the best row
    ignoring the constraint score 0."""
    store, runs = proven
    scored = Counter()
    for env_id, plans, tasks, _ in runs:
        domain, slot = env_id.rsplit("__", 1)
        plan, rows = _rows(domain, int(slot))
        world = World(plan, rows, random.Random(0))
        rows_key = PAGE_ITEMS[dialect_for(plan).style.paging]
        env = Environment.from_store(store, env_id)
        try:
            for (name, built), task in zip(plans.items(), tasks, strict=True):
                calls = [(c.tool, c.arguments) for c in task.reference_solution]
                if name == EARLIEST:
                    write = next(n for n, (_, args) in enumerate(calls) if world.pk("slot") in args)
                    key = world.pk("slot")
                else:
                    write = next(n for n, (_, args) in enumerate(calls) if world.fk("item") in args
                                 and "quantity" in args)
                    key = world.fk("item")
                results = env.replay(calls[:write])
                rule = _slot_rule(world, built) if name == EARLIEST else None
                picks = {p: _choose(name, built.say.slots, rule, results, rows_key, world, p)
                         for p in ("right", "second", "ignore")}
                assert picks["right"] == calls[write][1][key] and len(set(picks.values())) == 3, (name, picks)
                for policy, row_id in picks.items():
                    tried = [*calls[:write], (calls[write][0], {**calls[write][1], key: row_id}), *calls[write + 1:]]
                    with env.reset(task.task_id) as episode:
                        for tool, arguments in tried:
                            episode.call(tool, arguments)
                        reward = episode.score()["reward"]
                    assert reward == (1.0 if policy == "right" else 0.0), (env_id, name, policy, reward)
                    scored[name, policy] += 1
        finally:
            env.close()
    assert all(scored[name, p] >= 1 for name in PREFERENCE_INTENTS for p in ("right", "second", "ignore")), scored


def _slot_rule(world: World, built) -> tuple[str, object]:
    """The rule the slot request states, found among the world's options by its words and practitioner."""
    staff = built.say.slots["staff"]
    for member, rule, value, *_ in earliest_slot_options(world):
        if world.person(member) == staff and _rule_words(rule, value) == built.say.slots["rule"]:
            return rule, value
    raise AssertionError(built.say.slots)


def test_budgets_are_round_amounts_strictly_between_two_prices():
    from awm.builder.intents.preferences import _round_between

    assert _round_between(87.5, 112.0) == 100.0 and _round_between(101.0, 104.0) == 102.0
    assert _round_between(10.2, 10.6) == 10.5 and _round_between(5.0, 5.0) is None
    assert _round_between(4.2, 4.9) == 4.5 and _round_between(3.2, 3.26) == 3.25  # 'under 4.50', not 4.67
    assert _round_between(4.6, 4.7) == 4.65  # the middle where no rounder amount lies between
    assert money(_round_between(1999.0, 2600.0)) == "2000.00"
