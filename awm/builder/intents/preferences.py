"""Requests a customer sends in their own words with preferences and constraints: not "order item X" but "order the
best-rated one under 150.00", "the cheapest one the Riverside branch has five of", "the earliest open slot with
Dr Lee that starts in the afternoon". The agent must search and compare to find the one row that fits, then act
on it; the instruction states the criteria, never the answer. The earliest-slot booking is a clinic's only:
it is registered from awm/builder/categories/healthcare/requests.py, with the slot rules it compares.

Each request is planned only where the optimum is unique (no tie for best, cheapest or earliest), where the
constraint bites (the best, cheapest or earliest row ignoring it is another one, so an agent that ignores the
constraint gets it wrong) and where there is a runner-up that meets the constraint (so an agent that takes the
second-best gets it wrong too); every value compared is one the agent's list tools show."""

from __future__ import annotations

import math
from fractions import Fraction

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.steps import paid_at_once
from awm.builder.phrasing import Say, money
from awm.contracts import Goal

SELF = ("self",)  # what a customer wants for themself: asked in their own voice only
PREFERENCE_INTENTS = ("order_top_rated_under_budget", "order_dearest_within_budget", "order_cheapest_in_stock",
                      "book_earliest_slot_that_fits")


def _unique_best(scores: dict[int, object], best=max) -> int | None:
    """The one key whose score is strictly best (`max` or `min`), or None when two share it."""
    if not scores:
        return None
    top = best(scores.values())
    winners = [k for k, v in scores.items() if v == top]
    return winners[0] if len(winners) == 1 else None


def _round_between(low: float, high: float) -> float | None:
    """The roundest amount strictly between two prices (a budget a person would state), or None."""
    for step in (1000, 500, 100, 50, 25, 10, 5, 1, 0.5, 0.25, 0.1):  # 'under 4.50' before 'under 4.67'
        value = round(math.floor(low / step + 1) * step, 2)
        if low < value < high:
            return float(value)
    middle = round((low + high) / 2, 2)
    return middle if low < middle < high else None


def _verb(w: World) -> str:
    """What a customer does to get an item: orders goods and things made to order, books anything else (a cabin, a
    lesson, a repair)."""
    return "order" if w.plan.scenario.item_kind in ("goods", "made_to_order") else "book"


def _just_one(w: World) -> str:
    """How a request that orders one of the item it picks says so: "quantity 1", or "just the one" where a case
    holds one of each (a legal service is not booked "quantity 1")."""
    return "just the one" if w.one_each else "quantity 1"


def _new_order(w: World, party: dict, site: dict, item: dict, quantity: int
               ) -> tuple[list[tuple[str, dict]], Goal]:
    """The calls that open a new case for `party` at `site` with `quantity` of `item`, and the goal that checks it."""
    new_id = len(w.rows["case"]) + 1
    cfk = w.fk("case")
    calls = [(w.n.create("case"), {w.fk("party"): party["id"], w.fk("site"): site["id"]}),
             (w.n.create("line"), {cfk: new_id, w.fk("item"): item["id"], "quantity": quantity})]
    goal = Goal(kind="rows_created", table=w.table("case"), count=1,
                expect={w.fk("party"): party["id"], w.fk("site"): site["id"]}, child_table=w.table("line"),
                child_fk=cfk, children=[{w.fk("item"): item["id"], "quantity": quantity}])
    return calls, goal


# --- the best-rated item under a budget -------------------------------------------------------------------


