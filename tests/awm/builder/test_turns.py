"""Requests whose one goal turns on what the agent finds (awm/builder/intents/turns.py): a case placed again if it
was cancelled or paid off if it is still open; a case no longer wanted cancelled or returned and refunded; the latest
case holding an item, too far along to cancel; a swap on the newest case, which can no longer change; what an item
came to across the person's cases. Each is planned in many worlds, reads several rows before it writes or answers,
is written in both voices without naming what the agent must find, uses only tools a customer may ask for, is proven
by the verification stage in each voice, and an agent following a plausible wrong policy scores zero."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.intents import INTENTS, World
from awm.builder.intents.turns import (
    TURN_INTENTS,
    cancel_or_return_options,
    item_cost_options,
    latest_with_item_options,
    locked_swap_options,
    replace_or_settle_options,
)
from awm.builder.phrasing import money
from awm.builder.toolgen import dialect_for
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    drawn_requests,
    judged,
    prove_family,
    read_aloud,
    wrong_runs,
)
from tests.lanes import sample_or_whole

REPLACE_OR_SETTLE, CANCEL_OR_RETURN, TOO_LATE, LOCKED_SWAP, ITEM_COST, ADD_OR_NEW, OWED = TURN_INTENTS
VOICES = ("staff", "self")
PER_INTENT = 2  # worlds each request is proven in, of different lifecycles where the catalogue has them (fast lane: 1)
READS = ("get_", "list_", "search_")



def _customer_writes(w: World) -> set[str]:
    writes = {w.n.create("case"), w.n.create("line"), w.n.create("payment"), w.n.action("payment", "refund"),
              w.n.action("case", w.fl.cancel.verb)}
    writes |= {w.n.action("case", "return")} if "return" in {a.verb for a in w.fl.actions} else set()
    return writes | ({w.n.create("notification")} if w.has("notification") else set())


@pytest.mark.parametrize("lane", sample_or_whole((6, 1, 3), (2, 2, 15)))
def test_the_requests_are_planned_in_many_worlds_read_before_they_act_and_use_customer_tools_only(lane):
    step, slots, least = lane
    counted, steps = Counter(), Counter()
    for plan, rows in builtin_worlds(step, slots):
        for name in TURN_INTENTS:
            for seed in range(2):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None:
                    continue
                counted[name] += 1
                tools = [tool for tool, _ in built.calls]
                reads = [t for t in tools if t.startswith(READS)]
                assert len(tools) >= 4 and len(reads) >= 3, (name, tools)
                assert {t for t in tools if not t.startswith(READS)} <= _customer_writes(world), (name, tools)
                assert built.say.voices == VOICES
                steps[name] += len(tools)
    assert all(counted[name] >= least for name in TURN_INTENTS), counted
    assert sum(steps.values()) / sum(counted.values()) >= 4.5, (steps, counted)


def test_the_turning_requests_cover_what_the_agent_finds_and_take_each_way():
    """A case asked about with 'if cancelled ... if still open ...' is one of the two, and both ways are planned; a
    case no longer wanted can be cancelled or, delivered inside the window, returned, and has captured payments; an
    item goes on the newest case exactly when that case can still change, else on a new case."""
    ways = Counter()
    for plan, rows in builtin_worlds(3, 2):
        for seed in range(4):
            world = World(plan, rows, random.Random(seed))
            if INTENTS[REPLACE_OR_SETTLE].fits(world):
                for case in replace_or_settle_options(world):
                    assert case["status"] == world.fl.cancel.target or case["status"] in world.fl.editable
                built = INTENTS[REPLACE_OR_SETTLE].build(World(plan, rows, random.Random(seed)))
                if built is not None:
                    ways["replaced" if world.n.create("case") in [t for t, _ in built.calls] else "settled"] += 1
            if INTENTS[CANCEL_OR_RETURN].fits(world):
                for case in cancel_or_return_options(world):
                    assert case["status"] in (*world.fl.cancel.sources, *world.fl.action("return").sources)
                built = INTENTS[CANCEL_OR_RETURN].build(World(plan, rows, random.Random(seed)))
                if built is not None:
                    verbs = {t for t, _ in built.calls} & {world.n.action("case", "return"),
                                                           world.n.action("case", world.fl.cancel.verb)}
                    ways["returned" if world.n.action("case", "return") in verbs else "cancelled"] += 1
            if INTENTS[ADD_OR_NEW].fits(world):
                built = INTENTS[ADD_OR_NEW].build(World(plan, rows, random.Random(seed)))
                if built is not None:
                    case = world.by_id("case", next(a[world.pk("case")] for t, a in built.calls
                                                    if t == world.n.get("case")))
                    opened = world.n.create("case") in [t for t, _ in built.calls]
                    assert opened == (case["status"] not in world.fl.editable), (case["status"], built.calls)
                    ways["opened" if opened else "added"] += 1
    assert all(ways[w] >= 5 for w in ("replaced", "settled", "returned", "cancelled", "opened", "added")), ways


def test_the_refusals_name_a_case_that_the_rule_forbids_and_that_the_agent_must_read_past_another_to_find():
    checked = 0
    for plan, rows in builtin_worlds(3):
        world = World(plan, rows, random.Random(0))
        if INTENTS[TOO_LATE].fits(world):
            for item, read, case in latest_with_item_options(world):
                holding = [c for c in read if any(x[world.fk("item")] == item["id"]
                                                  for x in world.children("line", "case", c["id"]))]
                assert holding == [case] and read[-1] is case and len(read) >= 2
                assert case["status"] not in world.fl.cancel.sources and case["status"] != world.fl.cancel.target
                checked += 1
        if INTENTS[LOCKED_SWAP].fits(world):
            for case, line, new in locked_swap_options(world):
                newest = max(world.party_cases(world.party_of(case)), key=lambda c: c["created_at"])
                assert newest is case and case["status"] not in world.fl.editable and new["active"]
                assert line[world.fk("case")] == case["id"]
                checked += 1
    assert checked >= 40, checked


def test_the_item_cost_is_quantity_times_unit_price_over_the_cases_not_cancelled():
    checked = 0
    for plan, rows in builtin_worlds(3):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[ITEM_COST].fits(world):
            continue
        for party, item, kept, total in item_cost_options(world):
            lines = [x for c in world.party_cases(party) if c["status"] != world.fl.cancel.target
                     for x in world.children("line", "case", c["id"]) if x[world.fk("item")] == item["id"]]
            assert {c["id"] for c in kept} >= {x[world.fk("case")] for x in lines}
            assert len({x[world.fk("case")] for x in lines}) >= 2
            assert abs(total - sum(x["quantity"] * x["unit_price"] for x in lines)) < 0.005
            checked += 1
    assert checked >= 20, checked


def _hidden(world: World, built) -> list[str]:
    """What the agent must find and the instruction must not give away: the amounts it pays and the answer, the
    status a refusal reports, the codes of the cases it reads past."""
    hidden = [f"{a['amount']:.2f}" for t, a in built.calls if t == world.n.create("payment")]
    if built.answer:
        hidden.append(built.answer)
    if built.refused is not None:
        case = world.by_id("case", built.refused[0][1][world.fk("case")])
        hidden += [case["status"].replace("_", " "), case["code"]]
    return hidden


@pytest.mark.parametrize("lane", sample_or_whole((12, 1, 1, 2), (4, 2, 2, 12)))
def test_each_request_reads_as_one_persons_message_in_each_voice(lane):
    step, slots, seeds, least = lane
    seen = Counter()
    for plan, rows in builtin_worlds(step, slots):
        dialect = dialect_for(plan)
        for name in TURN_INTENTS:
            for seed in range(seeds):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None or len(set(built.say.party.name.split())) == 1:
                    continue  # a person named 'Charles Charles' reads as a doubled word, whoever writes
                read = read_aloud(plan, built, VOICES, seed, _hidden(world, built), dialect)
                seen[name, "staff"] += read // 2
                seen[name, "self"] += read // 2
    assert all(seen[name, voice] >= least for name in TURN_INTENTS for voice in VOICES), seen


@pytest.mark.parametrize("lane", sample_or_whole((8, 1), (1, 2)))
def test_task_sets_draw_the_requests(lane):
    """Every request drawn over the built-in domains in two slots; in the fast lane's sample (every eighth domain,
    one slot), the requests drawn are checked but not that each one is."""
    step, slots = lane
    drawn = Counter()
    for name, task in drawn_requests(TURN_INTENTS, builtin_worlds(step, slots)):
        drawn[name] += 1
        assert len(task.reference_solution) >= 4
    assert all(drawn[name] >= 2 for name in TURN_INTENTS) if slots > 1 else sum(drawn.values()) >= 2, drawn


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, TURN_INTENTS, "turns", PER_INTENT)


def test_every_request_passes_every_proof_in_each_voice(proven):
    assert_proven_in_each_voice(proven[1], {name: VOICES for name in TURN_INTENTS})


def _other_way(world: World, built) -> list[tuple[str, dict]]:
    """The reads of the reference, then what the other branch would do: the cancelled case paid as if it were open,
    or an open case placed again as if it had been cancelled."""
    reads = [(t, a) for t, a in built.calls if t.startswith(READS)]
    case = world.by_id("case", next(a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")))
    if case["status"] == world.fl.cancel.target:
        return [*reads, (world.n.create("payment"), {world.fk("case"): case["id"], "amount": case["total_amount"],
                                                     "method": "card"})]
    new_id = len(world.rows["case"]) + 1
    lines = world.children("line", "case", case["id"])
    return [*reads, (world.n.create("case"), {world.fk("party"): case[world.fk("party")],
                                              world.fk("site"): case[world.fk("site")]}),
            *((world.n.create("line"), {world.fk("case"): new_id, world.fk("item"): x[world.fk("item")],
                                        "quantity": x["quantity"]}) for x in lines)]


def test_an_agent_that_takes_the_other_way_scores_zero(proven):
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, REPLACE_OR_SETTLE):
        bad, good = judged(store, env_id, plan, task, _other_way(world, built))
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked


def test_an_agent_that_refunds_without_cancelling_or_returning_scores_zero(proven):
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, CANCEL_OR_RETURN):
        moves = {world.n.action("case", world.fl.cancel.verb), world.n.action("case", "return")}
        bad, good = judged(store, env_id, plan, task, [(t, a) for t, a in built.calls if t not in moves])
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 1, checked


def test_an_agent_that_claims_success_or_acts_on_another_case_instead_of_refusing_scores_zero(proven):
    """The latest case holding the item cannot be cancelled, the newest case cannot change: an agent that tries the
    refused call anyway and reports it done scores zero, and so does one that acts on another case of the person's
    that the rule allows (where there is one)."""
    checked = Counter()
    for name in (TOO_LATE, LOCKED_SWAP):
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            reads = [(t, a) for t, a in built.calls if t.startswith(READS)]
            bad, good = judged(store, env_id, plan, task, [*reads, built.refused[0]], "Done, that has been taken care of.")
            assert good["complete"] and not bad["complete"], (name, bad, good)
            checked[name] += 1
            case = world.by_id("case", built.refused[0][1][world.fk("case")])
            mine = [c for c in world.party_cases(world.party_of(case)) if c["id"] != case["id"]]
            if name == TOO_LATE:
                other = next((c for c in mine if c["status"] in world.fl.cancel.sources), None)
                wrong = other and (world.n.action("case", world.fl.cancel.verb), {world.fk("case"): other["id"]})
            else:
                other = next((c for c in mine if c["status"] in world.fl.editable), None)
                wrong = other and (world.n.create("line"), {**built.refused[0][1], world.fk("case"): other["id"]})
            if wrong:
                bad, good = judged(store, env_id, plan, task, [*reads, wrong], task.reference_answer)
                assert good["complete"] and not bad["complete"], (name, bad, good)
    assert all(checked[name] >= 1 for name in (TOO_LATE, LOCKED_SWAP)), checked


def test_an_answer_that_counts_one_case_or_the_cancelled_ones_too_scores_zero(proven):
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, ITEM_COST):
        item = world.by_id("item", next(i["id"] for i in world.rows["item"]
                                        if any(i["name"] == a.get("query") for _, a in built.calls)))
        party = world.by_id("party", next(a[world.fk("party")] for t, a in built.calls if world.fk("party") in a))
        lines = {c["id"]: [x for x in world.children("line", "case", c["id"]) if x[world.fk("item")] == item["id"]]
                 for c in world.party_cases(party)}
        first = next(xs for xs in lines.values() if xs)
        everything = sum(x["quantity"] * x["unit_price"] for xs in lines.values() for x in xs)
        for wrong in {round(sum(x["quantity"] * x["unit_price"] for x in first), 2), round(everything, 2)}:
            if money(wrong) == built.answer:
                continue
            bad, good = judged(store, env_id, plan, task, list(built.calls), money(wrong))
            assert good["complete"] and not bad["complete"], (wrong, bad, good)
            checked += 1
    assert checked >= 1, checked


def test_an_agent_that_adds_the_other_way_scores_zero(proven):
    """The reads of the reference, then the item put on the newest case when the reference opens a new one (the
    tools refuse it: nothing is added) or on a new case when the newest could still take it: incomplete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, ADD_OR_NEW):
        reads = [(t, a) for t, a in built.calls if t.startswith(READS)]
        case = world.by_id("case", next(a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")))
        line = next(a for t, a in built.calls if t == world.n.create("line"))
        if world.n.create("case") in [t for t, _ in built.calls]:
            wrong = [(world.n.create("line"), {**line, world.fk("case"): case["id"]})]
        else:
            new_id = len(world.rows["case"]) + 1
            wrong = [(world.n.create("case"), {world.fk("party"): case[world.fk("party")],
                                               world.fk("site"): case[world.fk("site")]}),
                     (world.n.create("line"), {**line, world.fk("case"): new_id})]
        bad, good = judged(store, env_id, plan, task, [*reads, *wrong])
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 1, checked


def test_an_answer_that_leaves_out_a_case_or_what_was_captured_scores_zero(proven):
    """What is still owed is each open case's total less what was captured on it, over every open case: the first
    open case's balance alone, or the open cases' totals where something was captured, are wrong."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, OWED):
        cases = [world.by_id("case", a[world.pk("case")]) for t, a in built.calls if t == world.n.get("case")]
        paid = [sum(p["amount"] for p in world.children("payment", "case", c["id"]) if p["status"] == "captured")
                for c in cases]
        wrong = {money(cases[0]["total_amount"] - paid[0]), money(sum(c["total_amount"] for c in cases))}
        for answer in wrong - {built.answer}:
            bad, good = judged(store, env_id, plan, task, list(built.calls), answer)
            assert good["complete"] and not bad["complete"], (answer, bad, good)
            checked += 1
    assert checked >= 1, checked
