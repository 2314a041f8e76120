"""Requests whose one goal spans several records (awm/builder/intents/standing.py): a person moving to another city
(their city, a home address there, every case that can still change moved to the site in that city); a
disappointing purchase returned, refunded and reviewed; a case cancelled in a complaint, refunded, and a ticket
logged; an item a site can no longer offer, every case there that holds it and can still be cancelled cancelled,
refunded and its person told; a site closing for a while, every case there that can still change moved to another
site, noted and its person told; a member of staff going on leave, every case of theirs still open handed to the
colleague at their site holding the fewest, each noted. Each is planned in many worlds, deep, written in every voice
it allows without naming what the agent must find (a person's own requests with only writes a person may ask for
about their own record), is proven by the verification stage in each voice, and an agent following a plausible wrong
policy (only the newest case moved, the review left on another item, the complaint logged without the refund, every
open case of the site cancelled or every open case holding the item anywhere, a closing site's cases moved to
another site than the one named, a leaver's cases handed to a colleague other than the least busy) scores zero."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.intents import World
from awm.builder.intents.standing import (
    STANDING_INTENTS,
    closing_options,
    handover_options,
    move_options,
    return_review_options,
    withdraw_options,
)
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    drawn_requests,
    judged,
    planned_requests,
    prove_family,
    read_in_each_voice,
    world_and_plan,
    wrong_runs,
)
from tests.lanes import sample_or_whole

MOVE, RETURN, COMPLAINT, WITHDRAW, CLOSING, HANDOVER = STANDING_INTENTS
VOICES = {MOVE: ("staff", "self"), RETURN: ("staff", "self"), COMPLAINT: ("staff", "self"), WITHDRAW: ("staff",),
          CLOSING: ("staff",), HANDOVER: ("staff",)}
PER_INTENT = 2  # worlds each request is proven in (fast lane: 1)
DEPTH = {MOVE: (6, 5), RETURN: (6, 6), COMPLAINT: (6, 6), WITHDRAW: (6, 5), CLOSING: (7, 4), HANDOVER: (8, 4)}  # (steps, distinct tools) each request takes at least



def _own_writes(w: World) -> set[str]:
    """The writes a person may ask for about their own record: their details and addresses, moving, cancelling
    and returning their cases, refunds of their payments, their reviews and tickets, the confirming message (and the
    note staff leave on each case they move or hand over, and the handing over)."""
    writes = {w.n.change("party", "update", "contact"), w.n.action("case", "transfer"), w.n.create("note"),
              w.n.action("case", "assign"),
              w.n.action("case", w.fl.cancel.verb), w.n.action("payment", "refund")}
    for role in ("address", "review", "ticket", "notification"):
        if w.has(role):
            writes.add(w.n.create(role))
    if any(a.verb == "return" for a in w.fl.actions):
        writes.add(w.n.action("case", "return"))
    return writes


def test_the_requests_are_planned_in_many_worlds_each_deep_and_with_the_persons_own_writes():
    counted, steps = Counter(), Counter()
    for name, _, world, built in planned_requests(STANDING_INTENTS, 1, 2):
        counted[name] += 1
        tools = [tool for tool, _ in built.calls]
        least, distinct = DEPTH[name]
        assert len(tools) >= least and len(set(tools)) >= distinct, (name, tools)
        writes = {t for t in tools if not t.startswith(("get_", "list_", "search_"))}
        assert writes <= _own_writes(world), (name, writes - _own_writes(world))
        assert built.say.voices == VOICES[name] and built.derived
        steps[name] += len(tools)
    assert counted[MOVE] >= 100 and counted[WITHDRAW] >= 100 and counted[CLOSING] >= 60 and counted[COMPLAINT] >= 30 \
        and counted[HANDOVER] >= 30 and counted[RETURN] >= 5, counted
    assert steps[MOVE] / counted[MOVE] >= 7 and steps[WITHDRAW] / counted[WITHDRAW] >= 8, (steps, counted)


def test_every_case_of_the_person_that_can_still_change_is_moved_and_no_other():
    """The site is in a city the person does not live in and no other site's name holds it; the cases moved are
    exactly the person's cases that can still change and are at another site (two or more); the request sets the
    city, and a home address in it where the world keeps addresses."""
    checked = 0
    for plan, rows in builtin_worlds(3):
        world = World(plan, rows, random.Random(0))
        sfk = world.fk("site")
        for party, site, moving in move_options(world):
            assert site["city"] != party["city"]
            assert [s["id"] for s in rows["site"] if site["city"] in s["name"]] == [site["id"]]
            assert [c["id"] for c in moving] == sorted(
                c["id"] for c in world.party_cases(party)
                if c["status"] in world.fl.editable and c[sfk] != site["id"]) and len(moving) >= 2
            checked += 1
        world, built = world_and_plan(MOVE, plan, rows, 0)
        if built is None:
            continue
        moved = [a for t, a in built.calls if t == world.n.action("case", "transfer")]
        party = world.by_id("case", moved[0][world.fk("case")])[world.fk("party")]
        updated = next(a for t, a in built.calls if t == world.n.change("party", "update", "contact"))
        assert {a[sfk] for a in moved} == {next(s["id"] for s in rows["site"] if s["city"] == updated["city"])}
        assert all(world.by_id("case", a[world.fk("case")])[world.fk("party")] == party for a in moved)
        addresses = [a for t, a in built.calls if world.has("address") and t == world.n.create("address")]
        assert [(a["city"], a["is_primary"]) for a in addresses] == ([(updated["city"], True)]
                                                                      if world.has("address") else [])
    assert checked >= 100, checked


def test_the_case_returned_was_delivered_in_the_window_and_holds_the_item_reviewed():
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world, built = world_and_plan(RETURN, plan, rows, 0)
        if built is None:
            continue
        back = next(a for a in world.fl.actions if a.verb == "return")
        for case, item in return_review_options(world):
            assert case["status"] in back.sources and any(
                p["status"] == "captured" for p in world.children("payment", "case", case["id"]))
            assert item["id"] in {x[world.fk("item")] for x in world.children("line", "case", case["id"])}
            checked += 1
        returned = next(a[world.fk("case")] for t, a in built.calls if t == world.n.action("case", "return"))
        review = next(a for t, a in built.calls if t == world.n.create("review"))
        assert review["rating"] <= 2 and (world.by_id("case", returned), world.by_id(
            "item", review[world.fk("item")])) in return_review_options(world)
        refunded = {a[world.pk("payment")] for t, a in built.calls if t == world.n.action("payment", "refund")}
        assert refunded == {p["id"] for p in world.children("payment", "case", returned) if p["status"] == "captured"}
    assert checked >= 5, checked


def test_the_cases_cancelled_are_every_case_of_the_site_that_holds_the_item_and_can_still_be_cancelled():
    """Exactly the cases at the site that hold the item and can still be cancelled, two or three, of distinct active
    people; another case holds the item elsewhere or can no longer be cancelled; each is refunded what was captured
    on it and its person told (where the business sends messages)."""
    checked = 0
    for plan, rows in builtin_worlds(2):
        world, built = world_and_plan(WITHDRAW, plan, rows, 0)
        if built is None:
            continue
        sfk, cancel = world.fk("site"), world.fl.cancel
        for item, site, cancelling in withdraw_options(world):
            holding = [c for c in rows["case"] if item["id"] in {x[world.fk("item")] for x in world.children(
                "line", "case", c["id"])}]
            assert cancelling == sorted((c for c in holding if c[sfk] == site["id"] and c["status"] in cancel.sources),
                                        key=lambda c: c["id"])
            assert 2 <= len(cancelling) <= 3 and len(holding) > len(cancelling)
            assert len({c[world.fk("party")] for c in cancelling}) == len(cancelling)
            checked += 1
        cancelled = [a[world.fk("case")] for t, a in built.calls if t == world.n.action("case", cancel.verb)]
        refunded = {a[world.pk("payment")] for t, a in built.calls if t == world.n.action("payment", "refund")}
        assert refunded == {p["id"] for c in cancelled for p in world.children("payment", "case", c)
                            if p["status"] == "captured"}
        told = [a[world.fk("party")] for t, a in built.calls if world.has("notification")
                and t == world.n.create("notification")]
        assert told == ([world.by_id("case", c)[world.fk("party")] for c in cancelled]
                        if world.has("notification") else [])
    assert checked >= 100, checked


def test_a_closing_site_moves_exactly_its_cases_that_can_still_change():
    """Every case at the closing site that can still change, two or three, of distinct active people, and none of its
    others, moved to the other site named, each noted and its person told (where the business sends messages)."""
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world, built = world_and_plan(CLOSING, plan, rows, 0)
        if built is None:
            continue
        sfk = world.fk("site")
        for site, moving in closing_options(world):
            there = [c for c in rows["case"] if c[sfk] == site["id"]]
            assert moving == sorted((c for c in there if c["status"] in world.fl.editable), key=lambda c: c["id"])
            assert 2 <= len(moving) <= 3 and len(there) > len(moving)
            checked += 1
        moved = [a for t, a in built.calls if t == world.n.action("case", "transfer")]
        noted = [a[world.fk("case")] for t, a in built.calls if t == world.n.create("note")]
        assert noted == [a[world.fk("case")] for a in moved] and len({a[sfk] for a in moved}) == 1
        assert moved[0][sfk] != world.by_id("case", moved[0][world.fk("case")])[sfk]
    assert checked >= 60, checked


def _open_load(world: World, staff_id: int) -> int:
    return sum(c[world.fk("staff")] == staff_id and c["status"] in world.fl.open for c in world.rows["case"])


def test_a_leavers_open_cases_go_to_the_strictly_least_busy_colleague_at_their_site():
    checked = 0
    for plan, rows in builtin_worlds(1, 2):
        world, built = world_and_plan(HANDOVER, plan, rows, 0)
        if built is None:
            continue
        sfk = world.fk("site")
        for member, held, heir in handover_options(world):
            colleagues = [s for s in rows["staff"] if s["active"] and s[sfk] == member[sfk] and s["id"] != member["id"]]
            assert heir in colleagues and all(_open_load(world, s["id"]) > _open_load(world, heir["id"])
                                              for s in colleagues if s is not heir)
            assert _open_load(world, heir["id"]) < len(held) == _open_load(world, member["id"]) and 2 <= len(held) <= 3
            checked += 1
        assigned = {a[world.fk("staff")] for t, a in built.calls if t == world.n.action("case", "assign")}
        assert len(assigned) == 1
    assert checked >= 30, checked


def _hidden(world: World, built) -> list[str]:
    """What the agent must find and the instruction must not give away: the codes of the cases moved, the site's
    name where it is more than its city."""
    hidden = []
    for tool, args in built.calls:
        if tool in (world.n.action("case", "transfer"), world.n.action("case", world.fl.cancel.verb)) and \
                built.intent in (MOVE, WITHDRAW, CLOSING):
            hidden.append(world.by_id("case", args[world.fk("case")])["code"])
        if tool == world.n.action("case", "assign"):
            hidden.append(world.person(world.by_id("staff", args[world.fk("staff")])))
            hidden.append(world.by_id("case", args[world.fk("case")])["code"])
    return hidden


def test_each_request_reads_as_one_persons_message_in_each_voice():
    seen = read_in_each_voice(planned_requests(STANDING_INTENTS, 2, 2, range(3)), VOICES, _hidden)
    assert all(seen[name, voice] >= (12 if name != RETURN else 3) for name in STANDING_INTENTS
               for voice in VOICES[name]), seen


@pytest.mark.parametrize("lane", sample_or_whole((8, 1), (1, 2)))
def test_task_sets_draw_the_requests(lane):
    """Drawn deep; over the whole lane, each request planned in a tenth of the worlds or more is drawn at least once
    (the return with a review plans in a few: the fulfillment worlds that keep reviews, 12 of 210)."""
    step, slots = lane
    drawn, plans = Counter(), Counter()
    worlds = list(builtin_worlds(step, slots))
    for plan, rows in worlds:
        plans.update(name for name in STANDING_INTENTS if world_and_plan(name, plan, rows)[1] is not None)
    for name, task in drawn_requests(STANDING_INTENTS, worlds):
        drawn[name] += 1
        assert len(task.reference_solution) >= 6
    often = [name for name in STANDING_INTENTS if plans[name] >= len(worlds) / 10]
    assert (all(drawn[name] >= 1 for name in often) and len(often) >= 5 and sum(drawn.values()) >= 30) if slots > 1 else \
        sum(drawn.values()) >= 2, (drawn, plans)


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, STANDING_INTENTS, "standing", PER_INTENT)


def test_every_request_passes_every_proof_in_each_voice(proven):
    assert_proven_in_each_voice(proven[1], VOICES)


def test_an_agent_that_moves_only_the_newest_case_scores_zero(proven):
    """The reference without the moves of every case but the newest: incomplete, while the reference is
    complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, MOVE):
        transfer = world.n.action("case", "transfer")
        moved = [a[world.fk("case")] for t, a in built.calls if t == transfer]
        newest = max(moved, key=lambda i: world.by_id("case", i)["created_at"])
        wrong = [(t, a) for t, a in built.calls if t != transfer or a[world.fk("case")] == newest]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 2, checked


