"""Tool templates, one module per concern: each function is the code of one kind of tool, written with
placeholders (awm.builder.templates.placeholders) and the prelude's helpers (awm.builder.templates.tool_prelude).
The declarations binding them to a world are in awm.builder.tools, in a module of the same name."""