def top_rated_options(w: World) -> list[tuple[float, dict, dict, dict]]:
    """(budget, the best-rated item under it, the runner-up under it, the best-rated item of all) for each budget at
    which the choice is unambiguous and the budget matters: at least two rated items cost less, one of them strictly
    best by average rating and still offered, and a dearer item rated better still."""
    ratings: dict[int, list[int]] = {}
    for review in w.rows["review"]:
        ratings.setdefault(review[w.fk("item")], []).append(review["rating"])
    average = {i: Fraction(sum(r), len(r)) for i, r in ratings.items()}
    overall = _unique_best(average)
    items = sorted(w.rows["item"], key=lambda i: i["price"])
    options = []
    for k in range(1, len(items)):
        budget = _round_between(items[k - 1]["price"], items[k]["price"])
        under = {i["id"]: average[i["id"]] for i in items[:k] if i["id"] in average}
        best = _unique_best(under)
        if budget is None or best is None or len(under) < 2 or overall is None or overall in under:
            continue
        if w.by_id("item", best)["active"]:
            second = max((i for i in under if i != best), key=under.__getitem__)
            options.append((budget, w.by_id("item", best), w.by_id("item", second), w.by_id("item", overall)))
    return options


@intent("chained", needs=("review",), item="priced")
def order_top_rated_under_budget(w: World) -> Plan | None:
    """A customer wants the best-rated item that costs less than their budget, ordered for them at a named site: the
    agent lists the items and their reviews, averages the ratings of those under the budget and orders the best."""
    option, party, site = w.pick(top_rated_options(w)), w.pick(w.active_parties()), w.pick(w.rows["site"])
    if option is None or party is None or site is None:
        return None
    budget, item, *_ = option
    ref = w.party_ref(party)
    order, goal = _new_order(w, party, site, item, 1)
    calls = [(w.n.list("item"), {"limit": 100}), (w.n.list("review"), {"limit": 100}), w.find_site(site), *order]
    say = Say("do", (
        "{order} the {ITEM} with the best average {REVIEW} rating among those priced under {budget}, {one}, at "
        "{site}",
        "{they_are} looking for {a ITEM} under {budget} || {order} the one with the highest average {REVIEW} "
        "rating in that price range for {them}, {one}, at {site}",
        "find the best-rated {ITEM} that costs less than {budget} (by average {REVIEW} rating) and open {a CASE} "
        "for {them} at {site} for it, {one}",
        "{they} want to spend less than {budget} || place {a CASE} for {them} at {site} for whichever {ITEM} in "
        "that price range has the highest average rating, {one}",
    ), {"budget": money(budget), "site": site["name"], "order": _verb(w), "one": _just_one(w)}, party=ref,
        voices=SELF)
    plan = Plan(calls, [goal], say, targets={("party", party["id"])})
    return paid_at_once(w, plan.derive(w.n.create("line"), w.fk("item")), [(item, 1)])


# --- the best one a budget buys ---------------------------------------------------------------------------------


def within_budget_options(w: World) -> list[tuple[int, float, dict, dict, dict]]:
    """(quantity, budget for them all, the dearest item that many of fit in it, the runner-up, the dearest item of
    all) for each budget between two items' totals at which the dearest affordable item is unique and offered,
    a cheaper one fits too and the dearest item of all does not."""
    items = sorted(w.rows["item"], key=lambda i: i["price"])
    dearest = _unique_best({i["id"]: i["price"] for i in items})
    options = []
    for quantity in (1,) if w.one_each else (1, 2, 3):  # several of one service or programme: never
        for k in range(2, len(items)):
            below, above = items[k - 1], items[k]
            budget = _round_between(quantity * below["price"], quantity * above["price"])
            if (budget is None or dearest is None or below["price"] == items[k - 2]["price"]
                    or not below["active"] or dearest == below["id"]):
                continue
            options.append((quantity, budget, below, items[k - 2], w.by_id("item", dearest)))
    return options


