"""Questions answered only by reading several records and comparing them (awm/builder/intents/tallies.py): the site
holding the most open cases and how many; the person's open case with the most left to pay and how much. Each is
planned in many worlds where the largest is strictly largest, reads every record it compares, is proven by the
verification stage in each voice it allows, and an answer a plausible wrong policy gives (the runner-up site, the
open cases of one status only, the case with the largest total rather than the largest balance) scores zero. A
person cutting back (cancel the open case owing the most, pay off the others) is held to the same: another case
cancelled, or the others left unpaid, scores zero. What a site or each of two colleagues took is the captured
payments case by case: a figure of the cases' totals, or of every payment (pending, failed, refunded), scores zero.
So is a site's best customer (the runner-up, or the winner by what was billed), what a person spent on one category
(every line added up, cancelled cases counted) and what a site holds of one category (its whole stock, or the
category's stock everywhere)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.intents import INTENTS, World
from awm.builder.intents.steps import balance_due, captured
from awm.builder.intents.tallies import (
    BEST_CUSTOMER,
    CATALOGUE_INTENTS,
    CUT_BACK,
    REFUND_QUESTION,
    TAKINGS_INTENTS,
    TALLY_INTENTS,
    best_customer_options,
    busiest_site,
    category_spend_options,
    category_stock_options,
    largest_balance_options,
    takings,
)
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    builtin_worlds,
    judged,
    planned_requests,
    prove_family,
    read_aloud,
    read_in_each_voice,
    wrong_runs,
)

SITE, BALANCE = TALLY_INTENTS
SITE_TAKINGS, STAFF_TAKINGS = TAKINGS_INTENTS
SPEND, STOCK = CATALOGUE_INTENTS
VOICES = {SITE: ("staff",), BALANCE: ("staff", "self"), SITE_TAKINGS: ("staff",), STAFF_TAKINGS: ("staff",),
          BEST_CUSTOMER: ("staff",), SPEND: ("staff", "self"), STOCK: ("staff",)}
PER_INTENT = 2



def test_the_questions_are_planned_in_many_worlds_and_read_every_record_they_compare():
    counted = Counter()
    for plan, rows in builtin_worlds(1, 2):
        for name in TALLY_INTENTS:
            world = World(plan, rows, random.Random(0))
            built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
            if built is None:
                continue
            counted[name] += 1
            assert built.say.voices == VOICES[name] and built.is_question
            if name == SITE:
                listed = {a[world.fk("site")] for t, a in built.calls if t == world.n.list("case")}
                assert listed == {s["id"] for s in rows["site"]}
            else:
                party = built.say.party.id
                read = {a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")}
                assert read == {c["id"] for c in rows["case"] if c[world.fk("party")] == party
                                and c["status"] in world.fl.open}
    assert counted[SITE] >= 80 and counted[BALANCE] >= 80, counted


def test_the_largest_is_strictly_largest():
    checked = Counter()
    for plan, rows in builtin_worlds(1):
        world = World(plan, rows, random.Random(0))
        found = busiest_site(world)
        if found is not None:
            site, most = found
            counts = Counter(c[world.fk("site")] for c in rows["case"] if c["status"] in world.fl.open)
            assert counts[site["id"]] == most and all(n < most for s, n in counts.items() if s != site["id"])
            checked[SITE] += 1
        for _party, open_cases, case, due in largest_balance_options(world):
            dues = {c["id"]: balance_due(world, c) for c in open_cases}
            assert dues[case["id"]] == due and all(due - d >= 1 for i, d in dues.items() if i != case["id"])
            checked[BALANCE] += 1
    assert checked[SITE] >= 40 and checked[BALANCE] >= 40, checked


def test_each_question_reads_as_one_persons_message_in_each_voice():
    seen = Counter()
    for plan, rows in builtin_worlds(3, 2):
        for name in (*TALLY_INTENTS, *TAKINGS_INTENTS):
            for seed in range(2):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None or (built.say.party and len(set(built.say.party.name.split())) == 1):
                    continue
                # what the agent must find; of the comparison, the amount (the request names both colleagues)
                hidden = ([f"{built.goals[-1].expect['value']:.2f}"] if name == STAFF_TAKINGS else
                          [str(g.expect["value"]) for g in built.goals if g.kind == "answer"])
                seen[name] += read_aloud(plan, built, VOICES[name], seed, hidden)
    assert seen[SITE] >= 30 and seen[BALANCE] >= 30 and seen[SITE_TAKINGS] >= 30 and seen[STAFF_TAKINGS] >= 10, seen


# the questions, the cut back and the refund question, proven together (one build of each world they are planned in)
PROVEN = (*TALLY_INTENTS, CUT_BACK, REFUND_QUESTION, *TAKINGS_INTENTS, BEST_CUSTOMER, *CATALOGUE_INTENTS)


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, PROVEN, "tallies", PER_INTENT)


def test_every_request_passes_every_proof_in_each_voice(proven):
    assert_proven_in_each_voice(proven[1], {**VOICES, CUT_BACK: ("staff", "self"), REFUND_QUESTION: ("staff", "self")})


def test_the_answers_of_wrong_policies_score_zero(proven):
    """The runner-up site with its count, and the busiest site's count of one open status only; the open case with
    the largest total (payments ignored) where it is another case, with its total: each incomplete, while the
    reference answer is complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, SITE):
        site, most = busiest_site(world)
        counts = Counter(c[world.fk("site")] for c in world.rows["case"] if c["status"] in world.fl.open)
        runner, second = next((s, n) for s, n in counts.most_common() if s != site["id"])
        one_status = sum(c[world.fk("site")] == site["id"] and c["status"] == world.fl.open[0]
                         for c in world.rows["case"])
        calls = list(built.calls)
        for answer in (f"{world.by_id('site', runner)['name']}, with {second}.", f"{site['name']}, with {one_status}."):
            if answer == task.reference_answer:
                continue
            bad, good = judged(store, env_id, plan, task, calls, answer)
            assert good["complete"] and not bad["complete"], (answer, bad, good)
            checked[SITE] += 1
    for store, env_id, plan, world, built, task in wrong_runs(proven, BALANCE):
        party = world.by_id("party", built.say.party.id)
        open_cases = [c for c in world.party_cases(party) if c["status"] in world.fl.open]
        dearest = max(open_cases, key=lambda c: c["total_amount"])
        if f"{dearest['code']}," in task.reference_answer:
            continue
        calls = list(built.calls)
        bad, good = judged(store, env_id, plan, task, calls, f"{dearest['code']}, with {dearest['total_amount']:.2f}.")
        assert good["complete"] and not bad["complete"], (bad, good)
        checked[BALANCE] += 1
    assert checked[SITE] >= 1, checked


