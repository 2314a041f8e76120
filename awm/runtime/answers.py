"""Typed answers: the `submit_answer` tool an episode offers when its task expects an answer.

A task that asks a question (or must be refused) publishes an answer schema (awm.contracts.AnswerSlot per
slot: its type, the closed set where one exists, whether it is the fact a refusal must give). The agent
answers once, through `submit_answer`, with one value per slot. The values are read here, in trusted code,
and normalised (a count from 3, "3" or "three"; an amount from 1234.5 or "$1,234.50"; a date from
"2025-06-04" or "June 4, 2025"; a status from any case or separator of one of its values): a value that is
none of these is refused with a tool error naming the slot, and the agent may submit again; a submission
that was accepted is final, and a second is refused. The task's verifier then reads the submission as a
structured answer, slot by slot: no prose heuristics judge it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from awm.builder.templates.verifier_prelude import iso_dates, number_words, numbers_in, words
from awm.contracts import AnswerSlot, Task
from awm.runtime.tools import tool_error

SUBMIT_ANSWER = "submit_answer"
MAX_NAME_CHARS = 200
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

_DESCRIPTIONS = {
    "count": "a whole number",
    "amount": "an amount, to {precision} decimal places",
    "date": "a date, YYYY-MM-DD",
    "status": "one of the listed values",
    "name": "a name, as the records give it",
    "boolean": "true or false",
    "rule": "the business rule that refuses the request: the error code the refusing tool returns",
}


def _slot_schema(slot: AnswerSlot) -> dict[str, Any]:
    what = _DESCRIPTIONS[slot.type].format(precision=slot.precision)
    if slot.refusal:
        what += ": the fact that blocks the request, as the tools report it"
    schema: dict[str, Any] = {
        "count": {"type": "integer"},
        "amount": {"type": "number"},
        "date": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "status": {"type": "string", "enum": list(slot.values or [])},
        "rule": {"type": "string", "enum": list(slot.values or [])},
        "name": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
        "boolean": {"type": "boolean"},
    }[slot.type]
    return {**schema, "description": what}


def answer_tool(task: Task | None) -> dict | None:
    """The MCP spec of `submit_answer` for `task` (strict JSON Schema from its slot types), or None when the
    task expects no answer."""
    schema = task.answer_schema if task is not None else []
    if not schema:
        return None
    slots = ", ".join(s.name for s in schema)
    return {
        "name": SUBMIT_ANSWER,
        "description": (f"Submit your final answer to the request, once, with one value for each of {slots} "
                        "(in the order the request asks). An answer that was accepted is final: a second "
                        "submission is refused. If the request cannot be done, do not change anything and "
                        "submit the fact that blocks it (and, where the answer has a rule slot, the rule that refuses it: the "
                        "error code the tool returns when asked)."),
        "inputSchema": {"type": "object", "properties": {s.name: _slot_schema(s) for s in schema},
                        "required": [s.name for s in schema], "additionalProperties": False},
        "annotations": {"readOnlyHint": True, "idempotentHint": False, "destructiveHint": False,
                        "openWorldHint": False},
    }


def reference_submission(task: Task | None) -> dict[str, Any] | None:
    """The `submit_answer` arguments of the task's reference answer (each slot's expected value), or None when
    the task expects no answer."""
    if task is None or not task.answer_schema:
        return None
    goals = [g for g in task.goals if g.kind == "answer"]
    return {slot.name: goal.expect["value"] for slot, goal in zip(task.answer_schema, goals)}


class SubmissionError(ValueError):
    """A submitted value that is not of its slot's type (the message names the slot)."""


def _count(slot: AnswerSlot, value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value == int(value):
        return int(value)
    if isinstance(value, str):
        found = numbers_in(number_words(value))
        if len(found) == 1 and found[0][0] == int(found[0][0]) and re.fullmatch(r"[\s\w$,.+-]*", value):
            return int(found[0][0])
    raise SubmissionError(f"{slot.name} must be a whole number, not {value!r:.80}")


def _amount(slot: AnswerSlot, value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return round(float(value), slot.precision or 2)
    if isinstance(value, str):
        cleaned = re.sub(r"(?i)\b(usd|eur|gbp|dollars?|euros?)\b|[€£]", " ", value)
        found = numbers_in(cleaned)
        if len(found) == 1 and re.fullmatch(r"[\s\d$,.+-]*", cleaned):
            return round(found[0][0], slot.precision or 2)
    raise SubmissionError(f"{slot.name} must be an amount (a number such as 1234.50), not {value!r:.80}")


def _date(slot: AnswerSlot, value: Any) -> str:
    if isinstance(value, str):
        text = iso_dates(value.strip())
        day = text[:10]
        if _ISO_DATE.fullmatch(day) and (len(text) == 10 or text[10] in "T "):
            return day
    raise SubmissionError(f"{slot.name} must be a date, YYYY-MM-DD, not {value!r:.80}")


def _status(slot: AnswerSlot, value: Any) -> str:
    if isinstance(value, str):
        for known in slot.values or []:
            if words(known) == words(value):
                return known
    raise SubmissionError(f"{slot.name} must be one of {', '.join(slot.values or [])}; {value!r:.80} is not")


def _name(slot: AnswerSlot, value: Any) -> str:
    if isinstance(value, str) and value.strip() and len(value) <= MAX_NAME_CHARS:
        return " ".join(value.split())
    raise SubmissionError(f"{slot.name} must be a name of 1 to {MAX_NAME_CHARS} characters, not {value!r:.80}")


def _boolean(slot: AnswerSlot, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "false", "no"):
        return value.strip().lower() in ("true", "yes")
    raise SubmissionError(f"{slot.name} must be true or false, not {value!r:.80}")


_READERS = {"count": _count, "amount": _amount, "date": _date, "status": _status, "name": _name, "boolean": _boolean,
            "rule": _status}


def read_submission(task: Task, arguments: Any) -> dict[str, Any]:
    """The submitted values, one per slot, each normalised to its slot's canonical form; SubmissionError (naming
    the slot, or the keys that are not slots) when the submission is not exactly one value of its type per slot."""
    if not isinstance(arguments, dict):
        raise SubmissionError(f"{SUBMIT_ANSWER} takes an object with one value per slot, not {type(arguments).__name__}")
    schema = task.answer_schema
    names = [s.name for s in schema]
    extra = sorted(str(k) for k in arguments if k not in names)
    if extra:
        raise SubmissionError(f"{', '.join(extra)[:200]}: not a slot of this task's answer (its slots: "
                              f"{', '.join(names)})")
    missing = [n for n in names if n not in arguments]
    if missing:
        raise SubmissionError(f"no value for {', '.join(missing)}: give one value for every slot")
    return {s.name: _READERS[s.type](s, arguments[s.name]) for s in schema}


def submit(task: Task, arguments: Any, submitted: dict | None) -> tuple[dict | None, Any]:
    """(the submission to keep, the tool's result) for a `submit_answer` call: the submission once it is
    accepted; a tool error, and nothing kept, for a second submission or a value of the wrong type."""
    if submitted is not None:
        return submitted, tool_error("already_submitted", "an answer was already submitted in this episode; it is "
                                                          "final", submitted=submitted)
    try:
        values = read_submission(task, arguments)
    except SubmissionError as exc:
        return None, tool_error("invalid_arguments", str(exc))
    return values, {"submitted": values}
