"""The sandbox for generated code (tools and verifiers).

Generated code is untrusted data. Before it runs it must pass an AST allowlist:
no imports beyond a few pure modules (served as facades, not the real modules),
no names or attributes that reach interpreter internals (anything starting with
an underscore, frame and code attributes, str.format), no eval/exec/open. It
then runs with a small set of builtins, and every call has a wall-clock deadline
enforced by a watchdog thread that raises inside the running thread; SQLite
queries are interrupted by a progress handler at the same deadline.
"""

from __future__ import annotations

import ast
import ctypes
import heapq
import itertools
import json
import math
import re
import threading
import time
from collections.abc import Callable
from datetime import date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

from awm.errors import UnsafeCodeError

MAX_SOURCE_BYTES = 512 * 1024
_DUNDER = re.compile(r"__[A-Za-z]\w*__")

_ALLOWED_NODES = {
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign,
    ast.AnnAssign, ast.For, ast.While, ast.If, ast.Expr, ast.Pass, ast.Break, ast.Continue,
    ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.keyword, ast.IfExp, ast.Dict,
    ast.List, ast.Tuple, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp,
    ast.comprehension, ast.Constant, ast.Name, ast.Load, ast.Store, ast.Attribute, ast.Subscript,
    ast.Slice, ast.JoinedStr, ast.FormattedValue, ast.Starred, ast.Import, ast.ImportFrom, ast.alias,
    ast.Raise, ast.Try, ast.ExceptHandler, ast.Lambda, ast.NamedExpr, ast.Assert,
    ast.And, ast.Or, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
    ast.USub, ast.UAdd, ast.Not, ast.Invert, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE,
    ast.Is, ast.IsNot, ast.In, ast.NotIn, ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift,
}

_FORBIDDEN_NAMES = {
    "eval", "exec", "compile", "open", "globals", "locals", "vars", "getattr", "setattr", "delattr",
    "hasattr", "input", "breakpoint", "help", "dir", "type", "object", "memoryview", "super",
    "classmethod", "staticmethod", "property", "exit", "quit", "__import__", "__builtins__",
    "bytearray", "id", "print",
}

# Attributes that lead from ordinary objects back to frames, code or globals.
_FORBIDDEN_ATTRS = {
    "format", "format_map", "gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "ag_frame",
    "ag_code", "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "tb_frame", "tb_next",
    "co_code", "func_globals", "mro", "im_func", "load_extension", "enable_load_extension",
}

_SAFE_MODULES: dict[str, SimpleNamespace] = {
    "json": SimpleNamespace(loads=json.loads, dumps=json.dumps),
    "math": SimpleNamespace(**{n: getattr(math, n) for n in (
        "ceil", "floor", "sqrt", "isclose", "fabs", "log", "log10", "exp", "pow", "inf", "pi", "isnan",
        "fsum", "trunc")}),
    "re": SimpleNamespace(match=re.match, search=re.search, fullmatch=re.fullmatch, findall=re.findall,
                          sub=re.sub, split=re.split, compile=re.compile, escape=re.escape,
                          IGNORECASE=re.IGNORECASE, I=re.I),
    "datetime": SimpleNamespace(date=date, datetime=datetime, timedelta=timedelta),
}


class SandboxTimeout(Exception):
    """Raised inside generated code that ran past its deadline."""


def _safe_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002 - import protocol
    if level != 0 or name not in _SAFE_MODULES:
        raise ImportError(f"import of {name!r} is not allowed in generated code")
    return _SAFE_MODULES[name]


_SAFE_BUILTINS = dict({
    **{n: __builtins__[n] if isinstance(__builtins__, dict) else getattr(__builtins__, n) for n in (
        "abs", "all", "any", "bool", "dict", "enumerate", "filter", "float", "int", "isinstance", "len",
        "list", "map", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
        "zip", "divmod", "frozenset", "chr", "ord", "repr", "iter", "next", "slice", "hash", "bin", "hex",
        "ValueError", "KeyError", "TypeError", "IndexError", "ZeroDivisionError", "ArithmeticError",
        "LookupError", "RuntimeError", "StopIteration", "Exception", "True", "False", "None",
    )},
    "__import__": _safe_import,
})


