"""Tool checks: safe code, valid specs that match the code, a clean smoke call each, every table reachable.

  - the code passes the sandbox policy (AST allowlist: no os, subprocess, socket, file access,
    eval/exec, dunder escapes) and loads within its deadline;
  - every spec's inputSchema is valid JSON Schema (draft 2020-12) for an object, and names exactly the
    implementation's parameters, with every parameter the code requires marked required;
  - every spec has a strict form (awm.toolspecs) that an OpenAI `strict: true` request accepts: the form
    served to agents by default;
  - every table is read or written by some tool: its name appears in the tool's code (SQL text or a
    table argument), directly or through a helper the tool calls;
  - every tool, called through the runtime (reset, call) on a fresh episode with arguments built from
    its own spec (every object argument filled in full), returns a JSON result or a business error; a crash, a timeout (a tool that loops
    forever is stopped at the runtime's deadline) or an SQL error is a finding.
"""

from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

import jsonschema

from awm import artifacts
from awm.contracts import SchemaSpec, TaskSet, ToolSet
from awm.errors import UnsafeCodeError
from awm.heap import paused_gc
from awm.quality.findings import Finding
from awm.runtime.environment import Environment
from awm.runtime.sandbox import FunctionFacts, checked_module, top_level_functions
from awm.runtime.tools import is_error
from awm.store import ArtifactStore
from awm.toolspecs import NotStrictable, strict_problems, strict_schema

STAGE = "tools"
CHECK_POLICY = "tool_code_policy"
CHECK_SPEC = "tool_spec_valid"
CHECK_AGREES = "tool_spec_matches_code"
CHECK_STRICT = "tool_spec_strict"
CHECK_SMOKE = "tool_smoke_calls"
CHECK_REACH = "tables_reachable"
# Error codes that mean the tool itself is broken, as opposed to a business answer such as not_found.
BROKEN_CODES = {"tool_failed", "timeout", "database_error", "invalid_arguments", "resource_limit",
                "sandbox_crashed"}
# Strings that satisfy the common formats and patterns of tool parameters (tried in order).
_FORMAT_EXAMPLES = {"email": "smoke.test@example.com", "date-time": "2025-06-01T09:00:00", "date": "2025-06-01",
                    "time": "09:00"}
_SQL_TABLE = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+[\"`\[]?([A-Za-z_][A-Za-z0-9_]*)", re.IGNORECASE)


def example_value(schema: dict[str, Any], name: str = "") -> Any:
    """A value that satisfies a (simple) JSON Schema: the first enum value, the minimum, a short string."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind == "integer":
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0) + 1 if "exclusiveMinimum" in schema else 1)
        return int(max(low, 1) if name.endswith("_id") or name == "id" else low)
    if kind == "number":
        if "minimum" in schema:
            return float(schema["minimum"]) or 1.0
        if "exclusiveMinimum" in schema:
            return float(schema["exclusiveMinimum"]) + 1.0
        return 1.0
    if kind == "boolean":
        return True
    if kind == "array":
        item = example_value(schema.get("items", {}), name)
        return [item] * max(1, int(schema.get("minItems", 1)))
    if kind == "object":
        props = schema.get("properties", {})
        return {key: example_value(props[key], key) for key in schema.get("required", []) if key in props}
    pattern, fmt = schema.get("pattern"), schema.get("format")
    candidates = [_FORMAT_EXAMPLES[fmt]] if fmt in _FORMAT_EXAMPLES else []
    candidates += ["smoke test", *_FORMAT_EXAMPLES.values(), "ABC-1000", "1"]
    text = next((c for c in candidates if not pattern or re.search(pattern, c)), candidates[0])
    if schema.get("minLength", 0) > len(text):
        text = text.ljust(int(schema["minLength"]), "x")
    if "maxLength" in schema:
        text = text[: int(schema["maxLength"])]
    return text


def smoke_arguments(input_schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments for a smoke call: every required parameter, from its schema, and every object parameter (a body
    such as contact={email, phone}, a filters object) with each of its fields, so the code reading one runs too."""
    props = input_schema.get("properties", {})
    arguments = {key: example_value(props.get(key, {}), key) for key in input_schema.get("required", [])}
    for key, schema in props.items():
        if isinstance(schema, dict) and schema.get("type") == "object" and isinstance(schema.get("properties"), dict):
            arguments[key] = {name: example_value(sub, name) for name, sub in schema["properties"].items()}
    return arguments


