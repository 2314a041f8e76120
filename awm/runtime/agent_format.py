"""The AWM agent format: an environment as the models trained by AWM (Arctic-AWM) expect to see it.

Those models were trained with two functions only, whatever the environment:

    list_tools()                          the environment's tools as text, each named mcp_tool_<name>
    call_tool(tool_name, arguments)       run one; `arguments` is a JSON *string* ("{}" or "" for none)

and a system prompt that explains them (AWM_SYSTEM_PROMPT). `awm serve` serves an episode this way when
the trainer reserves it with `"tool_format": "awm"` (or an unreserved URL carries `?tool_format=awm`, or the
server runs with `--tool-format awm`); the episode, its tools and its scoring are the same as in any other
format. A tool may also be called by its prefixed name directly (`mcp_tool_get_order` with an object of
arguments), as the AWM agent loop rewrites such calls.
"""

from __future__ import annotations

import json
from typing import Any

from awm.runtime.tools import tool_error

AWM_PREFIX = "mcp_tool_"
LIST_TOOLS, CALL_TOOL = "list_tools", "call_tool"

META_TOOLS = [
    {"name": LIST_TOOLS,
     "description": "List all available MCP tools for the current environment to help you finish the user task.",
     "inputSchema": {"type": "object", "properties": {}, "required": [], "additionalProperties": False}},
    {"name": CALL_TOOL,
     "description": "Call a MCP environment-specific tool.",
     "inputSchema": {"type": "object", "properties": {
         "tool_name": {"type": "string", "description": "the tool name in the list_tools output"},
         "arguments": {"type": "string", "description": "the arguments for calling <tool_name>, as a valid JSON "
                                                        "string without markdown fences; an empty JSON object "
                                                        "string if it takes none"}},
         "required": ["tool_name", "arguments"], "additionalProperties": False}},
]

AWM_SYSTEM_PROMPT = """\
# MCP Tools

You are at a MCP environment. You need to call MCP tools to assist with the user query. At each step, you \
can only call one function. You have already logged in, and your user id is 1 if required for the MCP tool.

You are provided with TWO functions within <tools></tools> XML tags:
<tools>
1. list_tools
    - Description: List all available MCP tools for the current environment to help you finish the user task.
    - Arguments: None
    - Output: A list of MCP environment-specific tools and their descriptions

2. call_tool
    - Description: Call a MCP environment-specific tool
    - Arguments:
        - tool_name: str, required, the tool name in the list_tools output
        - arguments: str, required, the arguments for calling <tool_name>. You must pass a valid JSON string \
without any markdown fences or additional commentary. This JSON str will be parsed by the tool and executed. \
You can pass an empty JSON str if no arguments are required by <tool_name>.
    - Output: The result of the <tool_name> tool call
</tools>

You should always call list_tools function first to get the available tools, and should only call it once. \
You should always directly output the answer or summary at the final step instead of calling any function.

For each function call, return a json object with function name and arguments within <tool_call></tool_call> \
XML tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call>"""


def tool_listing(specs: list[dict[str, Any]]) -> str:
    """What list_tools answers: each tool, prefixed, with its description and parameters, as AWM lists them."""
    lines = [f"Available MCP Tools ({len(specs)} tools):", "=" * 80, ""]
    for number, spec in enumerate(specs, 1):
        description = (spec.get("description") or "No description").strip().splitlines()
        lines.append(f"{number}. {AWM_PREFIX}{spec['name']}")
        lines.append(f"   Description: {description[0].strip() if description else 'No description'}")
        lines += [f"   {line.strip()}" for line in description[1:] if line.strip()]
        schema = spec.get("inputSchema") or {}
        if schema.get("properties"):
            lines.append("   Parameters:")
            lines += _parameter_lines(schema, 6)
        else:
            lines.append("   Parameters: None")
        lines.append("")
    return "\n".join(lines).strip()


def _parameter_lines(schema: dict[str, Any], indent: int) -> list[str]:
    pad, lines = " " * indent, []
    required = set(schema.get("required") or ())
    for name, prop in schema.get("properties", {}).items():
        kind = prop.get("type", "unknown")
        lines.append(f"{pad}- {name}: {kind} ({'required' if name in required else 'optional'})")
        if prop.get("description"):
            lines.append(f"{pad}  Description: {prop['description']}")
        if prop.get("default") is not None:
            lines.append(f"{pad}  Default: {prop['default']}")
        if prop.get("enum"):
            lines.append(f"{pad}  Allowed values: {prop['enum']}")
        if kind == "object" and prop.get("properties"):
            lines.append(f"{pad}  Properties:")
            lines += _parameter_lines(prop, indent + 4)
    return lines


MAX_ARGUMENT_DEPTH = 64  # a tool's arguments are a flat object, or nearly


def _nests_deeper(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > limit:
                return True
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return False


def unwrap_call(name: str, arguments: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | dict:
    """The environment tool and its arguments that a meta-call names, or the structured error to return.

    `call_tool` takes the tool's name (with or without the prefix) and its arguments as a JSON string (an
    object is accepted too); a prefixed name called directly takes its arguments as they are."""
    arguments = arguments or {}
    if name.startswith(AWM_PREFIX):
        return name[len(AWM_PREFIX):], arguments
    if name != CALL_TOOL:
        return tool_error("unknown_tool", f"no function {name!r}: only {LIST_TOOLS} and {CALL_TOOL} exist; call "
                                          f"{LIST_TOOLS} to see the environment's tools")
    tool, raw = arguments.get("tool_name"), arguments.get("arguments", "")
    if not isinstance(tool, str) or not tool:
        return tool_error("invalid_arguments", f"{CALL_TOOL}: tool_name must name a tool from {LIST_TOOLS}")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw) if raw.strip() else {}
        except ValueError as exc:
            return tool_error("invalid_arguments", f"{CALL_TOOL}: arguments is not a JSON string: {exc}")
        except RecursionError:  # nested past what the parser takes
            return _too_deep()
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        return tool_error("invalid_arguments", f"{CALL_TOOL}: arguments must encode a JSON object")
    if _nests_deeper(raw, MAX_ARGUMENT_DEPTH):
        return _too_deep()
    return tool.removeprefix(AWM_PREFIX), raw


def _too_deep() -> dict:
    return tool_error("invalid_arguments", f"{CALL_TOOL}: arguments nest lists or objects deeper than "
                                           f"{MAX_ARGUMENT_DEPTH} levels")
