"""How varied the task instructions are, measured on the text a trainer sees.

An instruction is first **masked**: every entity value is replaced by a placeholder (quoted texts, emails,
codes such as ORD-1042, dates, times, numbers, the text values of the environment's database such as names,
sites and items, and runs of capitalised words that name something), and so is every noun of the
environment's own schema (its role labels, singular and plural: "appointment", "dentists"). What is left
is the phrasing. From the masked texts:

  skeleton         the whole masked instruction; two tasks with one skeleton are phrased identically
  sentence         each sentence of a masked instruction: a request sentence states a value or names a
                   thing of the domain (it has a placeholder: "please cancel <noun> <code> ."), a filler
                   sentence does not ("two things .", "thanks ."); the share of tasks that contain the most
                   frequent request sentence is the stricter measure of repeated phrasing
  vocabulary       the distinct words left (lower case, placeholders excluded)
  near-duplicate   two tasks whose masked word 3-grams have a Jaccard similarity of at least 0.6
                   (`NEAR_DUPLICATE`), found exactly by prefix filtering over all pairs

`corpus_diversity` reports these for a corpus (with intents, shapes, steps and tools per task);
`partition_duplicate_shares` is the share of one partition's tasks that repeat another task of the same
partition, for the WARN check on the tasks asset.
"""

from __future__ import annotations

import math
import re
import sqlite3
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from awm.builder.naming import plural

NEAR_DUPLICATE = 0.6
NGRAM = 3
MAX_VALUE_CHARS = 80
# The kinds of value an instruction states (also what a model rewrite must keep, awm/llm/rephrase.py).
QUOTED = re.compile(r"(?<![A-Za-z])'(.+?)'(?![A-Za-z])")
EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
CODE = re.compile(r"\b[A-Z][A-Z0-9]*-\d+[A-Z0-9-]*\b|\b[A-Z]{2,}\d+\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b|\b(?:January|February|March|April|May|"
                   r"June|July|August|September|October|November|December) \d{1,2}, \d{4}\b")
_TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_NUMBER = re.compile(r"[$]?\d[\d,]*(?:\.\d+)?%?")
_TOKEN = re.compile(r"<[a-z]+>|[A-Za-z]+(?:'[a-z]+)?|\d+|[^\sA-Za-z\d]")
_SENTENCE_END = {".", "?", "!", ":"}
PLACEHOLDER = re.compile(r"^<[a-z]+>$")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text)


@dataclass
class Masker:
    """Masks the instructions of one environment: its database's text values and its schema's nouns."""

    values: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # first token -> value token tuples
    nouns: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)

    @classmethod
    def build(cls, values: Iterable[str], nouns: Iterable[str]) -> Masker:
        masker = cls()
        for target, texts in ((masker.values, values), (masker.nouns, nouns)):
            for text in set(texts):
                words = tuple(t.lower() for t in _tokens(text))
                if words:
                    target.setdefault(words[0], []).append(words)
            for key in target:
                target[key].sort(key=len, reverse=True)
        return masker

    @classmethod
    def for_environment(cls, labels: dict[str, str], db_path: Path | None = None, extra: Iterable[str] = ()
                        ) -> Masker:
        """The environment's nouns (role labels, singular and plural) and its values: the text values of its
        database when there is one, and `extra` (item and category names from the scenario)."""
        nouns = [form for label in labels.values() for form in (label, plural(label))]
        values = list(extra)
        if db_path is not None and Path(db_path).exists():
            values += database_text_values(Path(db_path))
        return cls.build(values, nouns)

    def mask(self, instruction: str) -> list[str]:
        """The masked instruction as tokens (lower-case words, placeholders, punctuation)."""
        text = QUOTED.sub(" <quote> ", instruction)
        text = EMAIL.sub(" <email> ", text)
        text = _DATE.sub(" <date> ", text)
        text = _TIME.sub(" <time> ", text)
        text = CODE.sub(" <code> ", text)
        text = _NUMBER.sub(" <number> ", text)
        raw = _tokens(text)
        out: list[str] = []
        i = 0
        while i < len(raw):
            lowered = [t.lower() for t in raw[i:i + 12]]
            hit = self._match(self.values, lowered) or 0
            if hit:
                out.append("<value>")
                i += hit
                continue
            hit = self._match(self.nouns, lowered) or 0
            if hit:
                out.append("<noun>")
                i += hit
                continue
            out.append(raw[i])
            i += 1
        return _mask_names(out)

    @staticmethod
    def _match(table: dict[str, list[tuple[str, ...]]], lowered: list[str]) -> int:
        for words in table.get(lowered[0], ()):
            if tuple(lowered[:len(words)]) == words:
                return len(words)
        return 0


