"""The only repairs made to a model's answer: those that cannot change what it says.

- the answer inside one ``` fence, whatever text is around the fence;
- one complete JSON object with text before or after it (an introduction, a closing remark).

Never repaired: an answer cut at the token limit (finish_reason length), unbalanced brackets, a missing or
extra comma, quotes, NaN: guessing the end of a truncated answer or the intent of a broken one could publish
something the model never said. Each repair is named, and the client records it with the call.
"""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL)


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


def strip_wrapping(text: str) -> tuple[str, str | None]:
    """(the JSON text, the repair made or None). The text is returned unchanged when no safe repair applies."""
    stripped = text.strip()
    fences = list(_FENCE.finditer(stripped))
    if len(fences) == 1:
        body = fences[0].group("body").strip()
        if fences[0].span() == (0, len(stripped)):
            return body, None  # a fence around the whole answer is a wrapping, not a repair
        return body, f"took the JSON out of a ``` fence with {len(stripped) - len(fences[0].group(0))} characters " \
                     "of text around it"
    start = stripped.find("{")
    if start < 0:
        return stripped, None
    try:
        value, end = json.JSONDecoder(parse_constant=_reject_constant).raw_decode(stripped, start)
    except (json.JSONDecodeError, ValueError):
        return stripped, None
    if not isinstance(value, dict):
        return stripped, None
    rest = stripped[end:].strip()
    if "{" in rest:
        return stripped, None  # a second object: which one was meant is not ours to choose
    if start == 0 and not rest:
        return stripped, None
    return stripped[start:end], f"removed {start} characters of text before and {len(rest)} after the JSON object"
