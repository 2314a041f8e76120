"""Questions whose answer is found only by reading several records and comparing them, as a person asks them in one
message: "which of our branches has the most orders still open right now, and how many?" (the agent lists the sites
and each site's cases and counts), "which of my open orders has the most left to pay, and how much?" (the agent reads
each of the person's open cases: its total and what was captured on it). Each is planned only where one answer is
right: the largest is strictly largest."""

from __future__ import annotations

from awm.builder.intents.base import BOTH, Plan, World, intent, or_words
from awm.builder.intents.errands import MAX_OWING
from awm.builder.intents.steps import balance_due, get_case
from awm.builder.phrasing import Say, money

TALLY_INTENTS = ("busiest_site_question", "largest_balance_question")
MAX_SITES = 6  # sites whose cases the agent lists one by one


def busiest_site(w: World) -> tuple[dict, int] | None:
    """The site holding strictly the most open cases, and how many, where there are two to `MAX_SITES` sites and it
    holds two or more."""
    sites = w.rows["site"]
    if not 2 <= len(sites) <= MAX_SITES:
        return None
    counts = {s["id"]: sum(c[w.fk("site")] == s["id"] and c["status"] in w.fl.open for c in w.rows["case"])
              for s in sites}
    ranked = sorted(counts.values(), reverse=True)
    if ranked[0] < 2 or ranked[0] == ranked[1]:
        return None
    return w.by_id("site", max(counts, key=counts.get)), ranked[0]


@intent("aggregate")
def busiest_site_question(w: World) -> Plan | None:
    """Which site holds the most open cases, and how many: the agent lists the sites, then each site's cases, and
    counts the open ones."""
    found = busiest_site(w)
    if found is None:
        return None
    site, most = found
    calls = [(w.n.list("site"), {"limit": 100}),
             *((w.n.list("case"), {w.fk("site"): s["id"], "limit": 100}) for s in w.rows["site"])]
    name = w.text_answer(site["name"], [s["name"] for s in w.rows["site"]])
    name.expect["type"] = "name"
    say = Say("ask", (
        "which of our {SITE/pl} has the most {CASE/pl} that are {open} right now, and how many does it have",
        "counting only {CASE/pl} that are {open}, which {SITE} is carrying the most of them at the moment, and how "
        "many is that",
        "at which {SITE} are the most {CASE/pl} still {open} right now, and how many are there",
        "across all our {SITE/pl}, [where|which one] [is the workload heaviest|has the biggest pile of "
        "{CASE/pl}] [counting|if you count] only {CASE/pl} that are {open}, and [what is the count|how many is "
        "that]",
        "[which|what] {SITE} [holds|has] the [largest|highest] number of {open} {CASE/pl} [today|at present], and "
        "[how many|what number] [does it hold|is it]",
        "[which|what] {SITE} [is busiest|has the heaviest load|is under the most pressure] [right now|today|at the "
        "moment] if you count only {CASE/pl} [that are|still] {open}, and [what is its count|how many does it have|how "
        "many are there]",
        "if [we|you] [line up|rank|compare] our {SITE/pl} by [how many|the number of] {CASE/pl} they [hold|have] that "
        "are {open}, [which one comes|which comes] [first|out on top], and with how many",
    ), {"open": or_words(w.fl.open)})
    return Plan(calls, [name, w.number_answer(most)], say, answer=f"{site['name']}, with {most}.",
                targets={("site", site["id"])})


def largest_balance_options(w: World) -> list[tuple[dict, list[dict], dict, float]]:
    """(party, their open cases by id, the one with strictly the most left to pay, what is left on it) wherever two
    to `MAX_OWING` of the person's cases are open, two or more of them owe 1.00 or more, and the largest balance
    exceeds every other by 1.00 or more."""
    options = []
    for party in w.active_parties("case"):
        open_cases = sorted((c for c in w.party_cases(party) if c["status"] in w.fl.open), key=lambda c: c["id"])
        owing = sorted(((balance_due(w, c), c["id"]) for c in open_cases), reverse=True)
        if not 2 <= len(open_cases) <= MAX_OWING or sum(d >= 1 for d, _ in owing) < 2:
            continue
        if owing[0][0] - owing[1][0] >= 1:
            options.append((party, open_cases, w.by_id("case", owing[0][1]), owing[0][0]))
    return options


@intent("aggregate")
def largest_balance_question(w: World) -> Plan | None:
    """Which of a person's open cases has the most left to pay, and how much: the agent lists their cases and reads
    each open one (its total and what was captured on it)."""
    option = w.pick(largest_balance_options(w))
    if option is None:
        return None
    party, open_cases, case, due = option
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in open_cases)]
    code = w.text_answer(case["code"], [c["code"] for c in w.party_cases(party)])
    say = Say("ask", (
        "which of {their} {CASE/pl} that are {open} has the most left to pay, and how much is still owed on it",
        "of {their} {open} {CASE/pl}, which one has the largest outstanding balance once what was already captured "
        "is taken off, and what is that balance",
        "on which {open} {CASE} do {they} owe the most right now, and how much is it",
    ), {"open": or_words(w.fl.open)}, party=ref, voices=BOTH)
    return Plan(calls, [code, w.money_answer(due)], say, answer=f"{case['code']}, with {money(due)} left to pay.",
                targets={("party", party["id"]), ("case", case["id"])})
