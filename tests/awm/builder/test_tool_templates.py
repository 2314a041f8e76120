"""Tool templates: every concern's tools render for worlds that have it, pass the sandbox policy, and every
template function is used; the registry of concerns is complete."""

import ast
import inspect
import pkgutil
from functools import cache

import pytest

import awm.builder.categories as categories
import awm.builder.templates.tools as template_package
from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.tools import CONCERNS, render_source, tool_defs
from awm.builder.world import make_scenario, plan_world
from awm.runtime.sandbox import checked_module, top_level_functions


def _roles(concern) -> tuple:
    """The roles any of which brings a concern's tools ((None,): every world)."""
    return getattr(concern, "ROLES", None) or (getattr(concern, "ROLE", None),)


@cache
def sample_plans():
    """Worlds until every optional concern appears at least twice (a few dozen scenarios)."""
    plans, seen = [], {}
    optional = [r for c in CONCERNS for r in _roles(c) if r is not None]
    for slot in range(3):
        for domain in DOMAIN_SEEDS:
            plan = plan_world(make_scenario(domain, slot))
            new = [r for r in optional if plan.has(r) and seen.get(r, 0) < 2]
            if new or not plans:
                plans.append(plan)
                for role in new:
                    seen[role] = seen.get(role, 0) + 1
            if all(seen.get(r, 0) >= 2 for r in optional):
                return plans
    raise AssertionError(f"no sample world has {[r for r in optional if seen.get(r, 0) < 2]}")


@pytest.mark.parametrize("concern", CONCERNS, ids=lambda c: c.__name__.rsplit(".", 1)[1])
def test_each_concern_renders_and_passes_the_sandbox_policy(concern):
    roles = _roles(concern)
    plan = next(p for p in sample_plans() if roles == (None,) or any(p.has(r) for r in roles))
    tools = tool_defs(plan)
    source = render_source(plan, tools)
    functions = top_level_functions(checked_module(source, f"{plan.scenario.env_id}/tools.py").tree)
    mine = [t for t in tools if t.template.__name__.rsplit(".", 1)[1] in (concern.__name__.rsplit(".", 1)[1], "generic")]
    assert mine, f"{concern.__name__} declared no tool for {plan.scenario.env_id}"
    for tool in tools:
        assert tool.name in functions
        assert [a.arg for a in functions[tool.name].args.args][1:] == \
            [p.name for p in tool.params if p.required] + [p.name for p in tool.params if not p.required]


def test_every_template_function_is_used_by_some_world():
    used = {(t.template.__name__, t.function) for plan in sample_plans() for t in tool_defs(plan)}
    defined = set()
    modules = [f"{template_package.__name__}.{info.name}" for info in pkgutil.iter_modules(template_package.__path__)]
    modules += [f"{c.package}.templates" for c in categories.categories().values() if c.has("templates")]
    for name in modules:
        module = __import__(name, fromlist=["_"])
        tree = ast.parse(inspect.getsource(module))
        defined |= {(module.__name__, node.name) for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert defined - used == set()


def test_tool_names_are_unique_in_every_sample_world():
    for plan in sample_plans():
        names = [t.name for t in tool_defs(plan)]
        assert len(names) == len(set(names)), plan.scenario.env_id


# parameters a tool accepts and does not use (a reason recorded nowhere): kept as they were generated before
UNUSED_PARAMETERS = {("adjust_STOCK_LEVEL", "reason")}


@pytest.mark.slow
def test_every_declared_parameter_is_read_by_its_tool():
    """A parameter the template never reads is accepted and silently ignored: a declaration and its template
    disagree (a renamed placeholder, a forgotten check)."""
    unused = set()
    for plan in sample_plans():
        tools = tool_defs(plan)
        functions = top_level_functions(ast.parse(render_source(plan, tools)))
        for tool in tools:
            read = {n.id for n in ast.walk(functions[tool.name]) if isinstance(n, ast.Name)}
            unused |= {(tool.function, p.name) for p in tool.params if p.name not in read}
    assert unused == UNUSED_PARAMETERS
