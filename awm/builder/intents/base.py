"""What an intent is, the registry, and the world helpers every intent uses.

An intent is one thing a person asks of the business ("dispute a card charge", "move my appointment to
the dentist's next free day"). Given a world (its plan and generated rows) it picks concrete targets that
make the request meaningful, and returns a `Plan`: the reference solution (the tool calls an agent would
make, lookups included), the goals a verifier checks against the final database, the expected answer,
and a `Say` (its core clauses and their values) from which awm/builder/phrasing.py writes the sentence.

Shapes, recorded per intent: `action` (change something), `question` (answer from one or two lookups),
`aggregate` (an answer computed over several lookups), `chained` (a later step needs an earlier step's
result), `conditional` (what to do depends on what the agent finds), `infeasible` (a business rule
forbids it: the right outcome is no change and an answer that names why).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from awm.builder.catalogue.kinds import ITEM_KINDS, one_of_each
from awm.builder.data import Rows
from awm.builder.dialect import ToolNames
from awm.builder.phrasing import PartyRef, Say, Statuses, T, quote, vary
from awm.builder.world import WorldPlan
from awm.contracts import Goal

SHAPES = ("action", "question", "aggregate", "chained", "conditional", "infeasible")
# Who may send a request (Say.voices): a member of staff, the person it is about in their own voice, or either.
BOTH = ("staff", "self")
SELF = ("self",)  # what a customer wants for themself: asked in their own voice only
STAFF_ONLY = ("staff",)  # staff operations (putting a member of staff on the work): a customer does not ask them
MAX_ANSWER_CANDIDATES = 200
MAX_STATUS_VALUES = 12  # a status slot's closed set: the world's statuses of one kind
CASES_READ = 4  # cases a request may have the agent read one by one to find the one it names
HELD_WEIGHT = 3  # how much likelier a case is named by an item it held than by its code (World._described_refs)
_MARKUP = re.compile(r"[\[\]{}|]")  # the template language's own characters (a name holding one is not inlined)
_STATUS_WORD = re.compile(r"[a-z][a-z_ ]{0,30}")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
# How a status reads after "that is ..." ("their order that is checked in"), and after "that are ...".
STATUS_WORDS = {"no_show": "marked as a no-show", "draft": "in draft", "held": "on hold"}
STATUS_WORDS_PLURAL = {"no_show": "marked as no-shows", "draft": "in draft", "held": "on hold"}
# Each action verb as an imperative phrase about {x} (the case).
VERB_PHRASES = {"confirm": "confirm {x}", "ship": "ship {x}", "deliver": "mark {x} as delivered",
                "cancel": "cancel {x}", "return": "record the return of {x}", "schedule": "schedule {x}",
                "check_in": "check in {x}", "complete": "mark {x} as completed", "mark_no_show": "mark {x} as a no-show",
                "reschedule": "reschedule {x}", "submit": "submit {x}", "start_review": "start the review of {x}",
                "approve": "approve {x}", "reject": "reject {x}", "withdraw": "withdraw {x}",
                "activate": "activate {x}", "revoke": "revoke {x}",
                "start": "start work on {x}", "resolve": "resolve {x}", "close": "close {x}", "reopen": "reopen {x}",
                "check_out": "check out {x}"}


def status_words(status: str, plural: bool = False) -> str:
    words = STATUS_WORDS_PLURAL if plural else STATUS_WORDS
    return words.get(status, status.replace("_", " "))


def or_words(statuses: tuple[str, ...]) -> Statuses:
    """Statuses as a request names them: "pending, confirmed or shipped" (before a label, or after it where one
    status is several words: phrasing.Statuses)."""
    words = [status_words(s) for s in statuses]
    return Statuses(", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0])


# Phrasal verbs put a pronoun between verb and particle: "check it in", not "check in it".
_PRONOUN_PHRASES = {"check_in": "check {x} in", "check_out": "check {x} out"}


def verb_phrase(verb: str, obj: str) -> str:
    phrases = _PRONOUN_PHRASES if obj in ("it", "them", "me") and verb in _PRONOUN_PHRASES else VERB_PHRASES
    return phrases[verb].replace("{x}", obj)


def long_date(iso: str) -> str:
    """'2025-06-12' -> 'June 12, 2025'."""
    d = datetime.fromisoformat(iso[:10])
    return f"{_MONTHS[d.month - 1]} {d.day}, {d.year}"


def clock(iso: str) -> str:
    """'2025-06-12T14:30:00' -> '14:30'."""
    return iso[11:16]


@dataclass
class Plan:
    """One request, ready to become a task."""

    calls: list[tuple[str, dict[str, Any]]]
    goals: list[Goal]
    say: Say
    answer: str | None = None
    targets: set[tuple[str, Any]] = field(default_factory=set)
    derived: set[tuple[int, str]] = field(default_factory=set)  # (call index, argument) learnt from earlier results
    intent: str = ""
    shape: str = ""
    alone: bool = False  # asked on its own, never paired with another request
    # an infeasible request: the call it asks for, which the tools refuse, and the error code they refuse it
    # with (the answer's rule slot; the verification stage makes the call after the reference and checks both)
    refused: tuple[tuple[str, dict[str, Any]], str] | None = None
    # a change made to the person, not for them (suspended at the business's own wish): never confirmed to them as
    # "your request" (confirm_by_message)
    unasked: bool = False
    # the request asks for a message of its own (an upgrade announced), which a way it turns may not send: it gets
    # no confirming message besides (confirm_by_message)
    messages: bool = False
    # a conditional request that changes something whichever way it turns (a case placed again or paid off): its
    # confirming message is asked for as any change's is, not "if you make the change" (confirm_by_message)
    changes_either_way: bool = False

    def derive(self, tool: str, argument: str) -> Plan:
        """Mark `argument` of every call of `tool` as learnt from earlier tool results, not stated."""
        self.derived |= {(n, argument) for n, (t, args) in enumerate(self.calls) if t == tool and argument in args}
        return self

    @property
    def is_question(self) -> bool:
        return all(g.kind == "answer" for g in self.goals)


@dataclass(frozen=True)
class Intent:
    name: str
    build: Callable[[World], Plan | None]
    shape: str
    categories: tuple[str, ...] = ()  # empty: every category
    flavours: tuple[str, ...] = ()  # empty: every lifecycle
    needs: tuple[str, ...] = ()  # roles (tables) the world must have
    item: str = ""  # what the world's items must be (awm/builder/catalogue/kinds.py ItemKind): priced, refundable
    module: str = ""  # the module that registered it: a specific intent's is its category's requests.py
    rule: bool = True  # an infeasible intent whose plan names the refused call and the rule (Plan.refused)

    def fits(self, world: World) -> bool:
        return ((not self.categories or world.category in self.categories)
                and (not self.flavours or world.fl.name in self.flavours)
                and all(world.plan.has(role) for role in self.needs)
                and (not self.item or world.items_are(self.item)))

    @property
    def specific(self) -> bool:
        """Written for some categories of business, not for every one."""
        return bool(self.categories)


INTENTS: dict[str, Intent] = {}


CONFIRMATION_SHARE = 0.6  # how often a change made for a person ends with a message confirming it
CONFIRMATION_SUBJECTS = ("Your request has been handled", "Confirmation of your request", "We have updated your "
                         "account", "All done on your request", "Update on your request")


def confirmation_subjects(world: World, plan: Plan) -> tuple[str, ...]:
    """What a confirming message may be titled: about the case the request changed, by its code where the request
    already states it ("Update on your order ORD-1015") and by its kind where it does not (the code would give the
    agent the case it must find: "Your order: all done"), or about the new case it opened; the general titles
    where no case was changed."""
    label = world.L["case"]
    case = next((world.by_id("case", i) for role, i in sorted(plan.targets) if role == "case"), None)
    if case is not None and any(case["code"] in str(value) for value in plan.say.slots.values()):
        code = case["code"]
        return (f"Your {label} {code}", f"Update on your {label} {code}", f"About your {label} {code}",
                f"{label.capitalize()} {code}: done", f"Your {label} {code} has been updated")
    if case is not None:
        return (f"Update on your {label}", f"Your {label}: all done", f"About your {label}",
                f"Your {label} has been updated", f"Regarding your {label}")
    if any(call[0] == world.n.create("case") for call in plan.calls):
        return (f"Your new {label}", f"Thank you for your {label}", f"New {label} confirmation",
                f"About your new {label}", f"Your {label} has been placed")
    return CONFIRMATION_SUBJECTS


def confirm_by_message(world: World, plan: Plan) -> None:
    """Sometimes a change made for a person is confirmed to them by a message (where the business sends messages):
    the request asks for it, with its channel and subject, and a goal checks it was sent. A conditional request
    asks for it only if something is changed: the message is sent in the way the request turns that changes
    something, and in the way that only answers it is a write the task did not ask for."""
    from awm.builder.intents.steps import message_channel, notify

    party = plan.say.party
    writes = [c for c in plan.calls if not c[0].startswith(("get_", "list_", "search_"))]
    conditional = plan.shape == "conditional"
    if not world.has("notification"):
        return
    told = plan.messages or any(c[0] == world.n.create("notification") for c in plan.calls)
    if (party is None or (not writes and not conditional) or plan.shape == "infeasible" or told or plan.unasked
            or plan.say.mood != "do" or world.rng.random() >= CONFIRMATION_SHARE):
        return
    row = next((p for p in world.rows["party"] if p["email"] == party.email), None)
    if row is None:
        return
    channel, named = message_channel(world, "confirm_")
    subject = world.pick(list(confirmation_subjects(world, plan)))
    if writes:  # a conditional request's message is sent only in the way it turned that changed something
        call, goal = notify(world, row, channel, subject, "Your request has been completed.")
        plan.calls.append(call)
        plan.goals.append(goal)
    # the request's own words, its slots' included ("{first}": "confirm {case}"), before the message's are added
    slotted = " ".join(str(v) for v in plan.say.slots.values())
    plan.say.slots["confirm_subject"] = f"'{subject}'"
    plan.say.slots.update(named)
    confirm = "confirm it to {them} by {confirm_channel} with the subject {confirm_subject}"
    sent = "[send|drop] {them} {a confirm_channel} titled {confirm_subject}"
    ways = ("send {them} {a confirm_via} [confirmation|{NOTIFICATION}] with the subject {confirm_subject}", confirm,
            "notify {them} by {confirm_channel}, subject {confirm_subject}", sent)
    lead = ", [then|and then|and finally|and when that's done,] "
    if conditional:
        # after a semicolon, so it follows every way the request turns, not the last one alone; about "the change"
        # where one way changes nothing (beside "otherwise tell me its status and change nothing", an "and if you
        # change anything" reads as a contradiction), and plainly where every way changes something
        ways = (confirm, sent)
        lead = "; " + ("[then|after that|once that's done], " if plan.changes_either_way else
                       "if you [do make|make] [the|a] change, ")

    def tail(clause: str) -> str:
        # after a request that confirms the case itself ("... then confirm it"), "confirm it to them by email" would
        # read as that step again: the message is asked for as a message
        said = [w for w in ways if w != confirm] if _CONFIRMS.search(f"{clause} {slotted}") else list(ways)
        return _fresh(lead, clause) + (said[0] if len(said) == 1 else "[" + "|".join(said) + "]")

    plan.say.clauses = tuple(c + tail(c) for c in plan.say.clauses)


_CONFIRMS = re.compile(r"\bconfirm\b")
_CHOICE = re.compile(r"\[([^\[\]]*)\]")


_CONNECTORS = ("then", "after that", "once that's done", "and then", "and finally", "and when that's done")


def _fresh(lead: str, clause: str) -> str:
    """`lead` without the connectors the clause already uses ("...; either way confirm it after that" is not followed
    by "; after that, send them ..."): of each choice in it, the connectors the clause does not hold, where one is
    left. The clause as the realiser varies it: its "and then" may be written "and after that" (phrasing.vary)."""
    clause = vary(clause)

    def used(option: str) -> bool:
        option = option.rstrip(",")
        return option in _CONNECTORS and re.search(rf"\b{re.escape(option)}\b", clause, re.I) is not None

    def keep(match: re.Match) -> str:
        options = match.group(1).split("|")
        return "[" + "|".join([o for o in options if not used(o)] or options) + "]"
    return _CHOICE.sub(keep, lead)


REFUSAL_NOTICE_SHARE = 0.5  # how often a refused request about a person asks for the person to be told why
REFUSAL_NOTICE_SUBJECTS = ("About your request", "Regarding your request", "Your recent request",
                           "Following up on your request")


def explain_refusal(world: World, plan: Plan) -> None:
    """Sometimes a request the rules refuse, about a person, asks that the person be told why (where the business
    sends messages): "...; if that can't be done, let them know why by email, subject 'About your request'". The
    agent finds the rule, does not make the refused change, sends the message and names the rule; a goal checks the
    message went to that person by that channel with that subject. The subject is neutral ("About your order", never
    "We could not ..."): it does not give away that the request is refused. Not for a refusal no tool gives (who is
    writing: `rule=False`), nor where the request already sends a message."""
    from awm.builder.intents.steps import message_channel, notify

    party = plan.say.party
    if (plan.shape != "infeasible" or plan.refused is None or party is None or plan.unasked
            or plan.say.mood != "do" or not world.has("notification")):
        return
    told = plan.messages or any(c[0] == world.n.create("notification") for c in plan.calls)
    if told or world.rng.random() >= REFUSAL_NOTICE_SHARE:
        return
    row = next((p for p in world.rows["party"] if p["email"] == party.email), None)
    if row is None:
        return
    label = world.L["case"]
    cased = any(role == "case" for role, _ in plan.targets)
    subject = world.pick(list(REFUSAL_NOTICE_SUBJECTS) + ([f"About your {label}", f"Regarding your {label}"]
                                                          if cased else []))
    channel, named = message_channel(world, "explain_")
    call, goal = notify(world, row, channel, subject, "We could not do this, and here is why.")
    plan.calls.append(call)
    plan.goals.append(goal)
    plan.say.slots["explain_subject"] = f"'{subject}'"
    plan.say.slots.update(named)
    # a goal of several parts (some stand on their own) is told which part could not be done
    part = any(not c[0].startswith(("get_", "list_", "search_")) for c in plan.calls[:-1])
    which = "which part and why" if part else "why"
    cannot = "if any part of it can't be done" if part else "if [that|it] can't be done"
    ways = (f"{cannot}, [let {{them}} know {which}|tell {{them}} {which}] by {{explain_channel}}, subject "
            "{explain_subject}",
            f"{cannot}, send {{them}} {{a explain_via}} {{NOTIFICATION}} titled {{explain_subject}} saying {which}")
    plan.say.clauses = tuple(f"{c}; [{'|'.join(ways)}]" for c in plan.say.clauses)


def verify_identity(world: World, plan: Plan) -> None:
    """A request made by or about a person starts by finding that person (who is asking is checked before
    anything is done or told), as a careful agent would even when the request names the record directly."""
    party = plan.say.party
    if party is not None and world.find_party(party) not in plan.calls:
        plan.calls.insert(0, world.find_party(party))
        plan.derived = {(n + 1, argument) for n, argument in plan.derived}
    # a read repeated with the same arguments before anything is written (a case looked up, then read again) is
    # made once; a read after a write sees another state and stays
    kept, moved, written = [], {}, False
    for n, call in enumerate(plan.calls):
        read = call[0].startswith(("get_", "list_", "search_"))
        written = written or not read
        if read and not written and call in kept:
            continue
        moved[n] = len(kept)
        kept.append(call)
    plan.calls = kept
    plan.derived = {(moved[n], argument) for n, argument in plan.derived}


ITEM_RULES = ("priced", "refundable", "chosen")
# (category, item kind) whose items a person takes by need, not by taste, price or rating: a clinic's visits and a
# pharmacy's medicines, a government's licences, permits and filings (a library's rooms are still chosen)
BY_NEED = {("healthcare", "service"), ("healthcare", "goods"), ("government", "service")}


def intent(shape: str, categories: tuple[str, ...] = (), flavours: tuple[str, ...] = (),
           needs: tuple[str, ...] = (), item: str = "", rule: bool = True) -> Callable:
    """Register an intent under its function's name; `item` names what the world's items must be for it to fit
    (`priced`: it sets, compares or quotes their prices; `refundable`: it refunds what was paid for them, or takes
    them back as a return; `chosen`: priced, and picked by the customer by price, rating or taste, as `BY_NEED` items
    are not: "the dearest dental procedure I can afford", "the cheapest licensing service" read wrongly).

    An infeasible intent's plan declares the call the request asks for and the rule its tools refuse it with
    (`Plan.refused`), unless it is registered with `rule=False`: a refusal no tool can give, because what forbids
    it is not an argument of any tool (who is writing), whose answer then names no rule.

    An intent for some `categories` only is registered from its category's folder: the requests.py of the first
    category it names (awm/builder/categories/<category>/requests.py), so a category's requests are all in its
    folder and there is no second place to add one."""
    if shape not in SHAPES:
        raise ValueError(f"unknown intent shape {shape!r}")
    if item and item not in ITEM_RULES:
        raise ValueError(f"unknown item rule {item!r}; one of {', '.join(ITEM_RULES)}")

    def register(fn: Callable[[World], Plan | None]) -> Callable[[World], Plan | None]:
        name = fn.__name__
        if name in INTENTS:
            raise ValueError(f"intent {name!r} is registered twice")
        if categories and not fn.__module__.endswith(f".{categories[0]}.requests"):
            raise ValueError(f"intent {name!r} is for {', '.join(categories)}: register it from the requests.py of "
                             f"the first category it names (awm/builder/categories/{categories[0]}/requests.py), "
                             f"not from {fn.__module__}")

        def build(world: World) -> Plan | None:
            plan = fn(world)
            if plan is not None:
                if shape == "infeasible" and rule != (plan.refused is not None):
                    raise ValueError(f"infeasible intent {name!r}: " + (
                        "its plan declares no refused call; give Plan(refused=(the call the request asks for, the "
                        "error code its tool refuses it with)), or register it with rule=False if no tool can"
                        if rule else "registered with rule=False, its plan declares a refused call"))
                plan.intent, plan.shape = name, shape
                verify_identity(world, plan)
                confirm_by_message(world, plan)
                explain_refusal(world, plan)
            return plan

        INTENTS[name] = Intent(name, build, shape, tuple(categories), tuple(flavours), tuple(needs), item,
                               fn.__module__, rule)
        return fn

    return register


def _padded_words(text: str) -> str:
    """Lower-case words of `text` between spaces, as the verifier reads an answer ('Checked-In' -> ' checked in ')."""
    return " " + " ".join(re.findall("[a-z0-9]+", text.lower())) + " "


class World:
    """One world's rows, as the intents read them, with the rng that picks targets."""

    def __init__(self, plan: WorldPlan, rows: Rows, rng: random.Random):
        self.plan, self.rows, self.rng = plan, rows, rng
        self.n = ToolNames(plan)
        self.L = plan.scenario.labels
        self.fl = plan.flavour
        self.category = plan.scenario.category
        self._kinds: list[set[str]] | None = None

    def items_are(self, rule: str) -> bool:
        """Whether the world's items meet an item rule of `intent` (ITEM_RULES: `priced`, `refundable`, `chosen`); a
        world whose item kind is not catalogued meets every rule."""
        if rule == "chosen":
            return self.items_are("priced") and (self.category, self.plan.scenario.item_kind) not in BY_NEED
        kind = ITEM_KINDS.get(self.plan.scenario.item_kind)
        return kind is None or getattr(kind, rule)

    @property
    def organisation(self) -> bool:
        """Whether the world's customers are organisations a person speaks for (a client company, a shipper): they
        have an office, not a home, and do not move house."""
        return self.plan.scenario.party_kind == "organisation"

    @property
    def priced(self) -> bool:
        """Whether the world's items have prices (a savings account, a donation or a volunteer day has none)."""
        return self.items_are("priced")

    # --- rows -----------------------------------------------------------------------------------
    def has(self, *roles: str) -> bool:
        return all(self.plan.has(r) for r in roles)

    def fk(self, role: str) -> str:
        return self.plan[role].fk

    def table(self, role: str) -> str:
        return self.plan[role].table

    def pk(self, role: str) -> str:
        """The argument naming one row of the role in get/act tools: order_id."""
        return f"{self.plan[role].name}_id"

    def by_id(self, role: str, row_id: int) -> dict:
        return self.rows[role][row_id - 1]

    def children(self, child: str, parent: str, parent_id: int) -> list[dict]:
        col = self.fk(parent)
        return [r for r in self.rows.get(child, []) if r.get(col) == parent_id]

    def person(self, row: dict) -> str:
        return f"{row['first_name']} {row['last_name']}"

    def party_of(self, row: dict) -> dict:
        return self.by_id("party", row[self.fk("party")])

    def pick(self, candidates: list) -> Any:
        return self.rng.choice(candidates) if candidates else None

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def active_parties(self, with_role: str | None = None) -> list[dict]:
        parties = [p for p in self.rows["party"] if p["status"] == "active"]
        if with_role:
            parties = [p for p in parties if self.children(with_role, "party", p["id"])]
        return parties

    def unique_person(self, role: str, row: dict) -> bool:
        name = self.person(row)
        return sum(1 for r in self.rows[role] if self.person(r) == name) == 1

    def staff_pool(self, site_id: int | None = None) -> list[dict]:
        """Active staff with a name no one else has (so a name is enough to find them)."""
        staff = [s for s in self.rows["staff"] if s["active"] and self.unique_person("staff", s)]
        if site_id is not None:
            staff = [s for s in staff if s[self.fk("site")] == site_id]
        return staff

    @property
    def one_each(self) -> bool:
        """Whether a case holds one of each item (catalogue.kinds.one_of_each), as the world's rows do."""
        return one_of_each(self.plan.scenario.item_kind, self.fl.once)

    def units(self, n: int) -> int:
        """How many of an item a request puts on a case: `n` (drawn by the caller, so every world draws alike),
        or 1 where a case holds one of each (`one_each`)."""
        return 1 if self.one_each else n

    def line_words(self, item: dict, n: int, form: str = "{n} x {item}") -> str:
        """An item and how many of it a request puts on a case, as a person says it: `form` ("2 x 'Name'",
        "'Name' (quantity 2)"), or "one 'Name'" where a case holds one of each (`one_each`: no "1 x 'Roof
        Inspection'", no "(quantity 1)"; the number is still stated, as the call passes it)."""
        name = quote(item["name"])
        return f"one {name}" if self.one_each else form.format(item=name, n=n)

    def open_cases(self, staff_id: int) -> list[dict]:
        return [c for c in self.rows["case"] if c[self.fk("staff")] == staff_id and c["status"] in self.fl.open]

    def line_total(self, case: dict) -> float:
        return round(sum(x["quantity"] * x["unit_price"] for x in self.children("line", "case", case["id"])), 2)

    # --- the person a request is about ------------------------------------------------------------
    def party_ref(self, party: dict, idents: tuple[str, ...] = ("name_email", "name_email", "email", "name")
                  ) -> PartyRef:
        """How the instruction names `party`: name and email, email alone, or (if unique) name alone."""
        options = [i for i in idents if i != "name" or self.unique_person("party", party)]
        return PartyRef(self.person(party), party["email"], self.rng.choice(options), party["id"])

    def find_party(self, ref: PartyRef) -> tuple[str, dict]:
        return self.n.list("party"), {"query": ref.query}

    def find_staff(self, member: dict) -> tuple[str, dict]:
        return self.n.list("staff"), {"query": self.person(member)}

    def find_item(self, item: dict, by_sku: bool = False) -> tuple[str, dict]:
        return self.n.list("item"), {"query": item["sku"] if by_sku else item["name"]}

    def find_site(self, site: dict) -> tuple[str, dict]:
        return self.n.list("site"), {"query": site["name"]}

    def party_cases(self, party: dict) -> list[dict]:
        return self.children("case", "party", party["id"])

    def newest_first(self, party: dict) -> list[dict] | None:
        """The person's cases newest first, or None where two were made at the same moment ("the latest" is then
        not one case)."""
        mine = sorted(self.party_cases(party), key=lambda c: c["created_at"], reverse=True)
        return mine if len({c["created_at"] for c in mine}) == len(mine) else None

    def case_ref(self, case: dict, ref: PartyRef | None, lookups: bool = True, by_status: bool = True,
                 named: tuple[dict, ...] = (), coded: bool = False) -> tuple[T, list[tuple[str, dict]]]:
        """How the instruction points at a case, and the calls that find it: by its code, or (sometimes)
        by a description only this case of its person fits (their most recent one, the one with a given
        status, the one on a given date, the latest one that held a named item), which the agent must look up.
        `by_status=False` where the answer is the case's status (a request naming "their order that is currently
        shipped" would state it); `named`: the items the request itself names, which do not also name the case
        ("take 'Kettle' off my latest order that included 'Kettle'"); `coded`: by its code only, where the request
        states the code anyway (a ticket titled 'Broken lock on SPA-1021' would give away the case a description
        hides)."""
        code_calls = [(self.n.list("case"), {"code": case["code"]})]
        if ref is None:
            return T(f"{{CASE}} {case['code']}"), code_calls
        party = self.by_id("party", case[self.fk("party")])
        by_party = [self.find_party(ref), (self.n.list("case"), {self.fk("party"): party["id"]})]
        # Even with the code in hand, the person is looked up first: who is asking is checked before acting.
        options: list[tuple[str, list]] = [(f"{{their}} {{CASE}} {case['code']}", [self.find_party(ref), *code_calls]),
                                           (f"{{their}} {{CASE}} {case['code']}", by_party)]
        weights = [1, 1]
        if not coded:
            described = self._described_refs(case, party, by_party, by_status, named)
            options += [(text, calls) for text, calls, _ in described]
            weights += [weight for _, _, weight in described]
        text, calls = self.rng.choices(options, weights)[0]
        # then the case itself is read (its status, lines and payments), as before any change to it
        return T(text), [*calls, (self.n.get("case"), {self.pk("case"): case["id"]})] if lookups else []

    def _described_refs(self, case: dict, party: dict, by_party: list, by_status: bool, named: tuple[dict, ...]
                        ) -> list[tuple[str, list, int]]:
        """The descriptions of `case` only it fits among its person's cases (case_ref), each with its lookups and how
        often it is chosen beside the others (a case named by what it held, as customers remember their orders,
        `HELD_WEIGHT` times as often as by its code)."""
        mine = self.party_cases(party)
        options: list[tuple[str, list, int]] = []
        latest = max(mine, key=lambda c: c["created_at"])
        if latest is case and sum(c["created_at"] == case["created_at"] for c in mine) == 1 and len(mine) > 1:
            options.append(("{their} [most recent|latest|newest] {CASE}", by_party, 1))
        # not where the label says the status already ("their scheduled move that is scheduled")
        if by_status and sum(c["status"] == case["status"] for c in mine) == 1 and not (
                set(status_words(case["status"]).split()) & set(self.L["case"].lower().split())):
            options.append((f"{{their}} {{CASE}} that is [currently |]{status_words(case['status'])}", by_party, 1))
        when = case[self.fl.time_column]
        if self.fl.name in ("appointment", "reservation") and sum(c[self.fl.time_column][:10] == when[:10]
                                                                    for c in mine) == 1:
            options.append((f"{{their}} {{CASE}} on {long_date(when)}", by_party, 1))
        if "2025-05-25" <= case["created_at"][:10] <= "2025-05-31" and sum(
                "2025-05-25" <= c["created_at"][:10] <= "2025-05-31" for c in mine) == 1:
            options.append(("the {CASE} {they} [made|booked|opened] last week", by_party, 1))
        held = self._held_item_ref(case, party, {item["id"] for item in named})
        if held is not None:
            options.append((held[0], [*by_party, *held[1]], HELD_WEIGHT))
        return options

    def _held_item_ref(self, case: dict, party: dict, named: set[int]) -> tuple[str, list[tuple[str, dict]]] | None:
        """The case as the latest of its person's cases that holds a named item ("{their} latest {CASE} that
        included 'Kettle'", as a customer remembers what they bought, not a code), and the reads that find it:
        the person's newer cases one by one, each lacking the item. Only where the case is not the person's newest
        (else "the latest" alone would name it) and at most `CASES_READ` cases are read; where the cases were
        made at distinct moments; where the item's name is the only one of its kind; and where the case is the
        latest holding the item both by when it was made and by its own date (an appointment's "latest" could be
        either); never by an item of `named` (ids of the items the request names anyway). Only an order
        "contained" its items; a booking or an application "included" them."""
        from awm.builder.intents.steps import holds, unique_name

        newest = self.newest_first(party)
        if newest is None:
            return None
        k = next(i for i, c in enumerate(newest) if c is case)
        if not 0 < k < CASES_READ:
            return None
        item_col, when = self.fk("item"), self.fl.time_column
        newer = {x[item_col] for c in newest[:k] for x in self.children("line", "case", c["id"])}
        names = []
        for item_id in sorted({x[item_col] for x in self.children("line", "case", case["id"])} - newer - named):
            item = self.by_id("item", item_id)
            holding = [c for c in newest if holds(self, c, item)]
            if (not _MARKUP.search(item["name"]) and unique_name(self, item)
                    and max(holding, key=lambda c: c[when]) is case
                    and sum(c[when] == case[when] for c in holding) == 1):
                names.append(item)
        if not names:
            return None
        item = self.rng.choice(names)
        reads = [(self.n.get("case"), {self.pk("case"): c["id"]}) for c in newest[:k]]
        verb = "[included|contained]" if self.fl.name == "fulfillment" else "included"
        return f"{{their}} [latest|most recent] {{CASE}} that {verb} {quote(item['name'])}", reads

    # --- answers ------------------------------------------------------------------------------------
    def kind_values(self, value: str) -> set[str]:
        """Every value of the text columns that hold `value` (and of people's full names, if it is one): what an
        answer could name instead of it."""
        if self._kinds is None:
            self._kinds = []
            for role, entity in self.plan.entities.items():
                rows = self.rows.get(role, [])
                for column in entity.columns:
                    if column.type == "TEXT":
                        self._kinds.append({r[column.name] for r in rows if isinstance(r[column.name], str)})
                if entity.has("first_name") and entity.has("last_name"):
                    self._kinds.append({self.person(r) for r in rows})
        return {v for values in self._kinds if value in values for v in values}

    def text_answer(self, value: str, alternatives: list[str], slot: str | None = None) -> Goal:
        """An answer goal for a name, a status or a date: the other values of its kind, and of every column that
        holds it, are conflicting candidates (an answer that names one of them as well hedges or dumps).

        Its typed slot (awm.contracts.AnswerSlot): a date, a status when `alternatives` is a short list of
        words (its closed set, the value among them, so the set never gives the answer away), else a name."""
        others = sorted(({a for a in alternatives} | self.kind_values(value)) - {value})[:MAX_ANSWER_CANDIDATES]
        expect: dict[str, Any] = {"value": value}
        if others:
            expect["others"] = others
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            words = sorted({*alternatives, value})
            if 2 <= len(words) <= MAX_STATUS_VALUES and all(_STATUS_WORD.fullmatch(w) for w in words):
                expect["type"], expect["values"] = "status", words
            else:
                expect["type"] = "name"
        # the world's labels that use a rival's word ("scheduled move" beside the status 'scheduled'): an answer
        # naming the thing by its label names no rival, so the verifier reads past them
        nouns = sorted({e.label for e in self.plan.entities.values()
                        if any(_padded_words(o) in _padded_words(e.label) for o in others)})
        if nouns:
            expect["nouns"] = nouns
        return Goal(kind="answer", expect=expect, slot=slot)

    def number_answer(self, value: float | int) -> Goal:
        """A count (int) or an amount (float): an answer may not state another number of the same kind."""
        return Goal(kind="answer", expect={"value": value})

    def money_answer(self, value: float) -> Goal:
        return Goal(kind="answer", expect={"value": round(float(value), 2)})

    def status_answer(self, status: str) -> Goal:
        """Any status of the world is a conflicting candidate ("cancelled, or maybe active"); the slot's closed
        set is the statuses of the lifecycle it belongs to."""
        goal = self.text_answer(status, sorted({r["status"] for rows in self.rows.values() for r in rows
                                                if isinstance(r.get("status"), str)} | set(self.fl.statuses)))
        own = set(self.fl.statuses) if status in self.fl.statuses else set(goal.expect.get("others", ()))
        goal.expect["type"], goal.expect["values"] = "status", sorted(own | {status})
        return goal

    def staff_answer(self, member: dict) -> Goal:
        goal = self.text_answer(self.person(member), [self.person(s) for s in self.rows["staff"]])
        goal.expect["type"] = "name"
        return goal
