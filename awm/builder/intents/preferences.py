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

from awm.builder.intents.base import BOTH, Plan, World, intent
from awm.builder.intents.steps import PURCHASES, find_category, get_case, paid_at_once
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal

SELF = ("self",)  # what a customer wants for themself: asked in their own voice only
PREFERENCE_INTENTS = ("order_top_rated_under_budget", "order_dearest_within_budget", "order_cheapest_in_stock",
                      "book_earliest_slot_that_fits")
# chosen within one category: the best-rated of a named one; a past case repeated with the cheapest of its item's; the
# cheapest of a named one the person has never had
CATEGORY_INTENTS = ("order_top_rated_in_category", "repeat_latest_cheaper_alike", "order_cheapest_not_had_before")
MAX_HISTORY = 4  # cases of a person the agent reads one by one to learn what they have had


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


VERBS = {"goods": "order", "made_to_order": "order", "plan": "buy", "program": "apply for"}


def _verb(w: World) -> str:
    """What a customer does to get an item: orders goods and things made to order, buys a plan (a policy, a hosting
    plan, a subscription: no one "books" one), applies for a programme, books anything else (a cabin, a lesson, a
    repair)."""
    return VERBS.get(w.plan.scenario.item_kind, "book")


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


def _average_ratings(w: World) -> dict[int, Fraction]:
    """Each rated item's average rating, exactly."""
    ratings: dict[int, list[int]] = {}
    for review in w.rows["review"]:
        ratings.setdefault(review[w.fk("item")], []).append(review["rating"])
    return {i: Fraction(sum(r), len(r)) for i, r in ratings.items()}


def top_rated_options(w: World) -> list[tuple[float, dict, dict, dict]]:
    """(budget, the best-rated item under it, the runner-up under it, the best-rated item of all) for each budget at
    which the choice is unambiguous and the budget matters: at least two rated items cost less, one of them strictly
    best by average rating and still offered, and a dearer item rated better still."""
    average = _average_ratings(w)
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


@intent("chained", needs=("review",), item="chosen")
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


@intent("chained", item="chosen")
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


@intent("chained", needs=("stock_level",), item="chosen")
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


# --- the best-rated item of a named category ----------------------------------------------------------------


def _category_slots(w: World, category: dict, site: dict) -> dict:
    """The values a request that orders one item of a named category at a named site says."""
    return {"category": quote(category["name"]), "site": site["name"], "order": _verb(w), "one": _just_one(w)}


def _ordered_from_category(w: World, plan: Plan, item: dict) -> Plan:
    """A request that lists a category's items and orders one of them: the category and the item are learnt from
    the tools, and the new case is sometimes paid in the same message."""
    plan.derive(w.n.list("item"), w.fk("category")).derive(w.n.create("line"), w.fk("item"))
    return paid_at_once(w, plan, [(item, 1)])


def top_rated_in_category_options(w: World) -> list[tuple[dict, dict, dict, dict]]:
    """(category, its best-rated item, its runner-up, the best-rated item of all) for each category where two or
    more of its items are rated, one strictly best on average and still offered, and an item of another category is
    rated better still (an agent that ignores the category takes that one)."""
    average = _average_ratings(w)
    overall = _unique_best(average)
    if overall is None:
        return []
    cat = w.fk("category")
    options = []
    for category in w.rows["category"]:
        rated = {i["id"]: average[i["id"]] for i in w.rows["item"] if i[cat] == category["id"] and i["id"] in average}
        best = _unique_best(rated)
        if best is None or len(rated) < 2 or overall in rated or not w.by_id("item", best)["active"]:
            continue
        second = max((i for i in rated if i != best), key=rated.__getitem__)
        options.append((category, w.by_id("item", best), w.by_id("item", second), w.by_id("item", overall)))
    return options


