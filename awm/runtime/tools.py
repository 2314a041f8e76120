"""Tool calls: argument checks (in the caller's process) and execution (in a sandbox worker).

A call's result is a JSON-able value, or a structured error
`{"error": {"code": ..., "message": ...}}` with one of these codes:

    unknown_tool       no tool of that name
    invalid_arguments  the arguments violate the tool's JSON Schema
    <business code>    the tool refused (not_found, invalid_state, ...); its writes are undone
    tool_failed        the tool raised; its writes are undone
    database_error     SQLite refused a statement (constraint, denied by the sandbox, ...)
    timeout            the tool ran past its deadline and was stopped
    resource_limit     the tool exceeded its memory budget, or its result is too large
    sandbox_crashed    the sandbox process running the tool died; the episode was rebuilt
    episode_lost       the episode could not be rebuilt after its sandbox process died
"""

from __future__ import annotations

import functools
import json
import math
import re
import sqlite3
from collections.abc import Callable
from typing import Any

from awm.runtime.db import DBHandle, TransactionLostError
from awm.runtime.sandbox import SandboxTimeout, call_limits, valid_text
from awm.toolspecs import without_omitted

DEFAULT_CALL_SECONDS = 2.0
DEFAULT_CALL_MEMORY_MB = 256
MAX_RESULT_CHARS = 1024 * 1024
MAX_MESSAGE_CHARS = 500


def tool_error(code: str, message: str, **details: Any) -> dict:
    return {"error": {"code": code, "message": message, **details}}


def is_error(result: Any) -> bool:
    return isinstance(result, dict) and set(result) == {"error"} and isinstance(result["error"], dict)


# Errors the runtime gives instead of a tool's answer: a call that got one learnt nothing about the world.
RUNTIME_ERROR_CODES = frozenset({"unknown_tool", "invalid_arguments", "tool_failed", "timeout", "resource_limit",
                                 "database_error", "sandbox_crashed", "episode_lost", "episode_ended",
                                 "already_submitted", "not_permitted"})


def is_not_permitted(result: Any) -> bool:
    """Whether the runtime refused the call as what the customer an episode acts for may not do (a staff tool, a
    write on another customer's row)."""
    return is_error(result) and result["error"].get("code") == "not_permitted"


def is_evidence(result: Any) -> bool:
    """Whether a call's result is the world's answer: a result, or a business error the tool itself gave (not
    found, not allowed: what a refusal cites), not one of RUNTIME_ERROR_CODES."""
    return not is_error(result) or result["error"].get("code") not in RUNTIME_ERROR_CODES


def _short(text: str) -> str:
    """A message for a structured error: at most MAX_MESSAGE_CHARS, and valid Unicode (generated code can
    raise with a lone surrogate in its message)."""
    return valid_text(text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "...")


MAX_REMEMBERED_CALLS = 4096
MAX_REMEMBERED_CALL_CHARS = 2048


