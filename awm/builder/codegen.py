"""An AST emitter: generated code is rendered from template modules that are real, linted Python.

A template module holds functions written with placeholder names in capitals; rendering one parses the
module (once), copies the function's tree, substitutes the placeholders and unparses it. The rules:

- a name bound to a value (a str, int, float, bool or None, or a tuple, list or dict of them) becomes that
  constant: `PARTY_TABLE` -> `"customers"` (a negative number as Python parses it, `-(5)`);
- a name bound to an `Expr` becomes that expression: `EXTRA` -> `{"review_comment": comment}`;
- an `Ident` binding renames identifiers (function names, arguments, variables) in which its key appears
  as a word: with `PARTY = Ident("customer")`, `PARTY_id` -> `customer_id` and `PARTY` -> `customer`;
- `for X in KEY:` where KEY is bound to a `Repeat` (a list of bindings) is unrolled, one copy of the
  body per item, each rendered with that item's bindings added;
- `if CONST:` is replaced by its body or its else branch (`not CONST` folds first), so a template can
  hold optional statements;
- string concatenations of constants fold: `"cannot " + VERB + " "` -> `"cannot suspend "`, also across
  a leading non-constant (`x + "a" + "b"` -> `x + "ab"`), since every such operand is a string;
- `if refused := RULE(args): return refused`, where RULE is a function marked `@rule` (a business rule
  written once, awm.builder.templates.tool_rules), is replaced by RULE's statements, each argument's
  expression in place of its parameter (before the placeholders are substituted): the generated code
  holds the check itself, as if written out where the rule is called.

After rendering, every name the function reads must be a parameter, a name it assigns, a global of
the prelude it runs with, or a builtin: a placeholder left unbound raises `TemplateError` naming it.
Imports and the module docstring of a template module are never rendered.

`render_function_source` memoises rendered functions on the bindings a template can use (a corpus renders
the same tool for many worlds); `function_source` and `splice` copy a function as written, comments
included, for code that needs no substitution (the verifier's helpers) or only whole statements (`verify`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any, TypeVar

CONSTANT_TYPES = (str, int, float, bool, type(None))


class TemplateError(ValueError):
    """A template cannot be rendered with the bindings given (unbound placeholder, bad binding)."""


class Ident(str):
    """A binding that renames identifiers: the placeholder word inside names becomes this text."""


@dataclass(frozen=True)
class Expr:
    """A binding that is an expression, given as Python source."""

    source: str


@dataclass(frozen=True)
class Repeat:
    """A binding for `for _ in KEY:`: the body is repeated once per item, each item adding bindings."""

    items: tuple[Mapping[str, Any], ...]


@cache
def module_source(module: ModuleType) -> str:
    return inspect.getsource(module)


@cache
def module_tree(module: ModuleType) -> ast.Module:
    return ast.parse(module_source(module))


def function_source(module: ModuleType, name: str) -> str:
    """A template module's function as written (its comments included), for code copied verbatim."""
    node = template_function(module, name)
    lines = module_source(module).splitlines()
    return "\n".join(lines[node.lineno - 1:node.end_lineno])


def splice(module: ModuleType, name: str, marker: str, statements: Iterable[ast.stmt]) -> str:
    """The function `name` as written, its statement consisting of the bare name `marker` replaced by
    `statements` (unparsed, at the marker's indentation): the rest of the function keeps its text."""
    node = template_function(module, name)
    hits = [s for s in node.body if isinstance(s, ast.Expr) and isinstance(s.value, ast.Name) and s.value.id == marker]
    if len(hits) != 1:
        raise TemplateError(f"template {module.__name__}.{name}: expected one {marker} line, found {len(hits)}")
    lines = module_source(module).splitlines()
    indent = " " * hits[0].col_offset
    body = [indent + line for statement in statements for line in ast.unparse(statement).splitlines()]
    return "\n".join(lines[node.lineno - 1:hits[0].lineno - 1] + body + lines[hits[0].end_lineno:node.end_lineno])


def template_function(module: ModuleType, name: str) -> ast.FunctionDef:
    for node in module_tree(module).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise TemplateError(f"template module {module.__name__} has no function {name}")


F = TypeVar("F")


def rule(function: F) -> F:
    """Mark a template function as a rule: a check written once that templates call as
    `if refused := RULE(args): return refused` and the renderer writes out in their place.

    A rule's body (after its docstring) is `if` statements without `else`, each ending in a `return` of a
    value: the call returns that value or, no test holding, None, which is what its inlined statements do
    inside the template. It assigns no name, and each argument is pasted wherever its parameter is read, so
    arguments are plain expressions (a name, a subscript, a call of `str`). A parameter whose value is the
    empty string, as the right operand of `+`, is dropped (`text + reason` with reason "" -> `text`)."""
    function.__template_rule__ = True  # type: ignore[attr-defined]
    return function


