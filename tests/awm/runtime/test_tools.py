"""Tool arguments are checked against their JSON Schema as JSON Schema defines it (ECMA-262 regular expressions)."""

import pytest

from awm.runtime.tools import ArgumentCheck, ecma_anchored

DATE = {"type": "object", "properties": {"day": {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$"}},
        "required": ["day"], "additionalProperties": False}


def test_an_end_anchor_does_not_accept_a_trailing_newline():
    check = ArgumentCheck({"book": DATE})
    assert check.problem("book", {"day": "2025-06-01"}) is None
    refused = check.problem("book", {"day": "2025-06-01\n"})
    assert refused["error"]["code"] == "invalid_arguments" and "does not match" in refused["error"]["message"]


def test_digits_and_word_characters_are_ascii_as_in_ecma():
    check = ArgumentCheck({"book": DATE})
    assert check.problem("book", {"day": "\u0662\u0660\u0662\u0665-06-01"})["error"]["code"] == "invalid_arguments"


@pytest.mark.parametrize(("pattern", "translated"), [
    (r"^a$", r"^a\Z"),
    (r"^a\$$", r"^a\$\Z"),
    (r"^[$]+$", r"^[$]+\Z"),
    (r"^[]$]x$", r"^[]$]x\Z"),
    (r"^[^]$]$", r"^[^]$]\Z"),
    (r"(a$|b$)", r"(a\Z|b\Z)"),
    (r"^\\$", r"^\\\Z"),
])
def test_only_end_anchors_are_rewritten(pattern, translated):
    assert ecma_anchored(pattern) == translated
