"""The sandbox for generated code (tools and verifiers).

Generated code is untrusted data. Three layers keep it in its box:

1. Load time, in any process: an AST allowlist. No imports beyond a few pure
   modules (served as read-only facades, not the real modules), no names or attributes
   that reach interpreter internals (anything starting with an underscore, frame and
   code attributes, str.format), no eval/exec/open/getattr, no attribute assignment,
   no handler that could swallow the timeout. The module body itself may only import,
   define functions and bind literal values, so loading a module runs no loop and
   allocates nothing of note: loading is safe anywhere, and cheap enough to do afresh
   for every call (`run_module`), so no state of a module outlives its call.
2. Call time, in a sandbox worker process (awm/runtime/worker.py): every call runs
   under `call_limits`, a wall-clock timer (SIGALRM, which also interrupts the
   regular-expression engine and big-integer arithmetic) and an address-space
   budget (RLIMIT_AS), so an infinite loop ends in SandboxTimeout and a memory bomb
   in MemoryError, both reported as a tool error while the worker carries on.
3. Process: code the timer cannot interrupt (a C-level loop such as
   sum(range(10 ** 13))) is stopped by the parent, which kills the worker at the
   deadline plus a grace period and rebuilds its episodes (awm/runtime/pool.py);
   a per-call CPU-time timer (ITIMER_PROF, whose SIGPROF keeps its default action)
   makes the kernel end it even without the parent.
"""

from __future__ import annotations

import _strptime  # noqa: F401 - loaded before generated code runs: datetime.strptime imports it (see _safe_import)
import ast
import json
import math
import os
import re
import resource
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from types import CodeType, FunctionType, MethodType
from typing import Any

from awm.errors import UnsafeCodeError
from awm.heap import paused_gc

MAX_SOURCE_BYTES = 512 * 1024
MAX_TOP_LEVEL_STATEMENTS = 2000
MAX_MODULE_SLICE = 10_000
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
# Clock reads: a tool's answer must be a function of its database and arguments, since an episode is rebuilt
# by replaying its calls (and a verifier's verdict must not depend on when it runs).
_CLOCK_ATTRS = {"now", "today", "utcnow"}

# What a module-level value may be built from: literals, names, attribute reads,
# containers and bounded slices. No call, operator or comprehension, so loading
# a module costs time and memory proportional to its source, never more.
_STATIC_NODES = {
    ast.Constant, ast.Name, ast.Load, ast.Attribute, ast.Tuple, ast.List, ast.Dict, ast.Set,
    ast.Subscript, ast.Slice, ast.UnaryOp, ast.USub, ast.UAdd, ast.Not,
}

class _Sealed(type):
    """The class of a facade: its members cannot be assigned or deleted, on the class or on an instance."""

    def __setattr__(cls, name: str, value: Any) -> None:
        raise AttributeError(f"{cls.__name__} is read-only in generated code; {name!r} cannot be assigned")

    def __delattr__(cls, name: str) -> None:
        raise AttributeError(f"{cls.__name__} is read-only in generated code; {name!r} cannot be deleted")


def _refuse_assignment(self: Any, name: str, value: Any = None) -> None:
    raise AttributeError(f"{type(self).__name__} is read-only in generated code; {name!r} cannot be assigned")


