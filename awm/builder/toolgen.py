"""Tool API generation, as its callers import it: the implementation is the package awm.builder.tools
(declarations per concern) with its templates in awm.builder.templates (see awm.builder.codegen); tool names
and the API styles they vary by are awm.builder.dialect's."""

from awm.builder.tools import (
    PAGING,
    Param,
    ToolDef,
    ToolNames,
    canonical_tool_defs,
    dialect_for,
    error_codes,
    generate_tools,
    render_source,
    render_specs,
    tool_defs,
)

__all__ = ["PAGING", "Param", "ToolDef", "ToolNames", "canonical_tool_defs", "dialect_for", "error_codes", "generate_tools",
           "render_source", "render_specs", "tool_defs"]
