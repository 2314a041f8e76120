"""Tool specs as clients see them: the strict form, the permissive form, and the rules of strict mode.

tools.json holds each tool's input schema in its *permissive* form: the JSON Schema the runtime checks
arguments against (optional parameters left out of `required`, `minLength`, `default`, ...). Clients that
ask a model for strict function calling (OpenAI `strict: true`, the Agents SDK, LangChain's
`convert_to_openai_tool(strict=True)`) need another shape: every property listed in `required`, an
optional one made nullable, `additionalProperties: false` on every object, and no keyword outside the
subset strict mode supports. `strict_schema` derives that *strict form*; the constraints it cannot carry
(`minLength`, `default`, ...) move into the description, and the runtime still enforces them.

The runtime reads `null` for an optional parameter as "not given" (see ArgumentCheck.prepared), so a call
a strict model makes (every optional parameter present, most of them null) runs exactly as the call that
leaves them out.

Which form to serve (`awm serve --tool-format`, `awm export --tool-format`):
  strict      (default) strict and non-strict function calling, the Agents SDK, LangChain, OpenEnv,
              verifiers; generic strict converters leave it as it is
  permissive  clients that show optional parameters as optional and never ask for strict mode, and want
              fewer tokens per spec (no nulls to fill in); AWM's own agent (agent-world-model)
  verl        verl's tool schema model (OpenAIFunctionToolSchema): one `type` string per property, optional
              parameters left out of `required` (verl has no nullable), no null in enums (and only string enums), a union of types
              reduced to one with the others named in the description, nested object parameters kept (and
              their keys named in the description, since verl keeps only a property's type, description and
              enum when it renders the tools); see verl_schema
"""

from __future__ import annotations

import copy
import json
from typing import Any

TOOL_FORMATS = ("strict", "permissive", "verl")

# The JSON Schema keywords strict mode accepts (OpenAI Structured Outputs, "supported schemas").
STRICT_KEYWORDS = frozenset({
    "type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs",
    "properties", "required", "additionalProperties",  # objects
    "items", "minItems", "maxItems",  # arrays
    "pattern", "format",  # strings
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",  # numbers
})
STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
STRICT_TYPES = frozenset({"string", "number", "integer", "boolean", "object", "array", "null"})
MAX_STRICT_DEPTH = 10
# Keywords strict mode refuses that carry a constraint worth telling the model, and how to say it.
_NOTES = {
    "minLength": lambda v: f"at least {v} character{'s' if v != 1 else ''}",
    "maxLength": lambda v: f"at most {v} characters",
    "uniqueItems": lambda v: "no duplicates" if v else None,
    "minProperties": lambda v: f"at least {v} entries",
    "maxProperties": lambda v: f"at most {v} entries",
    "format": lambda v: f"format {v}",
}


class NotStrictable(ValueError):
    """A schema that has no strict form (a free-form object, an array without items, allOf, ...)."""

    def __init__(self, where: str, why: str):
        super().__init__(f"{where or 'inputSchema'}: {why}")
        self.where, self.why = where, why


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The strict form of a tool's (permissive) input schema; NotStrictable if it has none."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise NotStrictable("", "the input schema must be an object schema")
    return _strict(schema, "", optional=False)


def _strict(schema: Any, where: str, optional: bool) -> dict[str, Any]:
    if not isinstance(schema, dict):
        raise NotStrictable(where, "a schema must be an object")
    out: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in schema.items():
        if key in ("properties", "required", "additionalProperties", "items", "anyOf", "oneOf", "allOf", "default"):
            continue  # handled below
        if key == "format" and value in STRICT_FORMATS:
            out[key] = value
        elif key in STRICT_KEYWORDS and key != "format":
            out[key] = copy.deepcopy(value)
        elif key in _NOTES:
            note = _NOTES[key](value)
            if note:
                notes.append(note)
        # anything else ($schema, examples, deprecated, ...) says nothing a model needs
    if "allOf" in schema:
        raise NotStrictable(where, "allOf has no strict form; merge its parts into one schema")
    branches = schema.get("anyOf", schema.get("oneOf"))
    if branches is not None:
        if not isinstance(branches, list) or not branches:
            raise NotStrictable(where, "anyOf/oneOf must be a non-empty list")
        out["anyOf"] = [_strict(b, f"{where}/anyOf/{i}", optional=False) for i, b in enumerate(branches)]
    kinds = _types(schema)
    if "object" in kinds:
        out.update(_strict_object(schema, where))
    if "array" in kinds:
        if not isinstance(schema.get("items"), dict):
            raise NotStrictable(where, "an array needs an items schema")
        out["items"] = _strict(schema["items"], f"{where}/items", optional=False)
    if "default" in schema and optional:
        notes.append(f"null for the default, {json.dumps(schema['default'], ensure_ascii=False)}")
    if notes:
        text = "; ".join(notes)
        out["description"] = f"{out['description']} ({text})" if out.get("description") else text.capitalize()
    return _nullable(out) if optional else out


