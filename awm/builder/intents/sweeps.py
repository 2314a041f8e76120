"""A member of staff's sweep over one site's cases, as they ask for it in one message: "confirm every order at the Omaha
branch that is still pending and already paid in full; leave the ones that still owe money", "email everyone with an
open order at the Omaha branch that still owes money, subject 'Payment reminder', and tell me how much is outstanding
on those altogether", "cancel every order at the Omaha branch that is still pending or confirmed with nothing paid on
it yet; keep any paid even in part", "add the note 'Awaiting payment' to every open order there that still owes". The
agent finds the site, lists its cases, reads what was captured on each one the sweep could concern and acts on exactly
those the condition picks: which ones is read off the payments, never stated.

Each is planned only where the condition splits the site's cases (some are picked, some are not), each picked case
is of a distinct active person (one message each), and no case sits within a cent-sized margin of the condition (a
balance of 0.40 is neither plainly owing nor plainly paid)."""

from __future__ import annotations

from collections.abc import Callable

from awm.builder.intents.base import STAFF_ONLY, Plan, World, intent, or_words, status_words, verb_phrase
from awm.builder.intents.steps import PURCHASES, act, add_note, balance_due, captured, notify, status_goal
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal

SWEEP_INTENTS = ("advance_paid_at_site", "remind_owing_at_site", "cancel_unpaid_at_site", "note_owing_at_site")
MAX_READ = 5  # cases of one site whose payments the agent reads one by one
ADJECTIVES = {"draft": "draft", "held": "held"}  # a status before its label ("the draft applications")
OWING = 1.0  # a balance of at least this much is owed; of none (or less than none), the case is paid in full


def _settled(w: World, case: dict) -> bool | None:
    """True where what was captured on the case covers its total, False where it owes `OWING` or more, None in
    between (neither plainly)."""
    due = balance_due(w, case)
    return True if due <= 0 else False if due >= OWING else None


def _sweep(w: World, cases: list[dict], picked: list[dict]) -> bool:
    """Whether a sweep over `cases` picking `picked` is one answer: a few cases, each plainly paid or owing, one to
    three picked and at least one left, the picked ones of distinct active people."""
    people = [w.party_of(c) for c in picked]
    return (2 <= len(cases) <= MAX_READ and 1 <= len(picked) < len(cases)
            and all(_settled(w, c) is not None for c in cases) and len(picked) <= 3
            and len({p["id"] for p in people}) == len(people) and all(p["status"] == "active" for p in people))


def _reads(w: World, site: dict, cases: list[dict], status: str | None = None) -> list[tuple[str, dict]]:
    """The site found, its cases listed (of one status where the sweep names one) and the payments of each read."""
    listed = {w.fk("site"): site["id"], **({"status": status} if status else {}), "limit": 100}
    return [w.find_site(site), (w.n.list("case"), listed),
            *((w.n.list("payment"), {w.fk("case"): c["id"]}) for c in cases)]


def _reads_then_each(w: World, site: dict, cases: list[dict], picked: list[dict], step: Callable[[dict], tuple]
                     ) -> tuple[list[tuple[str, dict]], list[Goal]]:
    """The sweep's reads (`_reads`), then `step` (a call and the goal that checks it) on each picked case."""
    made = [step(case) for case in picked]
    return [*_reads(w, site, cases), *(call for call, _ in made)], [goal for _, goal in made]


# --- a site's cases that are paid in full moved one step forward ---------------------------------------------------


def advance_options(w: World) -> list[tuple[dict, list[dict], list[dict]]]:
    """(site, its cases at the first step of the lifecycle, those of them paid in full) wherever the sweep is one
    answer (`_sweep`) and every case it reads has a total to pay."""
    first = w.fl.action(w.fl.forward[0])
    options = []
    for site in w.rows["site"]:
        cases = sorted((c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c["status"] in first.sources),
                       key=lambda c: c["id"])
        paid = [c for c in cases if _settled(w, c)]
        if all(c["total_amount"] >= OWING for c in cases) and _sweep(w, cases, paid):
            options.append((site, cases, paid))
    return options


