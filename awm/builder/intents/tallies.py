"""Questions whose answer is found only by reading several records and comparing them, as a person asks them in one
message: "which of our branches has the most orders still open right now, and how many?" (the agent lists the sites
and each site's cases and counts), "which of my open orders has the most left to pay, and how much?" (the agent reads
each of the person's open cases: its total and what was captured on it). Each is planned only where one answer is
right: the largest is strictly largest. A person cutting back acts on the second comparison: "cancel whichever of
my open orders owes the most and pay off the rest" (the agent reads each, cancels that one, pays the others). A
person weighing a cancellation asks "if I cancelled every order I still can, how much would I get back?" (the agent
reads each case that can still be cancelled and adds up what was captured on them, not on those past it). Staff ask
what money actually came in: "how much did our Leeview branch take on its delivered orders, captured payments only?"
(the agent lists the site's cases in that status and each one's payments, and adds up the captured ones), "between
Ruth Nelson and Jeffrey Mendez, whose orders brought in more, and how much?" (the same, for each one's cases), "who
is our best customer at the Leeview branch, by money actually taken?" (the same, for each of the site's cases,
summed person by person, then the winner's name). Questions that cross the catalogue: "how much have I spent on
'Garden Tools', leaving out cancelled orders?" (the agent finds the category and its items, then reads each of the
person's cases and adds up the lines of those items), "how many units of 'Garden Tools' does the Leeview branch
hold?" (the category's items, then the site's stock levels of them)."""

from __future__ import annotations

from awm.builder.intents.base import BOTH, CASES_READ, STAFF_ONLY, Plan, World, intent, or_words, status_words
from awm.builder.intents.errands import MAX_OWING
from awm.builder.intents.steps import (
    CANCEL_REASONS,
    METHODS,
    PURCHASES,
    act,
    balance_due,
    captured,
    find_category,
    get_case,
    method_words,
    record_payment,
    refund,
    status_goal,
)
from awm.builder.phrasing import Say, T, money, quote

TALLY_INTENTS = ("busiest_site_question", "largest_balance_question")
TAKINGS_INTENTS = ("site_takings_question", "staff_takings_question")  # what was captured, case by case
BEST_CUSTOMER = "best_customer_at_site_question"  # the same, case by case over a site, summed per person
CATALOGUE_INTENTS = ("category_spend_question", "category_stock_question")  # a category's items, then the records
CUT_BACK = "cut_back_on_largest_balance"  # decided by the same comparison: the case that owes the most
MAX_SITES = 6  # sites whose cases the agent lists one by one
TAKINGS_CASES = (3, 6)  # how many cases of a site the takings question reads the payments of, one by one
COMPARED_CASES = (4, 7)  # how many cases of two members of staff, together, the comparison reads the same way
SITE_CASES = (3, 9)  # how many cases of a site the best-customer question reads the payments of


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


def cut_back_options(w: World) -> list[tuple[dict, list[dict], dict, float]]:
    """largest_balance_options where the case owing the most can still be cancelled and what was captured on it can
    be refunded (or nothing was), and every other open case owes nothing or 1.00 or more (a cent left over is no
    balance a person means)."""
    cancel = w.fl.cancel
    refundable = w.items_are("refundable") and cancel.target in w.fl.refundable
    return [(party, open_cases, case, due) for party, open_cases, case, due in largest_balance_options(w)
            if case["status"] in cancel.sources and (refundable or not captured(w, case))
            and all(balance_due(w, c) == 0 or balance_due(w, c) >= 1 for c in open_cases if c is not case)]


