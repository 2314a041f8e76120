"""The shift tools: scheduling and cancelling a staff member's shift."""

from __future__ import annotations

from awm.builder.templates.tools import shifts as templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLE = "shift"
HH_MM = r"^\d{2}:\d{2}$"


def declare(b: ToolBuilder) -> None:
    sh, st = b.ent("shift"), b.ent("staff")
    b.list_tool("shift")
    b.add(b.names.create("shift"),
          f"Schedule a {sh.label} for an active {st.label} on a future date; one {sh.label} a day per person.",
          [b.id_param("staff"), b.id_param("site"),
           Param("shift_date", {**string("ISO date"), "pattern": r"^\d{4}-\d{2}-\d{2}$"}, True),
           Param("start_time", {**string("HH:MM"), "pattern": HH_MM}, True),
           Param("end_time", {**string("HH:MM"), "pattern": HH_MM}, True)],
          templates, "schedule_SHIFT", role="shift", kind="create")
    b.status_action("shift", "cancel", ("scheduled",), "cancelled", f"Cancel a scheduled {sh.label}.")
