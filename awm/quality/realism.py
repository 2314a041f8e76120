"""Whether tasks read like requests a real user would send, measured on the text a trainer sees.

  multi-request share    tasks that join two requests (two intents) in one instruction
  top sentence share     the share of tasks containing the most frequent sentence, counted once per task;
                         a stock sentence of context or a closing remark ("Thanks.", "Two things.") shows
                         here first (a request's own sentences name values and rarely repeat)
  user-goal share        tasks written in the first person of the world's end user (a customer, a patient,
                         a member), recognised by the introductions of awm/builder/phrasing.py
  contradictions         tasks whose sentences state two ways the request arrived ("Ann Lee sent a letter by post.
                         It arrived via the chat widget."), or whose sentence of context the request's own words
                         contradict ("Our household budget is tight this month." before "the priciest";
                         awm.builder.intents.context.CLASHES)
  authority requests     tasks in which a customer asks, in their own voice, for something on another person's
                         behalf as that person's authorised representative (awm.builder.intents.people
                         AUTHORITY_INTENTS): carried out where the world records the authority, refused where it
                         does not; counted as feasible and infeasible
  voice violations       tasks whose voice may not ask what they ask: someone writing for another person
                         (a partner, a child) in a task that is not a refusal, a customer acting for another
                         person in a task that is not one of the proven authority requests (the agent must find
                         the authority on the other person's record, or refuse), or a customer asking for a staff
                         operation (assigning a member of staff, changing stock or prices), in words or in
                         a tool: a customer's own request whose calls need a staff-only tool
                         (awm/builder/tools/audience.py; `needs_staff_tool`)

`realism` reports these for a list of `RealismText`; the tasks asset, the catalog and the tests share it.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import cache

from awm.builder.intents.context import CLASHES
from awm.builder.intents.people import AUTHORITY_INTENTS, AUTHORITY_PARTIAL
from awm.builder.phrasing import _PROXY_INTROS_BY_IDENT, _SELF_INTROS_BY_IDENT, RELATIONS
from awm.contracts import Task

_NAME = r"[A-Z][\w'.-]*(?: [A-Z][\w'.-]*)+"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
_SENTENCE = re.compile(r".+?(?:[.?!]+(?= |$)|$)")
# What a customer may not ask for: a named member of staff put on the work, stock counts, the prices of the
# catalogue (a preference such as "the same stylist as last time" is theirs to state).
STAFF_OPERATIONS = re.compile(
    r"(?i:\bassign\b[^.?!]{0,60}\bto\b|should handle it|to be handled by|"
    r"to the stock\b|\bstock (?:level|count)s?\b|\brestock|"
    r"\bunits? of [^.?!]{0,60} (?:to|from) (?:the )?(?:stock|inventory)|"
    r"\b(?:set|align|change|raise|lower|update) the price)|"
    r"\b(?:have|with|put) (?:[a-z]+ )?" + _NAME + r" (?:handle it|assigned|on it|looking after it)\b")

# What a customer writing in their own voice says to act for someone else: on their behalf, as their representative,
# guardian or delegate, for a relative, or about another person's affairs.
ON_BEHALF = re.compile(
    r"\bon (?:their|his|her) behalf\b|\bon behalf of\b|\bauthori[sz]ed representative\b|"
    r"\b(?:guardian|delegate|power of attorney)\b|\bI act for\b|\bI handle [^.?!]*'s affairs\b|"
    r"(?i:\b(?:for|of) my (?:" + "|".join(RELATIONS) + r")\b|\bmy (?:" + "|".join(RELATIONS) + r")'s\b)")


# How a sentence says the request reached the business: each channel by the words that state it.
CHANNELS = {
    "phone": re.compile(r"(?i)\b(?:called|rang|voicemail|waiting on hold|off the (?:phone|call)|on the phone|phoned)\b"),
    "email": re.compile(r"(?i)\b(?:emailed|sent us an email|wrote to us|overnight emails)\b"),
    "post": re.compile(r"(?i)\b(?:letter|by post)\b"),
    "web": re.compile(r"(?i)\b(?:web form|online form|contact form|enquiry form|chat widget|chatbot)\b"),
    "in person": re.compile(r"(?i)\b(?:(?:came in|stopped by) (?:earlier|today|this morning)|in the lobby|"
                            r"at the counter)\b"),
}


def channels(sentence: str) -> set[str]:
    """The channels a sentence says the request came by (quoted values aside)."""
    text = re.sub(r"(?<![A-Za-z])'.+?'(?![A-Za-z])", "''", sentence)
    return {name for name, pattern in CHANNELS.items() if pattern.search(text)}


def contradiction(instruction: str) -> str | None:
    """Two sentences of one instruction that state different channels, or a sentence of context that the request
    contradicts (awm.builder.intents.context.CLASHES: a tight budget and "the priciest"), or None."""
    said = [(s, channels(s)) for s in sentences(instruction)]
    stated = set().union(*(c for _, c in said)) if said else set()
    if len(stated) > 1:
        return " / ".join(s for s, c in said if c)
    for sentence, pattern in CLASHES.items():
        if sentence in instruction:
            rest = instruction.replace(sentence, " ")
            if (match := pattern.search(rest)) is not None:
                return f"{sentence} / {match.group(0)}"
    return None


def _template_regex(template: str) -> str:
    """An introduction template of awm/builder/phrasing.py as a regex: its slots as names, emails or relations, its
    choices as alternatives."""
    out, pos = [], 0
    for match in re.finditer(r"\{(\w+)\}|\[([^\[\]]*)\]", template):
        out.append(re.escape(template[pos:match.start()]))
        slot, choice = match.group(1), match.group(2)
        if slot:
            out.append({"name": _NAME, "email": _EMAIL, "relation": "(?:" + "|".join(RELATIONS) + ")"}.get(slot, ".+?"))
        else:
            out.append("(?:" + "|".join(re.escape(o) for o in choice.split("|")) + ")")
        pos = match.end()
    out.append(re.escape(template[pos:]))
    return "".join(out)


@cache
def _intro(voice: str) -> re.Pattern:
    table = _SELF_INTROS_BY_IDENT if voice == "self" else _PROXY_INTROS_BY_IDENT
    options = sorted({_template_regex(t) for pool in table.values() for t in pool}, key=len, reverse=True)
    return re.compile(r"(?:^|(?<=[.?!] ))(?:" + "|".join(options) + r")(?= |$)")


def voice_of(instruction: str) -> str:
    """Who writes the instruction: "proxy" (someone writing for another person), "self" (the end user about
    themself) or "staff" (a member of staff, or a request about no one in particular)."""
    if _intro("proxy").search(instruction):
        return "proxy"
    if _intro("self").search(instruction):
        return "self"
    return "staff"


def sentences(instruction: str) -> list[str]:
    """The instruction's sentences as written (ending at . ? or !; a quoted value's own stops are rare)."""
    return [s.strip() for s in _SENTENCE.findall(instruction) if s.strip()]


@dataclass(frozen=True)
class RealismText:
    """One task as the realism measures see it."""

    instruction: str
    intents: tuple[str, ...]
    refusal: bool = False  # every request of the task is one the business must refuse
    staff_tool: bool = False  # the customer writes it (Task.requester party) and it needs a staff-only tool


def needs_staff_tool(task: Task, staff_only: set[str] | frozenset[str]) -> bool:
    """Whether a request the customer writes in their own words needs one of the tools only staff may use
    (`staff_only`: ToolSpec.staff_only), in its reference solution or in the call its refusal is proven with."""
    calls = {c.tool for c in task.reference_solution} | {r.call.tool for r in task.refusals}
    return task.requester == "party" and bool(calls & staff_only)


def _unquoted(instruction: str) -> str:
    return re.sub(r"(?<![A-Za-z])'.+?'(?![A-Za-z])", "''", instruction)


def on_behalf(instruction: str) -> bool:
    """Whether the writer says they act for someone else (quoted values aside)."""
    return bool(ON_BEHALF.search(_unquoted(instruction)))


def authority_request(task: RealismText) -> bool:
    """One of the requests on another person's behalf whose authority the world records or refuses, proven."""
    return any(name in AUTHORITY_INTENTS or name == AUTHORITY_PARTIAL for name in task.intents)