@intent("conditional", flavours=PURCHASES)
def cut_back_on_largest_balance(w: World) -> Plan | None:
    """A person cutting back keeps all but one of their open cases: the agent lists their cases, reads each open one
    (its total and what was captured on it), cancels the one with the most left to pay (refunding what was captured
    on it), and pays off what is still owed on each of the others by the method named. Which case goes is decided by
    what the agent reads; the largest balance is strictly largest (by 1.00 or more). Of purchases only: no one drops
    the claim or the application that "owes the most"."""
    option = w.pick(cut_back_options(w))
    if option is None:
        return None
    party, open_cases, case, _ = option
    ref = w.party_ref(party)
    cancel = w.fl.cancel
    method, reason = w.pick(list(METHODS)), w.pick(list(CANCEL_REASONS))
    paid = captured(w, case)
    refunds = [refund(w, p, reason) for p in paid]
    payments = [record_payment(w, c, balance_due(w, c), method) for c in open_cases
                if c is not case and balance_due(w, c) > 0]
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in open_cases),
             act(w, case, cancel.verb)]
    if paid:
        calls.append((w.n.list("payment"), {w.fk("case"): case["id"]}))
    calls += [call for call, _ in refunds] + [call for call, _ in payments]
    verb = cancel.verb.replace("_", " ")
    back = T(" and refund what was captured on it (reason: " + quote(reason) + ")") if paid else ""
    say = Say("do", (
        "{they_are} cutting back || {cancel} whichever of {their} {CASE/pl} that are {open} has the most left to "
        "pay{back}, and pay off what is still owed on each of the others by {method}",
        "{cancel} whichever of {their} {open} {CASE/pl} still owes the most{back}; then [clear|settle] the balance "
        "of every other one by {method}",
        "[look at|check] what is left to pay on each of {their} {CASE/pl} that are {open} || {cancel} the one that "
        "owes the most{back}, and record {a method} {PAYMENT} for what is owed on each of the others",
        "{they} [can only keep|want to keep] all but one of {their} {open} {CASE/pl} || [drop|{cancel}] the one "
        "with the [largest|biggest] [balance|amount outstanding]{back}, and [pay off|settle] the rest [in full|of "
        "what is owed] by {method}",
    ), {"open": or_words(w.fl.open), "cancel": verb, "back": back, "method": method_words(method)}, party=ref,
        voices=BOTH)
    goals = [status_goal(w, case, cancel.target), *(goal for _, goal in refunds), *(goal for _, goal in payments)]
    plan = Plan(calls, goals, say, targets={("party", party["id"]), *(("case", c["id"]) for c in open_cases)},
                changes_either_way=True)
    plan.derive(w.n.action("case", cancel.verb), w.fk("case"))
    if paid:
        plan.derive(w.n.action("payment", "refund"), w.pk("payment"))
    return plan.derive(w.n.create("payment"), "amount").derive(w.n.create("payment"), w.fk("case"))


REFUND_QUESTION = "cancellable_refund_question"  # a person weighing a cancellation: what would come back


def refund_question_options(w: World) -> list[tuple[dict, list[dict], float]]:
    """(party, their cases that can still be cancelled, what was captured on those) wherever the business refunds
    what a cancelled case had captured, two to `MAX_OWING` of the person's cases can still be cancelled, at least one
    of them has something captured, and another case of theirs that cannot be cancelled has something captured too
    (a total of everything they paid is then another figure)."""
    cancel = w.fl.cancel
    if not (w.items_are("refundable") and cancel.target in w.fl.refundable):
        return []
    options = []
    for party in w.active_parties("case"):
        mine = w.party_cases(party)
        can = sorted((c for c in mine if c["status"] in cancel.sources), key=lambda c: c["id"])
        back = round(sum(p["amount"] for c in can for p in captured(w, c)), 2)
        if 2 <= len(can) <= MAX_OWING and back > 0 and any(
                captured(w, c) for c in mine if c["status"] not in cancel.sources):
            options.append((party, can, back))
    return options


@intent("aggregate", flavours=PURCHASES)
def cancellable_refund_question(w: World) -> Plan | None:
    """A person weighing whether to cancel everything they still can asks what would come back: the agent lists
    their cases and reads each one that can still be cancelled (its status and the payments captured on it) and
    adds up what was captured; a case past cancelling counts nothing, however much was paid on it."""
    option = w.pick(refund_question_options(w))
    if option is None:
        return None
    party, can, back = option
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("case"), {w.fk("party"): party["id"]}), *(get_case(w, c) for c in can)]
    say = Say("ask", (
        "if {they} cancelled every {CASE} of {theirs} that can still be cancelled, how much would {they} get back "
        "in total",
        "how much would come back to {them} altogether if {they} called off all of {their} {CASE/pl} that are not "
        "too far along to cancel",
        "[what|how much] [would|could] {they} [get back|be refunded] [in all|altogether] by cancelling whatever "
        "{CASE/pl} of {theirs} [can still be cancelled|are still early enough to cancel]",
        "[adding up|counting] only {their} {CASE/pl} that can still be cancelled, how much was captured on them "
        "(what cancelling all of them would refund)",
    ), {}, party=ref, voices=BOTH)
    return Plan(calls, [w.money_answer(back)], say, answer=money(back), targets={("party", party["id"])})