def _apply(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _read_only(member: Any) -> Any:
    """`member` as generated code may hold it: a Python function (whose attributes anyone could set) is
    wrapped in a bound method, which has none; C functions, types and numbers are immutable already."""
    return MethodType(_apply, member) if isinstance(member, FunctionType) else member


def _facade(name: str, members: dict[str, Any]) -> type:
    namespace = {n: _read_only(m) for n, m in members.items()}
    return _Sealed(name, (), {"__slots__": (), "__setattr__": _refuse_assignment, "__delattr__": _refuse_assignment,
                              "__module__": "awm.sandbox", **namespace})


# What generated code gets for `import json` (and math, re, datetime): a read-only view of a few pure
# members. Each module instance gets its own view (see _safe_import); no member can be replaced, so one
# environment cannot change what another's code calls (a tool that set `re.findall` once flipped another
# environment's verdicts).
_FACADES: dict[str, type] = {
    "json": _facade("json", {"loads": json.loads, "dumps": json.dumps}),
    "math": _facade("math", {n: getattr(math, n) for n in (
        "ceil", "floor", "sqrt", "isclose", "fabs", "log", "log10", "exp", "pow", "inf", "pi", "isnan",
        "fsum", "trunc")}),
    "re": _facade("re", {"match": re.match, "search": re.search, "fullmatch": re.fullmatch, "findall": re.findall,
                         "sub": re.sub, "split": re.split, "compile": re.compile, "escape": re.escape,
                         "IGNORECASE": int(re.IGNORECASE), "I": int(re.I)}),
    "datetime": _facade("datetime", {"date": date, "datetime": datetime, "timedelta": timedelta}),
}

# Modules the standard library's C code imports on generated code's behalf, through the importing frame's
# `__import__` (datetime.strptime imports _strptime; strftime and timetuple import time). They are loaded
# already, and the C caller takes the module from sys.modules, so the import is answered with None:
# generated code itself never receives them.
_RUNTIME_IMPORTS = frozenset({"_strptime", "time"})


class SandboxTimeout(BaseException):
    """Raised inside generated code that ran past its deadline.

    A BaseException, so `except Exception` in generated code cannot catch it; the policy refuses the
    handlers that could (a bare `except:`, a `finally` that returns, breaks or continues).
    """


def _module_importer(own: dict[str, Any]) -> Callable[..., Any]:
    """The `__import__` of one module instance: allowed modules come as facades of its own."""

    def _safe_import(name, globals=None, locals=None, fromlist=(), level=0):  # noqa: A002 - import protocol
        if level == 0 and name in _FACADES:
            facade = own.get(name)
            if facade is None:
                facade = own[name] = _FACADES[name]()
            return facade
        if level == 0 and name in _RUNTIME_IMPORTS and name in sys.modules:
            return None
        raise ImportError(f"import of {name!r} is not allowed in generated code")

    return _safe_import


_SAFE_BUILTINS = dict({
    **{n: __builtins__[n] if isinstance(__builtins__, dict) else getattr(__builtins__, n) for n in (
        "abs", "all", "any", "bool", "dict", "enumerate", "filter", "float", "int", "isinstance", "len",
        "list", "map", "max", "min", "range", "reversed", "round", "set", "sorted", "str", "sum", "tuple",
        "zip", "divmod", "frozenset", "chr", "ord", "repr", "iter", "next", "slice", "hash", "bin", "hex",
        "ValueError", "KeyError", "TypeError", "IndexError", "ZeroDivisionError", "ArithmeticError",
        "LookupError", "RuntimeError", "StopIteration", "Exception", "True", "False", "None",
    )},
})


# --- load-time policy -------------------------------------------------------------


@dataclass
class FunctionFacts:
    """What one top-level function of a checked module names: its string constants, the names it calls."""

    strings: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)


