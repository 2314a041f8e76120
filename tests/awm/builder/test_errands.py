"""Requests whose one goal takes several steps (awm/builder/intents/errands.py): the last purchase of one item ordered
again and paid the same way, every open balance paid off, a damaged delivery returned and sent again, two open cases
merged into one, the last approved application filed again, a case cancelled by mistake placed again, every
cancellable case holding one item cancelled and refunded, two items of a case moved to a new case and paid, one item
swapped for another on every case that can still change. Each is planned in many worlds, deep (six steps or more,
four tools or more; the last three eight or more and five or more), written in both voices it allows without naming
what the agent must find, uses only tools a customer may ask for, and is proven by the verification stage in each
voice; for each of the last four an agent following a plausible wrong policy scores zero."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache

import pytest

from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.intents import INTENTS, World
from awm.builder.intents.errands import (
    ERRAND_INTENTS,
    item_cancel_options,
    merge_options,
    owing_options,
    renewal_options,
    reorder_options,
    replace_options,
    split_options,
    swap_everywhere_options,
)
from awm.builder.phrasing import money
from awm.builder.toolgen import dialect_for
from awm.builder.world import make_scenario, plan_world
from awm.store import ArtifactStore
from tests.awm.builder.families import drawn_requests, judged, planned, proven_in, read_aloud, rows_of, wrong_runs
from tests.awm.builder.test_intents import assert_every_proof_passed
from tests.awm.builder.worlds import worlds_planning
from tests.lanes import sample_in_fast_lane, sample_or_whole

REORDER, SETTLE, EXCHANGE, COMBINE, RENEW, REPLACE, CANCEL_ITEM, SPLIT, SWAP = ERRAND_INTENTS
DEEPER = (CANCEL_ITEM, SPLIT, SWAP)  # eight steps or more, five tools or more
VOICES = ("staff", "self")
PER_INTENT = 2  # worlds each request is proven in, of different lifecycles where the catalogue has them (fast lane: 1)


def _fitting(name: str, step: int):
    """(plan, rows, world) of every `step`-th built-in domain's slot 0 that the intent fits."""
    for domain in builtin_domains()[::step]:
        plan, rows = rows_of(domain, 0)
        world = World(plan, rows, random.Random(0))
        if INTENTS[name].fits(world):
            yield plan, rows, world


def _customer_writes(w: World) -> set[str]:
    """The writes a customer may ask for themself in these requests (opening a case, adding and removing its lines,
    paying, refunding their own payment, returning, cancelling, submitting), and the confirmation message the
    business sends them."""
    writes = {w.n.create("case"), w.n.create("line"), w.n.delete("line"), w.n.create("payment"),
              w.n.action("payment", "refund"), w.n.action("case", w.fl.cancel.verb)}
    writes |= {w.n.action("case", verb) for verb in ("return", "submit") if verb in {a.verb for a in w.fl.actions}}
    return writes | ({w.n.create("notification")} if w.has("notification") else set())


def test_the_requests_are_planned_in_many_worlds_each_deep_and_with_customer_tools_only():
    counted, steps = Counter(), Counter()
    for domain in builtin_domains()[::3]:
        plan, rows = rows_of(domain, 0)
        for name in ERRAND_INTENTS:
            world = World(plan, rows, random.Random(1))
            built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
            if built is None:
                continue
            counted[name] += 1
            tools = [tool for tool, _ in built.calls]
            assert len(tools) >= 6 and len(set(tools)) >= 4, (name, tools)
            if name in DEEPER:
                assert len(tools) >= 8 and len(set(tools)) >= 5, (name, tools)
            writes = {t for t in tools if not t.startswith(("get_", "list_", "search_"))}
            assert writes <= _customer_writes(world), (name, writes)
            assert built.say.voices == VOICES and built.derived
            steps[name] += len(tools)
    assert counted[REORDER] >= 15 and counted[SETTLE] >= 10 and counted[EXCHANGE] >= 4, counted
    assert counted[COMBINE] >= 4 and counted[RENEW] >= 2 and counted[REPLACE] >= 10, counted
    assert counted[CANCEL_ITEM] >= 15 and counted[SPLIT] >= 15 and counted[SWAP] >= 15, counted
    assert sum(steps.values()) / sum(counted.values()) >= 7, (steps, counted)


