"""Verifier code from task goals.

The offline builder knows each task's goals by construction; this module turns
them into the same artifact an LLM would write: Python source defining
verify(initial, final, answer) -> {"complete": bool, "evidence": [str]}, run in
the sandbox with read-only database handles. Every goal is checked, every stated detail included (quoted
texts equal after normalising, not merely contained); an answer must state each expected value and no
conflicting candidate (the answer contract of docs/runtime.md). What else changed in the database is the
runtime's outcome check (awm/runtime/outcome.py), joined with this verdict.

The code comes from template modules that are real Python: the helpers from
awm/builder/templates/verifier_prelude.py (copied as written, only those the checks need), `verify` and one
check per goal kind from awm/builder/templates/verifier.py (rendered by awm.builder.codegen).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from awm.builder.codegen import function_source, module_tree, render_function, splice
from awm.builder.templates import verifier as templates
from awm.builder.templates import verifier_prelude
from awm.contracts import Goal, Task


def _called(node: ast.AST, names: Iterable[str]) -> set[str]:
    wanted = set(names)
    return {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
            and n.func.id in wanted}


def _helpers() -> tuple[dict[str, str], dict[str, set[str]], dict[str, set[str]]]:
    """The prelude's helpers as written (name -> source, in module order), the helpers each one calls, and
    the modules (json, re) each one uses."""
    functions = [n for n in module_tree(verifier_prelude).body if isinstance(n, ast.FunctionDef)]
    names = [f.name for f in functions]
    sources = {f.name: function_source(verifier_prelude, f.name) for f in functions}
    calls = {f.name: _called(f, names) - {f.name} for f in functions}
    modules = {f.name: {n.value.id for n in ast.walk(f) if isinstance(n, ast.Attribute)
                        and isinstance(n.value, ast.Name) and n.value.id in ("json", "re")} for f in functions}
    return sources, calls, modules


_HELPERS, _CALLS, _MODULES = _helpers()
_GLOBALS = frozenset(_HELPERS)


def _prelude(env_id: str, task_id: str, checks: list[ast.stmt]) -> str:
    """The module docstring, the imports and the helpers the checks call (and what they call), in the
    prelude's order: a verifier carries only the checks it makes, so it is smaller to check, compile and read."""
    needed = set().union(*(_called(check, _HELPERS) for check in checks)) if checks else set()
    todo = list(needed)
    while todo:
        for other in _CALLS[todo.pop()] - needed:
            needed.add(other)
            todo.append(other)
    blocks = [code for name, code in _HELPERS.items() if name in needed]
    imports = [f"import {module}" for module in ("json", "re") if any(module in _MODULES[n] for n in needed)]
    header = f'"""Verifier for {env_id} task {task_id}."""'
    return "\n\n\n".join([header + ("\n" + "\n".join(imports) if imports else ""), *blocks]) + "\n"


def _words(text: object) -> str:
    return " ".join(re.findall("[a-z0-9]+", str(text).lower()))


def _proper(text: str) -> list[str]:
    """The capitalised words inside the sentences of `text` (not their first): the names it writes, as written
    ('May' of 'Andrew May'), which a prose answer may repeat without hedging."""
    found = set()
    for sentence in re.split(r"[.!?;:]\s+", text):
        found |= {w for w in re.findall("[A-Za-z]+", sentence)[1:] if w[0].isupper() and w[1:].islower()}
    return sorted(found)


def _numbers(text: str) -> list[float]:
    cleaned = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return [float(x) for x in re.findall(r"(?<![A-Za-z0-9_.-])-?\d+(?:\.\d+)?", cleaned)]


