"""Loading a tools module and calling its tools with validated arguments."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

import jsonschema

from awm.contracts import ToolSet
from awm.errors import UnsafeCodeError
from awm.runtime.db import DBHandle
from awm.runtime.sandbox import SandboxTimeout, functions_of, load_module, run_with_deadline

DEFAULT_CALL_SECONDS = 2.0


def tool_error(code: str, message: str, **details: Any) -> dict:
    return {"error": {"code": code, "message": message, **details}}


def is_error(result: Any) -> bool:
    return isinstance(result, dict) and set(result) == {"error"} and isinstance(result["error"], dict)


class ToolRuntime:
    """The tools of one environment: checked code, compiled validators, one call path."""

    def __init__(self, source: str, toolset: ToolSet, filename: str = "tools.py"):
        namespace = load_module(source, filename)
        functions = functions_of(namespace)
        self.specs = {spec.name: spec for spec in toolset.tools}
        missing = sorted(set(self.specs) - set(functions))
        if missing:
            raise UnsafeCodeError(f"{filename}: tools specified but not implemented: {', '.join(missing)}")
        self.functions: dict[str, Callable[..., Any]] = {name: functions[name] for name in self.specs}
        self.validators = {
            name: jsonschema.Draft202012Validator(spec.input_schema) for name, spec in self.specs.items()
        }

    def call(self, db: DBHandle, tool: str, arguments: dict | None, seconds: float = DEFAULT_CALL_SECONDS) -> Any:
        """Run one tool; return its JSON-able result or a structured error (never raises for bad calls)."""
        if tool not in self.functions:
            return tool_error("unknown_tool", f"no tool named {tool!r}", available=sorted(self.functions))
        arguments = {} if arguments is None else arguments
        if not isinstance(arguments, dict):
            return tool_error("invalid_arguments", "arguments must be a JSON object")
        problems = sorted(self.validators[tool].iter_errors(arguments), key=lambda e: list(e.path))
        if problems:
            first = problems[0]
            where = "/".join(str(p) for p in first.path) or "arguments"
            return tool_error("invalid_arguments", f"{tool}: {where}: {first.message}")
        fn = self.functions[tool]
        db.set_deadline(seconds)
        conn = db._conn
        savepoint_ok = True
        try:
            conn.execute("SAVEPOINT tool_call")
        except sqlite3.Error:
            savepoint_ok = False
        try:
            result = run_with_deadline(lambda: fn(db, **arguments), seconds)
        except SandboxTimeout:
            self._rollback(conn, savepoint_ok)
            return tool_error("timeout", f"{tool} ran longer than {seconds:g} s and was stopped")
        except sqlite3.OperationalError as exc:
            self._rollback(conn, savepoint_ok)
            code = "timeout" if "interrupted" in str(exc) else "database_error"
            return tool_error(code, f"{tool}: {exc}")
        except (sqlite3.Error, ValueError, TypeError, KeyError, IndexError, ZeroDivisionError,
                ArithmeticError, RuntimeError, LookupError, RecursionError) as exc:
            self._rollback(conn, savepoint_ok)
            return tool_error("tool_failed", f"{tool} raised {type(exc).__name__}: {exc}")
        finally:
            db.set_deadline(None)
        if is_error(result):
            self._rollback(conn, savepoint_ok)
        elif savepoint_ok:
            conn.execute("RELEASE tool_call")
        return result

    @staticmethod
    def _rollback(conn: sqlite3.Connection, savepoint_ok: bool) -> None:
        if savepoint_ok:
            conn.execute("ROLLBACK TO tool_call")
            conn.execute("RELEASE tool_call")