def test_the_reordered_case_is_the_latest_holding_the_item_and_not_simply_the_latest():
    """The constraint bites: the person's most recent case is another one, and no newer case holds the item."""
    checked = 0
    for _, _, world in _fitting(REORDER, 4):
        for party, read, case, item, method in reorder_options(world):
            mine = sorted(world.party_cases(party), key=lambda c: c["created_at"], reverse=True)
            holding = [c for c in mine if any(x[world.fk("item")] == item["id"]
                                              for x in world.children("line", "case", c["id"]))]
            assert holding[0] is case and mine[0] is not case and read == mine[:len(read)] and read[-1] is case
            assert {p["method"] for p in world.children("payment", "case", case["id"])} == {method}
            checked += 1
    assert checked >= 20, checked


def test_every_open_case_that_owes_is_paid_exactly_its_balance():
    checked = 0
    for domain in builtin_domains()[::4]:
        plan, rows = rows_of(domain, 0)
        world = World(plan, rows, random.Random(0))
        for party, open_cases, owing in owing_options(world):
            mine_open = {c["id"] for c in world.party_cases(party) if c["status"] in world.fl.open}
            assert len(owing) >= 2 and {c["id"] for c, _ in owing} <= {c["id"] for c in open_cases} == mine_open
            for case, due in owing:
                paid = sum(p["amount"] for p in world.children("payment", "case", case["id"])
                           if p["status"] == "captured")
                assert due >= 1 and abs(case["total_amount"] - paid - due) < 0.005
            checked += 1
    assert checked >= 10, checked


def test_two_cases_merge_into_one_with_every_item_and_the_quantities_added_up():
    """The two are all the person's cases that can still be cancelled, nothing is captured on them, and the new case
    holds one line per item with the quantities of both added up, at the newer one's site."""
    checked = 0
    for plan, rows, world in _fitting(COMBINE, 2):
        for party, cases, merged in merge_options(world):
            cancellable = [c for c in world.party_cases(party) if c["status"] in world.fl.cancel.sources]
            assert sorted(c["id"] for c in cancellable) == sorted(c["id"] for c in cases)
            assert cases[0]["created_at"] < cases[1]["created_at"]
            assert not any(p["status"] == "captured" for c in cases for p in world.children("payment", "case", c["id"]))
            lines = [x for c in cases for x in world.children("line", "case", c["id"])]
            assert dict(merged) == {i: sum(x["quantity"] for x in lines if x[world.fk("item")] == i)
                                    for i in {x[world.fk("item")] for x in lines}}
            checked += 1
        built = INTENTS[COMBINE].build(World(plan, rows, random.Random(0)))
        if built is not None:
            site = next(a[world.fk("site")] for t, a in built.calls if t == world.n.create("case"))
            newer = max((world.by_id("case", a[world.pk("case")]) for t, a in built.calls if t == world.n.get("case")),
                        key=lambda c: c["created_at"])
            assert site == newer[world.fk("site")]
    assert checked >= 5, checked


def test_the_renewed_application_is_the_latest_approved_and_is_submitted():
    checked = 0
    for domain in builtin_domains():
        plan = plan_world(make_scenario(domain, 0))
        if not INTENTS[RENEW].fits(World(plan, {}, random.Random(0))):
            continue
        plan, rows = rows_of(domain, 0)
        world = World(plan, rows, random.Random(0))
        for party, case in renewal_options(world):
            approved = [c for c in world.party_cases(party) if c["status"] == "approved"]
            assert case is max(approved, key=lambda c: c["created_at"])
            checked += 1
        built = INTENTS[RENEW].build(World(plan, rows, random.Random(0)))
        if built is not None:
            assert built.goals[0].expect["status"] == "submitted"
            writes = [t for t, _ in built.calls if not t.startswith(("get_", "list_", "search_"))]
            assert world.n.action("case", "submit") in writes[-2:]
    assert checked >= 10, checked