def test_an_agent_that_reviews_another_item_or_skips_the_refund_scores_zero(proven):
    """The return's review left on another item of the catalogue, and the complaint logged and the case cancelled
    without the refund: each incomplete, while the reference is complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, RETURN):
        review = world.n.create("review")
        reviewed = next(a[world.fk("item")] for t, a in built.calls if t == review)
        other = next(i["id"] for i in world.rows["item"] if i["id"] != reviewed)
        wrong = [(t, {**a, world.fk("item"): other} if t == review else a) for t, a in built.calls]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[RETURN] += 1
    for store, env_id, plan, world, built, task in wrong_runs(proven, COMPLAINT):
        wrong = [(t, a) for t, a in built.calls if t != world.n.action("payment", "refund")]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[COMPLAINT] += 1
    assert checked[RETURN] >= 2 and checked[COMPLAINT] >= 2, checked


def test_an_agent_that_cancels_by_site_alone_or_by_item_alone_scores_zero(proven):
    """Every case of the site that can still be cancelled cancelled (whether it holds the item or not), and every
    case holding the item that can still be cancelled (whatever its site), each with its captured payments refunded
    and its person told: incomplete wherever that cancels a case the reference does not, while the reference is
    complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, WITHDRAW):
        cfk, cancel = world.fk("case"), world.fl.cancel
        verb = world.n.action("case", cancel.verb)
        chosen = [a[cfk] for t, a in built.calls if t == verb]
        item = next(i for i in world.rows["item"] if f"'{i['name']}'" == built.say.slots["item"])
        site = next(s["id"] for s in world.rows["site"] if s["name"] == built.say.slots["site"])
        by_site = [c for c in world.rows["case"] if c[world.fk("site")] == site and c["status"] in cancel.sources]
        by_item = [c for c in world.rows["case"] if c["status"] in cancel.sources and any(
            x[world.fk("item")] == item["id"] for x in world.children("line", "case", c["id"]))]
        reason = next((a["reason"] for t, a in built.calls if t == world.n.action("payment", "refund")), "x")
        message = next((a for t, a in built.calls if world.has("notification")
                        and t == world.n.create("notification")), None)
        reads = [(t, a) for t, a in built.calls if t.startswith(("get_", "list_", "search_"))]
        for policy, cases in (("site", by_site), ("item", by_item)):
            if {c["id"] for c in cases} == set(chosen):
                continue
            wrong = list(reads)
            for case in cases:
                wrong.append((verb, {cfk: case["id"]}))
                wrong += [(world.n.action("payment", "refund"), {world.pk("payment"): p["id"], "reason": reason})
                          for p in world.children("payment", "case", case["id"]) if p["status"] == "captured"]
                if message is not None:
                    wrong.append((world.n.create("notification"), {**message, world.fk("party"): case[world.fk("party")]}))
            bad, good = judged(store, env_id, plan, task, wrong)
            assert good["complete"] and not bad["complete"], (policy, bad, good)
            checked[policy] += 1
    assert sum(checked.values()) >= 2, checked



