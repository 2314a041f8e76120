"""The stock tools: stock levels and adjusting them."""

from __future__ import annotations

from awm.builder.templates.tools import inventory as templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "stock_level"


def declare(b: ToolBuilder) -> None:
    item, site = b.ent("item"), b.ent("site")
    b.list_tool("stock_level")
    b.add(b.names.action("stock_level", "adjust"),
          f"Change the quantity of a {item.label} held at a {site.label} by a signed amount "
          "(negative for losses); stock cannot go below zero.",
          [b.id_param("item"), b.id_param("site"),
           Param("change", {"type": "integer", "description": "units to add (negative to remove)"}, True),
           Param("reason", string("why"), True)],
          templates, "adjust_STOCK_LEVEL", role="stock_level", kind="action")
