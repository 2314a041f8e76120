"""Realising an intent as an English instruction.

An intent (awm/builder/intents) decides what must change and what must be answered; it hands the
realiser a `Say`: its core clauses (templates in a small language, below) and the values to fill in.
The realiser, driven by a seeded rng, picks one core clause, a voice (a staff member asking, or the
customer writing in the first person), a frame ("Can you ...?", "I need you to ...", a bare
imperative, a question), an introduction naming who the request is about, and now and then a sentence of
context a customer might add (awm/builder/intents/context.py; no closing remarks, no asides of staff: filler
a request does not carry), then checks the sentence for template holes and grammar faults.

Someone writing for a relative or colleague (the "proxy" voice) is not written by the realiser. A customer acts
for another person only in the requests whose authority the world records or refuses (a party's
`representative_id`; awm/builder/intents/people.py AUTHORITY_INTENTS), written in the customer's own voice.

A core clause may start with a sentence of context: "{their} {CASE} {code} is packed || ship it" gives
"Their order ORD-1042 is packed. Can you ship it?".

The template language:
  {slot}        the slot's value (a literal, or a template rendered in the same context)
  {a slot}      the value with its indefinite article ("an account application", "a unit")
  {slot/pl}     the value made plural ("account applications")
  {NOUN}        the environment's label of a role, in capitals: {CASE} is "appointment" in a clinic,
                {CASE/pl} "appointments", {a CASE} "an appointment"
  [one|two]     one of the alternatives, chosen by the rng ([text|] makes text optional)
  {their} {them} {they} {they_have} {they_are} {they_were} {have_they} {are_they} {do_they} {did_they}
                the person the request is about: "their", "them", ... when a staff member writes;
                "my", "me", "I", "I've", "I'm", "I was", "have I", ... when that person writes
  {us}          the business: "us" when a member of staff writes, "you" when the customer does
  {party}       that person, named in full the first time (staff voice) or "me" (their own voice)
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from awm.builder.naming import plural

# --- articles, plurals and counts --------------------------------------------------------------------

# Words spelled with a vowel but said with a consonant sound, and the other way round.
_A_BEFORE = ("uni", "use", "usu", "uti", "ure", "eu", "one", "once", "ewe", "u.s")
_AN_BEFORE = ("hour", "honest", "honor", "honour", "heir", "mri", "sms", "fbi", "html", "nda", "llc", "x-ray",
              "oem", "f-", "rma", "mba", "nhs", "hvac")


def indefinite(phrase: str) -> str:
    """'a' or 'an' for the phrase's first word, by its sound."""
    word = phrase.strip().lower()
    if word.startswith(_AN_BEFORE):
        return "an"
    if word.startswith(_A_BEFORE):
        return "a"
    return "an" if word[:1] in "aeiou" else "a"


def with_article(phrase: str) -> str:
    return f"{indefinite(phrase)} {phrase}"


def fix_articles(text: str) -> str:
    """Every 'a'/'an' before a word made right for its sound ("Cancel a appointment" -> "Cancel an appointment"),
    for text composed from labels; 'A'/'An' count as articles only where a sentence starts ("Plan A and B")."""
    text = re.sub(r"\b(?:a|an) (?=([A-Za-z][\w-]*))", lambda m: indefinite(m.group(1)) + " ", text)
    return re.sub(r"(^|[.!?] +)(?:A|An) (?=([A-Za-z][\w-]*))",
                  lambda m: m.group(1) + indefinite(m.group(2)).capitalize() + " ", text)


def count(n: int | float, noun: str) -> str:
    """'1 unit', '3 units', '1 dental procedure'."""
    number = int(n) if float(n) == int(n) else n
    return f"{number} {noun if number == 1 else plural(noun)}"


def money(x: float) -> str:
    return f"{x:.2f}"


def quote(text: str) -> str:
    return f"'{text}'"


# --- the template language ---------------------------------------------------------------------------


class T(str):
    """A slot value that is itself a template (rendered in the caller's context), not a literal."""


@dataclass(frozen=True)
class Voice:
    """Who writes the instruction: a staff member about a person, or that person about themself."""

    name: str  # "staff" | "self"
    pronouns: dict[str, str]


STAFF = Voice("staff", {"their": "their", "them": "them", "they": "they", "they_have": "they have",
                        "they_are": "they are", "they_were": "they were", "have_they": "have they",
                        "are_they": "are they", "do_they": "do they", "did_they": "did they", "theirs": "theirs",
                        "themselves": "themselves", "us": "us"})
SELF = Voice("self", {"their": "my", "them": "me", "they": "I", "they_have": "I've", "they_are": "I'm",
                      "they_were": "I was", "have_they": "have I", "are_they": "am I", "do_they": "do I",
                      "did_they": "did I", "theirs": "mine", "themselves": "myself", "us": "you"})

RELATIONS = ("partner", "child", "parent", "spouse", "colleague", "flatmate", "sibling")


def proxy(relation: str) -> Voice:
    """Someone writing for a relative or colleague: their introduction says who ("my partner, Ann Lee"), then the
    request speaks of that person in the third person."""
    return Voice("proxy", dict(STAFF.pronouns))


_TOKEN = re.compile(r"\{[^{}\[\]]+\}|\[|\]|\|")


class TemplateError(ValueError):
    """A template that does not parse, or names a slot its intent does not fill."""