@intent("aggregate", needs=("payment",))
def advance_paid_at_site(w: World) -> Plan | None:
    """Every case of a site at the first step of its lifecycle (a pending order, a requested appointment) that is paid
    in full moved on one step (confirmed, scheduled): the agent lists the site's cases at that step, reads what was
    captured on each and acts on those whose payments cover their total."""
    first = w.fl.action(w.fl.forward[0])
    if first.needs_staff or first.needs_time or first.requires_verified_documents or len(first.sources) != 1:
        return None
    option = w.pick(advance_options(w))
    if option is None:
        return None
    site, cases, paid = option
    source = first.sources[0]
    calls = [*_reads(w, site, cases, source), *(act(w, c, first.verb) for c in paid)]
    goals = [status_goal(w, c, first.target) for c in paid]
    each = "[every|each] {CASE} at {site} that is still {source} and [already |]paid in full"
    say = Say("do", (
        verb_phrase(first.verb, each) + " (what was captured on it covers its total); leave [those|the ones] that "
        "still owe money [as they are|alone]",
        "[go through|work through] the {sources} {CASE/pl} at {site} || " + verb_phrase(
            first.verb, "each one whose captured {PAYMENT/pl} cover its total") + ", and leave any that still [owes "
        "money|has a balance] [untouched|as it is]",
        "{site} [has|is holding] {CASE/pl} that are {are} || " + verb_phrase(
            first.verb, "[those|the ones] already paid in full") + "; the rest wait until they are paid",
        "[check|look at] what has been paid on [the|each of the] {sources} {CASE/pl} at {site}, and " + verb_phrase(
            first.verb, "every one [that is fully paid|with nothing left to pay]") + "; [don't touch|leave alone] "
        "[any|those] with money still owing",
    ), {"site": site["name"], "source": or_words((source,)), "are": status_words(source, plural=True),
        "sources": ADJECTIVES.get(source, status_words(source))}, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={*(("case", c["id"]) for c in cases)})
    return plan.derive(w.n.action("case", first.verb), w.fk("case"))


# --- a site's customers who still owe on an open case reminded, and the total outstanding told ---------------------

REMINDERS = ("Payment reminder", "Reminder: balance outstanding", "A balance is due")


def remind_options(w: World) -> list[tuple[dict, list[dict], list[dict]]]:
    """(site, its open cases, those of them owing `OWING` or more) wherever the sweep is one answer (`_sweep`)."""
    options = []
    for site in w.rows["site"]:
        cases = sorted((c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c["status"] in w.fl.open),
                       key=lambda c: c["id"])
        owing = [c for c in cases if _settled(w, c) is False]
        if _sweep(w, cases, owing):
            options.append((site, cases, owing))
    return options


@intent("aggregate", needs=("payment", "notification"))
def remind_owing_at_site(w: World) -> Plan | None:
    """The person of every open case at a site that still owes money emailed a reminder with the subject the
    request gives, and the total still owed on those cases answered: the agent lists the site's cases, reads what
    was captured on each open one and writes to those whose payments fall short."""
    option = w.pick(remind_options(w))
    if option is None:
        return None
    site, cases, owing = option
    subject = w.pick(list(REMINDERS))
    calls, goals = _reads_then_each(w, site, cases, owing, lambda case: notify(
        w, w.party_of(case), "email", subject, "Our records show a balance still to pay."))
    total = round(sum(balance_due(w, c) for c in owing), 2)
    say = Say("do", (
        "email [everyone|every {PARTY}] with {a CASE} at {site} that is {open} and still owes money, subject "
        "{subject}, and tell me how much is outstanding on those {CASE/pl} altogether",
        "[chase|follow up] the {open} {CASE/pl} at {site} that are not fully paid || send the {PARTY} of each one "
        "an email titled {subject}, then give me the total still owed on them",
        "[find|look up] [every|each] {CASE} at {site} that is {open} with money still owing, email its {PARTY} "
        "with the subject {subject}, and [let me know|tell me] the sum [left to pay|outstanding] across them",
    ), {"site": site["name"], "open": or_words(w.fl.open), "subject": quote(subject)}, voices=STAFF_ONLY)
    plan = Plan(calls, [*goals, w.money_answer(total)], say, answer=f"{money(total)} is outstanding on them.",
                targets={*(("case", c["id"]) for c in cases), *(("party", w.party_of(c)["id"]) for c in owing)})
    return plan.derive(w.n.create("notification"), w.fk("party"))


# --- a site's cases with nothing paid on them cancelled, those paid even in part kept -------------------------------


