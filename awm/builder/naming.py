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
