"""The staff tools: reading staff, deactivating a staff member who holds no open case."""

from __future__ import annotations

from awm.builder.naming import plural
from awm.builder.templates.tools import staff as templates
from awm.builder.tools.base import Param, ToolBuilder, integer


def declare(b: ToolBuilder) -> None:
    st, c = b.ent("staff"), b.ent("case")
    b.get_tool("staff")
    b.list_tool("staff")
    open_statuses = tuple(b.plan.flavour.open)
    b.add(b.names.action("staff", "deactivate"),
          f"Mark a {st.label} as no longer active. Refused while any {c.label} that is still "
          f"{' or '.join(s.replace('_', ' ') for s in open_statuses)} is assigned to them: reassign those first.",
          [Param(f"{st.name}_id", integer(f"id of the {st.label}"), True)],
          templates, "deactivate_STAFF", role="staff", kind="update",
          OPEN_STATUSES_SQL=", ".join("'" + x + "'" for x in open_statuses), CASE_PLURAL=plural(c.label))