def check_source(source: str, filename: str = "<generated>") -> ast.Module:
    """Parse `source` and enforce the policy; raise UnsafeCodeError naming the first violation."""
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise UnsafeCodeError(f"{filename}: source larger than {MAX_SOURCE_BYTES} bytes")
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise UnsafeCodeError(f"{filename}:{exc.lineno}: syntax error: {exc.msg}") from exc
    for node in ast.walk(tree):
        where = f"{filename}:{getattr(node, 'lineno', '?')}"
        if type(node) not in _ALLOWED_NODES:
            raise UnsafeCodeError(f"{where}: {type(node).__name__} is not allowed in generated code")
        if isinstance(node, ast.Name) and (node.id.startswith("__") or node.id in _FORBIDDEN_NAMES):
            raise UnsafeCodeError(f"{where}: name {node.id!r} is not allowed")
        if isinstance(node, ast.Attribute) and (node.attr.startswith("_") or node.attr in _FORBIDDEN_ATTRS):
            raise UnsafeCodeError(f"{where}: attribute {node.attr!r} is not allowed")
        if isinstance(node, (ast.FunctionDef, ast.arg)):
            name = node.name if isinstance(node, ast.FunctionDef) else node.arg
            if name.startswith("__"):
                raise UnsafeCodeError(f"{where}: name {name!r} is not allowed")
            if isinstance(node, ast.FunctionDef) and node.decorator_list:
                raise UnsafeCodeError(f"{where}: decorators are not allowed")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and _DUNDER.search(node.value):
            raise UnsafeCodeError(f"{where}: strings naming dunder attributes are not allowed")
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [node.module] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
            for module in modules:
                if module not in _SAFE_MODULES:
                    raise UnsafeCodeError(f"{where}: import of {module!r} is not allowed "
                                          f"(allowed: {', '.join(sorted(_SAFE_MODULES))})")
    return tree


def load_module(source: str, filename: str = "<generated>") -> dict[str, Any]:
    """Check, compile and execute `source` with safe builtins; return its namespace."""
    tree = check_source(source, filename)
    code = compile(tree, filename, "exec")
    namespace: dict[str, Any] = {"__builtins__": dict(_SAFE_BUILTINS), "__name__": "generated"}
    run_with_deadline(lambda: exec(code, namespace), 2.0)  # noqa: S102 - policy-checked, restricted builtins
    return namespace


def functions_of(namespace: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    return {name: obj for name, obj in namespace.items()
            if callable(obj) and not name.startswith("_") and getattr(obj, "__module__", None) == "generated"}


# --- deadlines ------------------------------------------------------------------

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


class _Watchdog:
    """One thread that raises SandboxTimeout in threads whose deadline passed."""

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, int]] = []
        self._live: dict[int, int] = {}  # token -> thread id
        self._cond = threading.Condition()
        self._tokens = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        token = next(self._tokens)
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="awm-sandbox-watchdog", daemon=True)
                self._thread.start()
            self._live[token] = threading.get_ident()
            heapq.heappush(self._heap, (time.monotonic() + seconds, token, threading.get_ident()))
            self._cond.notify()
        return token

    def disarm(self, token: int) -> None:
        with self._cond:
            self._live.pop(token, None)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap:
                    self._cond.wait()
                deadline, token, tid = self._heap[0]
                now = time.monotonic()
                if deadline > now:
                    self._cond.wait(deadline - now)
                    continue
                heapq.heappop(self._heap)
                if self._live.pop(token, None) is not None:
                    _set_async_exc(tid, SandboxTimeout)


_WATCHDOG = _Watchdog()


def run_with_deadline(fn: Callable[[], Any], seconds: float) -> Any:
    """Run fn() in this thread; raise SandboxTimeout if it is still running after `seconds`."""
    token = _WATCHDOG.arm(seconds)
    try:
        return fn()
    finally:
        _WATCHDOG.disarm(token)