# --- a person cutting back: the case owing the most cancelled, the others paid off ----------------------------------

def test_the_cut_back_reads_every_open_case_and_cancels_the_one_owing_the_most():
    planned = 0
    for name, _seed, world, built in planned_requests((CUT_BACK,), 2, 1):
        party = world.by_id("party", built.say.party.id)
        open_cases = [c for c in world.party_cases(party) if c["status"] in world.fl.open]
        dues = {c["id"]: balance_due(world, c) for c in open_cases}
        top = max(dues, key=dues.get)
        read = {a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")}
        cancelled = [a[world.fk("case")] for t, a in built.calls if t == world.n.action("case", world.fl.cancel.verb)]
        paid = {a[world.fk("case")]: a["amount"] for t, a in built.calls if t == world.n.create("payment")}
        assert read == set(dues) and cancelled == [top], (name, built.calls)
        assert paid == {i: d for i, d in dues.items() if i != top and d > 0}
        assert all(dues[top] - d >= 1 for i, d in dues.items() if i != top)
        assert built.shape == "conditional" and built.changes_either_way
        planned += 1
    assert planned >= 10, planned


def test_a_cut_back_of_another_case_or_without_the_payments_scores_zero(proven):
    """Cancelling another open case (the one with the largest total, or the first other that can be cancelled)
    with the same payments, and cancelling the right case without paying off the others: each incomplete, while the
    reference is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, CUT_BACK):
        cancel = world.n.action("case", world.fl.cancel.verb)
        top = next(a[world.fk("case")] for t, a in built.calls if t == cancel)
        party = world.by_id("party", built.say.party.id)
        others = [c for c in world.party_cases(party) if c["status"] in world.fl.cancel.sources and c["id"] != top]
        others.sort(key=lambda c: -c["total_amount"])
        wrong = [[c for c in built.calls if c[0] != world.n.create("payment")]]
        if others:
            wrong.append([(t, {**a, world.fk("case"): others[0]["id"]}) if t == cancel else (t, a)
                          for t, a in built.calls if t != world.n.action("payment", "refund")])
        for calls in wrong:
            bad, good = judged(store, env_id, plan, task, calls)
            assert good["complete"] and not bad["complete"], (calls, bad, good)
            checked += 1
    assert checked >= 2, checked


# --- what cancelling everything that still can be would bring back ---------------------------------------------------

def test_the_refund_question_reads_every_case_that_can_still_be_cancelled():
    planned = 0
    for name, _seed, world, built in planned_requests((REFUND_QUESTION,), 2, 1):
        party = world.by_id("party", built.say.party.id)
        can = {c["id"] for c in world.party_cases(party) if c["status"] in world.fl.cancel.sources}
        read = {a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")}
        paid = round(sum(p["amount"] for c in world.party_cases(party) if c["id"] in can for p in captured(world, c)), 2)
        everything = round(sum(p["amount"] for c in world.party_cases(party) for p in captured(world, c)), 2)
        assert read == can and built.is_question and built.goals[0].expect["value"] == paid, (name, built.calls)
        assert everything > paid  # what was paid on a case past cancelling is another figure
        planned += 1
    assert planned >= 10, planned


def test_a_refund_counted_over_every_case_scores_zero(proven):
    """Everything the person paid, and what was paid on their open cases (some past cancelling): each incomplete,
    while the reference answer is complete."""
    checked = 0
    for store, env_id, plan, world, built, task in wrong_runs(proven, REFUND_QUESTION):
        party = world.by_id("party", built.say.party.id)
        mine = world.party_cases(party)
        for cases in (mine, [c for c in mine if c["status"] in world.fl.open]):
            total = round(sum(p["amount"] for c in cases for p in captured(world, c)), 2)
            if f"{total:.2f}" == task.reference_answer:
                continue
            bad, good = judged(store, env_id, plan, task, list(built.calls), f"{total:.2f}")
            assert good["complete"] and not bad["complete"], (total, bad, good)
            checked += 1
    assert checked >= 2, checked


# --- what was taken: a site's cases in one status, two colleagues' cases ----------------------------------------------

def _score_zero(store, env_id, plan, task, built, answers: list[str]) -> int:
    """How many of `answers` (the reference's own skipped) were judged: each with the reference's calls is
    incomplete, while the reference answer is complete."""
    judged_wrong = 0
    for answer in answers:
        if answer == task.reference_answer:
            continue
        bad, good = judged(store, env_id, plan, task, list(built.calls), answer)
        assert good["complete"] and not bad["complete"], (answer, bad, good)
        judged_wrong += 1
    return judged_wrong


def _paid(world: World, built) -> list[int]:
    """The cases whose payments the request lists, in order."""
    return [a[world.fk("case")] for t, a in built.calls if t == world.n.list("payment")]


def test_the_takings_questions_read_every_case_s_payments_and_count_the_captured_ones():
    planned = Counter()
    for name, _seed, world, built in planned_requests(TAKINGS_INTENTS, 1, 1):
        assert built.is_question and built.say.voices == ("staff",), name
        read = _paid(world, built)
        assert len(read) == len(set(read)), built.calls
        if name == SITE_TAKINGS:
            listed = next(a for t, a in built.calls if t == world.n.list("case"))
            site, status = listed[world.fk("site")], listed["status"]
            cases = [c for c in world.rows["case"] if c[world.fk("site")] == site and c["status"] == status]
            assert sorted(read) == sorted(c["id"] for c in cases) and 3 <= len(cases) <= 6
            assert built.goals[0].expect["value"] == takings(world, cases)
        else:
            staff = [a[world.fk("staff")] for t, a in built.calls if t == world.n.list("case")]
            held = [[c for c in world.rows["case"] if c[world.fk("staff")] == s] for s in staff]
            assert sorted(read) == sorted(c["id"] for cases in held for c in cases)
            got = [takings(world, cases) for cases in held]
            winner = world.by_id("staff", staff[got.index(max(got))])
            assert abs(got[0] - got[1]) >= 1 and built.goals[1].expect["value"] == max(got)
            assert built.goals[0].expect["value"] == world.person(winner)
        planned[name] += 1
    assert planned[SITE_TAKINGS] >= 60 and planned[STAFF_TAKINGS] >= 15, planned


def test_takings_counted_from_totals_or_every_payment_score_zero(proven):
    """What was billed (the cases' totals added up) and every payment added up (pending, failed and refunded ones
    too); of the colleagues, the other one with their own captured figure: each incomplete, while the reference
    answer is complete."""
    checked = Counter()
    for name in TAKINGS_INTENTS:
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            cases = [world.by_id("case", i) for i in _paid(world, built)]
            billed = round(sum(c["total_amount"] for c in cases), 2)
            every = round(sum(p["amount"] for c in cases for p in world.children("payment", "case", c["id"])), 2)
            answers = [f"{billed:.2f}", f"{every:.2f}"]
            if name == STAFF_TAKINGS:
                winner = task.reference_answer.split(",")[0]
                staff = [world.by_id("staff", a[world.fk("staff")]) for t, a in built.calls
                         if t == world.n.list("case")]
                loser = next(s for s in staff if world.person(s) != winner)
                lost = [c for c in world.rows["case"] if c[world.fk("staff")] == loser["id"]]
                answers = [f"{winner}, with {billed:.2f}.", f"{world.person(loser)}, with {takings(world, lost):.2f}."]
            checked[name] += _score_zero(store, env_id, plan, task, built, answers)
    assert checked[SITE_TAKINGS] >= 2 and checked[STAFF_TAKINGS] >= 1, checked


# --- a site's best customer; what a person spent on one category; what a site holds of one --------------------------

def _sums(world: World, cases: list[dict], figure) -> Counter:
    sums = Counter()
    for case in cases:
        sums[case[world.fk("party")]] += figure(world, case)
    return sums


def _category_of(world: World, built) -> set[int]:
    """The items of the category the request lists."""
    category = next(a[world.fk("category")] for t, a in built.calls if t == world.n.list("item"))
    return {i["id"] for i in world.rows["item"] if i[world.fk("category")] == category}


def _lines_on(world: World, cases, items: set[int]) -> float:
    return round(sum(x["quantity"] * x["unit_price"] for c in cases for x in world.children("line", "case", c["id"])
                     if x[world.fk("item")] in items), 2)


def test_the_catalogue_questions_read_every_record_they_add_up():
    """The best customer: every case of the site has its payments listed, the winner strictly ahead by 1.00 and
    named by reading their record; a category's spend: every case of the person that was not cancelled read, the
    category's items listed; a category's stock: the site's stock levels listed. Each answer recomputed here."""
    planned = Counter()
    for name, _seed, world, built in planned_requests((BEST_CUSTOMER, *CATALOGUE_INTENTS), 1, 1):
        assert built.is_question and built.say.voices == VOICES[name], name
        if name == BEST_CUSTOMER:
            site = next(a[world.fk("site")] for t, a in built.calls if t == world.n.list("case"))
            cases = [c for c in world.rows["case"] if c[world.fk("site")] == site]
            listed = [a[world.fk("case")] for t, a in built.calls if t == world.n.list("payment")]
            assert sorted(listed) == sorted(c["id"] for c in cases) and 3 <= len(cases) <= 9
            got = _sums(world, cases, lambda w, c: takings(w, [c]))
            (winner, top), (_, second) = got.most_common(2)
            read = [a[world.pk("party")] for t, a in built.calls if t == world.n.get("party")]
            assert read == [winner] and top - second >= 1
            assert built.goals[0].expect["value"] == world.person(world.by_id("party", winner))
            assert built.goals[1].expect["value"] == round(top, 2)
        elif name == SPEND:
            party = built.say.party.id
            kept = [c for c in world.rows["case"] if c[world.fk("party")] == party
                    and c["status"] != world.fl.cancel.target]
            read = {a[world.pk("case")] for t, a in built.calls if t == world.n.get("case")}
            assert read == {c["id"] for c in kept} and 2 <= len(kept) <= 5
            items = _category_of(world, built)
            assert built.goals[0].expect["value"] == _lines_on(world, kept, items)
            assert _lines_on(world, kept, {i["id"] for i in world.rows["item"]}) - _lines_on(world, kept, items) >= 1
        else:
            site = next(a[world.fk("site")] for t, a in built.calls if t == world.n.list("stock_level"))
            items = _category_of(world, built)
            held = [s for s in world.rows["stock_level"]
                    if s[world.fk("site")] == site and s[world.fk("item")] in items]
            assert len(held) >= 2 and built.goals[0].expect["value"] == sum(s["quantity"] for s in held)
        planned[name] += 1
    assert planned[BEST_CUSTOMER] >= 30 and planned[SPEND] >= 60 and planned[STOCK] >= 10, planned


def test_the_options_are_told_apart_from_the_wrong_figures():
    """Of every option in the first two slots: the best customer is another person, or the same with another figure,
    when what was billed or every payment is added up; a category's spend is not every line's; a category's stock
    at the site is neither the site's whole stock nor the category's everywhere."""
    checked = Counter()
    for plan, rows in builtin_worlds(1, 2):
        world = World(plan, rows, random.Random(0))
        if not INTENTS[BEST_CUSTOMER].fits(world):
            continue
        for _site, cases, winner, got, _runner_up in best_customer_options(world):
            for figure in (lambda w, c: c["total_amount"],
                           lambda w, c: sum(p["amount"] for p in w.children("payment", "case", c["id"]))):
                other, amount = _sums(world, cases, figure).most_common(1)[0]
                assert (other, round(amount, 2)) != (winner["id"], got)
            checked[BEST_CUSTOMER] += 1
        if INTENTS[SPEND].fits(world):
            for _party, kept, category, spent in category_spend_options(world):
                items = {i["id"] for i in rows["item"] if i[world.fk("category")] == category["id"]}
                assert _lines_on(world, kept, items) == spent
                assert abs(_lines_on(world, kept, {i["id"] for i in rows["item"]}) - spent) >= 1
                checked[SPEND] += 1
        if INTENTS[STOCK].fits(world):
            for site, category, units in category_stock_options(world):
                items = {i["id"] for i in rows["item"] if i[world.fk("category")] == category["id"]}
                here = [s for s in rows["stock_level"] if s[world.fk("site")] == site["id"]]
                everywhere = [s for s in rows["stock_level"] if s[world.fk("item")] in items]
                assert units == sum(s["quantity"] for s in here if s[world.fk("item")] in items)
                assert len(here) > len([s for s in here if s[world.fk("item")] in items])
                assert len(everywhere) > len([s for s in here if s[world.fk("item")] in items])
                checked[STOCK] += 1
    assert checked[BEST_CUSTOMER] >= 50 and checked[SPEND] >= 100 and checked[STOCK] >= 20, checked


def test_the_catalogue_questions_read_as_one_persons_message_in_each_voice():
    seen = read_in_each_voice(planned_requests((BEST_CUSTOMER, *CATALOGUE_INTENTS), 3, 2, seeds=(0, 1)), VOICES,
                              lambda world, built: [str(g.expect["value"]) for g in built.goals])
    assert all(seen[name, voice] >= 5 for name in (BEST_CUSTOMER, *CATALOGUE_INTENTS) for voice in VOICES[name]), seen


def test_the_catalogue_answers_of_wrong_policies_score_zero(proven):
    """The runner-up customer with their figure, and the winner with what was billed; every line of the person's
    cases that were not cancelled, and the category's lines on every case of theirs (cancelled ones too, where that
    differs); the site's whole stock, and the category's stock at every site: each incomplete, while the reference
    answer is complete."""
    checked = Counter()
    for store, env_id, plan, world, built, task in wrong_runs(proven, BEST_CUSTOMER):
        site_id = next(a[world.fk("site")] for t, a in built.calls if t == world.n.list("case"))
        _, cases, winner, _, runner_up = next(o for o in best_customer_options(world) if o[0]["id"] == site_id)
        second = round(sum(takings(world, [c]) for c in cases if c[world.fk("party")] == runner_up["id"]), 2)
        billed = round(sum(c["total_amount"] for c in cases if c[world.fk("party")] == winner["id"]), 2)
        answers = [f"{world.person(runner_up)}, with {second:.2f}.", f"{world.person(winner)}, with {billed:.2f}."]
        checked[BEST_CUSTOMER] += _score_zero(store, env_id, plan, task, built, answers)
    for name in CATALOGUE_INTENTS:
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            items = _category_of(world, built)
            if name == SPEND:
                mine = [c for c in world.rows["case"] if c[world.fk("party")] == built.say.party.id]
                kept = [c for c in mine if c["status"] != world.fl.cancel.target]
                figures = [_lines_on(world, kept, {i["id"] for i in world.rows["item"]}), _lines_on(world, mine, items)]
                answers = [f"{f:.2f}" for f in figures]
            else:
                site = next(a[world.fk("site")] for t, a in built.calls if t == world.n.list("stock_level"))
                answers = [str(sum(s["quantity"] for s in world.rows["stock_level"] if s[world.fk("site")] == site)),
                           str(sum(s["quantity"] for s in world.rows["stock_level"] if s[world.fk("item")] in items))]
            checked[name] += _score_zero(store, env_id, plan, task, built, answers)
    assert checked[BEST_CUSTOMER] >= 1 and checked[SPEND] >= 1 and checked[STOCK] >= 1, checked
