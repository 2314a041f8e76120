"""Which built-in domain, and so which category pack, a bare slug is closest to, by its words.

A slug the catalogue does not know ('tattoo_studio') is composed from archetypes; its lifecycle,
modules and prices come from the built-in domain whose words it shares most, weighted by how
rare each word is across the packs (a word every pack uses says nothing). The reason is recorded
in scenario.json, so a trainer can see, and filter, what was guessed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.catalogue.model import DomainSeed

# Where a word appears in a domain, and how much that says about the domain.
_WEIGHTS = (("name", 4.0), ("business", 2.0), ("offering", 1.0))
_STOP = frozenset({"and", "of", "the", "for", "a", "an", "to", "in", "on", "with", "by"})


def words(text: str) -> set[str]:
    """Lowercase word stems: 'Clinics' -> 'clinic', 'booking' -> 'booking'."""
    out = set()
    for word in re.findall(r"[a-z]+", text.lower()):
        if word in _STOP or len(word) < 3:
            continue
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
            word = word[:-1]
        out.add(word)
    return out


def _fields(seed: DomainSeed) -> dict[str, set[str]]:
    return {
        "name": words(f"{seed.slug.replace('_', ' ')} {seed.title} {seed.category.replace('_', ' ')}"),
        "business": words(" ".join(s.name for s in seed.sub_businesses) + " " + " ".join(seed.roles.values())),
        "offering": words(" ".join(c for s in seed.sub_businesses for c in s.category_names + s.items)),
    }


@cache
def _index() -> tuple[dict[str, dict[str, set[str]]], dict[str, float]]:
    fields = {slug: _fields(seed) for slug, seed in DOMAIN_SEEDS.items()}
    packs: dict[str, set[str]] = {}
    for slug, f in fields.items():
        packs.setdefault(DOMAIN_SEEDS[slug].category, set()).update(*f.values())
    df: dict[str, int] = {}
    for vocabulary in packs.values():
        for word in vocabulary:
            df[word] = df.get(word, 0) + 1
    idf = {word: math.log((len(packs) + 1) / count) for word, count in df.items()}
    return fields, idf


@dataclass(frozen=True)
class NearestDomain:
    seed: DomainSeed | None  # None: no word matched anything
    score: float
    reason: str


def _score(query: set[str], vocabulary: dict[str, set[str]], idf: dict[str, float]) -> tuple[float, list[str]]:
    score, matched = 0.0, []
    for word in sorted(query):
        weight = max((w for name, w in _WEIGHTS if word in vocabulary[name]), default=0.0)
        if weight:
            score += weight * idf[word]
            matched.append(word)
    return score, matched


def nearest_domain(slug: str) -> NearestDomain:
    """The category pack sharing the most (rare) words with `slug`, its closest domain, and why."""
    fields, idf = _index()
    query = words(slug.replace("_", " "))
    packs: dict[str, dict[str, set[str]]] = {}
    for domain, f in fields.items():
        pack = packs.setdefault(DOMAIN_SEEDS[domain].category, {name: set() for name, _ in _WEIGHTS})
        for name, vocabulary in f.items():
            pack[name] |= vocabulary
    scored = sorted(
        ((*_score(query, vocabulary, idf), category) for category, vocabulary in packs.items()), key=lambda t: -t[0]
    )
    pack_score, pack_words, pack = scored[0]
    if pack_score == 0:
        return NearestDomain(None, 0.0, f"no word of {slug!r} occurs in any category pack")
    in_pack = [d for d in fields if DOMAIN_SEEDS[d].category == pack]
    domain = max(in_pack, key=lambda d: _score(query, fields[d], idf)[0])  # first on ties: catalogue order
    seed = DOMAIN_SEEDS[domain]
    reason = (
        f"word(s) {', '.join(repr(w) for w in pack_words)} of {slug!r} matched category pack {pack!r} "
        f"(score {pack_score:.2f}); closest domain in it: {domain!r}"
    )
    unmatched = sorted(query - set(pack_words))
    if unmatched:
        reason += f"; {', '.join(repr(w) for w in unmatched)} not in that pack"
    return NearestDomain(seed, round(pack_score, 3), reason)