@dataclass
class _Choice:
    options: list[list]  # each option: a list of parts (str literal, ("slot", spec), or _Choice)


@functools.lru_cache(maxsize=1 << 16)
def parse(template: str) -> list:
    """Parts of a template: literal strings, ('slot', spec) pairs and _Choice nodes. Cached, so the parts are
    shared by every caller: read them, never change them."""
    stack: list[list] = [[]]
    choices: list[_Choice] = []
    pos = 0
    for match in _TOKEN.finditer(template):
        if match.start() > pos:
            stack[-1].append(template[pos:match.start()])
        token = match.group(0)
        if token == "[":
            choice = _Choice([[]])
            stack[-1].append(choice)
            choices.append(choice)
            stack.append(choice.options[0])
        elif token == "|":
            if not choices:
                stack[-1].append("|")
            else:
                stack.pop()
                choices[-1].options.append([])
                stack.append(choices[-1].options[-1])
        elif token == "]":
            if not choices:
                raise TemplateError(f"unbalanced ']' in {template!r}")
            stack.pop()
            choices.pop()
        else:
            stack[-1].append(("slot", token[1:-1].strip()))
        pos = match.end()
    if choices:
        raise TemplateError(f"unbalanced '[' in {template!r}")
    if pos < len(template):
        stack[-1].append(template[pos:])
    return stack[0]


def slot_names(template: str) -> set[str]:
    """Every slot a template names (in every alternative), without articles and modifiers."""
    names = set()
    for spec in re.findall(r"\{([^{}\[\]]+)\}", template):
        names.add(_slot_key(spec)[1])
    return names


def _slot_key(spec: str) -> tuple[bool, str, str]:
    article = spec.startswith("a ") or spec.startswith("an ")
    name = spec.split(" ", 1)[1] if article else spec
    name, _, modifier = name.partition("/")
    return article, name.strip(), modifier.strip()


class Statuses(str):
    """Statuses as a slot's value ("pending, confirmed or shipped"). Before a role's label ("{their} {open}
    {CASE/pl}") they read as adjectives while each is one word; where one is several ("in draft", "checked in")
    the label comes first and they follow it: "their registrations that are in draft, submitted or under review",
    never "their in draft, submitted or under review registrations"."""

    @property
    def after_noun(self) -> bool:
        return " " in re.sub(r", | or ", "|", self)


@dataclass
class Context:
    """What a template is rendered with: slot values, the labels of roles, the voice, and the rng."""

    slots: dict[str, object]
    labels: dict[str, str]
    voice: Voice
    pick: Callable[[int], int]
    party_named: bool = False
    party_full: str | None = None

    def value(self, name: str) -> str:
        if name in self.voice.pronouns:
            return self.voice.pronouns[name]
        if name == "party":
            if self.voice.name == "self":
                return "me"
            if self.voice.name == "proxy":
                return "them"
            if not self.party_named and self.party_full:
                self.party_named = True
                return self.party_full
            return "them"
        if name.isupper() or (name[:1].isupper() and name.replace("_", "").isupper()):
            role = name.lower()
            if role not in self.labels:
                raise TemplateError(f"no label for role {role!r}")
            return self.labels[role]
        if name not in self.slots:
            raise TemplateError(f"slot {name!r} has no value")
        value = self.slots[name]
        if isinstance(value, T):
            return self.render(parse(value))
        return str(value)

    def render(self, parts: list) -> str:
        out = []
        skip = 0
        for n, part in enumerate(parts):
            if skip:
                skip -= 1
            elif isinstance(part, str):
                out.append(part)
            elif isinstance(part, _Choice):
                out.append(self.render(part.options[self.pick(len(part.options))]))
            elif (label := self._label_after(parts, n)) is not None:  # "{open} {CASE/pl}": the label first
                noun, plural_noun, statuses = label
                out.append(f"{noun} that {'are' if plural_noun else 'is'} {statuses}")
                skip = 2
            else:
                out.append(self._slot(part[1]))
        return "".join(out)

    def _slot(self, spec: str) -> str:
        article, name, modifier = _slot_key(spec)
        text = self.value(name)
        if modifier == "pl":
            text = plural(text)
        elif modifier and modifier != "cap":
            raise TemplateError(f"unknown modifier {modifier!r} in {{{spec}}}")
        text = with_article(text) if article else text
        return capitalise(text) if modifier == "cap" else text

    def _label_after(self, parts: list, n: int) -> tuple[str, bool, Statuses] | None:
        """(the label, whether plural, the statuses) where part `n` is a slot of statuses that must follow the noun
        (Statuses.after_noun) and a role's label comes next, or None."""
        article, name, modifier = _slot_key(parts[n][1])
        value = self.slots.get(name)
        if article or modifier or not isinstance(value, Statuses) or not value.after_noun or n + 2 >= len(parts):
            return None
        gap, label = parts[n + 1], parts[n + 2]
        if gap != " " or not isinstance(label, tuple) or label[0] != "slot":
            return None
        l_article, l_name, l_modifier = _slot_key(label[1])
        if l_article or not l_name.isupper() or l_modifier not in ("", "pl"):
            return None
        return self._slot(label[1]), l_modifier == "pl", value