def test_a_case_cancelled_by_mistake_is_placed_again_not_reopened():
    checked = 0
    for _, _, world in _fitting(REPLACE, 2):
        for case in replace_options(world):
            assert case["status"] == world.fl.cancel.target and len(world.children("line", "case", case["id"])) >= 2
            checked += 1
        built = INTENTS[REPLACE].build(World(world.plan, world.rows, random.Random(0)))
        if built is not None:
            writes = {t for t, _ in built.calls if not t.startswith(("get_", "list_", "search_", "send_"))}
            assert writes == {world.n.create("case"), world.n.create("line")}, writes
    assert checked >= 20, checked


def _writes(world: World, built) -> list[tuple[str, dict]]:
    return [(t, a) for t, a in built.calls if not t.startswith(("get_", "list_", "search_", "send_"))]


def test_every_cancellable_case_holding_the_item_is_cancelled_and_what_it_captured_refunded():
    """The cases cancelled are all the person's cancellable cases that hold the item (two or more), each captured
    payment on them is refunded, and the answer is what those payments came to."""
    checked = 0
    for plan, rows, world in _fitting(CANCEL_ITEM, 2):
        for party, cancellable, item, holding, paid in item_cancel_options(world):
            mine = [c for c in world.party_cases(party) if c["status"] in world.fl.cancel.sources]
            assert sorted(c["id"] for c in mine) == [c["id"] for c in cancellable]
            held = [c for c in mine if any(x[world.fk("item")] == item["id"]
                                           for x in world.children("line", "case", c["id"]))]
            assert [c["id"] for c in held] == [c["id"] for c in holding] and len(holding) >= 2
            assert sorted(p["id"] for p in paid) == sorted(p["id"] for c in holding for p in
                                                           world.children("payment", "case", c["id"])
                                                           if p["status"] == "captured") and paid
            checked += 1
        built = INTENTS[CANCEL_ITEM].build(World(plan, rows, random.Random(0)))
        if built is not None:
            writes = _writes(world, built)
            cancelled = [a[world.fk("case")] for t, a in writes if t == world.n.action("case", world.fl.cancel.verb)]
            refunded = [world.by_id("payment", a[world.pk("payment")]) for t, a in writes
                        if t == world.n.action("payment", "refund")]
            assert len(cancelled) >= 2 and {p[world.fk("case")] for p in refunded} <= set(cancelled)
            assert built.answer == money(sum(p["amount"] for p in refunded))
    assert checked >= 20, checked


def test_a_split_moves_two_items_to_a_new_case_at_the_same_site_and_pays_exactly_its_total():
    checked = 0
    for plan, rows, world in _fitting(SPLIT, 2):
        for case, *moved in split_options(world):
            lines = world.children("line", "case", case["id"])
            assert case["status"] in world.fl.editable and len(lines) > len(moved) == 2
            assert not any(p["status"] == "captured" for p in world.children("payment", "case", case["id"]))
            assert all(x[world.fk("case")] == case["id"] for x in moved)
            checked += 1
        built = INTENTS[SPLIT].build(World(plan, rows, random.Random(0)))
        if built is not None:
            writes = _writes(world, built)
            removed = [world.by_id("line", a[world.pk("line")]) for t, a in writes if t == world.n.delete("line")]
            added = [a for t, a in writes if t == world.n.create("line")]
            old = world.by_id("case", removed[0][world.fk("case")])
            site = next(a[world.fk("site")] for t, a in writes if t == world.n.create("case"))
            amount = next(a["amount"] for t, a in writes if t == world.n.create("payment"))
            assert site == old[world.fk("site")] and len(removed) == 2
            assert sorted((a[world.fk("item")], a["quantity"]) for a in added) == sorted(
                (x[world.fk("item")], x["quantity"]) for x in removed)
            assert abs(amount - sum(x["quantity"] * world.by_id("item", x[world.fk("item")])["price"]
                                    for x in removed)) < 0.005
            # the new lines are added before the old ones go: a freed last id is never handed to a new line
            tools = [t for t, _ in writes]
            assert max(i for i, t in enumerate(tools) if t == world.n.create("line")) < tools.index(world.n.delete("line"))
    assert checked >= 20, checked