def check_source(source: str, filename: str = "<generated>",
                 facts: dict[str, FunctionFacts] | None = None) -> ast.Module:
    """Parse `source` and enforce the policy; raise UnsafeCodeError naming the first violation.

    With `facts`, the same walk also records each top-level function's FunctionFacts there.
    """
    if len(source.encode("utf-8")) > MAX_SOURCE_BYTES:
        raise UnsafeCodeError(f"{filename}: source larger than {MAX_SOURCE_BYTES} bytes")
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise UnsafeCodeError(f"{filename}:{exc.lineno}: syntax error: {exc.msg}") from exc
    except (RecursionError, MemoryError) as exc:
        raise UnsafeCodeError(f"{filename}: source nests too deeply to parse") from exc
    for top in tree.body:
        found = None
        if facts is not None and top.__class__ is ast.FunctionDef:
            found = facts[top.name] = FunctionFacts()
        stack: list[ast.AST] = [top]
        while stack:  # a flat walk: ast.walk's nested generators cost twice as much per node
            node = stack.pop()
            problem = _node_problem(node)
            if problem:
                raise UnsafeCodeError(f"{filename}:{getattr(node, 'lineno', '?')}: {problem}")
            if found is not None:
                kind = node.__class__
                if kind is ast.Constant:
                    if node.value.__class__ is str:
                        found.strings.add(node.value)
                    continue
                if kind is ast.Call and node.func.__class__ is ast.Name:
                    found.calls.add(node.func.id)
            for name in node._fields:
                value = getattr(node, name, None)
                if value.__class__ is list:
                    stack.extend(item for item in value if isinstance(item, ast.AST))
                elif isinstance(value, ast.AST):
                    stack.append(value)
    _check_module_body(tree, filename)
    return tree


def _node_problem(node: ast.AST) -> str | None:
    kind = node.__class__
    if kind not in _ALLOWED_NODES:
        return f"{kind.__name__} is not allowed in generated code"
    if kind is ast.Name:
        if node.id.startswith("__") or node.id in _FORBIDDEN_NAMES:
            return f"name {node.id!r} is not allowed"
    elif kind is ast.Attribute:
        if node.attr.startswith("_") or node.attr in _FORBIDDEN_ATTRS:
            return f"attribute {node.attr!r} is not allowed"
        if node.attr in _CLOCK_ATTRS:
            return (f"reading the clock ({node.attr!r}) is not allowed: a tool's answer depends only on its "
                    "database and arguments (an episode is rebuilt by replaying its calls); take the date from "
                    "the database or an argument")
        if node.ctx.__class__ is not ast.Load:
            return (f"assigning attributes is not allowed ({node.attr!r}): imported modules and functions are "
                    "read-only, and state kept on them would outlive the call")
    elif kind is ast.ExceptHandler:
        if node.type is None:
            return "a bare except is not allowed (it would catch the sandbox's timeout); name the exceptions"
        types = node.type.elts if node.type.__class__ is ast.Tuple else [node.type]
        if not all(t.__class__ in (ast.Name, ast.Attribute) for t in types):
            return ("an except clause names exception classes only (Name, module.Name, or a tuple of them): "
                    "anything it evaluated could raise in place of the sandbox's timeout")
    elif kind is ast.Try:
        if _leaves_finally(node.finalbody):
            return ("return, break or continue in a finally block is not allowed (it would swallow the sandbox's "
                    "timeout)")
    elif kind is ast.Constant:
        if isinstance(node.value, str) and "__" in node.value and _DUNDER.search(node.value):
            return "strings naming dunder attributes are not allowed"
    elif kind is ast.arg:
        if node.arg.startswith("__"):
            return f"name {node.arg!r} is not allowed"
    elif kind is ast.FunctionDef:
        if node.name.startswith("__"):
            return f"name {node.name!r} is not allowed"
        if node.decorator_list:
            return "decorators are not allowed"
    elif kind is ast.Import or kind is ast.ImportFrom:
        modules = [node.module] if kind is ast.ImportFrom else [a.name for a in node.names]
        for module in modules:
            if module not in _FACADES:
                return f"import of {module!r} is not allowed (allowed: {', '.join(sorted(_FACADES))})"
    return None


def _leaves_finally(body: list[ast.stmt]) -> bool:
    """Whether a finally block can end the exception passing through it: a return anywhere in it, or a
    break or continue of a loop around it (not of a loop inside it; nested functions are their own)."""
    stack: list[tuple[ast.AST, bool]] = [(statement, False) for statement in body]
    while stack:
        node, in_loop = stack.pop()
        kind = node.__class__
        if kind is ast.Return or (kind in (ast.Break, ast.Continue) and not in_loop):
            return True
        if kind in (ast.FunctionDef, ast.Lambda):
            continue
        inner = in_loop or kind in (ast.For, ast.While)
        for child in ast.iter_child_nodes(node):
            # a loop's else clause runs outside the loop: a break there leaves the finally
            orelse = kind in (ast.For, ast.While) and child in node.orelse
            stack.append((child, in_loop if orelse else inner))
    return False