# Phrases a core clause may say in other words: each becomes a choice when the clause is realised ("tell me the
# new total" -> "let me know the updated total"). Applied to a template's own words, never to its slots.
SYNONYMS: tuple[tuple[str, str], ...] = (
    (r"\btell me the\b", "[tell me|let me know|give me] the"),
    (r"\btell me (how|what|who|when|which|its)\b", r"[tell me|let me know] \1"),
    (r"\bthe new total\b", "the [new|updated|resulting] total"),
    (r"\badd the note\b", "[add|attach] the note"),
    (r"\band note\b", "and [note|record]"),
    (r"\bwith the note\b", "with the [note|remark]"),
    (r"\badd a note saying\b", "[add a note saying|add a note that says]"),  # "leave a note reading X to it": no
    (r"\bright away\b", "[right away|straight away|immediately]"),
    (r"(?<!\bno )\bmore than\b", "[more than|over]"),  # "no more than" stays: "no over" is not English
    (r"\bevery one of\b", "[every one|each one|all] of"),
    (r"\bopen a new\b", "[open|create|set up] a new"),
    (r"\bat the same time\b", "at the same [time|hour]"),
    (r"; otherwise\b", "[; otherwise|; if not,]"),
    (r"\bif it doesn't\b", "[if it doesn't|if not]"),
    (r"\bjust tell me\b", "[just tell me|simply tell me|tell me]"),
    (r"\bwith the reason\b", "[with the reason|giving the reason]"),
    (r"\bstraight after\b", "[straight after|right after that]"),
    (r"\bcurrent status\b", "[current status|status right now]"),
    (r"\bas well\b", "[as well|too]"),
    (r"\bfor them\b", "for [them|that person]"),
    (r"\band then\b", "[and then|and after that|then]"),
    (r"\bmake sure\b", "[make sure|ensure]"),
    (r"\bcheck whether\b", "[check whether|find out whether|see if]"),
    (r"\bwhat it costs now\b", "[what it costs now|its price now]"),
    (r"\bthe amount\b", "the [amount|sum]"),
    (r"\bhow much it was\b", "[how much it was|the amount]"),
    (r"\bleave it alone\b", "[leave it alone|change nothing]"),
)
_SLOT_OR_CHOICE = re.compile(r"(\{[^{}]*\}|\[[^\[\]]*\])")
_SYNONYM_PATTERNS = tuple((re.compile(pattern), replacement) for pattern, replacement in SYNONYMS)


@functools.lru_cache(maxsize=1 << 16)
def vary(template: str) -> str:
    """The template with its stock phrases turned into choices of wording (slots and choices left as they are).
    Cached: the same few thousand templates are varied for every task of every world."""
    parts = _SLOT_OR_CHOICE.split(template)
    for i in range(0, len(parts), 2):
        for pattern, replacement in _SYNONYM_PATTERNS:
            parts[i] = pattern.sub(replacement, parts[i])
    return "".join(parts)


def tidy(text: str) -> str:
    """Collapse the spaces an empty alternative leaves, and spaces before punctuation."""
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r" ([,.;:?!)])", r"\1", text)
    text = re.sub(r"\( ", "(", text)
    return text