def test_the_item_is_swapped_on_every_case_that_can_change_and_nowhere_else():
    checked = 0
    for plan, rows, world in _fitting(SWAP, 2):
        for party, editable, old, new, lines in swap_everywhere_options(world):
            mine = [c for c in world.party_cases(party) if c["status"] in world.fl.editable]
            assert sorted(c["id"] for c in mine) == [c["id"] for c in editable]
            held = [x for c in mine for x in world.children("line", "case", c["id"]) if x[world.fk("item")] == old["id"]]
            assert sorted(x["id"] for x in held) == sorted(x["id"] for x in lines) and len(lines) >= 2
            assert new["active"] and not any(x[world.fk("item")] == new["id"] for x in world.rows["line"]
                                             if x[world.fk("case")] in {y[world.fk("case")] for y in lines})
            checked += 1
        built = INTENTS[SWAP].build(World(plan, rows, random.Random(0)))
        if built is not None:
            writes = _writes(world, built)
            removed = [world.by_id("line", a[world.pk("line")]) for t, a in writes if t == world.n.delete("line")]
            added = [a for t, a in writes if t == world.n.create("line")]
            assert sorted((x[world.fk("case")], x["quantity"]) for x in removed) == sorted(
                (a[world.fk("case")], a["quantity"]) for a in added)
            assert len({a[world.fk("item")] for a in added}) == 1 and len({x[world.fk("item")] for x in removed}) == 1
    assert checked >= 20, checked