def _check_module_body(tree: ast.Module, filename: str) -> None:
    """The module body may import, define functions and bind literal values; nothing there runs."""
    if len(tree.body) > MAX_TOP_LEVEL_STATEMENTS:
        raise UnsafeCodeError(f"{filename}: more than {MAX_TOP_LEVEL_STATEMENTS} top-level statements")
    for statement in tree.body:
        where = f"{filename}:{statement.lineno}"
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring
        if isinstance(statement, ast.FunctionDef):
            args = statement.args
            evaluated_at_definition = [*args.defaults, *[d for d in args.kw_defaults if d is not None],
                                       statement.returns, *[a.annotation for a in _all_args(args)]]
            for expr in evaluated_at_definition:
                if expr is not None:
                    _require_static(expr, where, f"a default or annotation of {statement.name}")
            continue
        if isinstance(statement, ast.Assign) and all(isinstance(t, ast.Name) for t in statement.targets):
            _require_static(statement.value, where, "a module-level value")
            continue
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            _require_static(statement.annotation, where, "a module-level annotation")
            if statement.value is not None:
                _require_static(statement.value, where, "a module-level value")
            continue
        raise UnsafeCodeError(f"{where}: {type(statement).__name__} at module level; the module body may only "
                              "import allowed modules, define functions and assign literal values")


def _all_args(args: ast.arguments) -> list[ast.arg]:
    extra = [a for a in (args.vararg, args.kwarg) if a is not None]
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *extra]


def _require_static(expr: ast.AST, where: str, what: str) -> None:
    for node in ast.walk(expr):
        if type(node) not in _STATIC_NODES:
            raise UnsafeCodeError(f"{where}: {what} uses {type(node).__name__}; values evaluated when the module "
                                  "loads must be literals, names or bounded slices (compute inside a function)")
        if isinstance(node, ast.Slice):
            bounds = [b for b in (node.lower, node.upper) if b is not None]
            small = all(isinstance(b, ast.Constant) and isinstance(b.value, int) and abs(b.value) <= MAX_MODULE_SLICE
                        for b in bounds)
            if node.upper is None or node.step is not None or not small:
                raise UnsafeCodeError(f"{where}: {what} slices without small constant bounds "
                                      f"(at most {MAX_MODULE_SLICE})")