def _mask_names(tokens: list[str]) -> list[str]:
    """Runs of capitalised words name something (a person, a place, an item): each run becomes one placeholder,
    except a lone capitalised word that starts a sentence ("Please", "Can") and the pronoun I."""
    out: list[str] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token[:1].isupper() and token.isalpha() or (token[:1].isupper() and "'" in token):
            j = i
            while j < len(tokens) and tokens[j][:1].isupper() and not PLACEHOLDER.match(tokens[j]):
                j += 1
            starts = i == 0 or tokens[i - 1] in _SENTENCE_END
            if (j - i == 1 and starts) or token in ("I", "I'm", "I'd", "I've", "I'll"):
                out.append(token.lower())
            else:
                out.append("<name>")
            i = j
            continue
        out.append(token.lower() if not PLACEHOLDER.match(token) else token)
        i += 1
    return out


def database_text_values(db_path: Path) -> list[str]:
    """Every distinct text value of the database (short enough to appear in an instruction), and every
    person's full name."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        values: list[str] = []
        for (table,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall():
            columns = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
            names = {c[1] for c in columns}
            for c in columns:
                if (c[2] or "").upper() == "TEXT":
                    values += [v for (v,) in conn.execute(f'SELECT DISTINCT "{c[1]}" FROM "{table}"')
                               if isinstance(v, str) and 0 < len(v) <= MAX_VALUE_CHARS]
            if {"first_name", "last_name"} <= names:
                values += [v for (v,) in conn.execute(f"SELECT first_name || ' ' || last_name FROM \"{table}\"")
                           if isinstance(v, str)]
        return values
    finally:
        conn.close()


def words(masked: list[str]) -> list[str]:
    return [t for t in masked if t[:1].isalpha() and not PLACEHOLDER.match(t)]


def skeleton(masked: list[str]) -> str:
    return " ".join(masked)


def sentences(masked: list[str]) -> list[str]:
    """The masked instruction's sentences, each as a skeleton (ending at . ? or !)."""
    out, current = [], []
    for token in masked:
        current.append(token)
        if token in (".", "?", "!"):
            out.append(" ".join(current))
            current = []
    return out + ([" ".join(current)] if current else [])


def is_request_sentence(sentence: str) -> bool:
    """Whether a sentence skeleton states a value or names a thing (has a placeholder), not only small talk."""
    return any(PLACEHOLDER.match(token) for token in sentence.split())


