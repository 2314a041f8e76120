"""The department tools."""

from __future__ import annotations

from awm.builder.tools.base import ToolBuilder

ROLE = "department"


def declare(b: ToolBuilder) -> None:
    b.list_tool("department")