# --- what was taken: payments read case by case ------------------------------------------------------------


def takings(w: World, cases: list[dict]) -> float:
    """What was captured on `cases` (pending, failed and refunded payments count nothing)."""
    return round(sum(p["amount"] for c in cases for p in captured(w, c)), 2)


def _left_out(w: World, conjunction: str) -> str:
    """The payments a takings question leaves out, as it names them: refunded ones only where the business refunds
    (a charity's gifts are not refunded, and a request there does not speak of refunds)."""
    return f"pending, failed {conjunction} refunded" if w.items_are("refundable") else f"pending {conjunction} failed"


def _told_apart(w: World, cases: list[dict]) -> bool:
    """Whether what was captured on `cases` differs (by 1.00 or more) from their totals added up and from every
    payment on them added up: only counting the captured payments case by case gives it."""
    got = takings(w, cases)
    billed = sum(c["total_amount"] for c in cases)
    paid = sum(p["amount"] for c in cases for p in w.children("payment", "case", c["id"]))
    return abs(got - billed) >= 1 and abs(got - paid) >= 1


def site_takings_options(w: World) -> list[tuple[dict, str, list[dict], float]]:
    """(site, status, the site's cases in that status, what was captured on them) wherever `TAKINGS_CASES` of the
    site's cases are in the status, something was captured on two or more of them, and the figure is told apart from
    the plausible wrong ones (`_told_apart`)."""
    low, high = TAKINGS_CASES
    options = []
    for site in w.rows["site"]:
        for status in w.fl.statuses:
            cases = sorted((c for c in w.children("case", "site", site["id"]) if c["status"] == status),
                           key=lambda c: c["id"])
            if low <= len(cases) <= high and sum(bool(captured(w, c)) for c in cases) >= 2 and _told_apart(w, cases):
                options.append((site, status, cases, takings(w, cases)))
    return options


@intent("aggregate")
def site_takings_question(w: World) -> Plan | None:
    """What a site took on its cases in one status, counting captured payments only: the agent finds the site, lists
    its cases in that status and each one's payments, and adds up the captured ones (a pending, failed or refunded
    payment is money not taken; a case's total is what was billed, not what came in)."""
    option = w.pick(site_takings_options(w))
    if option is None:
        return None
    site, status, cases, got = option
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site["id"], "status": status, "limit": 100}),
             *((w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases)]
    say = Say("ask", (
        "how much was actually taken at {site} on its {CASE/pl} that are {st}, counting only captured {PAYMENT/pl}",
        "[what did|how much did] {site} [take in|collect] on the {CASE/pl} it has with status {status}, [adding up|"
        "counting] only the {PAYMENT/pl} that were captured",
        "for the {CASE/pl} at {site} that are {st}, what is the total of the captured {PAYMENT/pl}, to the cent "
        "(leave out {left_out} ones)",
        "[I'm|I am] [closing the books for|reconciling] {site} || across its {CASE/pl} that are [currently |]{st}, "
        "how much money [actually came in|was actually received], [captured {PAYMENT/pl} only|counting captured "
        "{PAYMENT/pl} and nothing else]",
        "if you [add up|total] the captured {PAYMENT/pl} on every {CASE} at {site} with status {status}, [what|how "
        "much] [does that come to|is the sum]",
    ), {"site": site["name"], "st": status_words(status, plural=True), "status": quote(status),
        "left_out": _left_out(w, "and")}, voices=STAFF_ONLY)
    return Plan(calls, [w.money_answer(got)], say, answer=money(got), targets={("site", site["id"])})