def _hidden(world: World, built) -> list[str]:
    """What the agent must find and the instruction must not give away: the case copied (its code), the method it
    was paid by, the total paid off or refunded, the amount a new case comes to."""
    if built.intent == REORDER:
        copied = world.by_id("case", [a for t, a in built.calls if t == world.n.get("case")][-1][world.pk("case")])
        method = next(a["method"] for t, a in built.calls if t == world.n.create("payment"))
        return [copied["code"], method.replace("_", " ")]
    if built.intent in (SETTLE, CANCEL_ITEM):
        return [built.answer]
    if built.intent == SPLIT:
        return [f"{next(a['amount'] for t, a in built.calls if t == world.n.create('payment')):.2f}"]
    if built.intent == RENEW:
        return [world.by_id("case", next(a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")))["code"]]
    return []


def test_each_request_reads_as_one_persons_message_in_each_voice():
    seen = Counter()
    for domain in builtin_domains()[::6]:
        plan, rows = rows_of(domain, 0)
        dialect = dialect_for(plan)
        for name in ERRAND_INTENTS:
            for seed in range(3):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None or len(set(built.say.party.name.split())) == 1:
                    continue  # a person named 'Charles Charles' reads as a doubled word, whoever writes
                seen[name] += read_aloud(plan, built, VOICES, seed, _hidden(world, built), dialect)
    assert seen[REORDER] >= 30 and seen[SETTLE] >= 30 and seen[EXCHANGE] >= 6 and seen[COMBINE] >= 6, seen
    assert seen[RENEW] >= 6 and seen[REPLACE] >= 12, seen
    assert seen[CANCEL_ITEM] >= 12 and seen[SPLIT] >= 12 and seen[SWAP] >= 12, seen


@pytest.mark.parametrize("step", sample_or_whole(8, 1))
def test_task_sets_draw_the_requests(step):
    """Every request drawn over the built-in domains; in the fast lane's sample (every eighth domain), the requests
    drawn are checked but not that each one is."""
    drawn = Counter()
    for name, task in drawn_requests(ERRAND_INTENTS, (rows_of(domain, 0) for domain in builtin_domains()[::step])):
        drawn[name] += 1
        assert len(task.reference_solution) >= 6
    assert (all(drawn[name] >= 1 for name in ERRAND_INTENTS) and sum(drawn.values()) >= 10) if step == 1 else \
        sum(drawn.values()) >= 2, drawn


@cache
def errand_worlds(per_intent: int = PER_INTENT) -> tuple[tuple[str, int], ...]:
    return worlds_planning(ERRAND_INTENTS, lambda *world: planned(*world) is not None, per_intent)


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    """Each request planned in each of its worlds, written once in each voice, as tasks of their own through the
    verification stage: (env_id, plans by name, tasks, reports)."""
    store = ArtifactStore(tmp_path_factory.mktemp("errands"))
    return store, proven_in(store, ERRAND_INTENTS, errand_worlds(sample_in_fast_lane(request.config, 1, PER_INTENT)))


def test_every_request_passes_every_proof_in_each_voice(proven):
    _, runs = proven
    proved = Counter((name, t.requester) for _, named, tasks, _ in runs
                     for (name, _), t in zip(named, tasks, strict=True))
    assert all(proved[name, who] >= 1 for name in ERRAND_INTENTS for who in ("staff", "party")), proved
    assert_every_proof_passed(runs)


def test_an_agent_that_reorders_the_latest_case_instead_scores_zero(proven):
    """The reads of the reference, then the latest case copied (the item ignored) and paid the same way: incomplete,
    while the reference is complete."""
    store, runs = proven
    checked = 0
    for env_id, named, tasks, _ in runs:
        domain, slot = env_id.rsplit("__", 1)
        plan, rows = rows_of(domain, int(slot))
        world = World(plan, rows, random.Random(0))
        for (name, built), task in zip(named, tasks, strict=True):
            if name != REORDER:
                continue
            party = world.by_id("party", built.calls[1][1][world.fk("party")])
            latest = max(world.party_cases(party), key=lambda c: c["created_at"])
            lines = world.children("line", "case", latest["id"])
            if not all(world.by_id("item", x[world.fk("item")])["active"] for x in lines):
                continue  # lines no new case can repeat: copying them fails for another reason
            new_id = len(rows["case"]) + 1
            total = round(sum(x["quantity"] * world.by_id("item", x[world.fk("item")])["price"] for x in lines), 2)
            copy = [(world.n.create("line"), {world.fk("case"): new_id, world.fk("item"): x[world.fk("item")],
                                              "quantity": x["quantity"]}) for x in lines]
            wrong = []
            for tool, arguments in built.calls:  # the reference, with the latest case's lines and total instead
                if tool == world.n.create("line"):
                    wrong += copy
                    copy = []
                elif tool == world.n.create("payment"):
                    wrong.append((tool, {**arguments, "amount": total}))
                else:
                    wrong.append((tool, arguments))
            bad, good = judged(store, env_id, plan, task, wrong)
            assert good["complete"] and not bad["complete"], (bad, good)
            checked += 1
    assert checked >= 2, checked


def test_the_answer_of_a_settlement_is_the_sum_of_the_balances():
    for domain, slot in errand_worlds():
        built = planned(SETTLE, domain, slot)
        if built is None:
            continue
        payments = [a["amount"] for t, a in built.calls if "amount" in a]
        assert built.answer == money(sum(payments)) and len(payments) >= 2


def test_an_agent_that_stops_at_the_first_case_holding_the_item_scores_zero(proven):
    """The reads of the reference, then only the first case holding the item cancelled and refunded, and what came
    back from it reported: incomplete, while the reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, CANCEL_ITEM):
        cancel = world.n.action("case", world.fl.cancel.verb)
        first = next(a[world.fk("case")] for t, a in built.calls if t == cancel)
        kept, back = [], 0.0
        for tool, arguments in built.calls:
            if tool == cancel and arguments[world.fk("case")] != first:
                continue
            if tool == world.n.action("payment", "refund"):
                payment = world.by_id("payment", arguments[world.pk("payment")])
                if payment[world.fk("case")] != first:
                    continue
                back += payment["amount"]
            kept.append((tool, arguments))
        bad, good = judged(store, env_id, plan, task, kept, money(back))
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked


def test_an_agent_that_copies_the_items_instead_of_moving_them_scores_zero(proven):
    """The reference without the removal of the items from the old case: they are on both cases, and the task is
    incomplete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, SPLIT):
        kept = [(t, a) for t, a in built.calls if t != world.n.delete("line")]
        bad, good = judged(store, env_id, plan, task, kept, None)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked


def test_an_agent_that_swaps_the_item_on_one_case_only_scores_zero(proven):
    """The reads of the reference, then the item swapped on the first case holding it and left on the others:
    incomplete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, SWAP):
        cfk = world.fk("case")
        first = next(a[cfk] for t, a in built.calls if t == world.n.create("line"))
        kept = [(t, a) for t, a in built.calls
                if not (t == world.n.create("line") and a[cfk] != first)
                and not (t == world.n.delete("line") and world.by_id("line", a[world.pk("line")])[cfk] != first)]
        bad, good = judged(store, env_id, plan, task, kept, None)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked
