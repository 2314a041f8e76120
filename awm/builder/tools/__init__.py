"""Tool API generation: an environment's tools.py and its MCP tool specs, one concern per module.

Each concern module here declares its tools (`declare(builder)`: name, description, parameters with their
JSON Schema, hints, role, kind) and binds each to a template function in the module of the same name under
awm.builder.templates.tools: the tool's code, written as real Python with placeholders. `render_source`
renders the prelude (awm.builder.templates.tool_prelude) and every tool through the AST emitter
(awm.builder.codegen); the result is self-contained Python that passes the sandbox policy, one function
per tool taking the episode's database handle `db` first. Business-rule violations come back as
{"error": {"code", "message"}}.

To add a concern's tools: write its templates in awm/builder/templates/tools/<concern>.py, its
declarations in awm/builder/tools/<concern>.py (`ROLE`, the role whose presence in a world brings these
tools, or `ROLES`, any of which does, and `declare(builder)`), and append the module to `CONCERNS` below; tools
are listed in that order.
"""

from __future__ import annotations

import ast
from functools import cache, lru_cache
from types import ModuleType

from awm.builder import categories
from awm.builder.codegen import (
    TemplateError,
    defined_names,
    function_source,
    module_tree,
    render_function_source,
    render_module,
    template_function,
)
from awm.builder.data import REFERENCE_NOW_ISO
from awm.builder.dialect import ApiStyle, Dialect, ToolNames, style_for
from awm.builder.templates import tool_bodies, tool_errors, tool_paging, tool_prelude
from awm.builder.tools import (
    accounts,
    addresses,
    cases,
    departments,
    documents,
    inventory,
    invoices,
    loyalty,
    notes,
    notifications,
    offering,
    parties,
    payments,
    procurement,
    promotions,
    reviews,
    shifts,
    staff,
    subscriptions,
    support,
)
from awm.builder.tools.audience import owned_arguments
from awm.builder.tools.base import PAGING, Param, ToolBuilder, ToolDef
from awm.builder.world import WorldPlan
from awm.contracts import ToolSet, ToolSpec

__all__ = ["CONCERNS", "PAGING", "Param", "ToolDef", "ToolNames", "canonical_tool_defs", "dialect_for",
           "generate_tools", "render_source", "render_specs", "tool_defs"]

# Every world has the core concerns; an optional one (it has ROLE) only where the world has that role.
GENERIC_CONCERNS: tuple[ModuleType, ...] = (
    parties,
    addresses,
    offering,
    staff,
    cases,
    payments,
    notes,
    departments,
    invoices,
    accounts,
    documents,
    reviews,
    promotions,
    procurement,
    inventory,
    support,
    notifications,
    subscriptions,
    shifts,
    loyalty,
)
# discovers: awm.builder.categories.*.tools
# then each category's tools (awm/builder/categories/<category>/tools.py: ROLES, any of which brings them); a
# world has one category, so their order among themselves never shows
CONCERNS: tuple[ModuleType, ...] = (*GENERIC_CONCERNS, *categories.modules("tools").values())

# The paging helpers (awm.builder.templates.tool_paging) each paging style renders after the prelude, in order.
PAGING_HELPERS = {"offset": ("list_rows",), "page": ("list_page",),
                  "cursor": ("make_cursor", "read_cursor", "list_after")}
# The body helpers (awm.builder.templates.tool_bodies) each bodies style renders after the paging helpers.
BODY_HELPERS = {"flat": (), "nested": ("body_error", "body_fits", "body_value")}
PRELUDE_NAMES = frozenset(defined_names(tool_prelude) | {h for helpers in PAGING_HELPERS.values() for h in helpers}
                          | set(BODY_HELPERS["nested"]))


def canonical_tool_defs(plan: WorldPlan, style: ApiStyle | None = None) -> list[ToolDef]:
    """The world's tools under their canonical names (awm.builder.dialect), in its API style otherwise."""
    builder = ToolBuilder(plan, style if style is not None else style_for(plan.scenario.seed))
    for concern in CONCERNS:
        roles = getattr(concern, "ROLES", None) or (getattr(concern, "ROLE", None),)
        if roles == (None,) or any(plan.has(role) for role in roles):
            concern.declare(builder)
    return builder.tools


def dialect_for(plan: WorldPlan) -> Dialect:
    """The API dialect of the world's environment: its tools' names, and reference calls translated into it."""
    return Dialect(plan, canonical_tool_defs(plan))


def tool_defs(plan: WorldPlan, style: ApiStyle | None = None) -> list[ToolDef]:
    """The world's tools as its environment serves them: named, and their bodies nested, in the dialect of its
    API style."""
    tools = canonical_tool_defs(plan, style)
    dialect = Dialect(plan, tools, style)
    return [dialect.tool(t.name) for t in tools]


def _error_codes_in(node: ast.AST) -> set[str]:
    """The codes of every `error("<code>", ...)` call under `node` (a template writes its codes literally)."""
    return {call.args[0].value for call in ast.walk(node)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "error"
            and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)}


def error_codes(tools: list[ToolDef]) -> tuple[str, ...]:
    """The error codes an environment with these tools can return, sorted: those of the prelude's helpers
    (not_found, invalid_state, ...), of the paging and body helpers, and of each tool's rendered template (the
    shared rules it calls written out, branches its bindings rule out pruned). The closed set a refusal's rule
    is named from (awm.contracts.AnswerSlot, type rule)."""
    codes = set(_helper_error_codes())
    for tool in tools:
        codes |= _source_error_codes(render_tool(tool))
    return tuple(sorted(codes))


@cache
def _helper_error_codes() -> frozenset[str]:
    return frozenset().union(*(_error_codes_in(module_tree(m)) for m in (tool_prelude, tool_paging, tool_bodies)))


@lru_cache(maxsize=8192)
def _source_error_codes(source: str) -> frozenset[str]:
    """The codes of one rendered tool (memoised on its source, as rendering is: a task set asks for every tool's
    codes once per refusal, and the worlds of one domain share most of their tools)."""
    return frozenset(_error_codes_in(ast.parse(source)))


def body_prologue(tool: ToolDef) -> str:
    """The statements a tool taking object arguments opens with: each body checked (a structured
    invalid_argument error naming the field's path), then each field bound to the name its template uses."""
    schemas = {p.name: p.schema for p in tool.params}
    used = {node.id for node in ast.walk(template_function(tool.template, tool.function))
            if isinstance(node, ast.Name)}
    lines = []
    for group, members in tool.bodies:
        schema = schemas[group]
        fields = tuple((m, schema["properties"][m].get("type", "string"), m in schema.get("required", ()))
                       for m in members)
        if f"{group}_error" in used:
            raise TemplateError(f"template {tool.function}: {group}_error names its {group} body's check")
        lines += [f"{group}_error = body_error({group}, {group!r}, {fields!r})",
                  f"if {group}_error is not None:\n    return {group}_error"]
        lines += [f"{m} = body_value({group}, {m!r}, {schema['properties'][m].get('default')!r})" for m in members]
    return "\n".join(lines)


def render_tool(tool: ToolDef) -> str:
    """One tool's function: its template rendered, under its declared name, signature and description, after
    the prologue unpacking its bodies (in the nested style)."""
    doc = tool.description.replace('"""', "'''").replace("\\", "/")
    return render_function_source(tool.template, tool.function, tool.bindings, PRELUDE_NAMES, tool.name,
                                  tuple((p.name, p.required, p.default) for p in tool.params), doc,
                                  body_prologue(tool) if tool.bodies else "")


@cache
def prelude_source(errors: str = "plain", paging: str = "offset", bodies: str = "flat") -> str:
    """The prelude in one API style (the same for every world of that style): its constants rendered, its
    helpers copied as written, with the style's `error` (tool_errors.py) in place of its own and the style's
    paging helpers (tool_paging.py) and body helpers (tool_bodies.py) after them."""
    rendered = render_module(tool_prelude, {"REFERENCE_NOW_ISO": REFERENCE_NOW_ISO}).body
    constants = [ast.unparse(s) for s in rendered if not isinstance(s, ast.FunctionDef)]
    styled_error = function_source(tool_errors, f"error_{errors}").replace(f"def error_{errors}(", "def error(", 1)
    helpers = [styled_error if s.name == "error" else function_source(tool_prelude, s.name)
               for s in rendered if isinstance(s, ast.FunctionDef)]
    paging_helpers = [function_source(tool_paging, helper) for helper in PAGING_HELPERS[paging]]
    body_helpers = [function_source(tool_bodies, helper) for helper in BODY_HELPERS[bodies]]
    return "\n\n\n".join(["\n".join(constants), *helpers, *paging_helpers, *body_helpers])


def render_source(plan: WorldPlan, tools: list[ToolDef]) -> str:
    sc = plan.scenario
    style = style_for(sc.seed)
    header = f"Tools for {sc.env_id}: {sc.name.replace(chr(34), chr(39))}. Generated by the AWM offline world builder."
    parts = [ast.unparse(ast.Module([ast.Expr(ast.Constant(header))], type_ignores=[])),
             prelude_source(style.errors, style.paging, style.bodies), *(render_tool(tool) for tool in tools)]
    return "\n\n\n".join(parts) + "\n"


def render_specs(plan: WorldPlan, tools: list[ToolDef]) -> ToolSet:
    specs = []
    for tool in tools:
        properties = {p.name: p.schema for p in tool.params}
        schema = {"type": "object", "properties": properties,
                  "required": [p.name for p in tool.params if p.required], "additionalProperties": False}
        annotations = {"readOnlyHint": tool.read_only, "destructiveHint": tool.destructive}
        specs.append(ToolSpec(name=tool.name, description=tool.description, inputSchema=schema,
                              annotations=annotations, staff_only=tool.audience == "staff",
                              owned=owned_arguments(plan, tool)))
    party = plan["party"] if plan.has("party") else None
    representative = [party.table, "representative_id"] if party is not None and party.has("representative_id") \
        else None
    return ToolSet(env_id=plan.scenario.env_id, tools=specs, api_style=style_for(plan.scenario.seed).record(),
                   representative=representative)


def generate_tools(plan: WorldPlan) -> tuple[str, ToolSet]:
    tools = tool_defs(plan)
    return render_source(plan, tools), render_specs(plan, tools)