def top_level_functions(tree: ast.Module) -> dict[str, ast.FunctionDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


_COMPILED_MAX = 128
_compiled: dict[tuple[str, str], CodeType] = {}
_compiled_lock = threading.Lock()


@dataclass
class CheckedModule:
    """A module that passed the policy: its tree, its code and what each top-level function names."""

    tree: ast.Module
    code: CodeType
    functions: dict[str, FunctionFacts]


def checked_module(source: str, filename: str = "<generated>") -> CheckedModule:
    """Check and compile `source`, for callers that analyse it further (the tools gate).

    The code is remembered for `compile_checked`; the tree is not (call inside `paused_gc`, and
    drop it there, as the tools gate does).
    """
    facts: dict[str, FunctionFacts] = {}
    with paused_gc():
        tree = check_source(source, filename, facts)
        try:
            code = compile(tree, filename, "exec")
        except (RecursionError, MemoryError) as exc:  # e.g. `1 + 1 + ... + 1` with a thousand terms
            raise UnsafeCodeError(f"{filename}: source nests too deeply to compile; split long expressions "
                                  "into statements") from exc
    with _compiled_lock:
        _compiled.pop((source, filename), None)
        _compiled[(source, filename)] = code
        while len(_compiled) > _COMPILED_MAX:
            del _compiled[next(iter(_compiled))]  # the least recently used
    return CheckedModule(tree, code, facts)


def compile_checked(source: str, filename: str = "<generated>") -> CodeType:
    """The policy-checked, compiled module; cached, since stages and the runtime load the same code.

    A sandbox worker receives this code object (marshalled) rather than the source: the
    policy is enforced once, in the process that hands code to workers.
    """
    key = (source, filename)
    with _compiled_lock:
        code = _compiled.pop(key, None)
        if code is not None:
            _compiled[key] = code  # most recently used last
            return code
    with paused_gc():
        return checked_module(source, filename).code


def run_module(code: CodeType, filename: str = "<generated>") -> dict[str, Any]:
    """Execute a module compiled by `compile_checked` with the safe builtins; return its namespace.

    Safe in any process: the policy leaves the module body nothing to run but imports of
    facades, function definitions and literal bindings. Every run is a new instance, with its
    own builtins and facades: the runtime runs the module afresh for every call and judgement
    (about 10 us for a 64-function tools module), so nothing a call leaves in its module (a
    list it appended to, a counter, a default argument it changed, a handle it kept) reaches
    another call, episode or environment.
    """
    builtins = dict(_SAFE_BUILTINS)
    builtins["__import__"] = _module_importer({})
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "generated"}
    try:
        exec(code, namespace)  # noqa: S102 - policy-checked, restricted builtins, static module body
    except MemoryError:
        raise  # under a call's memory budget: the call's resource_limit, not a rejection
    except Exception as exc:  # noqa: BLE001 - untrusted code: a failing module body is a rejection
        raise UnsafeCodeError(f"{filename}: the module body raised {type(exc).__name__}: {exc}") from exc
    return namespace


class FreshInstance:
    """Function `name` of a module compiled by `compile_checked`, each call run in a new instance of the
    module (`run_module`): nothing one call leaves in the module reaches the next.

    The instance is cleared when the call returns: its functions and its namespace form a reference
    cycle, which would otherwise keep whatever the call left there (a list it filled) until the next
    garbage collection.
    """

    __slots__ = ("code", "filename", "name")

    def __init__(self, code: CodeType, filename: str, name: str):
        self.code, self.filename, self.name = code, filename, name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        namespace = run_module(self.code, self.filename)
        try:
            return namespace[self.name](*args, **kwargs)
        finally:
            namespace.clear()


def load_module(source: str, filename: str = "<generated>") -> dict[str, Any]:
    """Check, compile and execute `source` with safe builtins; return its namespace."""
    return run_module(compile_checked(source, filename), filename)


def valid_text(text: str) -> str:
    """`text` (from generated code: a message, evidence) as valid Unicode: a lone surrogate, which no UTF-8
    encoder accepts, becomes "?"."""
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def functions_of(namespace: dict[str, Any]) -> dict[str, Callable[..., Any]]:
    return {name: obj for name, obj in namespace.items()
            if callable(obj) and not name.startswith("_") and getattr(obj, "__module__", None) == "generated"}


# --- call-time limits (sandbox worker processes) ------------------------------------

_PAGE = os.sysconf("SC_PAGE_SIZE")
_statm_fd: int | None = None


SWALLOWED_EXIT = 86  # a worker's exit code when generated code kept running past its deadline (it caught the timeout)
SWALLOW_GRACE_SECONDS = 0.5


# The kernel's CPU-time backstop fires this long after the call's deadline (in CPU seconds of the worker).
CPU_MARGIN_SECONDS = 2.0