def _strict_object(schema: dict, where: str) -> dict:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or (not properties and schema.get("additionalProperties") is not False):
        raise NotStrictable(where, "an object needs its properties listed (free-form objects have no strict form)")
    if schema.get("additionalProperties") not in (None, False):
        raise NotStrictable(where, "additionalProperties must be false or absent: strict mode allows no other keys")
    required = set(schema.get("required") or ())
    strict_properties = {name: _strict(sub, f"{where}/properties/{name}", optional=name not in required)
                         for name, sub in properties.items()}
    return {"properties": strict_properties, "required": list(properties), "additionalProperties": False}


def _types(schema: dict) -> set[str]:
    kind = schema.get("type")
    if isinstance(kind, str):
        return {kind}
    if isinstance(kind, list):
        return {k for k in kind if isinstance(k, str)}
    return {"object"} if "properties" in schema else set()


def _nullable(schema: dict) -> dict:
    """`schema` that also accepts null (an optional parameter: null means not given)."""
    kind = schema.get("type")
    if isinstance(kind, str) and "anyOf" not in schema and "const" not in schema:
        schema = {**schema, "type": [kind, "null"]} if kind != "null" else schema
    elif isinstance(kind, list) and "anyOf" not in schema and "const" not in schema:
        schema = {**schema, "type": kind if "null" in kind else [*kind, "null"]}
    else:
        branches = schema.get("anyOf")
        if branches is not None and set(schema) <= {"anyOf", "description", "title"}:
            if not any(b.get("type") == "null" for b in branches):
                schema = {**schema, "anyOf": [*branches, {"type": "null"}]}
            return schema
        described = {k: schema[k] for k in ("description", "title") if k in schema}
        inner = {k: v for k, v in schema.items() if k not in described}
        return {**described, "anyOf": [inner, {"type": "null"}]}
    if "enum" in schema and None not in schema["enum"]:
        schema = {**schema, "enum": [*schema["enum"], None]}
    return schema


def strict_problems(schema: Any) -> list[str]:
    """Why an OpenAI `strict: true` request would refuse `schema` as a tool's parameters, or [] if it would
    not: the root is an object; every object lists all its properties in `required` and has
    `additionalProperties: false`; only strict-mode keywords and formats; nesting within 10 levels."""
    problems: list[str] = []
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return ["inputSchema: the root must be an object schema (type object)"]
    _check(schema, "", 0, problems)
    return problems


def _check(schema: Any, where: str, depth: int, problems: list[str]) -> None:
    at = where or "inputSchema"
    if not isinstance(schema, dict):
        problems.append(f"{at}: a schema must be an object")
        return
    if depth > MAX_STRICT_DEPTH:
        problems.append(f"{at}: nested deeper than {MAX_STRICT_DEPTH} levels")
        return
    for key in schema:
        if key not in STRICT_KEYWORDS:
            problems.append(f"{at}: keyword {key!r} is not supported in strict mode")
    if "format" in schema and schema["format"] not in STRICT_FORMATS:
        problems.append(f"{at}: format {schema['format']!r} is not supported in strict mode")
    kinds = schema.get("type")
    for kind in [kinds] if isinstance(kinds, str) else kinds if isinstance(kinds, list) else []:
        if kind not in STRICT_TYPES:
            problems.append(f"{at}: type {kind!r} is not supported in strict mode")
    if isinstance(schema.get("properties"), dict) or "object" in _types(schema):
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            problems.append(f"{at}: an object must list its properties")
            properties = {}
        if schema.get("additionalProperties") is not False:
            problems.append(f"{at}: additionalProperties must be false")
        missing = [name for name in properties if name not in (schema.get("required") or ())]
        if missing:
            problems.append(f"{at}: every property must be required (nullable if optional); not required: "
                            f"{', '.join(missing)}")
        for name, sub in properties.items():
            _check(sub, f"{where}/properties/{name}", depth + 1, problems)
    if "items" in schema:
        _check(schema["items"], f"{where}/items", depth + 1, problems)
    for i, branch in enumerate(schema.get("anyOf") or ()):
        _check(branch, f"{where}/anyOf/{i}", depth + 1, problems)
    for name, sub in (schema.get("$defs") or {}).items():
        _check(sub, f"{where}/$defs/{name}", depth + 1, problems)


def published_spec(spec: dict[str, Any], tool_format: str = "strict") -> dict[str, Any]:
    """An MCP tool spec (name, description, inputSchema, annotations) in `tool_format`."""
    if tool_format == "permissive":
        return spec
    if tool_format == "verl":
        return {**spec, "inputSchema": verl_schema(spec["inputSchema"])}
    if tool_format != "strict":
        raise ValueError(f"tool format must be one of {', '.join(TOOL_FORMATS)}, not {tool_format!r}")
    return {**spec, "inputSchema": strict_schema(spec["inputSchema"])}