@intent("chained", item="priced")
def order_dearest_within_budget(w: World) -> Plan | None:
    """A customer wants the best they can afford: several of the same item, the dearest one whose total stays within
    their budget. The agent lists the prices, works out which totals fit, and orders the dearest that does."""
    option, party, site = w.pick(within_budget_options(w)), w.pick(w.active_parties()), w.pick(w.rows["site"])
    if option is None or party is None or site is None:
        return None
    quantity, budget, item, *_ = option
    ref = w.party_ref(party)
    order, goal = _new_order(w, party, site, item, quantity)
    calls = [(w.n.list("item"), {"limit": 100}), w.find_site(site), *order]
    clauses = ((
        "{they} can spend up to {budget} || {order} the most expensive {ITEM} that fits that budget for {them}, "
        "{one}, at {site}",
        "{order} the priciest {ITEM} that costs no more than {budget}, {one}, at {site}",
        "{they} have {budget} to spend || {order} the dearest {ITEM} {they} can afford with it, {one}, at {site}",
    ) if quantity == 1 else (
        "{they} can spend up to {budget} in total || {order} {n} of the same {ITEM} for {them} at {site}: the most "
        "expensive one whose {n} together fit that budget",
        "{order} {n} of the priciest {ITEM} for which {n} cost no more than {budget} altogether, at {site}",
        "{they} have {budget} to spend on {n} of the same {ITEM} || {order} {n} of the dearest one {they} can "
        "afford, at {site}",
    ))
    say = Say("do", clauses,
              {"budget": money(budget), "site": site["name"], "n": quantity, "order": _verb(w), "one": _just_one(w)},
              party=ref, voices=SELF)
    plan = Plan(calls, [goal], say, targets={("party", party["id"])})
    return paid_at_once(w, plan.derive(w.n.create("line"), w.fk("item")), [(item, quantity)])


# --- the cheapest item a site has enough of ------------------------------------------------------------------


def cheapest_in_stock_options(w: World) -> list[tuple[dict, int, dict, dict, dict]]:
    """(site, quantity, the cheapest item the site holds at least that many of, the runner-up, the cheapest item of
    all) wherever that cheapest is unique and offered, another item also qualifies (a runner-up) and the cheapest item
    of all falls short at that site."""
    items = w.rows["item"]
    cheapest = _unique_best({i["id"]: i["price"] for i in items}, min)
    if cheapest is None:
        return []
    options = []
    for site in w.rows["site"]:
        held = {s[w.fk("item")]: s["quantity"] for s in w.rows["stock_level"] if s[w.fk("site")] == site["id"]}
        short = held.get(cheapest, 0)
        for quantity in range(max(2, short + 1), min(short + 6, 12)):
            enough = {i["id"]: i["price"] for i in items if held.get(i["id"], 0) >= quantity}
            best = _unique_best(enough, min)
            if best is not None and len(enough) >= 2 and w.by_id("item", best)["active"]:
                second = min((i for i in enough if i != best), key=enough.__getitem__)
                options.append((site, quantity, *(w.by_id("item", i) for i in (best, second, cheapest))))
    return options


@intent("chained", needs=("stock_level",), item="priced")
def order_cheapest_in_stock(w: World) -> Plan | None:
    """A customer wants several of the cheapest item one site can supply in that number: the agent reads the site's
    stock and the prices, and orders the cheapest item held in at least that quantity there."""
    option, party = w.pick(cheapest_in_stock_options(w)), w.pick(w.active_parties())
    if option is None or party is None:
        return None
    site, quantity, item, *_ = option
    ref = w.party_ref(party)
    order, goal = _new_order(w, party, site, item, quantity)
    calls = [w.find_site(site), (w.n.list("stock_level"), {w.fk("site"): site["id"], "limit": 100}),
             (w.n.list("item"), {"limit": 100}), *order]
    say = Say("do", (
        "{order} {n} of the cheapest {ITEM} that {site} has at least {n} of in stock, with the {CASE} placed at {site}",
        "{they} need {n} of the same {ITEM} from {site} || {order} the lowest-priced one that {site} has {n} or more of "
        "on hand",
        "[place|open] {a CASE} for {them} at {site}: {n} units of the cheapest {ITEM} that {site} can supply {n} "
        "of right now",
        "{they} don't mind which {ITEM}, as long as it is the cheapest one {site} has {n} of in stock || {order} {n} of "
        "it for {them} there",
    ), {"n": quantity, "site": site["name"], "order": _verb(w)}, party=ref, voices=SELF)
    plan = Plan(calls, [goal], say, targets={("party", party["id"])})
    return paid_at_once(w, plan.derive(w.n.create("line"), w.fk("item")), [(item, quantity)])
