"""The address tools: listing, adding and deleting the postal addresses of parties."""

from __future__ import annotations

from awm.builder.templates.tools import addresses as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLE = "address"


def declare(b: ToolBuilder) -> None:
    a, p = b.ent("address"), b.ent("party")
    b.list_tool("address")
    b.add(b.names.create("address"),
          f"Add an {a.label} for a {p.label}; if primary, it replaces the current primary one.",
          [b.id_param("party"),
           Param("kind", string("kind of address", ("home", "work", "billing")), True),
           Param("street", string("street and number"), True), Param("city", string("city"), True),
           Param("postal_code", string("postal code"), True),
           Param("is_primary", {"type": "boolean", "description": "make it the primary address",
                                "default": False}, default=False)],
          templates, "add_ADDRESS", role="address", kind="create")
    b.add(b.names.delete("address"), f"Delete an {a.label}. A primary address cannot be deleted.",
          [Param(f"{a.name}_id", integer(f"id of the {a.label}"), True)],
          templates, "delete_ADDRESS", role="address", kind="delete", destructive=True)
