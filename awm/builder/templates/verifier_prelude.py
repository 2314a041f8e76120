"""The helpers a generated verifier uses: matching values, reading answers, and one check per kind of goal.

This module is real code (linted, importable, tested directly against database handles); the builder
copies into each verifier the helpers its checks call, and what they call in turn, without this docstring
(awm.builder.verifiergen). A check appends what is wrong to `failures`; `initial` and `final` are
read-only database handles (`one`, `query`), `answer` is the agent's final answer text (or None).
"""

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
    text = re.sub("[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?", " ", str(text))
    text = re.sub("[0-9]{1,2}:[0-9]{2}", " ", text)
    found = []
    for sign, whole, decimals in re.findall(
            "(?<![A-Za-z0-9_.-])(-?)[$]?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:[.]([0-9]+))?(?![A-Za-z0-9_])", text):
        value = float(whole.replace(",", "") + ("." + decimals if decimals else ""))
        found.append((-value if sign else value, bool(decimals)))
    return found


def dates_in(text):
    # every date a text states, as (year, month, day): a date answer's other candidates are the other dates
    return [(int(y), int(m), int(d)) for y, m, d in
            re.findall("(?<![0-9])([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?![0-9])", str(text))]


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
    if not isinstance(answer, str) or not answer.strip().startswith("{"):
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
    padded = " " + words(text) + " "
    # a hedge leaves the value open ("inactive, or possibly something else"): unless the expected values
    # themselves use the word, it is not an answer
    said = " " + " ".join(words(a) for a in allowed if isinstance(a, str)) + " " + words(value) + " "
    for hedge in ("possibly", "perhaps", "maybe", "probably", "might be", "could be", "not sure",
                  "something else", "or so", "i think", "i guess"):
        if " " + hedge + " " in padded and " " + hedge + " " not in said:
            failures.append("the answer hedges (" + repr(hedge) + "), leaving " + repr(value) + " open")
            return
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
    target = " " + words(value) + " "
    if target not in padded:
        failures.append("the answer does not state " + repr(value))
        return
    own = dates_in(value) if re.fullmatch("[0-9]{4}-[0-9]{2}-[0-9]{2}", str(value)) else []
    stated = [d for a in allowed if isinstance(a, str) for d in dates_in(a)]  # expected, or in the instruction
    for date in dates_in(text) if own else []:
        if date != own[0] and date not in stated:
            failures.append("the answer also states the date " + "-".join(str(x) for x in date)
                            + ", conflicting with " + repr(value))
            return
    # a negation that ends its sentence ("... it does not. Active ...") negates nothing after it
    closed = " " + words(re.sub("(not|no|never|n't)[.;!?]", " ", text.lower())) + " "
    for negation in (" not", " no", " never", " isn t", " non"):
        if negation + target in closed:
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
