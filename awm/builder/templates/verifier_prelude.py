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


def number_words(text):
    # counts written in words ('three', 'twenty-one') as digits, so a count is read whatever its form
    units = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
             "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
             "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
    tens = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
    out = []
    tokens = re.split("([A-Za-z]+(?:-[A-Za-z]+)?)", str(text))
    for n, token in enumerate(tokens):
        low = token.lower()
        parts = low.split("-")
        previous = tokens[n - 2].lower() if n >= 2 else ""
        following = tokens[n + 2].lower() if n + 2 < len(tokens) else ""
        if low == "one" and (previous in ("this", "that", "the", "each", "which", "any", "every", "no", "some",
                                          "another", "only", "a") or following == "another"):
            out.append(token)  # a pronoun ('this one is older'), not a count
        elif low in units:
            out.append(str(units[low]))
        elif low in tens:
            out.append(str(tens[low]))
        elif len(parts) == 2 and parts[0] in tens and parts[1] in units and 0 < units[parts[1]] < 10:
            out.append(str(tens[parts[0]] + units[parts[1]]))
        else:
            out.append(token)
    return "".join(out)


def iso_dates(text):
    # dates written out ('June 4, 2025', '4th of June 2025', 'Jun 4 2025', '2025/06/04', '06/04/2025') as
    # 2025-06-04, so a date is read whatever its form
    months = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9,
              "oct": 10, "nov": 11, "dec": 12}
    month = ("(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
             "|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)[.]?")
    day = "([0-9]{1,2})(?:st|nd|rd|th)?"

    def iso(y, m, d):
        return str(y) + "-" + ("0" + str(m))[-2:] + "-" + ("0" + str(d))[-2:]

    text = re.sub("(?<![0-9])([0-9]{4})/([0-9]{1,2})/([0-9]{1,2})(?![0-9])",
                  lambda m: iso(m.group(1), int(m.group(2)), int(m.group(3))), str(text))
    text = re.sub("(?<![0-9/])([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})(?![0-9])",
                  lambda m: iso(m.group(3), int(m.group(1)), int(m.group(2))), text)
    text = re.sub("(?<![A-Za-z])" + month + " " + day + ",? ([0-9]{4})(?![0-9])",
                  lambda m: iso(m.group(3), months[m.group(1)[:3].lower()], int(m.group(2))), text,
                  flags=re.IGNORECASE)
    return re.sub("(?<![0-9])" + day + " (?:of )?" + month + ",? ([0-9]{4})(?![0-9])",
                  lambda m: iso(m.group(3), months[m.group(2)[:3].lower()], int(m.group(1))), text,
                  flags=re.IGNORECASE)


def amounts_in(text):
    # the amounts a text states: every number but a whole number that counts things ('4 records'; '250 lb' and
    # '12 dollars' are amounts)
    text = re.sub("[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?)?", " ", str(text))
    text = re.sub("[0-9]{1,2}:[0-9]{2}", " ", text)
    found = []
    for sign, whole, decimals, noun in re.findall("(?<![A-Za-z0-9_.-])(-?)[$]?([0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)"
                                                  "(?:[.]([0-9]+))?(?![A-Za-z0-9_])( +[A-Za-z]+)?", text):
        noun = noun.strip().lower()
        counted = (noun.endswith("s") and len(noun) > 2
                   and noun not in ("dollars", "euros", "pounds", "cents", "lbs", "kgs", "hours", "days", "units"))
        if decimals == "" and counted:
            continue
        value = float(whole.replace(",", "") + ("." + decimals if decimals else ""))
        found.append(-value if sign else value)
    return found


def same_value(actual, value, kind=None):
    # one typed value against the expected one: numbers to the cent (a count or an amount written in a string
    # is read, and must be the only number there), dates in any written form, words whatever their case
    if isinstance(actual, bool) or isinstance(value, bool):
        return actual is value
    if is_number(value):
        if isinstance(actual, str):
            found = numbers_in(number_words(iso_dates(actual)))
            return len(found) == 1 and abs(found[0][0] - value) < 0.005
        return is_number(actual) and abs(actual - value) < 0.005
    if not isinstance(actual, str):
        return False
    if kind == "date":
        return iso_dates(actual).strip() == value
    return words(actual) == words(value)


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