def _rule_call(node: ast.If) -> ast.Call | None:
    """The call of `if NAME := CALL(...): return NAME`, else None."""
    test = node.test
    if (isinstance(test, ast.NamedExpr) and isinstance(test.value, ast.Call) and isinstance(test.value.func, ast.Name)
            and not node.orelse and len(node.body) == 1 and isinstance(node.body[0], ast.Return)
            and isinstance(node.body[0].value, ast.Name) and node.body[0].value.id == test.target.id):
        return test.value
    return None


@cache
def rule_statements(module: ModuleType, name: str) -> tuple[ast.arguments, tuple[ast.stmt, ...]]:
    """A rule's parameters and statements, checked to be of the shape `rule` describes."""
    node = template_function(module, name)
    where = f"rule {module.__name__}.{name}"
    body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and _is_str(node.body[0].value) \
        else node.body
    if not body:
        raise TemplateError(f"{where}: has no statement")
    for statement in body:
        if not (isinstance(statement, ast.If) and not statement.orelse and isinstance(statement.body[-1], ast.Return)
                and statement.body[-1].value is not None):
            raise TemplateError(f"{where}: every statement must be an `if` without `else` ending in `return value`")
    if any(isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load) for s in body for n in ast.walk(s)):
        raise TemplateError(f"{where}: a rule assigns no name")
    arguments = node.args
    if arguments.posonlyargs or arguments.vararg or arguments.kwonlyargs or arguments.kwarg:
        raise TemplateError(f"{where}: a rule takes plain parameters only")
    return arguments, tuple(body)


def _rule_arguments(arguments: ast.arguments, call: ast.Call, where: str) -> dict[str, ast.expr]:
    names = [a.arg for a in arguments.args]
    given: dict[str, ast.expr] = dict(zip(names, call.args, strict=False))
    if len(call.args) > len(names):
        raise TemplateError(f"{where}: {len(call.args)} arguments given, it takes {len(names)}")
    for keyword in call.keywords:
        if keyword.arg not in names or keyword.arg in given:
            raise TemplateError(f"{where}: unexpected or repeated argument {keyword.arg}")
        given[keyword.arg] = keyword.value
    defaults = dict(zip(names[len(names) - len(arguments.defaults):], arguments.defaults, strict=True))
    missing = [n for n in names if n not in given and n not in defaults]
    if missing:
        raise TemplateError(f"{where}: missing argument(s) {', '.join(missing)}")
    return {n: given.get(n, defaults.get(n)) for n in names}


class _BindRule(ast.NodeTransformer):
    """A rule's statements with each parameter read replaced by its argument's expression."""

    def __init__(self, arguments: Mapping[str, ast.expr]):
        self.arguments = arguments

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return clone(self.arguments[node.id]) if node.id in self.arguments else node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Add) and _is_str(node.right) and node.right.value == "":
            return node.left
        return node


class _InlineRules(ast.NodeTransformer):
    def __init__(self, module: ModuleType):
        self.module = module

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        call = _rule_call(node)
        target = getattr(self.module, call.func.id, None) if call is not None else None
        if call is None or not getattr(target, "__template_rule__", False):
            return node
        home = sys.modules[target.__module__]
        arguments, statements = rule_statements(home, target.__name__)
        where = f"rule {home.__name__}.{target.__name__} called in {self.module.__name__}"
        bind = _BindRule(_rule_arguments(arguments, call, where))
        return [bind.visit(clone(statement)) for statement in statements]


@cache
def expanded_function(module: ModuleType, name: str) -> ast.FunctionDef:
    """A template function with the rules it calls written out (see `rule`): what rendering starts from."""
    node = template_function(module, name)
    if not any(isinstance(n, ast.NamedExpr) for n in ast.walk(node)):
        return node
    return _InlineRules(module).visit(clone(node))


def clone(node: Any) -> Any:
    """A copy of an AST (without source positions), several times faster than copy.deepcopy."""
    if isinstance(node, ast.AST):
        new = node.__class__.__new__(node.__class__)
        for name in node._fields:
            setattr(new, name, clone(getattr(node, name, None)))
        return new
    if isinstance(node, list):
        return [clone(item) for item in node]
    return node


