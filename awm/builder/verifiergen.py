"""Verifier code from task goals.

The offline builder knows each task's goals by construction; this module turns
them into the same artifact an LLM would write: Python source defining
verify(initial, final, answer) -> {"complete": bool, "evidence": [str]}, run in
the sandbox with read-only database handles. Every goal is checked, every stated detail included (quoted
texts equal after normalising, not merely contained); an answer must state each expected value and no
conflicting candidate (the answer contract of docs/runtime.md). What else changed in the database is the
runtime's outcome check (awm/runtime/outcome.py), joined with this verdict.
"""

from __future__ import annotations

import re

from awm.contracts import Goal, Task

PRELUDE = '''\
\"\"\"Verifier for {env_id} task {task_id}.\"\"\"
import json
import re


def text_key(text):
    # a quoted text: equal after normalising whitespace, case and final punctuation
    return " ".join(str(text).split()).lower().rstrip(".!?;:, ")


def words(text):
    # a value in an answer: case, punctuation, underscores and hyphens do not matter ('Checked-In' = checked_in)
    return " ".join(re.findall("[a-z0-9]+", str(text).lower()))


def matches(actual, expected):
    if isinstance(expected, dict):
        if "text" in expected:
            return isinstance(actual, str) and text_key(actual) == text_key(expected["text"])
        if "contains" in expected:
            return isinstance(actual, str) and expected["contains"].lower() in actual.lower()
        if "prefix" in expected:
            return isinstance(actual, str) and actual.startswith(expected["prefix"])
        if "approx" in expected:
            return isinstance(actual, (int, float)) and abs(actual - expected["approx"]) < 0.005
        return False
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        return abs(actual - expected) < 0.005
    return actual == expected


def row_matches(row, expected):
    return all(column in row and matches(row[column], expected[column]) for column in expected)


def numbers_in(text):
    # (value, has decimals) of every number a text states: currency signs and thousands separators allowed;
    # dates, times and codes such as ORD-1042 are not numbers
    text = re.sub("[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}([T ][0-9]{{2}}:[0-9]{{2}}(:[0-9]{{2}})?)?", " ", str(text))
    text = re.sub("[0-9]{{1,2}}:[0-9]{{2}}", " ", text)
    found = []
    for sign, whole, decimals in re.findall(
            "(?<![A-Za-z0-9_.-])(-?)[$]?([0-9]{{1,3}}(?:,[0-9]{{3}})+|[0-9]+)(?:[.]([0-9]+))?(?![A-Za-z0-9_])", text):
        value = float(whole.replace(",", "") + ("." + decimals if decimals else ""))
        found.append((-value if sign else value, bool(decimals)))
    return found


def dates_in(text):
    # every date a text states, as (year, month, day): a date answer's other candidates are the other dates
    return [(int(y), int(m), int(d)) for y, m, d in
            re.findall("(?<![0-9])([0-9]{{4}})-([0-9]{{1,2}})-([0-9]{{1,2}})(?![0-9])", str(text))]


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def same_value(actual, value):
    if is_number(value):
        if isinstance(actual, str):
            found = numbers_in(actual)
            return len(found) == 1 and abs(found[0][0] - value) < 0.005
        return is_number(actual) and abs(actual - value) < 0.005
    return isinstance(actual, str) and words(actual) == words(value)


def structured(answer):
    # a structured answer: a JSON object keyed by the task's answer slots
    if not isinstance(answer, str) or not answer.strip().startswith("{{"):
        return None
    try:
        data = json.loads(answer)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def unechoed(answer, echoes):
    # the answer without the clauses it copies from the instruction (`echoes`: per clause of four or more
    # words, its longest word and a pattern of its words with any punctuation between them): repeating the
    # question states nothing
    text = str(answer)
    lowered = text.lower()
    for probe, pattern in echoes:
        if probe in lowered:
            text = re.sub(pattern, " ", text, flags=re.IGNORECASE)
    return text


def check_answer(answer, slot, value, others, allowed, echoes, failures):
    # the answer states `value` and no conflicting candidate for the same slot: another value of its kind
    # (`others`), or another number of its kind that neither the task expects nor the instruction states
    data = structured(answer)
    if data is not None:
        if slot not in data:
            failures.append("the structured answer has no " + repr(slot))
        elif not same_value(data[slot], value):
            failures.append("the answer gives " + slot + " = " + repr(data[slot])[:80] + ", not " + repr(value))
        return
    if answer is None:
        failures.append("no answer given; expected " + repr(value))
        return
    text = unechoed(answer, echoes)
    if is_number(value):
        found = numbers_in(text)
        if not any(abs(x - value) < 0.005 for x, _ in found):
            failures.append("the answer does not state " + repr(value))
            return
        decimal = isinstance(value, float)
        conflicts = [x for x, d in found if d == decimal and all(abs(x - a) >= 0.005 for a in allowed
                                                                 if is_number(a))]
        if conflicts:
            failures.append("the answer also states " + repr(conflicts[:3]) + ", conflicting with " + repr(value))
        return
    padded = " " + words(text) + " "
    target = " " + words(value) + " "
    if target not in padded:
        failures.append("the answer does not state " + repr(value))
        return
    own = dates_in(value) if re.fullmatch("[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}", str(value)) else []
    stated = [d for a in allowed if isinstance(a, str) for d in dates_in(a)]  # expected, or in the instruction
    for date in dates_in(text) if own else []:
        if date != own[0] and date not in stated:
            failures.append("the answer also states the date " + "-".join(str(x) for x in date)
                            + ", conflicting with " + repr(value))
            return
    for negation in (" not", " no", " never", " isn t", " non"):
        if negation + target in padded:
            failures.append("the answer negates " + repr(value))
            return
    rest = padded.replace(target, " | ")
    for other in others:
        key = " " + words(other) + " "
        if key == target:
            continue
        if (target.strip() in key.strip() and key in padded) or key in rest:
            failures.append("the answer also names " + repr(other) + ", conflicting with " + repr(value))
            return


def check_row_equals(final, table, pk, expected, failures):
    row = final.one("SELECT * FROM " + table + " WHERE id = ?", [pk])
    if row is None:
        failures.append(table + " row " + str(pk) + " is missing")
        return
    for column in expected:
        if not matches(row.get(column), expected[column]):
            failures.append(table + " row " + str(pk) + ": " + column + " is " + repr(row.get(column))
                            + ", expected " + repr(expected[column]))


def check_row_delta(initial, final, table, pk, column, delta, failures):
    before = initial.one("SELECT " + column + " AS v FROM " + table + " WHERE id = ?", [pk])
    after = final.one("SELECT " + column + " AS v FROM " + table + " WHERE id = ?", [pk])
    if before is None or after is None:
        failures.append(table + " row " + str(pk) + " is missing")
    elif abs((after["v"] - before["v"]) - delta) > 0.005:
        failures.append(table + " row " + str(pk) + ": " + column + " changed by " + str(round(after["v"] - before["v"], 2))
                        + ", expected " + str(delta))


def check_rows_created(initial, final, table, expected, count, child_table, child_fk, children, failures):
    # a new row has an id above every initial one (SQLite gives max(id) + 1); a row that took the id of a
    # deleted one is an update of that id, which the runtime's outcome check fails
    last = initial.one("SELECT MAX(id) AS n FROM " + table, [])["n"]
    new_rows = final.query("SELECT * FROM " + table + " WHERE id > ?", [last if last is not None else -1])
    hits = [r for r in new_rows if row_matches(r, expected)]
    if child_table:
        good = []
        for r in hits:
            kids = final.query("SELECT * FROM " + child_table + " WHERE " + child_fk + " = ?", [r["id"]])
            if len(kids) == len(children) and all(any(row_matches(k, c) for k in kids) for c in children):
                good.append(r)
        hits = good
    if len(hits) != count:
        failures.append(str(len(hits)) + " new " + table + " rows match " + repr(expected)
                        + (" with the expected " + child_table if child_table else "") + ", expected " + str(count))


def check_row_deleted(final, table, pk, failures):
    if final.one("SELECT id FROM " + table + " WHERE id = ?", [pk]) is not None:
        failures.append(table + " row " + str(pk) + " still exists")
'''