def answer_bindings(task: Task, goal: Goal, slot: str) -> dict[str, Any]:
    """The values of check_answer for one answer goal: its conflicting candidates are the other values of its kind, except
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
    # and the numbers the reference answer states as context, true of the world ('renewal opens only 90 days
    # before that'): an answer may give the same context
    allowed = sorted({float(v) for v in expected if isinstance(v, (int, float)) and not isinstance(v, bool)}
                     | {n for v in expected if isinstance(v, str) for n in _numbers(v)}
                     | set(_numbers(task.reference_answer or "")))
    # a date is a value of its own kind: the dates the task expects (one per date question) and the dates the
    # instruction states are no conflicting candidates of a date answer
    allowed += sorted({v for v in expected if isinstance(v, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)}
                      | set(re.findall(r"\d{4}-\d{2}-\d{2}", task.instruction)))
    # the world's labels that hold a rival's word ("scheduled move") are read past like a copied clause
    nouns = [_pattern(re.findall("[A-Za-z0-9]+", n)) for n in goal.expect.get("nouns", [])]
    schema = {s.name: s for s in task.answer_schema}
    # the words a prose answer may use besides the framing words of a plain answer: the request's, the values'
    # (expected and rival), the labels read past, and the reference answer's (closed: an unlisted word fails)
    vocabulary = set(_words(task.instruction).split()) | set(_words(task.reference_answer or "").split())
    rivals = [o for g in task.goals if g.kind == "answer" for o in g.expect.get("others", [])]  # of every slot
    for text in [*expected, *rivals, *goal.expect.get("nouns", [])]:
        vocabulary |= set(_words(text).split())
    said = {w for v in expected if isinstance(v, str) for w in _words(v).split()}
    spec = {"slot": slot, "slots": list(task.answer_slots), "type": schema[slot].type, "value": value,
            "others": sorted(set(others)), "allowed": allowed,
            "names": sorted({v for v in expected if isinstance(v, str)}, key=lambda v: (-len(v), v)),
            "echoes": _echoes(task.instruction) + [p for p in nouns if p[1]],
            "vocabulary": sorted(w for w in vocabulary if not w.isdigit()), "said": sorted(said),
            "proper": _proper(f"{task.instruction}. {task.reference_answer or ''}"),
            "denials": any(s.refusal for s in schema.values()) or _conditional(task)}
    return {"SPEC": spec}


def _conditional(task: Task) -> bool:
    """A part of the task is conditional ('settle it if it is overdue, else tell me its due date'): its answer
    may say what did not hold ('it is not overdue'), as a refusal says what cannot be done."""
    from awm.builder.intents import INTENTS  # the registry, filled when the intents are imported

    return any(getattr(INTENTS.get(name), "shape", None) == "conditional" for name in task.template.split("+"))


def _echoes(instruction: str) -> list[str]:
    """A pattern per clause of the instruction with four or more words (or two, holding a number), matching it
    whatever the punctuation and spacing between its words (the verifier takes such copies out of an answer)."""
    clauses = re.split(r"[;?!()]|[.,:](?= |$)", " ".join(instruction.split()))
    words = [re.findall("[A-Za-z0-9]+", clause) for clause in clauses]
    # a short clause is copied out too when it holds a number, in digits or words ('Two things.'), which a copy
    # would otherwise state
    numbered = re.compile(r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)\b", re.IGNORECASE)
    return [_pattern(parts) for parts in words
            if len(parts) >= 4 or (len(parts) >= 2 and numbered.search(" ".join(parts)))]


def _pattern(parts: list[str]) -> list[str]:
    """[its longest word, lower-case; a pattern of the words with any punctuation between them]."""
    return [max(parts, key=len).lower() if parts else "", "[^A-Za-z0-9]+".join(re.escape(w) for w in parts)]


def goal_bindings(goal: Goal) -> dict[str, Any]:
    """The values of the check of one database goal (its template is named after its kind)."""
    if goal.kind in ("row_equals", "row_deleted"):
        return {"TABLE": goal.table, "PK": goal.pk, "EXPECT": goal.expect}
    if goal.kind == "row_delta":
        return {"TABLE": goal.table, "PK": goal.pk, "COLUMN": goal.column, "DELTA": goal.delta}
    if goal.kind == "rows_created":
        return {"TABLE": goal.table, "EXPECT": goal.expect, "COUNT": goal.count, "CHILD_TABLE": goal.child_table,
                "CHILD_FK": goal.child_fk, "CHILDREN": goal.children}
    raise ValueError(f"no verifier check for a goal of kind {goal.kind!r}")


def goal_check(task: Task, goal: Goal, slot: str | None) -> ast.stmt:
    """The statement checking one goal, rendered from its kind's template in awm.builder.templates.verifier."""
    bindings = answer_bindings(task, goal, slot) if goal.kind == "answer" else goal_bindings(goal)
    function = render_function(templates, goal.kind, bindings, _GLOBALS)
    return function.body[0]


def verifier_source(env_id: str, task: Task) -> str:
    slots = iter(task.answer_slots)
    checks = [goal_check(task, g, next(slots) if g.kind == "answer" else None) for g in task.goals]
    verify = splice(templates, "verify", "CHECK_GOALS", checks)
    return _prelude(env_id, task.task_id, checks) + "\n\n" + verify + "\n"