def capitalise(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def lower_first(text: str) -> str:
    """Lower the first letter of a sentence that goes after a connector ("Also, can you ..."), unless it
    starts a name, a code or 'I'."""
    first = text.split(" ", 1)[0]
    if first.rstrip(",:") in _FRAME_WORDS:
        return text[0].lower() + text[1:]
    return text


# --- voices, frames, introductions and closings --------------------------------------------------------

# A frame turns a core clause into a sentence: {do} an imperative clause, {ask} a question clause.
ACTION_FRAMES = {
    "staff": (
        "{Do}.", "Please {do}.", "Can you {do}?", "Could you {do}?", "Would you {do}, please?",
        "I need you to {do}.", "I'd like you to {do}.", "{Do}, please.", "Go ahead and {do}.",
        "When you have a moment, please {do}.", "Quick request: {do}.", "Next on the list: {do}.",
        "Could you please {do}?", "I'd appreciate it if you could {do}.", "Please make sure to {do}.",
        "Can you take care of this for me: {do}?", "Would you mind taking care of this: {do}?",
        "Before the end of the day, please {do}.", "One for you: {do}.", "Need your help here: {do}.",
        "It would help a lot if you could {do}.", "As soon as you can, {do}.",
        "Whenever you're free, please {do}.", "Kindly {do}.", "If it's not too much trouble, {do}.",
        "Top priority for this morning: {do}.", "Would you be so kind as to {do}?",
    ),
    "self": (
        "Please {do}.", "Can you {do}?", "Could you {do}?", "I'd like you to {do}.", "I need you to {do}.",
        "Would you be able to {do}?", "I was hoping you could {do}.", "Could you please {do}?",
        "I'd be grateful if you could {do}.", "Is it possible to {do}?", "I'm writing to ask you to {do}.",
        "Could you help me with this: please {do}.", "{Do}, please.", "Would you kindly {do}?",
    ),
}
# Frames that take any clause, for a core clause that does not start with a verb ("if ...", "on ...").
SENTENCE_FRAMES = {
    "staff": ("{Do}.", "Quick request: {do}.", "Next on the list: {do}.", "One for you: {do}.",
              "Need your help here: {do}.", "Here's what I need: {do}.", "Task for today: {do}."),
    "self": ("{Do}.", "Here's what I'd like: {do}.", "My request is this: {do}.", "{Do}, please."),
}
# A clause starting with one of these is not an imperative verb phrase.
_NOT_A_VERB = {"if", "unless", "on", "for", "once", "when", "whichever", "whoever", "in", "at", "from", "after",
               "before", "while", "since", "as", "should", "with"}
QUESTION_FRAMES = {
    "staff": (
        "{Ask}?", "Quick question: {ask}?", "Can you check something for me: {ask}?",
        "I need to know this: {ask}?", "Could you look this up: {ask}?", "Help me out here: {ask}?",
        "For a report I'm writing: {ask}?", "Can you find out for me: {ask}?", "One question: {ask}?",
        "I'm trying to work something out: {ask}?", "Do you happen to know: {ask}?", "Please check: {ask}?",
        "Settle a debate for me: {ask}?", "Before my meeting, {ask}?", "Could you dig this up: {ask}?",
        "Mind looking something up: {ask}?", "Out of interest, {ask}?",
    ),
    "self": (
        "{Ask}?", "I'd like to know: {ask}?", "Quick question: {ask}?", "Could you tell me: {ask}?",
        "I've been wondering: {ask}?", "Can you check for me: {ask}?", "Sorry to bother you, but {ask}?",
    ),
}
# Introductions name the person the request is about; the core clause then says {their}, {them}.
STAFF_INTROS = (
    "{party} called [earlier|this morning|a few minutes ago|just now].",
    "I [just got off|have just come off|was just on] the [phone|call] with {party}.",
    "{party} [emailed us|sent us an email|wrote to us].",
    "[This one|The next one|This request] is for {party}.",
    "We [heard|got a message|had a note|had word] from {party}.",
    "{party} [asked for help|needs a hand|got in touch].",
    "This is [regarding|in regard to|with regard to] {party}.",
    "This [concerns|relates to|is about] {party}.",
    "{party} [came in|stopped by] [earlier|today|this morning].",
    "Here is [a request|a query|an ask] from {party}.",
    "I'm [writing|getting in touch|reaching out] on behalf of {party}.",
    "{party} left [a voicemail|a message on the machine|us a voicemail].",
    "{party} rang the office [first thing|late yesterday|during lunch].",
    "A message came in from {party} [overnight|over the weekend|late last night].",
    "{party} is waiting [on hold|in the lobby|for a call back].",
    "I'm following up [for|on behalf of|on a call from] {party}.",
    "{party} filled in the [contact|online|enquiry] form.",
    "{party} sent [a letter|us a letter] [by post|last week|the other day].",
    "[Our colleague at the desk|The front desk|A colleague] passed on a request from {party}.",
    "{party} [spoke to|chatted with] me [this afternoon|a moment ago].",
)
# How a customer opens their own message: the greetings and the wordings multiply, so that no opening is one a
# reader meets in more than about 0.5% of the tasks (the realism measures: benchmarks/bench_realism.py).
_GREETING = "[Hi|Hello|Hi there|Good morning|Good afternoon|Good evening]"
_SELF_INTROS_BY_IDENT = {
    "name_email": (f"{_GREETING}, this is {{name}} ({{email}}).",
                   f"{_GREETING}, my name is {{name}} and my email is {{email}}.",
                   "[Dear support|Dear team|To the support team|Hello team|Dear customer service], I'm {name}, reachable at "
                   "{email}.",
                   "[Evening|Morning|Afternoon|Hello|Hi|Hi there], {name} here, on {email}.",
                   f"{_GREETING}, I'm {{name}}, {{email}}.",
                   "{name} here ([email: |email |email address: |account: |]{email}).",
                   "{name} here, [email|my email is|reachable at|you can reach me at|contact email] {email}.",
                   f"{_GREETING}, I'm {{name}} (email: {{email}}).", f"{_GREETING}, {{name}} writing, {{email}}.",
                   f"{_GREETING}, I'm {{name}} and my account email is {{email}}.",
                   "[It's|This is] {name}, [email|account] {email}."),
    "email": (f"{_GREETING}, my email address is {{email}}.",
              "[Hello|Hi|Good morning], I'm the [customer|account holder] at {email}.",
              f"{_GREETING}, [writing|I'm writing|messaging you] from {{email}}.",
              f"{_GREETING}, this is the account holder for {{email}}.",
              f"{_GREETING}, I have an account with you under {{email}}."),
    "name": ("[Hi|Hello|Hi there|Good morning|Good afternoon], this is {name}.", "[Hello|Hi|Good morning|Good afternoon], my name is {name}.",
             "{name} here[|, writing in|, a customer of yours|, getting in touch|, with a request].",
             "[Good afternoon|Good morning|Good evening|Hi|Hello], I'm {name}.",
             "Dear [team|support|support team], {name} writing.", "[Hey|Hi|Hello], it's {name}."),
}
_PROXY_INTROS_BY_IDENT = {
    "name_email": ("Hi, I'm writing for my {relation}, {name} ({email}).",
                   "Hello, this is about my {relation} {name}, whose email is {email}.",
                   "Hi there. I'm contacting you on behalf of my {relation}, {name} ({email})."),
    "email": ("Hi, I'm asking on behalf of my {relation}, whose email address is {email}.",
              "Hello, my {relation} has an account with you under {email}."),
    "name": ("Hello, I'm calling for my {relation}, {name}.", "Hi, this is about my {relation}, {name}."),
}
# Words a sentence may start with that a connector lowers ("Also, please ...").
_FRAME_WORDS = {"Please", "Can", "Could", "Would", "Go", "When", "Quick", "Next", "One", "Need", "It", "As",
                "Before", "Is", "Sorry", "What", "Which", "How", "Who", "Where", "Do", "Does", "Did",
                "Has", "Have", "Are", "Help", "For"}


def frames(mood: str, voice: str, clause: str = "") -> tuple[str, ...]:
    """The frames a core clause can go into: any action frame for a verb phrase, the sentence frames for a
    clause that starts otherwise, the question frames for a question. After a lead sentence ("Their latest order
    needs an owner. ...") no frame that opens with a label ("Next on the list: ...", "Quick question: ...", `_LABELLED`):
    the request has begun, and a label there reads as the start of another one."""
    voice = "staff" if voice == "staff" else "self"
    if mood != "do":
        found = QUESTION_FRAMES[voice]
    else:
        found = SENTENCE_FRAMES[voice] if first_words(clause) & _NOT_A_VERB else ACTION_FRAMES[voice]
    if " || " in clause:
        found = tuple(f for f in found if not _LABELLED.match(f))
        # a lead sentence in the first person ("I am reconciling X.", a customer's "{they_are} moving": "I'm
        # moving") is not followed by a frame that starts with "I" too ("I need to know this: ...")
        opening = _opening(clause.partition(" || ")[0])
        if opening & _FIRST_PERSON or (voice == "self" and any(w.startswith("{they") for w in opening)):
            found = tuple(f for f in found if f.split(" ", 1)[0].lower() not in _FIRST_PERSON)
    return found


_FIRST_PERSON = {"i", "i'm", "i'd", "i've", "i'll"}


# frames that open with a label announcing a request (or one more of a list): "Next on the list: {do}."
_LABELLED = re.compile(r"^(?:Quick request|Next on the list|One for you|Task for today|Top priority for this morning"
                       r"|Quick question|One question|Settle a debate for me|For a report I'm writing): ")


def first_words(clause: str) -> set[str]:
    """The words a clause's core (after any lead sentence) can start with, one per alternative."""
    return _opening(clause.rpartition(" || ")[2])


def _opening(text: str) -> set[str]:
    """The words a template can start with, one per alternative of a leading choice."""
    text = text.strip()
    if text.startswith("["):
        options = text[1:text.index("]")].split("|")
        return {o.split(" ", 1)[0].lower() for o in options if o}
    return {text.split(" ", 1)[0].lower()}


def self_intros(ident: str) -> tuple[str, ...]:
    return _SELF_INTROS_BY_IDENT[ident]


def voice_named(name: str, relation: str = "partner") -> Voice:
    return {"staff": STAFF, "self": SELF}.get(name) or proxy(relation)


def apply_frame(frame: str, clause: str) -> str:
    """Put a rendered core clause into a frame ("Can you {do}?")."""
    if "{Do}" in frame or "{Ask}" in frame:
        return frame.replace("{Do}", capitalise(clause)).replace("{Ask}", capitalise(clause))
    return frame.replace("{do}", lower_first(clause)).replace("{ask}", lower_first(clause))


# --- what an intent hands the realiser ---------------------------------------------------------------


@dataclass
class PartyRef:
    """How the person a request is about is identified: by name and email, email alone, or name alone."""

    name: str
    email: str
    ident: str  # "name_email" | "email" | "name"
    id: int | None = None  # their row's (Task.party_id, when they write the request themselves)

    @property
    def full(self) -> str:
        if self.ident == "name_email":
            return f"{self.name} ({self.email})"
        if self.ident == "email":
            return f"the {{PARTY}} with the email address {self.email}"
        return self.name

    @property
    def query(self) -> str:
        """What a search for this person looks up: the email when the instruction gives it."""
        return self.name if self.ident == "name" else self.email


@dataclass
class Say:
    """What one intent asks, ready to be realised: its core clauses and their values."""

    mood: str  # "do" (an action, possibly with a question in it) | "ask" (a question)
    # Core clause templates, one of which is chosen: an imperative ("cancel {case}") or a question ("what is
    # ..."), without final punctuation; "lead || core" puts a sentence of context before it.
    clauses: tuple[str, ...]
    slots: dict[str, object] = field(default_factory=dict)
    party: PartyRef | None = None
    voices: tuple[str, ...] = ("staff",)  # the voices it may be written in

    def needs_intro(self, clause: str, voice: str) -> bool:
        if self.party is None:
            return False
        return voice != "staff" or "{party}" not in clause


def _context(say: Say, voice: str, labels: dict[str, str], pick: Callable[[int], int],
             relation: str = "partner") -> Context:
    slots = dict(say.slots)
    slots.setdefault("relation", relation)
    if say.party is not None:
        slots.setdefault("name", say.party.name)
        slots.setdefault("email", say.party.email)
    full = None
    if say.party is not None:
        full = Context({}, labels, STAFF, pick).render(parse(say.party.full))
    return Context(slots, labels, voice_named(voice, relation), pick, party_full=full)


def intro_options(say: Say, voice: str) -> tuple[str, ...]:
    if voice == "staff":
        return STAFF_INTROS
    return (self_intros if voice == "self" else _PROXY_INTROS_BY_IDENT.__getitem__)(say.party.ident)


def render_request(say: Say, clause: str, voice: str, labels: dict[str, str], pick: Callable[[int], int],
                   frame: str, intro: str | None = None, context: str | None = None,
                   relation: str = "partner") -> str:
    """The whole instruction for one request: introduction (when the clause needs one), a sentence of context
    (when given) and the framed clause."""
    ctx = _context(say, voice, labels, pick, relation)
    parts = []
    if say.needs_intro(clause, voice):
        if intro is None:
            options = tuple(o for o in intro_options(say, voice)
                            if not announced_twice(o, frame) and not announced_twice(o, context or ""))
            intro = options[pick(len(options))]
        parts.append(capitalise(tidy(ctx.render(parse(intro)))))
    if context:
        parts.append(capitalise(tidy(ctx.render(parse(context)))))
    lead, _, core = clause.rpartition(" || ")
    if lead:
        parts.append(capitalise(tidy(ctx.render(parse(vary(lead)))) + "."))
    parts.append(apply_frame(frame, tidy(ctx.render(parse(vary(core))))))
    return tidy(" ".join(parts))


# An introduction that announces the request ("This one is for ...", "Here is a query from ...") is not followed by a
# frame that announces it again ("Next on the list: ..."), nor one that says "writing" by one that says it again.
_ANNOUNCING_LABELS = "|".join(("Quick request", "Next on the list", "One for you", "Task for today",
                               "Here's what I need", "Need your help here", "Top priority for this morning"))
_ANNOUNCING_INTRO = re.compile(r"\b(?:is for|a request|a query|an ask)\b")
_ANNOUNCING_FRAME = re.compile(rf"^(?:{_ANNOUNCING_LABELS}):")
_TWICE = re.compile(rf"\b(?:is for|a request from|a query from|an ask from)\b[^.?!]*[.?!] (?:{_ANNOUNCING_LABELS}):"
                    r"|\bwriting\b[^?!]*?[.?!] I'm writing\b")


@functools.lru_cache(maxsize=1 << 12)
def announced_twice(intro: str, frame: str) -> bool:
    """Whether an introduction and a frame would say the same thing twice in a row."""
    return bool(_ANNOUNCING_INTRO.search(intro) and _ANNOUNCING_FRAME.match(frame)) or (
        "writing" in intro and "writing" in frame)


# How a second, independent request follows the first: {second} is its core clause.
CONNECTORS = {
    "do": ("Also, {second}.", "Separately, please {second}.", "One more thing: {second}.", "And please {second}.",
           "After that, {second}.", "While you're at it, {second}.", "Then {second}.", "On top of that, {second}.",
           "Besides that, could you {second}?", "When that's done, {second}.", "Also, can you {second}?"),
    "ask": ("Also, {second}?", "One more thing: {second}?", "And {second}?", "Separately, {second}?",
            "Besides that, {second}?", "Another question: {second}?", "While you're at it, {second}?"),
}


def connectors(mood: str, clause: str) -> tuple[str, ...]:
    """The connectors a second request's core clause can follow: those that end in a verb ("could you",
    "please") only for a clause that starts with one ("could you if the invoice is overdue, ..." is not English)."""
    options = CONNECTORS[mood]
    if mood != "do" or not first_words(clause) & _NOT_A_VERB:
        return options
    return tuple(c for c in options if not _BEFORE_A_VERB.search(c.replace("{second}", "")))


def same_party(first: Say, second: Say) -> bool:
    """About the same person, named the same way (the second request looks them up as the first names them)."""
    return first.party is not None and second.party is not None and first.party.query == second.party.query


def compatible(first: Say, second: Say) -> tuple[str, ...]:
    """The voices two requests can be asked in together (none: they cannot be joined). The second must not
    need an introduction of its own: it is about the same person, about no one, or names them itself."""
    voices = tuple(v for v in first.voices if v in second.voices)
    if second.party is None or same_party(first, second):
        return voices
    if first.party is None and "self" not in second.voices:
        return ()
    if all("{party}" in c for c in second.clauses) and all("{their}" not in c.split("{party}")[0]
                                                          for c in second.clauses):
        return tuple(v for v in voices if v == "staff")
    return ()


class Realiser:
    """Chooses and renders; every choice comes from one seeded rng, so a seed gives the same text. `context` holds
    sentences of context a request may open with (a category's own, then everyone's), by voice; `clashes` says
    whether one contradicts the request's words (awm.builder.intents.context.clashes), which then go without it;
    `relations`, who a person writing for someone else may be to them (a colleague only, where the customers are
    organisations)."""

    def __init__(self, labels: dict[str, str], rng: random.Random, context: dict[str, tuple[str, ...]] | None = None,
                 clashes: Callable[[str, str], bool] | None = None, relations: tuple[str, ...] = RELATIONS):
        self.labels = labels
        self.relations = relations
        self.rng = rng
        self.context = context or {}
        self.clashes = clashes or (lambda sentence, clause: False)
        self.frames_used: set[str] = set()

    def pick(self, n: int) -> int:
        return self.rng.randrange(n)

    def choose(self, options: tuple[str, ...]) -> str:
        """One option, preferring one not used yet by this environment's earlier tasks."""
        fresh = [o for o in options if o not in self.frames_used] or list(options)
        chosen = fresh[self.pick(len(fresh))]
        self.frames_used.add(chosen)
        return chosen

    def voice(self, voices: tuple[str, ...]) -> str:
        """The writer: a staff member, or (where the request allows it) the person themself, half the time; a request
        only the person may make (acting for someone else as their representative) is always theirs."""
        if "self" not in voices or "staff" not in voices:
            return voices[self.pick(len(voices))]
        return ("staff", "self")[self.pick(2)]

    def _context_sentence(self, voice: str, say: Say) -> str | None:
        pool = self.context.get("staff" if voice == "staff" else "self", ())
        if not pool or self.rng.random() >= CONTEXT_SHARE:
            return None
        return self.choose(pool)

    def instruction(self, says: list[Say]) -> str:
        """One request, or two independent ones joined as a person would ask them."""
        return self.request(says)[0]

    def request(self, says: list[Say]) -> tuple[str, str]:
        """The instruction of `instruction`, and the voice it is written in: "staff" (the acting staff member
        writes) or "self" (the person it is about writes, in their own words)."""
        first = says[0]
        voices = first.voices if len(says) == 1 else compatible(first, says[1])
        if not voices:
            raise TemplateError("these requests cannot be asked together")
        voice = self.voice(voices)
        relation = self.relations[self.pick(len(self.relations))]
        clause = first.clauses[self.pick(len(first.clauses))]
        context = self._context_sentence(voice, first)
        # after a sentence about the person or the matter, "Next on the list: ..." reads as one item of a list
        preceded = bool(context) or first.needs_intro(clause, voice)
        frame = self.choose(tuple(f for f in frames(first.mood, voice, clause) if not announced_twice(context or "", f)
                                  and not (preceded and f.startswith("Next on the list:"))))
        if len(says) == 1:
            return self._without_clash(render_request(first, clause, voice, self.labels, self.pick, frame,
                                                      context=context, relation=relation), context), voice
        second = says[1]
        text = render_request(first, clause, voice, self.labels, self.pick, frame, context=context,
                              relation=relation)
        same = same_party(first, second)
        options = [c for c in second.clauses if " || " not in c and (not second.needs_intro(c, voice) or same)] or [
            c for c in second.clauses if " || " not in c]
        clause2 = options[self.pick(len(options))]
        ctx = _context(second, voice, self.labels, self.pick, relation)
        ctx.party_named = same
        core2 = tidy(ctx.render(parse(vary(clause2))))
        options = connectors(second.mood, clause2)
        connector = options[self.pick(len(options))]
        return self._without_clash(tidy(text + " " + connector.replace("{second}", core2)), context), voice

    def _without_clash(self, text: str, context: str | None) -> str:
        """The instruction without its sentence of context where the request's words contradict it ("Our budget is
        tight" before "the priciest", "It's my first time" before "my most recent order")."""
        if context and context in text and self.clashes(context, text.replace(context, " ")):
            return tidy(text.replace(context, " "))
        return text


CONTEXT_SHARE = 0.2  # how often a request that has sentences of context for its voice opens with one


# --- checking the English ------------------------------------------------------------------------------

_COUNT_NOUNS = ("unit", "point", "day", "week", "month", "hour", "item", "time")
_PLURAL_AFTER_ONE = re.compile(r"(?<![\d.,])\b1 ([a-z]+s)\b")
_SINGULAR_AFTER_MANY = re.compile(r"(?<![\d.,])\b([2-9]|[1-9]\d+) (" + "|".join(_COUNT_NOUNS) + r")\b")
_A_VOWEL = re.compile(r"(?:^|(?<=[.?!:] )|(?<=\())(A)\s+([A-Za-z][\w-]*)|\b(a) ([A-Za-z][\w-]*)")
_DOUBLED = re.compile(r"(?<!-)\b(\w+) \1\b", re.IGNORECASE)  # not a hyphenated name's end: "Hyper-Heat heat pump"
_SUBJECT_ME = re.compile(r"(^|[.!?:] )(Me|me) (asked|called|wants|has|is|was|needs|would|will)\b")
_FINE_DOUBLES = {"that", "had", "is"}
# What wants a verb next: a clause starting "if ..." or "unless ..." cannot follow it.
_BEFORE_A_VERB = re.compile(r"\b(?:(?:can|could|would) you(?: please| kindly)?|please)\s*[.?]?$", re.IGNORECASE)
_VERB_WANTED = re.compile(r"\b(?:(?:can|could|would) you(?: please| kindly)?|please) "
                          r"(?:if|unless|once|when|whichever|whoever)\b", re.IGNORECASE)


def grammar_faults(text: str) -> list[str]:
    """What is wrong with a realised instruction: template holes, articles, counts, punctuation, casing."""
    faults = []
    if re.search(r"[{}\[\]]", text):
        faults.append("unfilled template syntax")
    if "  " in text or text != text.strip():
        faults.append("stray spaces")
    if re.search(r" [,.;:?!]", text):
        faults.append("space before punctuation")
    if re.search(r"[,;:]\s*[,.;:?!]|[.?!][,;:]|\.\.(?!\.)|\?\.|\.\?|!\.", text.replace("...", "")):
        faults.append("doubled punctuation")
    if not re.search(r"[.?!]['\")]?$", text):
        faults.append("no final punctuation")
    if text[:1].islower():
        faults.append("starts in lower case")
    for match in re.finditer(r"[.?!] +([a-z])", text):
        if not _inside_quote(text, match.start()):
            faults.append(f"sentence starts in lower case near {text[max(0, match.start() - 20):match.end() + 10]!r}")
    for match in _A_VOWEL.finditer(text):
        word = match.group(2) or match.group(4)
        if indefinite(word) == "an" and not word.isupper():
            faults.append(f"'a {word}'")
    for word in re.findall(r"\b[Aa]n ([A-Za-z][\w-]*)", text):
        if indefinite(word) == "a" and not word.isupper():
            faults.append(f"'an {word}'")
    for word in _PLURAL_AFTER_ONE.findall(text):
        if not word.endswith(("ss", "us", "is")):
            faults.append(f"'1 {word}'")
    for number, noun in _SINGULAR_AFTER_MANY.findall(text):
        faults.append(f"'{number} {noun}'")
    for match in _DOUBLED.finditer(text):  # a quoted name may double a word: 'Bora Bora Bungalow Escape'
        word, second = match.group(1), match.group(0).split(" ")[1]
        if word.islower() and second.istitle():  # a verb before a person's name: "mark Mark York as inactive"
            continue
        if word.lower() not in _FINE_DOUBLES and not word.isdigit() and not _inside_quote(text, match.end()):
            faults.append(f"doubled word {word!r}")
    if _TWICE.search(text):
        faults.append("the request announced twice")
    if _SUBJECT_ME.search(text):
        faults.append("'me' as a subject")
    if re.search(r"\b(a|an|the) (a|an|the)\b", text, re.IGNORECASE):
        faults.append("two articles")
    if re.search(r"\b(their|my|our|your) (the|a|an)\b", text):
        faults.append("article after a possessive")
    if re.search(r"\b(their|my|our|your)(?: (?:as|and|or|that|which|is|are|was|were)\b|[,.;:?!)])", text):
        faults.append("a possessive that owns nothing")
    for match in re.finditer(r"\b([a-z]+) (?:[a-z]+ )?(?:that|which) (?:is|are) (?:currently |still |now )?\1\b", text):
        if not _inside_quote(text, match.start()):
            faults.append(f"a status the label already says: {match.group(0)!r}")
    if re.search(r"\bi\b", text):
        faults.append("lower-case 'i'")
    for match in _I_AGREES_NOT.finditer(text):
        if not _inside_quote(text, match.start()):
            faults.append(f"a verb of another person after 'I': {match.group(0)!r}")
    for match in _TELL_KNOW.finditer(text):
        if not _inside_quote(text, match.start()):
            faults.append(f"'tell' with 'know', or 'let' without it: {match.group(0)!r}")
    if re.search(r"\bI(?:'ve| have)? (?:asked|told) us\b|\bmy [^.?!]*\bstaying with us\b", text):
        faults.append("the customer calls the business 'us'")
    for match in _VERB_WANTED.finditer(text):
        if not _inside_quote(text, match.start()):
            faults.append(f"no verb after {match.group(0)!r}")
    for match in re.finditer(r"\bthat (?:included|contained) ('[^']+')", text):
        if text.count(match.group(1)) > 1:
            faults.append(f"a case named by an item the request names anyway: {match.group(1)}")
    if text.count("(") != text.count(")"):
        faults.append("unbalanced parentheses")
    if len(re.findall(r"(?<![A-Za-z])'|'(?![A-Za-z])", text)) % 2:
        faults.append("unbalanced quotes")
    return faults


# "I are sending", "I wants": a template's "{they} are" written in the first person
_I_AGREES_NOT = re.compile(r"\bI (?:are|is|has|does|doesn't|isn't|hasn't|aren't|wants|needs|likes|wishes|plans|hopes|"
                           r"thinks|prefers)\b")
# "tell each customer know", "let each customer by email": two ways of saying it run together
_TELL_KNOW = re.compile(r"\btell (?:each|every|the|them|him|her)(?: [a-z]+){0,2} know\b"
                        r"|\blet (?:each|every) (?!know\b)[a-z]+(?: (?!know\b)[a-z]+)? by\b")


def _inside_quote(text: str, pos: int) -> bool:
    before = text[:pos]
    return len(re.findall(r"(?<![A-Za-z])'", before)) > len(re.findall(r"'(?![A-Za-z])", before))


# --- enumerating every realisation, for the tests -----------------------------------------------------


def alternatives(template: str) -> int:
    """How many texts the choices of a template can produce (its slots' own choices not counted)."""

    def size(parts: list) -> int:
        total = 1
        for part in parts:
            if isinstance(part, _Choice):
                total *= sum(size(option) for option in part.options)
        return total

    return size(parse(vary(template)))


def one_choice_at_a_time(render: Callable[[Callable[[int], int]], str], points: int = 24,
                         options: int = 4) -> list[str]:
    """`render(pick)` for pickers that take the first alternative everywhere but at one choice point, where they
    take each other alternative in turn: every alternative of a template is rendered at least once. A point the
    rendering never reaches, and an alternative past the last one a point has, would render a text already
    rendered: they are skipped."""
    out = []
    for point in range(points):
        for option in range(1, options):
            seen: list[int] = []

            def pick(n: int, point=point, option=option, seen=seen) -> int:
                seen.append(n)
                return min(option, n - 1) if len(seen) - 1 == point else 0

            text = render(pick)
            if len(seen) <= point:  # the choices stop before this point: so do they at every later one
                return out
            out.append(text)
            if option >= seen[point] - 1:  # this point's last alternative
                break
    return out


def every_choice(limit: int = 512) -> Iterator[Callable[[int], int]]:
    """Pickers that walk the choices of a rendering in turn: all of them for small templates, and a sample
    covering every alternative at least once for large ones."""
    for first in itertools.count():
        if first >= limit:
            return
        state = {"n": first}

        def pick(n: int, state=state) -> int:
            k = state["n"] % n
            state["n"] //= n
            return k

        yield pick