def test_an_agent_that_moves_a_closing_sites_cases_to_another_site_scores_zero(proven):
    """The reference with every case moved to another site than the one the request names: incomplete, while the
    reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, CLOSING):
        sfk, transfer = world.fk("site"), world.n.action("case", "transfer")
        named = next(a[sfk] for t, a in built.calls if t == transfer)
        closing = world.by_id("case", next(a[world.fk("case")] for t, a in built.calls if t == transfer))[sfk]
        wrong_site = next(s["id"] for s in world.rows["site"] if s["id"] not in (named, closing))
        wrong = [(t, {**a, sfk: wrong_site} if t == transfer else a) for t, a in built.calls]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 1, checked


def test_an_agent_that_hands_a_leavers_cases_to_another_colleague_scores_zero(proven):
    """The reference with every case handed to another active colleague at the site than the least busy one:
    incomplete, while the reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, HANDOVER):
        stfk, assign = world.fk("staff"), world.n.action("case", "assign")
        heir = world.by_id("staff", next(a[stfk] for t, a in built.calls if t == assign))
        leaver = world.by_id("case", next(a[world.fk("case")] for t, a in built.calls if t == assign))[stfk]
        other = next(s["id"] for s in world.rows["staff"] if s["active"] and s["id"] not in (heir["id"], leaver)
                     and s[world.fk("site")] == heir[world.fk("site")])
        wrong = [(t, {**a, stfk: other} if t == assign else a) for t, a in built.calls]
        bad, good = judged(store, env_id, plan, task, wrong)
        assert good["complete"] and not bad["complete"], (bad, good)
        checked += 1
    assert checked >= 1, checked