def _helpers() -> tuple[str, dict[str, str], dict[str, set[str]]]:
    """PRELUDE cut into its header and its helper functions, and which helpers each one calls."""
    header, *blocks = PRELUDE.split("\n\n\ndef ")
    helpers = {block.split("(", 1)[0]: "def " + block.rstrip("\n") for block in blocks}
    calls = {name: {other for other in helpers if other != name and re.search(rf"\b{other}\(", body)}
             for name, body in helpers.items()}
    return header.split("\nimport")[0], helpers, calls


_HEADER, _HELPERS, _CALLS = _helpers()


def _prelude(body: str) -> str:
    """The module docstring, the imports and the helpers `body` needs (and what they call), in PRELUDE's
    order: a verifier carries only the checks it makes, so it is smaller to check, compile and read."""
    needed = {name for name in _HELPERS if re.search(rf"\b{name}\(", body)}
    todo = list(needed)
    while todo:
        for other in _CALLS[todo.pop()] - needed:
            needed.add(other)
            todo.append(other)
    blocks = [code for name, code in _HELPERS.items() if name in needed]
    imports = [f"import {module}" for module in ("json", "re") if any(f"{module}." in b for b in blocks)]
    return "\n\n\n".join([_HEADER + ("\n" + "\n".join(imports) if imports else ""), *blocks]) + "\n"


