"""The note tools: notes staff write on a case."""

from __future__ import annotations

from awm.builder.templates.tools import notes as templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string


def declare(b: ToolBuilder) -> None:
    n, c, st = b.ent("note"), b.ent("case"), b.ent("staff")
    b.list_tool("note")
    b.add(b.names.create("note"), f"Add a {n.label} to a {c.label}.",
          [b.id_param("case"), Param("body", string("the note text"), True),
           Param(st.fk, integer(f"id of the {st.label} writing it"))],
          templates, "add_NOTE", role="note", kind="create")
    b.delete_tool("note", f"Delete a {n.label}.")
