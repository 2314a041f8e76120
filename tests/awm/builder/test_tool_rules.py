"""The rules templates share (awm.builder.templates.tool_rules): what each refuses when run as Python, and no
template writes one out by hand instead of calling it."""

import ast
import inspect
import pkgutil

import pytest

import awm.builder.categories as categories
import awm.builder.templates.tool_rules as tool_rules
import awm.builder.templates.tools as template_package
from awm.builder.codegen import _BindRule, clone, rule_statements


def test_require_status_refuses_a_row_in_another_status_and_passes_one_in_it():
    assert tool_rules.require_status({"status": "open"}, "open", "order", "A-1") is None
    assert tool_rules.require_status({"status": "shipped"}, "open", "order", "A-1", ", not open") == \
        {"error": {"code": "invalid_state", "message": "order A-1 is shipped, not open"}}
    assert tool_rules.require_status_in({"status": "held"}, ("open", "held"), "order", "A-1") is None
    assert tool_rules.require_status_in({"status": "closed"}, ("open", "held"), "order", "A-1") == \
        {"error": {"code": "invalid_state", "message": "order A-1 is closed"}}


def template_modules():
    names = [f"{template_package.__name__}.{info.name}" for info in pkgutil.iter_modules(template_package.__path__)]
    names += [f"{c.package}.templates" for c in categories.categories().values() if c.has("templates")]
    return [__import__(name, fromlist=["_"]) for name in names]


def rules():
    return [name for name, value in vars(tool_rules).items() if getattr(value, "__template_rule__", False)]


def matches(pattern, node, wildcards, bound) -> bool:
    """`node` is `pattern` with each wildcard name standing for one expression (the same one wherever it is read)."""
    if isinstance(pattern, ast.Name) and pattern.id in wildcards:
        seen = bound.setdefault(pattern.id, ast.dump(node))
        return seen == ast.dump(node)
    if type(pattern) is not type(node):
        return False
    if isinstance(pattern, list):
        return len(pattern) == len(node) and all(matches(p, n, wildcards, bound) for p, n in zip(pattern, node))
    if not isinstance(pattern, ast.AST):
        return pattern == node
    return all(matches(getattr(pattern, f, None), getattr(node, f, None), wildcards, bound) for f in pattern._fields)


def written_out(module) -> list[str]:
    """The statements of the module's templates that are a rule written out (with or without its optional
    arguments), as `template: rule`."""
    found = []
    for name in rules():
        arguments, statements = rule_statements(tool_rules, name)
        params = {a.arg for a in arguments.args}
        defaults = dict(zip([a.arg for a in arguments.args][-len(arguments.defaults):], arguments.defaults))
        variants = [statements, [_BindRule(defaults).visit(clone(s)) for s in statements]]
        for function in module_functions(module):
            for node in ast.walk(function):
                if any(len(v) == 1 and matches(v[0], node, params, {}) for v in variants):
                    found.append(f"{function.name}: {name}")
    return found


def module_functions(module):
    return [n for n in ast.parse(inspect.getsource(module)).body if isinstance(n, ast.FunctionDef)]


@pytest.mark.parametrize("module", template_modules(), ids=lambda m: m.__name__)
def test_no_template_writes_out_a_rule_it_could_call(module):
    assert written_out(module) == [], "call the rule (awm.builder.templates.tool_rules) instead of writing it out"


def test_a_written_out_rule_is_found():
    from tests.awm.builder import codegen_samples

    assert sorted(written_out(codegen_samples)) == ["guarded_by_hand: require_status", "guarded_by_hand: require_status_in"]