def constant_node(value: Any, key: str) -> ast.expr:
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        return ast.UnaryOp(ast.USub(), ast.Constant(-value))  # as Python parses -5
    if isinstance(value, CONSTANT_TYPES):
        return ast.Constant(value)
    if isinstance(value, tuple):
        return ast.Tuple([constant_node(v, key) for v in value], ast.Load())
    if isinstance(value, list):
        return ast.List([constant_node(v, key) for v in value], ast.Load())
    if isinstance(value, dict):
        return ast.Dict([constant_node(k, key) for k in value], [constant_node(v, key) for v in value.values()])
    if isinstance(value, Expr):
        try:
            return ast.parse(value.source, mode="eval").body
        except SyntaxError as exc:
            raise TemplateError(f"placeholder {key}: {value.source!r} is not a Python expression: {exc}") from exc
    raise TemplateError(f"placeholder {key}: cannot bind a {type(value).__name__} ({value!r})")


class _Substitute(ast.NodeTransformer):
    def __init__(self, bindings: Mapping[str, Any]):
        self.bindings = dict(bindings)
        idents = {k: v for k, v in self.bindings.items() if isinstance(v, Ident)}
        self.idents = idents
        self.pattern = (re.compile("(?<![A-Z])(" + "|".join(sorted(map(re.escape, idents), key=len, reverse=True))
                                   + ")(?![A-Z])") if idents else None)

    def rename(self, name: str) -> str:
        value = self.bindings.get(name)
        if isinstance(value, Ident):
            return str(value)
        if value is not None or name in self.bindings or self.pattern is None:
            return name
        return self.pattern.sub(lambda m: self.idents[m.group(1)], name)

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.bindings and not isinstance(self.bindings[node.id], Ident | Repeat):
            if not isinstance(node.ctx, ast.Load):
                raise TemplateError(f"placeholder {node.id} is bound to a value but assigned to")
            return ast.copy_location(constant_node(self.bindings[node.id], node.id), node)
        node.id = self.rename(node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.rename(node.arg)
        node.annotation = None
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.rename(node.name)
        self.generic_visit(node)
        return node

    def visit_For(self, node: ast.For) -> Any:
        repeat = self.bindings.get(node.iter.id) if isinstance(node.iter, ast.Name) else None
        if not isinstance(repeat, Repeat):
            self.generic_visit(node)
            return node
        statements: list[ast.stmt] = []
        for item in repeat.items:
            inner = _Substitute({**self.bindings, **item})
            for statement in clone(node.body):
                result = inner.visit(statement)
                statements.extend(result if isinstance(result, list) else [result] if result else [])
        return statements

    def visit_If(self, node: ast.If) -> Any:
        self.generic_visit(node)
        if isinstance(node.test, ast.Constant):
            return node.body if node.test.value else node.orelse
        return node

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
            return ast.copy_location(ast.Constant(not node.operand.value), node)
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Add) or not _is_str(node.right):
            return node
        if _is_str(node.left):
            return ast.copy_location(ast.Constant(node.left.value + node.right.value), node)
        left = node.left
        if isinstance(left, ast.BinOp) and isinstance(left.op, ast.Add) and _is_str(left.right):
            left.right = ast.Constant(left.right.value + node.right.value)
            return left
        return node


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _assigned_names(function: ast.FunctionDef) -> set[str]:
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def check_free_names(function: ast.FunctionDef, globals_: Iterable[str], template: str) -> None:
    """Raise TemplateError if the rendered function reads a name nothing defines (an unbound placeholder)."""
    known = _assigned_names(function) | set(globals_) | set(dir(builtins))
    unbound = sorted({node.id for node in ast.walk(function)
                      if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known})
    if unbound:
        raise TemplateError(f"template {template}: unbound placeholder(s) {', '.join(unbound)} "
                            f"(bind them, or define them in the function)")


def signature(params: Iterable[tuple[str, bool, Any]]) -> ast.arguments:
    """`db`, then the required parameters, then the optional ones with their defaults."""
    params = list(params)
    required = [name for name, is_required, _ in params if is_required]
    optional = [(name, default) for name, is_required, default in params if not is_required]
    return ast.arguments(posonlyargs=[], args=[ast.arg("db"), *(ast.arg(n) for n in required),
                                               *(ast.arg(n) for n, _ in optional)],
                         vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                         defaults=[constant_node(d, n) for n, d in optional])