def ecma_anchored(pattern: str) -> str:
    r"""`pattern` with each end anchor `$` (outside character classes) written `\Z`.

    JSON Schema patterns are ECMA-262 regular expressions, where `$` matches only at the end of the
    string; Python's `$` also matches before a trailing newline, so `^\d{4}-\d{2}-\d{2}$` would accept
    "2025-06-01\n"."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            start = i + 1 + (pattern[i + 1:i + 2] == "^")
            start += pattern[start:start + 1] == "]"  # a ']' first in a class is literal
            out.append(pattern[i:start])
            i, in_class = start, True
            continue
        elif char == "$":
            char = "\\Z"
        out.append(char)
        i += 1
    return "".join(out)


@functools.lru_cache(maxsize=1024)
def _ecma_regex(pattern: str) -> re.Pattern:
    # ASCII: ECMA's \d and \w are ASCII; Python's would also take other scripts' digits and letters.
    return re.compile(ecma_anchored(pattern), re.ASCII)


def _ecma_pattern(validator, pattern, instance, schema):
    """The `pattern` keyword with ECMA-262 semantics (see ecma_anchored)."""
    from jsonschema import ValidationError

    if validator.is_type(instance, "string") and not _ecma_regex(pattern).search(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


@functools.cache
def _validator_class():
    import jsonschema

    return jsonschema.validators.extend(jsonschema.Draft202012Validator, {"pattern": _ecma_pattern})


def _holds_null(arguments: dict) -> bool:
    return any(v is None or (isinstance(v, dict) and _holds_null(v)) for v in arguments.values())


_INTEGER_TEXT = re.compile(r"-?(0|[1-9][0-9]*)")
_NUMBER_TEXT = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


def numbers_from_text(schema: dict, arguments: dict) -> dict:
    """`arguments` with each optional integer or number parameter given as the text of one ("48", "2.5") made
    that number (nested objects too). Clients that render the strict form's nullable numbers
    (`["integer", "null"]`) as a text field, such as the MCP Inspector, send them so; a required parameter,
    a parameter that also takes a string, and text that is not exactly one number stay as given (and are
    refused by the schema check as before)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict):
        return arguments
    required = set(schema.get("required") or ())
    changed = None
    for name, value in arguments.items():
        sub = properties.get(name)
        if not isinstance(sub, dict):
            continue
        new = value
        if isinstance(value, dict):
            new = numbers_from_text(sub, value)
        elif isinstance(value, str) and name not in required:
            kinds = sub.get("type")
            kinds = {kinds} if isinstance(kinds, str) else set(kinds) if isinstance(kinds, list) else set()
            if "string" not in kinds and "integer" in kinds and _INTEGER_TEXT.fullmatch(value):
                new = int(value)
            elif "string" not in kinds and "number" in kinds and _NUMBER_TEXT.fullmatch(value):
                number = float(value)
                new = number if math.isfinite(number) else value
        if new is not value:
            changed = changed if changed is not None else dict(arguments)
            changed[name] = new
    return changed if changed is not None else arguments


class ArgumentCheck:
    """The JSON Schemas of one environment's tools, compiled on first use."""

    def __init__(self, specs: dict[str, dict]):
        self.schemas = specs
        self._validators: dict[str, Any] = {}
        self._valid: set[str] = set()  # calls seen to fit (proofs replay the same calls many times)

    def problem(self, tool: str, arguments: Any) -> dict | None:
        """None if `arguments` fit `tool`'s schema, else the structured error to return."""
        return self.checked(tool, arguments)[1]

    def checked(self, tool: str, arguments: Any) -> tuple[Any, dict | None]:
        """(the arguments to run `tool` with, None) if they fit its schema, else (them, the structured error).
        An optional parameter given as null is left out (not given), as strict clients send it, also inside an
        object argument (a `filters` object whose unused filters are null)."""
        if isinstance(arguments, dict) and tool in self.schemas and _holds_null(arguments):
            arguments = without_omitted(self.schemas[tool], arguments)
        if isinstance(arguments, dict) and tool in self.schemas:
            arguments = numbers_from_text(self.schemas[tool], arguments)
        return arguments, self._problem(tool, arguments)

    def _problem(self, tool: str, arguments: Any) -> dict | None:
        if tool not in self.schemas:
            return tool_error("unknown_tool", f"no tool named {tool!r}", available=sorted(self.schemas))
        if not isinstance(arguments, dict):
            return tool_error("invalid_arguments", f"{tool}: arguments must be a JSON object")
        try:
            seen = tool + json.dumps(arguments, sort_keys=True, allow_nan=False)
        except (TypeError, ValueError):
            seen = None  # not JSON: the schema check below says what is wrong with it
        if seen in self._valid:
            return None
        validator = self._validators.get(tool)
        if validator is None:
            validator = self._validators[tool] = _validator_class()(self.schemas[tool])
        problems = sorted(validator.iter_errors(arguments), key=lambda e: list(e.path))
        if not problems:
            if seen is not None and len(seen) <= MAX_REMEMBERED_CALL_CHARS:
                if len(self._valid) >= MAX_REMEMBERED_CALLS:
                    self._valid.clear()
                self._valid.add(seen)
            return None
        first = problems[0]
        where = "/".join(str(p) for p in first.path) or "arguments"
        return tool_error("invalid_arguments", _short(f"{tool}: {where}: {first.message}"))


