"""The tools of an HR business's own entities (awm/builder/modules/packs/human_resources.py): leave requests,
timesheets, background checks; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.human_resources import templates
from awm.builder.tools.base import ToolBuilder

ROLES = ("leave_request", "timesheet", "background_check")


def declare(b: ToolBuilder) -> None:
    if b.has("leave_request"):
        lr, st = b.ent("leave_request"), b.ent("staff")
        b.list_tool("leave_request")
        b.add(b.names.action("leave_request", "approve"),
              f"Approve a pending {lr.label}; not when it overlaps leave already approved for the same {st.label}.",
              [b.id_param("leave_request")], templates, "approve_LEAVE_REQUEST", role="leave_request", kind="action")
        b.status_action("leave_request", "reject", ("pending",), "rejected", f"Reject a pending {lr.label}.")
    if b.has("timesheet"):
        t = b.ent("timesheet")
        b.list_tool("timesheet")
        b.status_action("timesheet", "approve", ("submitted",), "approved", f"Approve a submitted {t.label}.")
        b.status_action("timesheet", "reject", ("submitted",), "rejected", f"Send a submitted {t.label} back.")
    if b.has("background_check"):
        bc = b.ent("background_check")
        b.list_tool("background_check")
        b.status_action("background_check", "cancel", ("ordered",), "cancelled", f"Cancel an ordered {bc.label}.")
