"""Task checks: the right number of tasks, no repeats, and every task self-contained.

A task is self-contained when its instruction states every value the agent has to supply itself:
each literal the goals demand that also enters the final state through a tool argument of the
reference solution (a comment's text, an amount, a date, a reason), and each search text the
reference solution looks things up by. Identifiers are exempt (the agent finds them with the tools),
and so are values the tools compute and the values a chained task takes from earlier tool results (a price raised "by 12%" is one: the agent reads the
current price first). A number is stated by its digits as a number of its own: not inside a date, a time or a code
("June 1, 2025", "10:00" and "ORD-1015" state no 1, 10 or 15).
"""

from __future__ import annotations

import re
from typing import Any

from awm.contracts import Task, TaskSet
from awm.quality.findings import Finding

CHECK_COUNT = "task_count"
CHECK_SELF_CONTAINED = "task_self_contained"
CHECK_DISTINCT = "task_distinct"
SEARCH_ARGUMENTS = ("query", "search", "q", "text")
PAGING_ARGUMENTS = ("limit", "offset", "page", "page_size", "cursor")  # every API style's (awm/builder/dialect.py)
_DATETIME = re.compile(r"(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?")


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text.lower().replace("_", " "))


def _string_spellings(value: str) -> set[str]:
    spellings = {_normal(value)}
    match = _DATETIME.fullmatch(value)
    if match:
        spellings |= {f"{match.group(1)} {match.group(2)}", f"{match.group(1)} {match.group(2)}{match.group(3) or ''}"}
    return spellings


# "one 'Roof Inspection'", "just the one": how a request states one of an item where a case holds one of each
_ONE_OF_NAMED = re.compile(r"\bone '|\bjust the one\b")


# Where digits are not a number of their own: dates ("June 1, 2025", "2025-06-01"), times ("10:00") and codes
# ("ORD-1015", "A1"); they are blanked before numbers are looked for.
_NOT_NUMBERS = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}(?:, \d{4})?"
    r"|\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?|\b\d{1,2}:\d{2}\b|[A-Za-z]+-?\d[\w-]*")


def _number_stated(value: float, instruction: str) -> bool:
    x = abs(float(value))
    forms = {f"{x:.2f}", f"{x:,.2f}", f"{x:.1f}", f"{x:g}"}
    if x == int(x):
        forms |= {str(int(x)), f"{int(x):,}"}
    if x == 1 and _ONE_OF_NAMED.search(instruction):
        return True
    text = _NOT_NUMBERS.sub(" ", instruction)
    return any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d|\.\d)", text) for f in forms)


def value_stated(value: Any, instruction: str) -> bool:
    """Whether `instruction` states `value` (case, underscores and datetime separators ignored)."""
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, (int, float)):
        return _number_stated(value, instruction)
    if isinstance(value, str):
        text = _normal(instruction)
        return any(s in text for s in _string_spellings(value))
    return True


def _is_identifier(name: str) -> bool:
    return name == "id" or name.endswith("_id") or name in PAGING_ARGUMENTS


def _flat(arguments: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    """(name, value) of every argument, those inside an object argument named by their path ('filters.status')
    and judged by their own name."""
    flat = []
    for name, value in arguments.items():
        if isinstance(value, dict):
            flat += _flat(value, f"{prefix}{name}.")
        else:
            flat.append((f"{prefix}{name}", value))
    return flat


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        return abs(abs(a) - abs(b)) < 0.005
    return a == b


def unstated_values(task: Task) -> list[tuple[str, str, Any]]:
    """(tool, argument, value) the agent must supply but the instruction does not state (arguments whose values
    come from earlier tool results, `task.derived`, are not the instruction's to state)."""
    derived = {(d.call, d.argument) for d in task.derived}
    arguments = [(call.tool, name, value) for n, call in enumerate(task.reference_solution)
                 for name, value in _flat(call.arguments)
                 if not _is_identifier(name) and (n, name.partition(".")[0]) not in derived]
    missing = []
    for tool, name, value in arguments:
        if name in SEARCH_ARGUMENTS and isinstance(value, str) and not value_stated(value, task.instruction):
            missing.append((tool, name, value))
    for goal in task.goals:
        for column, expected in goal.literals():
            if _is_identifier(column):
                continue
            for tool, name, value in arguments:
                if _same(value, expected) and not value_stated(value, task.instruction):
                    missing.append((tool, name, value))
    return list(dict.fromkeys((t, n, repr(v)) for t, n, v in missing))


def task_findings(taskset: TaskSet, env_id: str, expected_count: int | None) -> list[Finding]:
    findings = []
    if taskset.env_id != env_id:
        findings.append(Finding(env_id, CHECK_COUNT, f"tasks.json is for environment {taskset.env_id!r}"))
    if expected_count is not None and len(taskset.tasks) != expected_count:
        findings.append(Finding(env_id, CHECK_COUNT, f"{len(taskset.tasks)} tasks, expected {expected_count}",
                                value=len(taskset.tasks)))
    seen: dict[str, str] = {}
    for task in taskset.tasks:
        key = _normal(task.instruction)
        if key in seen:
            findings.append(Finding(env_id, CHECK_DISTINCT, f"same instruction as {seen[key]}", task=task.task_id))
        seen.setdefault(key, task.task_id)
        for tool, argument, value in unstated_values(task):
            findings.append(Finding(env_id, CHECK_SELF_CONTAINED,
                                    f"the instruction does not state {argument}={value} that the reference "
                                    f"solution passes to {tool}", task=task.task_id, tool=tool, value=value))
    return findings