def encode_result(result: Any) -> str:
    """The JSON text of a tool's result; raises ValueError or TypeError if it is not JSON.

    The text is valid Unicode: a string with a lone surrogate (which JSON text in UTF-8 cannot
    carry) is refused like any other value that is not JSON.
    """
    encoded = json.dumps(result, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
    if not encoded.isascii():
        try:
            encoded.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise ValueError(f"the result holds text that is not valid Unicode (a lone surrogate at "
                             f"character {exc.start})") from None
    return encoded


def run_tool(db: DBHandle, fn: Callable[..., Any], tool: str, arguments: dict, seconds: float,
             memory_bytes: int | None) -> str:
    """Run one tool in this (sandbox worker) process; return the JSON text of its result or error. Never raises
    for anything the tool does.

    The call runs inside a savepoint under the call limits; an error result, an exception, a
    timeout or an exceeded budget rolls its writes back. The tool gets a view of `db` that dies
    when the call ends. If SQLite itself rolled back the call's transaction (a ROLLBACK conflict
    clause, a full database), the call's writes are gone and its result is a database_error.
    """
    failure: dict | None = None
    encoded = ""
    view = db._view(transactional=True)
    db._set_deadline(seconds)
    db._begin()
    try:
        with call_limits(seconds, memory_bytes):
            result = fn(view, **arguments)
            encoded = encode_result(result)
            if len(encoded) > MAX_RESULT_CHARS:
                failure = tool_error("resource_limit", f"{tool} returned {len(encoded)} characters of JSON "
                                                       f"(at most {MAX_RESULT_CHARS})")
            elif is_error(result):
                failure = {}  # the tool's own refusal: returned as it is, its writes undone
    except SandboxTimeout:
        failure = tool_error("timeout", f"{tool} ran longer than {seconds:g} s and was stopped")
    except MemoryError:
        failure = tool_error("resource_limit", f"{tool} exceeded its memory budget and was stopped")
    except TransactionLostError:
        pass  # reported below, whatever the tool made of it
    except sqlite3.OperationalError as exc:
        code = "timeout" if "interrupted" in str(exc) else "database_error"
        failure = tool_error(code, _short(f"{tool}: {exc}"))
    except sqlite3.Error as exc:
        failure = tool_error("database_error", _short(f"{tool}: {exc}"))
    except Exception as exc:  # noqa: BLE001 - untrusted code: any failure is a result, reported
        failure = tool_error("tool_failed", _short(f"{tool} raised {type(exc).__name__}: {exc}"))
    finally:
        view._end()
        db._set_deadline(None)
    if view._full:
        failure = tool_error("resource_limit", f"{tool}: the episode's database reached its size cap "
                                               f"({db._max_bytes() / 2 ** 20:g} MiB); the call's writes were undone")
    if db._transaction_lost():  # SQLite undid the call itself: there is no savepoint left to release
        return encode_result(failure or tool_error(
            "database_error", f"{tool}: SQLite rolled back the call's transaction (a ROLLBACK conflict clause or "
                              "trigger); the call's writes were undone"))
    if failure is None:
        try:
            db._commit()
            return encoded
        except sqlite3.Error as exc:  # a deferred constraint, checked when the savepoint is released
            failure = tool_error("database_error", _short(f"{tool}: its writes could not be kept: {exc}"))
    db._rollback()
    return encode_result(failure) if failure else encoded