def staff_takings_options(w: World) -> list[tuple[dict, dict, list[dict], list[dict], float]]:
    """(the member of staff whose cases took strictly more, by 1.00 or more; the other; the winner's cases; the
    other's; what was captured on the winner's) for two active members of staff at one site holding `COMPARED_CASES`
    cases between them, two or more each, each figure told apart from the wrong ones (`_told_apart`)."""
    low, high = COMPARED_CASES
    options = []
    for site in w.rows["site"]:
        staff = [s for s in w.children("staff", "site", site["id"]) if s["active"]]
        for a in staff:
            for b in staff:
                if a["id"] >= b["id"] or w.person(a) == w.person(b):
                    continue
                held = [sorted(w.children("case", "staff", m["id"]), key=lambda c: c["id"]) for m in (a, b)]
                if not (low <= len(held[0]) + len(held[1]) <= high and min(map(len, held)) >= 2
                        and all(_told_apart(w, cases) for cases in held)):
                    continue
                got = [takings(w, cases) for cases in held]
                if abs(got[0] - got[1]) >= 1:
                    first = 0 if got[0] > got[1] else 1
                    options.append(((a, b)[first], (a, b)[1 - first], held[first], held[1 - first], got[first]))
    return options


@intent("aggregate")
def staff_takings_question(w: World) -> Plan | None:
    """Which of two colleagues brought in more on the cases they handle, and how much: the agent finds both, lists
    each one's cases and each case's payments, and adds up the captured ones for each."""
    option = w.pick(staff_takings_options(w))
    if option is None:
        return None
    winner, other, won, lost, got = option
    a, b = (winner, other) if w.chance(0.5) else (other, winner)  # who is named first says nothing of who won
    calls = [w.find_staff(a), w.find_staff(b), (w.n.list("case"), {w.fk("staff"): a["id"]}),
             (w.n.list("case"), {w.fk("staff"): b["id"]}),
             *((w.n.list("payment"), {w.fk("case"): c["id"]}) for c in sorted(won + lost, key=lambda c: c["id"]))]
    say = Say("ask", (
        "between {a} and {b}, whose {CASE/pl} have brought in more money, counting only captured {PAYMENT/pl}, and "
        "how much is that",
        "which of {a} and {b} has taken more in captured {PAYMENT/pl} across all the {CASE/pl} assigned to "
        "them, and what is [their|that person's] total",
        "[compare|weigh up] {a} and {b} || [adding up|counting] the captured {PAYMENT/pl} on every {CASE} each of "
        "them [handles|is assigned], [who comes out ahead|which one is higher], and with how much",
        "[I'm|I am] [looking at|reviewing] [performance|results] || of {a} and {b}, whose {CASE/pl} "
        "[collected|took in] more (captured {PAYMENT/pl} only, not {left_out}), and [how much|what "
        "was the figure]",
    ), {"a": w.person(a), "b": w.person(b), "left_out": _left_out(w, "or")}, voices=STAFF_ONLY)
    return Plan(calls, [w.staff_answer(winner), w.money_answer(got)], say, answer=f"{w.person(winner)}, with "
                f"{money(got)}.", targets={("staff", winner["id"]), ("staff", other["id"])})


# --- the person who brought in the most at one site --------------------------------------------------------------


def _billed(w: World, case: dict) -> float:
    return case["total_amount"]


def _paid_at_all(w: World, case: dict) -> float:
    return sum(p["amount"] for p in w.children("payment", "case", case["id"]))


def _captured(w: World, case: dict) -> float:
    return takings(w, [case])


def _by_person(w: World, cases: list[dict], figure) -> dict[int, float]:
    """What `cases` come to by `figure`, person by person."""
    sums: dict[int, float] = {}
    for case in cases:
        party_id = case[w.fk("party")]
        sums[party_id] = round(sums.get(party_id, 0) + figure(w, case), 2)
    return sums


def _top(w: World, cases: list[dict], figure) -> tuple[int, float]:
    """(the person whose `cases` come to the most by `figure`, that sum): what a policy adding up the wrong figure
    answers (the first of a tie)."""
    return max(_by_person(w, cases, figure).items(), key=lambda kv: kv[1])