def _words(text: object) -> str:
    return " ".join(re.findall("[a-z0-9]+", str(text).lower()))


def _numbers(text: str) -> list[float]:
    cleaned = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return [float(x) for x in re.findall(r"(?<![A-Za-z0-9_.-])-?\d+(?:\.\d+)?", cleaned)]


def _answer_call(task: Task, goal: Goal, slot: str) -> str:
    """check_answer for one answer goal: its conflicting candidates are the other values of its kind, except
    the values the task itself expects (a value the question quotes is one too: the answer may repeat a
    clause of the instruction word for word, which states nothing, but not name that value on its own).
    The instruction's clauses are passed as patterns to take out of an answer (a copied clause states nothing)."""
    value = goal.expect["value"]
    expected = [g.expect["value"] for g in task.goals if g.kind == "answer"]
    taken = {_words(v) for v in expected if isinstance(v, str)}
    others = [o for o in list(goal.expect.get("others", [])) + list(goal.expect.get("exclude", []))
              if _words(o) not in taken]
    # the numbers the task expects, and the ones inside the names it expects ('Ram ProMaster 2500'); not the
    # instruction's own numbers, which a hedge could borrow ("4, or maybe 5" after "reduce the stock by 5")
    allowed = sorted({float(v) for v in expected if isinstance(v, (int, float)) and not isinstance(v, bool)}
                     | {n for v in expected if isinstance(v, str) for n in _numbers(v)})
    # a date is a value of its own kind: the dates the task expects (one per date question) and the dates the
    # instruction states are no conflicting candidates of a date answer
    allowed += sorted({v for v in expected if isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)}
                      | set(re.findall(r"\d{4}-\d{2}-\d{2}", task.instruction)))
    return (f"check_answer(answer, {slot!r}, {value!r}, {sorted(set(others))!r}, {allowed!r}, "
            f"{_echoes(task.instruction)!r}, failures)")


def _echoes(instruction: str) -> list[str]:
    """A pattern per clause of the instruction with four or more words, matching it whatever the punctuation
    and spacing between its words (the verifier takes such copies out of an answer)."""
    clauses = re.split(r"[;?!()]|[.,:](?= |$)", " ".join(instruction.split()))
    words = [re.findall("[A-Za-z0-9]+", clause) for clause in clauses]
    return [[max(parts, key=len).lower(), "[^A-Za-z0-9]+".join(re.escape(w) for w in parts)]
            for parts in words if len(parts) >= 4]


def _goal_call(goal: Goal) -> str:
    if goal.kind == "row_equals":
        return f"check_row_equals(final, {goal.table!r}, {goal.pk!r}, {goal.expect!r}, failures)"
    if goal.kind == "row_delta":
        return (f"check_row_delta(initial, final, {goal.table!r}, {goal.pk!r}, {goal.column!r}, "
                f"{goal.delta!r}, failures)")
    if goal.kind == "rows_created":
        return (f"check_rows_created(initial, final, {goal.table!r}, {goal.expect!r}, {goal.count!r}, "
                f"{goal.child_table!r}, {goal.child_fk!r}, {goal.children!r}, failures)")
    if goal.kind == "row_deleted":
        return f"check_row_deleted(final, {goal.table!r}, {goal.pk!r}, failures)"
    raise ValueError(f"answer goals are written by _answer_call, not {goal.kind}")


def verifier_source(env_id: str, task: Task) -> str:
    slots = iter(task.answer_slots)
    body = [f"    {_answer_call(task, g, next(slots)) if g.kind == 'answer' else _goal_call(g)}" for g in task.goals]
    prelude = _prelude("\n".join(body)).format(env_id=env_id, task_id=task.task_id)
    lines = [prelude, "", "def verify(initial, final, answer):", "    failures = []", *body]
    lines.append('    return {"complete": not failures, "evidence": failures or ["every goal is met"]}')
    return "\n".join(lines) + "\n"