@intent("chained", needs=("review", "category"), item="chosen")
def order_top_rated_in_category(w: World) -> Plan | None:
    """A customer wants the best-rated item of one category, ordered for them at a named site: the agent finds the
    category, lists its items and the reviews, averages each one's ratings and orders the best."""
    option, party, site = w.pick(top_rated_in_category_options(w)), w.pick(w.active_parties()), w.pick(w.rows["site"])
    if option is None or party is None or site is None:
        return None
    category, item, *_ = option
    ref = w.party_ref(party)
    order, goal = _new_order(w, party, site, item, 1)
    calls = [*find_category(w, category), (w.n.list("review"), {"limit": 100}), w.find_site(site), *order]
    say = Say("do", (
        "find the {ITEM} with the best average {REVIEW} rating in the {category} {CATEGORY} and {order} it for "
        "{them}, {one}, at {site}",
        "{they_are} after something from {category} || find whichever {ITEM} there has the highest average "
        "{REVIEW} rating and {order} it, {one}, at {site}",
        "look through the {ITEM/pl} in {category}, find the one rated best on average and open {a CASE} for {them} "
        "at {site} for it, {one}",
        "{they} only want the best of {category} || [place|open] {a CASE} for {them} at {site} for the {ITEM} of "
        "that {CATEGORY} with the [highest|best] average rating, {one}",
    ), _category_slots(w, category, site), party=ref, voices=SELF)
    return _ordered_from_category(w, Plan(calls, [goal], say, targets={("party", party["id"])}), item)


# --- the last case again, with the cheapest item of the same category ---------------------------------------


def cheaper_repeat_options(w: World) -> list[tuple[dict, dict, dict, dict, dict]]:
    """(party, their most recent case, its one line, the cheapest item still offered of that line's item's category,
    the cheapest item still offered of all) wherever the person's newest case is plain (no two made at the same
    moment) and holds one line, the cheapest of its category is unique, is not the item it held and has a runner-up,
    and the cheapest item of all is of another category (an agent that ignores the category takes that one)."""
    cat = w.fk("category")
    offered = [i for i in w.rows["item"] if i["active"]]
    cheapest = _unique_best({i["id"]: i["price"] for i in offered}, min)
    if cheapest is None:
        return []
    options = []
    for party in w.active_parties("case"):
        mine = w.newest_first(party)
        lines = w.children("line", "case", mine[0]["id"]) if mine else []
        if len(lines) != 1:
            continue
        had = w.by_id("item", lines[0][w.fk("item")])
        alike = {i["id"]: i["price"] for i in offered if i[cat] == had[cat]}
        new = _unique_best(alike, min)
        if new is None or new == had["id"] or len(alike) < 2 or w.by_id("item", cheapest)[cat] == had[cat]:
            continue
        options.append((party, mine[0], lines[0], w.by_id("item", new), w.by_id("item", cheapest)))
    return options


@intent("chained", flavours=PURCHASES, needs=("category",), item="chosen")
def repeat_latest_cheaper_alike(w: World) -> Plan | None:
    """A person wants their last case again, for less: the agent finds their newest case, reads the item on it and
    that item's category, lists the category's items, and opens a new case at the same site with the cheapest one
    still offered, in the same quantity. Never the same item again (it is not the cheapest), never the cheapest item
    of all (it is of another category)."""
    option = w.pick(cheaper_repeat_options(w))
    if option is None:
        return None
    party, latest, line, new, _ = option
    ref = w.party_ref(party)
    had = w.by_id("item", line[w.fk("item")])
    order, goal = _new_order(w, party, w.by_id("site", latest[w.fk("site")]), new, line["quantity"])
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), get_case(w, latest),
             (w.n.get("item"), {w.pk("item"): had["id"]}),
             (w.n.list("item"), {w.fk("category"): had[w.fk("category")], "limit": 100}), *order]
    say = Say("do", (
        "{they} would like {their} most recent {CASE} again, but for less || open a new {CASE} for {them} at the "
        "same {SITE} with the cheapest {ITEM} still offered in the same {CATEGORY} as the one on it{same}",
        "repeat {their} latest {CASE} at the same {SITE}{also}, but with the lowest-priced {ITEM} of the same "
        "{CATEGORY} that is still offered in place of the one {they} had",
        "[look up|find] {their} last {CASE} || [place|open] a new one for {them} at the same {SITE}{same}, of "
        "whichever {ITEM} in the same {CATEGORY} as the one on it is cheapest and still offered",
        "{they} want to repeat {their} last {CASE} on a tighter budget || keep the same {SITE}{short}, but take the "
        "cheapest {ITEM} still on offer from the same {CATEGORY} instead of the one {they} had",
    ), {"same": "" if w.one_each else ", in the same quantity",  # one of each: no quantity to keep
        "also": "" if w.one_each else " and in the same quantity", "short": "" if w.one_each else ", same quantity"},
        party=ref, voices=BOTH)
    plan = Plan(calls, [goal], say, targets={("party", party["id"])})
    plan.derive(w.n.get("item"), w.pk("item")).derive(w.n.list("item"), w.fk("category"))
    for tool, argument in ((w.n.create("case"), w.fk("site")), (w.n.create("line"), w.fk("item")),
                           (w.n.create("line"), "quantity")):
        plan.derive(tool, argument)
    return paid_at_once(w, plan, [(new, line["quantity"])])