def best_customer_options(w: World) -> list[tuple[dict, list[dict], dict, float, dict]]:
    """(site, its cases, the person whose cases there took strictly the most in captured payments (by 1.00 or more),
    that figure, the runner-up) wherever the site holds `SITE_CASES` cases of two or more people, something was
    captured on the cases of two or more of them, the winner's name is theirs alone, and neither what was billed (the
    cases' totals) nor every payment added up (pending, failed, refunded) gives the same person with the same figure."""
    low, high = SITE_CASES
    options = []
    for site in w.rows["site"]:
        cases = sorted(w.children("case", "site", site["id"]), key=lambda c: c["id"])
        if not low <= len(cases) <= high:
            continue
        ranked = sorted(_by_person(w, cases, _captured).items(), key=lambda kv: -kv[1])
        if len(ranked) < 2 or ranked[1][1] <= 0 or ranked[0][1] - ranked[1][1] < 1:
            continue
        winner = w.by_id("party", ranked[0][0])
        if not w.unique_person("party", winner) or any(_top(w, cases, figure) == (winner["id"], ranked[0][1])
                                                       for figure in (_billed, _paid_at_all)):
            continue
        options.append((site, cases, winner, ranked[0][1], w.by_id("party", ranked[1][0])))
    return options


@intent("aggregate")
def best_customer_at_site_question(w: World) -> Plan | None:
    """Which person brought in the most at one site, and how much: the agent finds the site, lists its cases and
    each one's payments, adds up the captured ones person by person, and reads the winner's name (the cases hold
    only the person's id)."""
    option = w.pick(best_customer_options(w))
    if option is None:
        return None
    site, cases, winner, got, runner_up = option
    calls = [w.find_site(site), (w.n.list("case"), {w.fk("site"): site["id"], "limit": 100}),
             *((w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases),
             (w.n.get("party"), {w.pk("party"): winner["id"]})]
    name = w.text_answer(w.person(winner), [w.person(p) for p in w.rows["party"]])
    name.expect["type"] = "name"
    say = Say("ask", (
        "who is our [top|most valuable] {PARTY} at {site} by money actually taken, that is, whose {CASE/pl} there "
        "add up to the most in captured {PAYMENT/pl}, and how much is that",
        "at {site}, which {PARTY} has paid the most across all their {CASE/pl}, counting only captured "
        "{PAYMENT/pl}, and what does it come to",
        "[I'd like|we'd like|I want] to thank our [best|top] {PARTY} at {site} || whose {CASE/pl} at that {SITE} "
        "brought in the most, captured {PAYMENT/pl} only (not {left_out}), and how much was it",
        "if you add up the captured {PAYMENT/pl} on the {CASE/pl} at {site} {PARTY} by {PARTY}, who comes out on "
        "top, and with how much",
    ), {"site": site["name"], "left_out": _left_out(w, "or")}, voices=STAFF_ONLY)
    return Plan(calls, [name, w.money_answer(got)], say, answer=f"{w.person(winner)}, with {money(got)}.",
                targets={("site", site["id"]), ("party", winner["id"])})


# --- what a person spent on one category; what a site holds of one -----------------------------------------------


def _category_items(w: World, category: dict) -> set[int]:
    return {i["id"] for i in w.rows["item"] if i[w.fk("category")] == category["id"]}


def _spent_on(w: World, cases: list[dict], items: set[int]) -> float:
    """Quantity times unit price on the lines of `cases` that hold one of `items`."""
    return round(sum(x["quantity"] * x["unit_price"] for c in cases for x in w.children("line", "case", c["id"])
                     if x[w.fk("item")] in items), 2)


def category_spend_options(w: World) -> list[tuple[dict, list[dict], dict, float]]:
    """(party, their cases that were not cancelled, a category, what its items came to on those cases: quantity times
    the unit price on each line) wherever two to `CASES_READ` + 1 such cases are read, two or more of them hold an
    item of the category, another category's items are on them too (every line added up is another figure, by 1.00
    or more) and no other category has its name."""
    names = [c["name"] for c in w.rows["category"]]
    options = []
    for party in w.active_parties("case"):
        kept = sorted((c for c in w.party_cases(party) if c["status"] != w.fl.cancel.target), key=lambda c: c["id"])
        if not 2 <= len(kept) <= CASES_READ + 1:
            continue
        everything = _spent_on(w, kept, {i["id"] for i in w.rows["item"]})
        for category in w.rows["category"]:
            items = _category_items(w, category)
            holding = [c for c in kept if any(x[w.fk("item")] in items for x in w.children("line", "case", c["id"]))]
            spent = _spent_on(w, kept, items)
            if len(holding) >= 2 and spent >= 1 and everything - spent >= 1 and names.count(category["name"]) == 1:
                options.append((party, kept, category, spent))
    return options


@intent("aggregate", flavours=PURCHASES, needs=("category",), item="priced")
def category_spend_question(w: World) -> Plan | None:
    """What a person's cases that were not cancelled came to on one category's items: the agent finds the category
    and lists its items, finds the person, lists their cases and reads each one that was not cancelled, adding up
    quantity times unit price on the lines of those items."""
    option = w.pick(category_spend_options(w))
    if option is None:
        return None
    party, kept, category, spent = option
    ref = w.party_ref(party)
    calls = [w.find_party(ref), *find_category(w, category), (w.n.list("case"), {w.fk("party"): party["id"]}),
             *(get_case(w, c) for c in kept)]
    say = Say("ask", (
        "how much {have_they} spent on {category} altogether, across {their} {CASE/pl} that were not cancelled "
        "(quantity times unit price on each line)",
        "across {their} {CASE/pl}, leaving out the cancelled ones, what do the {ITEM/pl} from {category} come to in "
        "total, at the unit prices on those {CASE/pl}",
        "adding up every line that holds {a ITEM} from {category} on {their} {CASE/pl} (except cancelled ones), "
        "what is the total, quantity times unit price",
        "[what|how much] do the {ITEM/pl} from {category} come to on {their} {CASE/pl} so far, leaving out any "
        "{CASE} that was cancelled and counting the unit prices on them",
    ), {"category": quote(category["name"])}, party=ref, voices=BOTH)
    plan = Plan(calls, [w.money_answer(spent)], say, answer=money(spent),
                targets={("party", party["id"]), ("category", category["id"])})
    return plan.derive(w.n.list("item"), w.fk("category"))


def category_stock_options(w: World) -> list[tuple[dict, dict, int]]:
    """(site, category, how many units of its items the site holds) wherever the site keeps stock of two or more of
    the category's items and of another category's (the site's whole stock is another figure), the category's items
    are stocked at another site too (its stock everywhere is another figure), and no other category has its name."""
    names = [c["name"] for c in w.rows["category"]]
    options = []
    for category in w.rows["category"]:
        items = _category_items(w, category)
        levels = [s for s in w.rows["stock_level"] if s[w.fk("item")] in items]
        for site in w.rows["site"]:
            here = [s for s in w.rows["stock_level"] if s[w.fk("site")] == site["id"]]
            held = [s for s in here if s[w.fk("item")] in items]
            units = sum(s["quantity"] for s in held)
            if (len(held) >= 2 and units >= 2 and len(here) > len(held) and len(levels) > len(held)
                    and names.count(category["name"]) == 1):
                options.append((site, category, units))
    return options


@intent("aggregate", needs=("stock_level", "category"))
def category_stock_question(w: World) -> Plan | None:
    """How many units of one category's items a site holds: the agent finds the category and lists its items, finds
    the site and lists its stock levels, and adds up those of the category's items."""
    option = w.pick(category_stock_options(w))
    if option is None:
        return None
    site, category, units = option
    calls = [*find_category(w, category), w.find_site(site),
             (w.n.list("stock_level"), {w.fk("site"): site["id"], "limit": 100})]
    say = Say("ask", (
        "how many units from the {category} {CATEGORY} does {site} hold in stock altogether",
        "adding up every {ITEM} in {category}, how many units are on hand at {site} right now",
        "at {site}, what is the total stock of {ITEM/pl} from {category}, counting every one of them",
        "[I'm|I am] [planning a promotion on|about to advertise] {category} at {site} || how many units of its "
        "{ITEM/pl} [are in stock there|does that {SITE} have on hand], all of them together",
    ), {"category": quote(category["name"]), "site": site["name"]})
    plan = Plan(calls, [w.number_answer(units)], say, answer=str(units),
                targets={("site", site["id"]), ("category", category["id"])})
    return plan.derive(w.n.list("item"), w.fk("category"))
