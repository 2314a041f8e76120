"""Turning domain labels ("loan officer") into table, column and tool names."""

from __future__ import annotations

_ES = ("s", "x", "z", "ch", "sh")


def plural_word(word: str) -> str:
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(_ES):
        return word + "es"
    return word + "s"


def plural(label: str) -> str:
    words = label.split()
    return " ".join(words[:-1] + [plural_word(words[-1])])


def snake(label: str) -> str:
    return "_".join(label.split())


def title(label: str) -> str:
    return " ".join(w.capitalize() for w in label.split())


def code_prefix(label: str) -> str:
    """A 3-letter code prefix: 'work order' -> 'WOR', 'claim' -> 'CLA'."""
    letters = "".join(label.split())
    return letters[:3].upper()


def _prefix_candidates(label: str) -> list[str]:
    words = [w.upper() for w in label.split()]
    letters = "".join(words)
    candidates = [letters[:3]]
    if len(words) >= 2:
        candidates += [words[0][0] + words[-1][:2], words[0][:2] + words[-1][0],
                       "".join(w[0] for w in words)[:3], words[-1][:3]]
    candidates += [letters[0] + letters[i] + letters[j] for i in range(1, len(letters)) for j in range(i + 1, len(letters))]
    return [c for c in candidates if len(c) >= 2]


def unique_code_prefixes(labels: dict[str, str]) -> dict[str, str]:
    """A distinct code prefix per role, in the order given: the first keeps `code_prefix` of its label,
    each later one takes the first candidate not yet used ('permit' -> PER, 'permit payment' -> PPA)."""
    used: set[str] = set()
    prefixes: dict[str, str] = {}
    for role, label in labels.items():
        choice = next((c for c in _prefix_candidates(label) if c not in used), None)
        n = 2
        while choice is None:
            choice = f"{code_prefix(label)[:2]}{n}"
            choice, n = (None, n + 1) if choice in used else (choice, n)
        used.add(choice)
        prefixes[role] = choice
    return prefixes