# --- the cheapest item of a named category the person has never had ---------------------------------------------


def not_had_options(w: World) -> list[tuple[dict, list[dict], dict, dict]]:
    """(party, their cases, a category, the cheapest item still offered of it that is on none of their cases) for
    each active person with two to `MAX_HISTORY` cases and each category where the cheapest item still offered is
    one they have had (an agent that ignores their history takes it) and the cheapest of the others is unique."""
    cat = w.fk("category")
    offered = [i for i in w.rows["item"] if i["active"]]
    options = []
    for party in w.active_parties("case"):
        mine = sorted(w.party_cases(party), key=lambda c: c["id"])
        if not 2 <= len(mine) <= MAX_HISTORY:
            continue
        had = {x[w.fk("item")] for c in mine for x in w.children("line", "case", c["id"])}
        for category in w.rows["category"]:
            prices = {i["id"]: i["price"] for i in offered if i[cat] == category["id"]}
            cheapest = _unique_best(prices, min)
            new = _unique_best({i: p for i, p in prices.items() if i not in had}, min)
            if cheapest in had and new is not None:
                options.append((party, mine, category, w.by_id("item", new)))
    return options


@intent("chained", flavours=("fulfillment", "digital", "reservation"), needs=("category",), item="chosen")
def order_cheapest_not_had_before(w: World) -> Plan | None:
    """A person wants to try something new from a named category, as cheaply as possible: the agent finds them,
    reads each of their cases to learn what they have had, lists the category's items and orders the cheapest one
    still offered that is on none of their cases, at a named site. The cheapest of the category is one they have
    had, so an agent that skips their history orders it. Every case counts, whatever its status (the request says
    so: "past" would leave an open one in doubt). Of things bought or reserved: no one tries "something new"
    of a clinic's visits or a firm's services."""
    option, site = w.pick(not_had_options(w)), w.pick(w.rows["site"])
    if option is None or site is None:
        return None
    party, mine, category, item = option
    ref = w.party_ref(party)
    order, goal = _new_order(w, party, site, item, 1)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in mine),
             *find_category(w, category), w.find_site(site), *order]
    say = Say("do", (
        "{they} want to try something new from {category} || find the cheapest {ITEM} in that {CATEGORY} that is "
        "on none of {their} {CASE/pl} (whatever their status) and {order} it for {them}, {one}, at {site}",
        "find the lowest-priced {ITEM} in {category} that is not on any {CASE} of {theirs}, whatever its status, "
        "and {order} it for {them} at {site}, {one}",
        "[look through|go through] all of {their} {CASE/pl}, then {order} for {them}, at {site}, the cheapest {ITEM} "
        "from {category} that is on none of them, {one}",
    ), _category_slots(w, category, site), party=ref, voices=BOTH)
    return _ordered_from_category(w, Plan(calls, [goal], say, targets={("party", party["id"])}), item)
