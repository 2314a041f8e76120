"""The catalogue tools: sites, categories, items, an item's price and availability."""

from __future__ import annotations

from awm.builder.naming import plural
from awm.builder.templates.tools import offering as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, number


def declare(b: ToolBuilder) -> None:
    i = b.ent("item")
    b.list_tool("site")
    b.list_tool("category")
    b.get_tool("item")
    b.list_tool("item")
    b.add(b.names.change("item", "update", "price"),
          f"Set the price of a {i.label}. Existing {plural(b.labels['case'])} keep the price they were made at.",
          [Param(f"{i.name}_id", integer(f"id of the {i.label}"), True),
           Param("price", number("new price", 0, exclusive=True), True)],
          templates, "update_ITEM_price", role="item", kind="update")
    b.add(b.names.change("item", "set", "availability"),
          f"Offer a {i.label} again (active true) or stop offering it (active false).",
          [Param(f"{i.name}_id", integer(f"id of the {i.label}"), True),
           Param("active", {"type": "boolean", "description": "true to offer it, false to stop"}, True)],
          templates, "set_ITEM_availability", role="item", kind="update")
