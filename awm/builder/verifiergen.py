"""Verifier code from task goals.

The offline builder knows each task's goals by construction; this module turns
them into the same artifact an LLM would write: Python source defining
verify(initial, final, answer) -> {"complete": bool, "evidence": [str]}, run in
the sandbox with read-only database handles.
"""

from __future__ import annotations

from awm.contracts import Goal, Task

PRELUDE = '''\
"""Verifier for {env_id} task {task_id}."""
import re


def matches(actual, expected):
    if isinstance(expected, dict):
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
    cleaned = text.replace(",", "").replace("$", "")
    return [float(x) for x in re.findall(r"(?<![A-Za-z0-9-])-?[0-9]+(?:[.][0-9]+)?", cleaned)]


def answer_has(answer, value):
    if answer is None:
        return False
    text = str(answer)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return any(abs(x - value) < 0.005 for x in numbers_in(text))
    return str(value).lower() in text.lower()


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
    old_ids = set([r["id"] for r in initial.query("SELECT id FROM " + table, [])])
    new_rows = [r for r in final.query("SELECT * FROM " + table, []) if r["id"] not in old_ids]
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


def check_answer(answer, value, exclude, failures):
    if not answer_has(answer, value):
        failures.append("the answer " + repr(answer) + " does not state " + repr(value))
        return
    # a longer name that contains the expected one ('AP Biology Session' for 'Biology Session') is
    # another entity: naming it is a wrong answer, even though the expected text appears inside it
    for other in exclude:
        if answer_has(answer, other):
            failures.append("the answer " + repr(answer) + " names " + repr(other) + ", not " + repr(value))
'''


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
    return f"check_answer(answer, {goal.expect['value']!r}, {goal.expect.get('exclude', [])!r}, failures)"


def verifier_source(env_id: str, task: Task) -> str:
    lines = [PRELUDE.format(env_id=env_id, task_id=task.task_id), "", "def verify(initial, final, answer):",
             "    failures = []"]
    lines += [f"    {_goal_call(g)}" for g in task.goals]
    lines.append('    return {"complete": not failures, "evidence": failures or ["every goal is met"]}')
    return "\n".join(lines) + "\n"