def foreign_spec(spec: dict[str, Any], tool_format: str = "strict") -> dict[str, Any]:
    """`published_spec` for a tool not built here (an imported AWM-1K route): where its schema has no strict
    form (a free-form object), the tool as its app describes it. Ours always have one (the tools stage's gate)."""
    try:
        return published_spec(spec, tool_format)
    except NotStrictable:
        return spec


def without_omitted(schema: dict[str, Any], arguments: Any) -> Any:
    """`arguments` with every optional property whose value is null left out (nested objects too): null
    means "not given" for an optional parameter, which is how a strict client leaves one out."""
    if not isinstance(arguments, dict) or not isinstance(schema, dict):
        return arguments
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return arguments
    required = set(schema.get("required") or ())
    kept = {}
    for name, value in arguments.items():
        if value is None and name in properties and name not in required:
            continue
        sub = properties.get(name)
        kept[name] = without_omitted(sub, value) if isinstance(value, dict) and isinstance(sub, dict) else value
    return kept


_VERL_DROPPED = ("type", "anyOf", "oneOf", "allOf", "enum", "properties", "required", "items", "$defs", "$ref")


def verl_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The verl-safe form of a tool's (permissive) input schema (`awm serve --tool-format verl`).

    verl checks each tool with its pydantic model, where a parameter has `type` (one string before verl 0.9),
    `description` and `enum` (strings before 0.9), and `required` is given (before 0.9), and renders the tools
    from that model: so every property here has one `type` string and every object its `required`; an
    optional parameter is simply not required (the runtime reads it as not given, as null is read in the
    strict form); `null` is never a type nor an enum value, and an enum of other than strings is named in the
    description instead; a union of types becomes its first non-null type
    with the others named in the description (an integer-or-number union becomes number); a nested object keeps
    its `properties` and `required`, an array its `items`, and a top-level object or array-of-objects parameter
    names its keys in its description too, so a model sees them after verl's model drops the nesting."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        raise ValueError("the input schema must be an object schema")
    out = _verl(schema)
    out.setdefault("properties", {})
    for prop in out["properties"].values():
        shape = _shape(prop)
        if shape:
            described = prop.get("description", "").rstrip()
            prop["description"] = f"{described} ({shape})" if described else shape.capitalize()
    return out


def _verl(schema: Any) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {"type": "string"}
    branches = [b for b in schema.get("anyOf") or schema.get("oneOf") or () if isinstance(b, dict)]
    non_null = [b for b in branches if b.get("type") != "null"]
    merged = dict(schema)
    notes = []
    if non_null:  # a union: its first branch, the others named
        merged = {**{k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}, **non_null[0]}
        if len(non_null) > 1:
            notes.append("or " + ", or ".join(_type_name(b) for b in non_null[1:]))
    kinds = [k for k in ([merged["type"]] if isinstance(merged.get("type"), str) else merged.get("type") or [])
             if k != "null"]
    if set(kinds) == {"integer", "number"}:
        kinds = ["number"]
    elif len(kinds) > 1:
        notes.append("or " + ", or ".join(kinds[1:]))
    kind = kinds[0] if kinds else "object" if "properties" in merged else "array" if "items" in merged else "string"
    out = {key: copy.deepcopy(value) for key, value in merged.items() if key not in _VERL_DROPPED}
    out["type"] = kind
    if isinstance(merged.get("enum"), list):
        values = [v for v in merged["enum"] if v is not None]
        if values and all(isinstance(v, str) for v in values):
            out["enum"] = values
        elif values:  # verl before 0.9 takes string enums only: the values go into the description
            notes.append("one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values))
    if kind == "object":
        properties = merged.get("properties") if isinstance(merged.get("properties"), dict) else {}
        out["properties"] = {name: _verl(sub) for name, sub in properties.items()}
        out["required"] = [name for name in merged.get("required") or () if name in properties]
    if kind == "array":
        out["items"] = _verl(merged.get("items") or {})
    if notes:
        text = "; ".join(notes)
        out["description"] = f"{out['description']} ({text})" if out.get("description") else text.capitalize()
    return out


def _type_name(schema: dict) -> str:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else "/".join(kind) if isinstance(kind, list) else "any value"


def _shape(schema: dict) -> str | None:
    """A nested parameter's keys in words: 'an object with keys a (string, required), b (integer)'."""
    if schema.get("type") == "array" and isinstance(schema.get("items"), dict):
        inner = _shape(schema["items"])
        return f"a list of objects{inner.removeprefix('an object')}" if inner else None
    if schema.get("type") != "object" or not schema.get("properties"):
        return None
    required = set(schema.get("required") or ())
    keys = ", ".join(f"{name} ({sub.get('type')}{', required' if name in required else ''})"
                     for name, sub in schema["properties"].items())
    return f"an object with keys {keys}"