def shingles(masked: list[str], n: int = NGRAM) -> frozenset[tuple[str, ...]]:
    """The masked instruction's word n-grams (punctuation left out)."""
    tokens = [t for t in masked if t[:1].isalpha() or PLACEHOLDER.match(t)]
    if len(tokens) < n:
        return frozenset([tuple(tokens)]) if tokens else frozenset()
    return frozenset(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def near_duplicate_flags(sets: list[frozenset], groups: list[str] | None = None,
                         threshold: float = NEAR_DUPLICATE) -> list[bool]:
    """For each set, whether another set (of another group, when groups are given) has a Jaccard similarity of
    at least `threshold` with it. Exact: all-pairs with prefix filtering (sets ordered by size, tokens by
    rarity; two sets that similar share a token among the rarest of each)."""
    n = len(sets)
    freq = Counter(t for s in sets for t in s)
    ordered = [sorted(s, key=lambda t: (freq[t], t)) for s in sets]
    index: dict[tuple, list[int]] = defaultdict(list)
    flags = [False] * n
    for i in sorted(range(n), key=lambda k: len(sets[k])):
        size = len(sets[i])
        if not size:
            continue
        prefix = size - math.ceil(threshold * size) + 1
        candidates: set[int] = set()
        for token in ordered[i][:prefix]:
            candidates.update(index[token])
            index[token].append(i)
        for j in candidates:
            if groups is not None and groups[i] == groups[j]:
                continue
            if flags[i] and flags[j]:
                continue
            shared = len(sets[i] & sets[j])
            if shared >= threshold * (size + len(sets[j]) - shared):
                flags[i] = flags[j] = True
    return flags


@dataclass
class TaskText:
    """One task as the diversity measures see it."""

    env_id: str
    domain: str
    instruction: str
    intents: tuple[str, ...]
    steps: int
    tools: int
    masked: list[str] = field(default_factory=list)
    task_id: str = ""


def _summary(values: list[int]) -> dict:
    if not values:
        return {}
    ordered = sorted(values)
    return {"mean": round(statistics.mean(values), 2), "median": statistics.median(values),
            "p10": ordered[len(ordered) // 10], "p90": ordered[(9 * len(ordered)) // 10],
            "min": ordered[0], "max": ordered[-1],
            "histogram": {str(k): v for k, v in sorted(Counter(values).items())}}


def corpus_diversity(tasks: list[TaskText], shapes: dict[str, str] | None = None,
                     specific: set[str] | None = None) -> dict:
    """The diversity report of a corpus (tasks already masked): intents, skeletons, vocabulary, near-duplicates
    across domains, shapes, steps and tools per task."""
    shapes = shapes or {}
    skeletons = Counter(skeleton(t.masked) for t in tasks)
    in_tasks = Counter(s for t in tasks for s in set(sentences(t.masked)))  # tasks each sentence occurs in
    requests = Counter({s: c for s, c in in_tasks.items() if is_request_sentence(s)})
    fillers = Counter({s: c for s, c in in_tasks.items() if not is_request_sentence(s)})
    vocabulary = Counter(w for t in tasks for w in set(words(t.masked)))
    shingled = [shingles(t.masked) for t in tasks]
    across = near_duplicate_flags(shingled, [t.domain for t in tasks])
    intents = Counter(i for t in tasks for i in t.intents)
    shape_counts = Counter()
    depth: dict[str, list[tuple[int, int]]] = {}  # (steps, distinct tools) of the tasks of each shape
    for t in tasks:
        kinds = {shapes.get(i, "unknown") for i in t.intents}
        kinds |= ({"wholly infeasible"} if kinds == {"infeasible"} else set()) | (
            {"paired"} if len(t.intents) > 1 else set())
        for kind in kinds:
            shape_counts[kind] += 1
            depth.setdefault(kind, []).append((t.steps, t.tools))
    own = [(t.steps, t.tools) for t in tasks if set(t.intents) & (specific or set())]
    n = len(tasks) or 1
    top = skeletons.most_common(1)[0] if skeletons else ("", 0)
    top_request = requests.most_common(1)[0] if requests else ("", 0)
    top_filler = fillers.most_common(1)[0] if fillers else ("", 0)
    return {
        "tasks": len(tasks),
        "domains": len({t.domain for t in tasks}),
        "distinct_intents": len(intents),
        "category_specific_intents": len([i for i in intents if i in (specific or set())]),
        "distinct_skeletons": len(skeletons),
        "top_skeleton_share": round(top[1] / n, 4),
        "top_skeleton": top[0][:300],
        "distinct_request_sentences": len(requests),
        "top_request_sentence_share": round(top_request[1] / n, 4),
        "top_request_sentence": top_request[0][:300],
        "distinct_filler_sentences": len(fillers),
        "top_filler_sentence_share": round(top_filler[1] / n, 4),
        "top_filler_sentence": top_filler[0][:300],
        "vocabulary": len(vocabulary),
        "cross_domain_near_duplicate_share": round(sum(across) / n, 4),
        "shapes": {k: {"tasks": v, "share": round(v / n, 4), **_depth(depth[k])}
                   for k, v in sorted(shape_counts.items())},
        "category_specific": {"tasks": len(own), "share": round(len(own) / n, 4), **_depth(own)},
        "steps": _summary([t.steps for t in tasks]),
        "distinct_tools": _summary([t.tools for t in tasks]),
        "top_intents": dict(intents.most_common(10)),
    }


def _depth(tasks: list[tuple[int, int]]) -> dict[str, float]:
    """The mean steps and distinct tools of some tasks ((steps, tools) each)."""
    n = len(tasks) or 1
    return {"steps_mean": round(sum(s for s, _ in tasks) / n, 2),
            "distinct_tools_mean": round(sum(t for _, t in tasks) / n, 2)}


PARTITION_DUPLICATE_WARN = 0.5  # a partition whose tasks are mostly near-duplicates of one another


def partition_duplicate_shares(tasks_by_env: dict[str, tuple[list[str], Masker]]) -> tuple[float, list[tuple[str, str]]]:
    """Over one partition's environments: the share of its tasks that are near-duplicates of another of its tasks,
    and those tasks as (env_id, instruction)."""
    items = [(env_id, text, masker) for env_id, (texts, masker) in tasks_by_env.items() for text in texts]
    flags = near_duplicate_flags([shingles(masker.mask(text)) for _, text, masker in items])
    flagged = [(env_id, text) for (env_id, text, _), flag in zip(items, flags) if flag]
    return (len(flagged) / len(items) if items else 0.0), flagged