def unpaid_options(w: World) -> list[tuple[dict, list[dict], list[dict]]]:
    """(site, its cases that can still be cancelled, those of them with nothing captured) wherever the sweep is one
    answer (`_sweep`) and every case it reads has a total to pay."""
    cancel = w.fl.cancel
    options = []
    for site in w.rows["site"]:
        cases = sorted((c for c in w.rows["case"] if c[w.fk("site")] == site["id"] and c["status"] in cancel.sources),
                       key=lambda c: c["id"])
        unpaid = [c for c in cases if not captured(w, c)]
        if all(c["total_amount"] >= OWING for c in cases) and _sweep(w, cases, unpaid):
            options.append((site, cases, unpaid))
    return options


@intent("aggregate", flavours=PURCHASES,
        needs=("payment",))
def cancel_unpaid_at_site(w: World) -> Plan | None:
    """Every case of a site that can still be cancelled and has nothing captured on it cancelled, those paid even in
    part kept: the agent lists the site's cases, reads what was captured on each one that can still be cancelled and
    cancels those with no payment (nothing to refund)."""
    option = w.pick(unpaid_options(w))
    if option is None:
        return None
    site, cases, unpaid = option
    cancel = w.fl.cancel
    calls = [*_reads(w, site, cases), *(act(w, c, cancel.verb) for c in unpaid)]
    goals = [status_goal(w, c, cancel.target) for c in unpaid]
    say = Say("do", (
        "cancel [every|each] {CASE} at {site} that is still {sources} and has had nothing paid on it yet; leave "
        "[those|the ones] with any captured {PAYMENT} [as they are|alone]",
        "[clear out|get rid of] the unpaid {CASE/pl} at {site} || cancel each one that is {sources} with no "
        "captured {PAYMENT} at all, and keep any that has been paid even in part",
        "[go through|work through] the {sources} {CASE/pl} at {site} || cancel [those|the ones] nobody has paid "
        "anything on yet; [the ones|those] with a payment stay",
        "{site} is holding {sources} {CASE/pl} that [were never paid for|nobody has paid for] || cancel [every|each] "
        "one with no captured {PAYMENT}, and leave [any|those] with money already taken",
        "[we're|we are] [closing the books on|cleaning up] {site} || cancel [any|every] {CASE} there still "
        "{sources} [without a single|with no] captured {PAYMENT}; [the paid ones|those paid for] stay [open|as "
        "they are]",
        "[check|look at] the payments on the {sources} {CASE/pl} at {site} || cancel [each|every] one on which "
        "nothing has been [captured|taken] yet, and [leave|keep] the rest",
    ), {"site": site["name"], "sources": or_words(cancel.sources)}, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={*(("case", c["id"]) for c in cases)})
    return plan.derive(w.n.action("case", cancel.verb), w.fk("case"))


# --- a note on each of a site's open cases that still owes money ----------------------------------------------------

OWING_NOTES = ("Awaiting payment", "Balance still due", "Payment outstanding", "Chase the balance")


@intent("aggregate", needs=("payment",))
def note_owing_at_site(w: World) -> Plan | None:
    """A note with the text the request gives on every open case of a site that still owes money, none on those
    paid in full: the agent lists the site's cases, reads what was captured on each open one and notes those whose
    payments fall short."""
    option = w.pick(remind_options(w))
    if option is None:
        return None
    site, cases, owing = option
    note = w.pick(list(OWING_NOTES))
    calls, goals = _reads_then_each(w, site, cases, owing, lambda case: add_note(w, case, note))
    say = Say("do", (
        "add the note {note} to [every|each] {CASE} at {site} that is {open} and still owes money; [leave|skip] "
        "those paid in full",
        "[flag|mark] the {open} {CASE/pl} at {site} that are not fully paid || put a note reading {note} on each "
        "one, and nothing on those already paid in full",
        "[go through|check] the {open} {CASE/pl} at {site} and, on each one with a balance still to pay, add the "
        "note {note}",
        "[accounts|finance] [wants|would like] the unpaid work at {site} [flagged|marked] || [note|record] {note} "
        "on every {CASE} there that is {open} and not yet fully paid; [those with nothing left to pay|the fully "
        "paid ones] [need no note|get nothing]",
        "[before|ahead of] [the month-end review|the weekly review|our billing run], [look at|check] what was paid "
        "on each {open} {CASE} at {site} || [add|leave] a note saying {note} on each one where [money is still "
        "owed|a balance remains]",
    ), {"site": site["name"], "open": or_words(w.fl.open), "note": quote(note)}, voices=STAFF_ONLY)
    plan = Plan(calls, goals, say, targets={*(("case", c["id"]) for c in cases)})
    return plan.derive(w.n.create("note"), w.fk("case"))