class _Timer:
    """SIGALRM-based deadline for the main thread of a sandbox worker.

    Once the deadline passed, the alarm repeats every RETRY_SECONDS until the call ends: code that
    keeps running while the timeout passes through it (a loop in a `finally` block) is interrupted
    again, so the call ends soon after its deadline without the pool's kill or the kernel's CPU limit.
    Code that still runs SWALLOW_GRACE_SECONDS after its deadline turned the timeout into something it
    catches (an exception raised in a `finally` block, or while an except clause is evaluated): the
    worker ends itself with SWALLOWED_EXIT, which no clause can catch, and the pool rebuilds its other
    episodes on a successor (awm/runtime/pool.py).
    """

    armed = False
    deadline = 0.0
    RETRY_SECONDS = 0.05

    @classmethod
    def install(cls) -> None:
        signal.signal(signal.SIGALRM, cls._on_alarm)

    @classmethod
    def _on_alarm(cls, signum, frame) -> None:
        if cls.armed:  # an alarm that lands after the call finished is ignored
            if time.monotonic() > cls.deadline + SWALLOW_GRACE_SECONDS:
                os._exit(SWALLOWED_EXIT)
            signal.setitimer(signal.ITIMER_REAL, cls.RETRY_SECONDS)
            raise SandboxTimeout()


def install_call_limits() -> None:
    """Prepare this process (a sandbox worker's main thread) for `call_limits`."""
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("call limits need the main thread of a sandbox worker process")
    _Timer.install()
    signal.signal(signal.SIGPROF, signal.SIG_DFL)  # the CPU-time backstop ends the process (see call_limits)


def _statm() -> list[bytes]:
    """/proc/self/statm in pages (size, resident, ...); one pread of a descriptor kept open."""
    global _statm_fd
    if _statm_fd is None:
        _statm_fd = os.open("/proc/self/statm", os.O_RDONLY | os.O_CLOEXEC)
    return os.pread(_statm_fd, 64, 0).split()


def address_space_bytes() -> int:
    """This process's current virtual size (what RLIMIT_AS limits)."""
    return int(_statm()[0]) * _PAGE


def resident_bytes() -> int:
    """This process's resident memory (what a sandbox worker's memory ceiling limits)."""
    return int(_statm()[1]) * _PAGE


def _below(hard: int, value: int) -> int:
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


@contextmanager
def call_limits(seconds: float, memory_bytes: int | None) -> Iterator[None]:
    """Run the body with a wall-clock deadline, a CPU-time budget and an address-space budget.

    Exceeding the deadline raises SandboxTimeout inside the body (between bytecodes, or
    from a regular-expression match); exceeding the memory budget raises MemoryError at
    the allocation. The CPU-time budget (CPU_MARGIN_SECONDS above the deadline) is a
    timer on the kernel's own CPU clock of this process, started here (ITIMER_PROF): at
    its end the kernel ends the process with SIGPROF, left at its default action: the
    backstop for a C-level loop no signal handler can interrupt, even if the parent that
    would otherwise stop the worker is gone. It is relative on purpose: a limit on the
    process's total CPU time (RLIMIT_CPU) compares the kernel's tick-sampled clock with a
    total read from the precise one (`time.process_time()`), and in a worker that has run
    a while they drift apart by seconds (measured: 1 s ahead after 41 s of CPU under
    contention), so such a limit ended ordinary calls. All limits are lifted on the way out.
    """
    as_soft, as_hard = resource.getrlimit(resource.RLIMIT_AS)
    if memory_bytes:
        resource.setrlimit(resource.RLIMIT_AS, (_below(as_hard, address_space_bytes() + memory_bytes), as_hard))
    signal.setitimer(signal.ITIMER_PROF, seconds + CPU_MARGIN_SECONDS)
    _Timer.deadline = time.monotonic() + seconds
    _Timer.armed = True
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 0.001))
    try:
        yield
    finally:
        # The alarm may land on any bytecode here, before the first statement disarms it; the
        # inner `finally` (disarmed first) lifts the limits whatever happens.
        try:
            _Timer.armed = False
        finally:
            _Timer.armed = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.setitimer(signal.ITIMER_PROF, 0)
            if memory_bytes:
                resource.setrlimit(resource.RLIMIT_AS, (as_soft, as_hard))