def stem(word):
    # a crude stem, so that an inflection of a vouched word is vouched too ('cancellations', 'cancelled')
    for suffix in ("ations", "ation", "ings", "ing", "ions", "ion", "ies", "es", "ed", "s", "ly", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:len(word) - len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word[-1] == word[-2] else word


def unvouched(text, spec):
    # the first word of a prose answer that may leave its value open or deny it: a hedge or a negation in any
    # wording, read against a closed vocabulary (the framing words of a plain answer, and the words of the
    # request, of its values and of the reference answer); None when every word is vouched for
    framing = set((
        "a an the this that these those it its it's there here is are was were be been being has have had "
        "do does did done i i'm me my we our you your they them their he him his she her s ll re ve d m "
        "of for to in on at by with as from into per than then and so also both each every all only just still "
        "already now today currently current total totals amount amounts count number numbers sum status state "
        "date dates day days name names value values balance price prices cost costs due owed left remaining "
        "answer result results record records row rows entry entries item items one ones found find checked "
        "check looked look looking up lookup searched showed shows show see saw listed lists list holds hold "
        "held stands stand comes come came equals equal set recorded marked comes to what which who whose "
        "when where how many much yes ok okay sure thanks thank please note noted after before since until "
        "during over under across usd dollars dollar cents eur euros gbp pounds in total overall altogether "
        "exactly precisely confirmed confirm according system database data shows showing currently "
        "latest newest most recent last first next earliest highest lowest top best largest smallest "
        "made placed booked created opened issued filed logged paid owes owe costs gives give gets get has "
        "any more anymore longer can because while which no one's is on zero one two three four five six seven "
        "eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty "
        "forty fifty sixty seventy eighty ninety").split())
    hedges = set(("possibly perhaps maybe probably presumably apparently likely unlikely roughly approximately "
                  "approx about around circa nearly almost estimate estimated estimation guess guessing think "
                  "believe suppose assume assuming seems seem seemingly appears appear may might could would "
                  "should unsure uncertain unclear unknown otherwise either or whether if unless ish something "
                  "somewhere somewhat anything alternatively alternative possibility possibilities").split())
    denials = set(("not no never none nothing neither nor cannot without nobody t isn wasn aren weren don doesn "
                   "didn couldn won hasn haven hadn").split())
    vouched = framing | set(spec["vocabulary"]) | set(spec["said"]) | set(words(" ".join(spec["others"])).split())
    stems = set(stem(w) for w in vouched)
    for token in re.findall("[A-Za-z0-9]+", re.sub("[0-9]{4}-[0-9]{2}-[0-9]{2}", " ", text)):
        word = token.lower()
        if re.fullmatch("[0-9]+(st|nd|rd|th)?", word):
            continue
        named = token in spec["proper"]  # a name the task writes ('Andrew May'), not the hedge 'may'
        if word in hedges and word not in spec["said"] and not named:
            return "hedges (" + repr(word) + ")"
        if word in denials and not spec["denials"] and word not in spec["said"] and not named:
            return "negates (" + repr(word) + ")"
        if word not in vouched and stem(word) not in stems and word not in denials and word not in hedges:
            return "says " + repr(word) + ", which the answer check cannot vouch for"
    return None


def denied(text, start, end):
    # the value at text[start:end] is denied: a negation among the three words before it ('is not 12', "wasn't
    # closed", 'no longer active'), or right after it ('12 is not', "closed isn't right")
    before = re.findall("[a-z]+", re.split("[.;!?]", text[:start])[-1].lower())[-3:]  # within its sentence
    after = re.findall("[a-z]+", re.split("[.;!?]", text[end:])[0].lower())[:2]
    return bool(set(before) & {"not", "no", "never", "t", "neither", "nor", "non", "nothing", "without"}
                or after[:1] in (["not"], ["isn"], ["wasn"]) or after[:2] in (["is", "not"], ["was", "not"]))


def read_prose(answer, spec):
    # a prose answer as the reader takes it: the clauses copied from the instruction out, every date in ISO
    # form, a leading "As of <date>," out, and for a number, numbers written in words as digits
    text = iso_dates(unechoed(answer, spec["echoes"]))
    text = re.sub("^[^A-Za-z0-9]*as of (?:[0-9]{4}-[0-9]{2}-[0-9]{2}|today|now)[,;:]?", " ", text.strip(),
                  flags=re.IGNORECASE)
    if spec["type"] not in ("count", "amount"):
        return text
    for name in spec["names"]:  # an expected name states no number ('Six Person Private Office')
        text = re.sub("(?<![A-Za-z0-9])" + re.escape(name) + "(?![A-Za-z0-9])", " ", text, flags=re.IGNORECASE)
    return number_words(text)


def check_answer(answer, spec, failures):
    # the answer gives `spec["value"]` for its slot and nothing else for it: a structured answer (a JSON object
    # keyed by the task's slots, as the submit_answer tool passes it) is compared slot by slot; prose is read
    # strictly (docs/runtime.md, "The answer contract")
    slot, value, kind = spec["slot"], spec["value"], spec["type"]
    data = structured(answer)
    if data is not None:
        extra = sorted(str(k) for k in data if k not in spec["slots"])
        if extra:
            failures.append("the structured answer has keys the task does not ask for: " + ", ".join(extra)[:200])
        elif slot not in data:
            failures.append("the structured answer has no " + repr(slot))
        elif not same_value(data[slot], value, kind):
            failures.append("the answer gives " + slot + " = " + repr(data[slot])[:80] + ", not " + repr(value))
        return
    if answer is None:
        failures.append("no answer given; expected " + repr(value))
        return
    text = read_prose(answer, spec)
    # a refusal may say 'not active' for 'inactive': the rival negated is the value
    for other in spec["others"]:
        if words(value) in ("in" + words(other), "un" + words(other), "non" + words(other), "not " + words(other)):
            text = re.sub("(?:not|no longer|n't)\\s+(?:any\\s+more\\s+|anymore\\s+)?" + re.escape(str(other))
                          + "(?![A-Za-z])(?:\\s+any\\s*more)?", " " + str(value) + " ", text, flags=re.IGNORECASE)
    problem = unvouched(text, spec)
    if problem is not None:
        failures.append("the answer " + problem + ", leaving " + repr(value) + " open")
        return
    padded = " " + words(text) + " "
    target = " " + words(value) + " "
    if is_number(value):
        found = ([x for x, _ in numbers_in(number_words(text))] if kind == "count" or isinstance(value, int)
                 else amounts_in(number_words(text)))
        if not any(abs(x - value) < 0.005 for x in found):
            failures.append("the answer does not state " + repr(value))
            return
        conflicts = [x for x in found if all(abs(x - a) >= 0.005 for a in [value, *spec["allowed"]] if is_number(a))]
        if conflicts:
            failures.append("the answer also states " + repr(conflicts[:3]) + ", conflicting with " + repr(value))
            return
        parts = re.split("([0-9][0-9,]*(?:[.][0-9]+)?)", text)
        for n in range(1, len(parts), 2):
            before = "".join(parts[:n])
            if (abs(float(parts[n].replace(",", "") or 0) - value) < 0.005
                    and denied("".join(parts), len(before), len(before) + len(parts[n]))):
                failures.append("the answer negates " + repr(value))
                return
        return
    if target not in padded:
        failures.append("the answer does not state " + repr(value))
        return
    own = dates_in(value) if re.fullmatch("[0-9]{4}-[0-9]{2}-[0-9]{2}", str(value)) else []
    stated = [d for a in spec["allowed"] if isinstance(a, str) for d in dates_in(a)]  # expected, or in the instruction
    for date in dates_in(text) if own else []:
        if date != own[0] and date not in stated:
            failures.append("the answer also states the date " + "-".join(str(x) for x in date)
                            + ", conflicting with " + repr(value))
            return
    # a refusal says what cannot be done ('so no new order can be opened'): its value itself must not be denied
    found = re.search("(?<![A-Za-z0-9])" + "[^A-Za-z0-9]+".join(re.escape(w) for w in target.split())
                      + "(?![A-Za-z0-9])", text, flags=re.IGNORECASE)
    if found is not None and denied(text, found.start(), found.end()):
        failures.append("the answer negates " + repr(value))
        return
    rest = padded.replace(target, " | ")
    for other in spec["others"]:
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