def _shape(schema: Any) -> Any:
    """The schema with the parts the metaschema only needs to be strings (or an array) blanked: property
    names (renamed by position, `required` along with them), descriptions, titles and enum values. Tool specs share few
    names but few shapes, so validating shapes once each makes the metaschema check ~20x cheaper."""
    if isinstance(schema, list):
        return [_shape(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    shaped = {}
    names = {}
    if isinstance(schema.get("properties"), dict):
        names = {name: f"p{i}" for i, name in enumerate(schema["properties"])}
    for key, value in schema.items():
        if key in ("description", "title") and isinstance(value, str):
            shaped[key] = ""
        elif key == "enum" and isinstance(value, list) and value:
            shaped[key] = ["v"]  # the metaschema only needs an array: the values themselves never matter
        elif key == "properties" and names:
            shaped[key] = {names[k]: _shape(v) for k, v in value.items()}
        elif key == "required" and isinstance(value, list) and names:
            shaped[key] = [names.get(v, v) if isinstance(v, str) else v for v in value]
        else:
            shaped[key] = _shape(value)
    return shaped


@lru_cache(maxsize=8192)
def _schema_problem(shape_json: str) -> tuple[str, str] | None:
    try:
        jsonschema.Draft202012Validator.check_schema(json.loads(shape_json))
    except jsonschema.SchemaError as exc:
        return "/".join(str(p) for p in exc.path), exc.message
    return None


def schema_problem(schema: Any) -> tuple[str, str] | None:
    """(where, message) if `schema` is not valid JSON Schema (draft 2020-12), else None.

    Validated in parts: the metaschema checks each value of `properties` as a schema of its own
    (2020-12 refers it back to the metaschema's root), so an object schema is valid exactly when
    it is, with `{}` in place of each property's schema, and each property's schema is. The parts
    repeat across tools far more than whole specs do: a fresh process validates ~25 small parts
    for the corpus instead of ~30 whole specs, each ~6x the work (measured: 35 ms per process
    down to a few)."""
    properties = schema.get("properties") if isinstance(schema, dict) else None
    parts = properties if isinstance(properties, dict) and properties else {}
    outline = {**schema, "properties": {name: {} for name in parts}} if parts else schema
    try:
        problem = _schema_problem(json.dumps(_shape(outline), sort_keys=True))
    except (TypeError, ValueError) as exc:
        return "", f"not JSON: {exc}"
    if problem is not None:
        return problem
    for name, sub in parts.items():
        problem = schema_problem(sub)
        if problem is not None:
            return "/".join(p for p in ("properties", str(name), problem[0]) if p), problem[1]
    return None


def spec_findings(env_id: str, toolset: ToolSet) -> list[Finding]:
    findings = []
    for spec in toolset.tools:
        schema = spec.input_schema
        problem = schema_problem(schema)
        if problem:
            findings.append(Finding(env_id, CHECK_SPEC, f"invalid JSON Schema at {problem[0] or 'inputSchema'}: "
                                    f"{problem[1]}", tool=spec.name))
            continue
        if schema.get("type") != "object":
            findings.append(Finding(env_id, CHECK_SPEC, "inputSchema must have type object", tool=spec.name))
        unknown = sorted(set(schema.get("required", [])) - set(schema.get("properties", {})))
        if unknown:
            findings.append(Finding(env_id, CHECK_SPEC, f"required parameters {unknown} are not in properties",
                                    tool=spec.name))
            continue
        findings += strict_findings(env_id, spec.name, schema)
    return findings


def owner_findings(env_id: str, toolset: ToolSet, schema: SchemaSpec) -> list[Finding]:
    """The ownership rules (ToolSpec.owned, ToolSet.representative) name the tool's own arguments and the tables
    and columns of the schema, with an `id` key where a row is looked up: the runtime runs them before a party's
    writes, so a rule that names nothing would refuse, or let through, by accident."""
    columns = {t.name: {c.name for c in t.columns} for t in schema.tables}

    def missing(path: list[str]) -> str | None:
        for table, column in zip(path[::2], path[1::2]):
            if table not in columns:
                return f"no table {table}"
            if column not in columns[table] or "id" not in columns[table]:
                return f"table {table} has no column {column if column not in columns[table] else 'id'}"
        return None

    findings = []
    for spec in toolset.tools:
        for owned in spec.owned:
            problem = None if owned.argument in spec.input_schema.get("properties", {}) else \
                f"owned argument {owned.argument} is not a parameter"
            problem = problem or missing(owned.path)
            if problem:
                findings.append(Finding(env_id, CHECK_SPEC, f"ownership rule {owned.path}: {problem}", tool=spec.name))
    if toolset.representative is not None and missing(toolset.representative):
        findings.append(Finding(env_id, CHECK_SPEC, f"representative {toolset.representative}: "
                                f"{missing(toolset.representative)}"))
    return findings


def strict_findings(env_id: str, tool: str, schema: dict[str, Any]) -> list[Finding]:
    """The spec as served to strict clients (awm.toolspecs.strict_schema) must exist and pass every strict-mode
    rule: a tool a strict function-calling request refuses is a tool the agent cannot use."""
    try:
        problems = strict_problems(strict_schema(schema))
    except NotStrictable as exc:
        problems = [f"has no strict form: {exc}"]
    return [Finding(env_id, CHECK_STRICT, problem, tool=tool) for problem in problems]


def _parameters(node: ast.FunctionDef) -> tuple[list[str], set[str]] | None:
    """A tool function's parameter names and the required ones, read from its definition (None: *args)."""
    args = node.args
    if args.vararg or args.kwarg:
        return None
    positional = args.posonlyargs + args.args
    required = {a.arg for a in positional[: len(positional) - len(args.defaults)]}
    required |= {a.arg for a, default in zip(args.kwonlyargs, args.kw_defaults) if default is None}
    return [a.arg for a in positional + args.kwonlyargs], required


def agreement_findings(env_id: str, tree: ast.Module, toolset: ToolSet) -> list[Finding]:
    functions = top_level_functions(tree)
    findings = []
    for spec in toolset.tools:
        node = functions.get(spec.name)
        if node is None:
            findings.append(Finding(env_id, CHECK_AGREES, "has a spec but no implementation", tool=spec.name))
            continue
        signature = _parameters(node)
        if signature is None:
            findings.append(Finding(env_id, CHECK_AGREES, "must name its parameters (no *args or **kwargs)",
                                    tool=spec.name))
            continue
        names, required = signature
        if not names or names[0] != "db":
            findings.append(Finding(env_id, CHECK_AGREES, "must take db as its first parameter", tool=spec.name))
            continue
        declared = set(spec.input_schema.get("properties", {}))
        accepted = set(names[1:])
        if declared != accepted:
            findings.append(Finding(env_id, CHECK_AGREES, f"spec parameters {sorted(declared)} differ from the "
                                    f"implementation's {sorted(accepted)}", tool=spec.name))
        optional_in_spec = sorted((required - {"db"}) - set(spec.input_schema.get("required", [])))
        if optional_in_spec:
            findings.append(Finding(env_id, CHECK_AGREES, f"{optional_in_spec} are required by the code but "
                                    "optional in the spec", tool=spec.name))
    return findings


def tables_named_in_code(functions: dict[str, FunctionFacts], table_names: set[str]) -> dict[str, set[str]]:
    """For each top-level function, the tables its string constants name (helpers it calls included)."""
    direct = {name: {text for text in facts.strings if text in table_names}
              | {m for text in facts.strings for m in _SQL_TABLE.findall(text) if m in table_names}
              for name, facts in functions.items()}
    reach: dict[str, set[str]] = {}
    for name in functions:
        seen, stack, tables = set(), [name], set()
        while stack:
            current = stack.pop()
            if current in seen or current not in functions:
                continue
            seen.add(current)
            tables |= direct[current]
            stack.extend(functions[current].calls)
        reach[name] = tables
    return reach


def smoke_findings(env_id: str, environment: Environment) -> list[Finding]:
    """Call every tool once, through the runtime, on a fresh copy of env.db (one replay request)."""
    findings = []
    calls = [(spec.name, smoke_arguments(spec.input_schema)) for spec in environment.toolset.tools]
    try:
        results = environment.replay(calls)
    except Exception as exc:  # noqa: BLE001 - untrusted code: any escape from the runtime is the finding
        return [Finding(env_id, CHECK_SMOKE, f"unhandled {type(exc).__name__}: {exc}"[:400])]
    for (name, arguments), result in zip(calls, results):
        # a result that is not JSON never gets here: the worker encodes it, and reports tool_failed if it cannot
        if is_error(result) and result["error"].get("code") in BROKEN_CODES:
            err = result["error"]
            findings.append(Finding(env_id, CHECK_SMOKE, f"{err['code']}: {err.get('message', '')}"[:400],
                                    tool=name, value=arguments))
    return findings


def tool_findings(env_id: str, source: str, toolset: ToolSet, schema: SchemaSpec, tasks: TaskSet,
                  db_path: Path, smoke: bool = True) -> list[Finding]:
    """Every tool problem of one environment, in the order above (later checks need the earlier ones).

    smoke=False leaves out the smoke calls (the only costly part): for files whose recorded provenance
    shows the stage's gate already smoke-called these exact bytes against this exact database.
    """
    table_names = {t.name for t in schema.tables}
    with paused_gc():  # the tree lives only in here (see paused_gc)
        try:
            # the sandbox policy, enforced while compiling; the runtime reuses the compiled code below
            module = checked_module(source, f"{env_id}/tools.py")
        except UnsafeCodeError as exc:
            return [Finding(env_id, CHECK_POLICY, str(exc))]
        findings = agreement_findings(env_id, module.tree, toolset)
        functions = module.functions
        del module  # and with it the tree
    named = tables_named_in_code(functions, table_names)
    findings = spec_findings(env_id, toolset) + owner_findings(env_id, toolset, schema) + findings
    reachable = set().union(*(named.get(spec.name, set()) for spec in toolset.tools))
    for table in sorted(table_names - reachable):
        findings.append(Finding(env_id, CHECK_REACH, "no tool reads or writes this table", table=table))
    if findings or not smoke:
        return findings
    try:
        environment = Environment(env_id, source, toolset, tasks, None, db_path)
    except UnsafeCodeError as exc:
        return [Finding(env_id, CHECK_POLICY, f"tools.py does not load: {exc}")]
    try:
        return smoke_findings(env_id, environment)
    finally:
        environment.close()


SMOKE_INPUTS = tuple(a.name for a in (artifacts.TOOLS_PY, artifacts.TOOLS_JSON, artifacts.DATABASE))


def gate_vouched(store: ArtifactStore, env_id: str) -> bool:
    """True when the tools stage's provenance shows its gate checked exactly the files on disk now
    (tools.py and tools.json as produced, smoke-called against this env.db). The gate runs the same
    rules (tool_findings) inside the stage, so re-running them on the same bytes
    proves nothing more; the check then proves the bytes are the ones the gate passed."""
    record = store.provenance(env_id).get(STAGE)
    if record is None:
        return False
    recorded = {**record.outputs, **record.inputs}
    try:
        return all(recorded.get(name) == store.hash(env_id, name) for name in SMOKE_INPUTS)
    except FileNotFoundError:
        return False
