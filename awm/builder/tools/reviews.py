"""The review tools: recording and deleting a party's rating of an item."""

from __future__ import annotations

from awm.builder.templates.tools import reviews as templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "review"


def declare(b: ToolBuilder) -> None:
    r, p, i = b.ent("review"), b.ent("party"), b.ent("item")
    b.list_tool("review")
    b.add(b.names.create("review"), f"Record a {r.label} (rating 1-5) of a {i.label} by a {p.label}.",
          [b.id_param("party"), b.id_param("item"),
           Param("rating", {"type": "integer", "minimum": 1, "maximum": 5, "description": "1 to 5"}, True),
           Param("comment", string("comment"), True)],
          templates, "add_REVIEW", role="review", kind="create")
    b.delete_tool("review", f"Delete a {r.label}.")