def voice_violation(task: RealismText) -> str | None:
    """What is wrong with the task's voice, or None."""
    voice = voice_of(task.instruction)
    if task.staff_tool:
        return "a customer's own request needs a tool only staff may use"
    if voice == "proxy" and not task.refusal:
        return "acts for another person without a recorded authority"
    if voice == "self" and on_behalf(task.instruction) and not authority_request(task):
        return "a customer acts for another person outside a proven authority request"
    if authority_request(task) and voice != "self":
        return "a request for another person not in the customer's own voice"
    if voice in ("self", "proxy") and STAFF_OPERATIONS.search(_unquoted(task.instruction)):
        return "a customer asks for a staff operation"
    return None


def realism(tasks: list[RealismText]) -> dict:
    """The realism report of a corpus: multi-request share, the most frequent sentence and its share, the user-goal
    share and the voice violations (with up to five examples)."""
    n = len(tasks) or 1
    in_tasks = Counter(s for t in tasks for s in set(sentences(t.instruction)))
    top = in_tasks.most_common(1)[0] if in_tasks else ("", 0)
    voices = Counter(voice_of(t.instruction) for t in tasks)
    violations = [(t.instruction, why) for t in tasks if (why := voice_violation(t))]
    contradicting = [t.instruction for t in tasks if contradiction(t.instruction)]
    authority = [t for t in tasks if authority_request(t)]
    return {
        "tasks": len(tasks),
        "multi_request_share": round(sum(len(t.intents) > 1 for t in tasks) / n, 4),
        "top_sentence_share": round(top[1] / n, 4),
        "top_sentence": top[0][:200],
        "user_goal_share": round(voices["self"] / n, 4),
        "proxy_share": round(voices["proxy"] / n, 4),
        "authority_requests": len(authority),
        "authority_refusals": sum(t.refusal for t in authority),
        "voice_violations": len(violations),
        "voice_violation_examples": [f"{why}: {text[:200]}" for text, why in violations[:5]],
        "contradictions": len(contradicting),
        "contradiction_examples": [text[:200] for text in contradicting[:5]],
    }