def render_function(module: ModuleType, template: str, bindings: Mapping[str, Any], globals_: Iterable[str],
                    name: str | None = None, args: ast.arguments | None = None,
                    docstring: str | None = None, prologue: str = "") -> ast.FunctionDef:
    """The template function `template` of `module`, rendered with `bindings`.

    `name`, `args` and `docstring`, when given, replace the template's own (a tool's name, signature and
    description are declared with its metadata, not in its template); `prologue`, statements run before the
    template's body (a nested API style's body unpacked into the names the template uses)."""
    function = clone(expanded_function(module, template))
    function.decorator_list = []
    function.returns = None
    body = function.body
    if body and isinstance(body[0], ast.Expr) and _is_str(body[0].value):
        body = body[1:]
    function.body = body
    rendered = _Substitute(bindings).visit(function)
    if name is not None:
        rendered.name = name
    if args is not None:
        rendered.args = args
    if prologue:
        rendered.body = [*ast.parse(prologue).body, *rendered.body]
    if docstring is not None:
        rendered.body = [ast.Expr(ast.Constant(docstring)), *rendered.body]
    if not rendered.body:
        rendered.body = [ast.Pass()]
    ast.fix_missing_locations(rendered)
    check_free_names(rendered, globals_, f"{module.__name__}.{template}")
    return rendered


def _hashable(value: Any) -> Any:
    if isinstance(value, Repeat):
        return ("Repeat", tuple(tuple(sorted((k, _hashable(v)) for k, v in item.items())) for item in value.items))
    if isinstance(value, dict):
        return ("dict", tuple((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return (type(value).__name__, tuple(_hashable(v) for v in value))
    return (type(value).__name__, value)


@cache
def _placeholder_words(module: ModuleType, template: str) -> frozenset[str]:
    """Every run of capitalised words in the template's identifiers: the only binding keys it can use."""
    words: set[str] = set()
    for node in ast.walk(expanded_function(module, template)):
        name = node.id if isinstance(node, ast.Name) else node.arg if isinstance(node, ast.arg) else \
            node.name if isinstance(node, ast.FunctionDef) else None
        if name is None:
            continue
        parts = name.split("_")
        for start in range(len(parts)):
            for end in range(start + 1, len(parts) + 1):
                if parts[end - 1].isupper():
                    words.add("_".join(parts[start:end]))
    return frozenset(words)


_SOURCE_CACHE: dict[Any, str] = {}
_SOURCE_CACHE_MAX = 8192


def render_function_source(module: ModuleType, template: str, bindings: Mapping[str, Any], globals_: frozenset[str],
                           name: str, args: tuple[tuple[str, bool, Any], ...], docstring: str,
                           prologue: str = "") -> str:
    """`render_function` unparsed, memoised on the bindings the template can use: worlds of one domain
    share most of their tools, and a corpus renders the same tool many times."""
    words = _placeholder_words(module, template)
    used = tuple(sorted((k, _hashable(bindings[k])) for k in words.intersection(bindings)))
    key = (module.__name__, template, used, globals_, name, _hashable(args), docstring, prologue)
    source = _SOURCE_CACHE.get(key)
    if source is None:
        function = render_function(module, template, bindings, globals_, name=name, args=signature(args),
                                   docstring=docstring, prologue=prologue)
        source = ast.unparse(function)
        if len(_SOURCE_CACHE) >= _SOURCE_CACHE_MAX:
            _SOURCE_CACHE.clear()
        _SOURCE_CACHE[key] = source
    return source


def module_body(module: ModuleType) -> list[ast.stmt]:
    """A template module's statements without its docstring and its imports."""
    body = module_tree(module).body
    if body and isinstance(body[0], ast.Expr) and _is_str(body[0].value):
        body = body[1:]
    return [clone(s) for s in body if not isinstance(s, ast.Import | ast.ImportFrom)]


def render_module(module: ModuleType, bindings: Mapping[str, Any], docstring: str | None = None) -> ast.Module:
    """A whole template module (a prelude), its placeholders substituted, with a new docstring."""
    statements: list[ast.stmt] = []
    substitute = _Substitute(bindings)
    for statement in module_body(module):
        result = substitute.visit(statement)
        statements.extend(result if isinstance(result, list) else [result])
    if docstring is not None:
        statements.insert(0, ast.Expr(ast.Constant(docstring)))
    tree = ast.Module(statements, type_ignores=[])
    ast.fix_missing_locations(tree)
    return tree


def defined_names(module: ModuleType) -> set[str]:
    """The global names a template module defines (its functions and assigned constants), imports left out."""
    names: set[str] = set()
    for statement in module_body(module):
        if isinstance(statement, ast.FunctionDef):
            names.add(statement.name)
        elif isinstance(statement, ast.Assign):
            names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
    return names
