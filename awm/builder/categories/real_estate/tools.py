"""The tools of a landlord's own entities (awm/builder/modules/packs/real_estate.py): leases, repair requests,
showings; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.real_estate import templates
from awm.builder.categories.real_estate.entities import NOTICE_DAYS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder

ROLES = ("lease", "repair_request", "showing")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}
TIME = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", "description": "ISO time"}


def declare(b: ToolBuilder) -> None:
    if b.has("lease"):
        le = b.ent("lease")
        earliest = day(REFERENCE_NOW + timedelta(days=NOTICE_DAYS))
        b.get_tool("lease")
        b.list_tool("lease")
        b.add(b.names.action("lease", "terminate"),
              f"Give notice on an active {le.label}: it ends on the given date, which must be at least {NOTICE_DAYS} "
              "days from today and before its current end.",
              [b.id_param("lease"), Param("ends_on", DATE, True)], templates, "terminate_LEASE", role="lease",
              kind="action", FAR_CUTOFF=earliest, WINDOW_TEXT=str(NOTICE_DAYS))
        b.add(b.names.action("lease", "extend"), f"Extend an active {le.label} to a later end date.",
              [b.id_param("lease"), Param("ends_on", DATE, True)], templates, "extend_LEASE", role="lease",
              kind="action")
    if b.has("repair_request"):
        rr, st = b.ent("repair_request"), b.ent("staff")
        b.list_tool("repair_request")
        b.add(b.names.action("repair_request", "schedule"),
              f"Schedule an open {rr.label} with an active {st.label} at a future time.",
              [b.id_param("repair_request"), b.id_param("staff"), Param("scheduled_for", TIME, True)],
              templates, "schedule_REPAIR_REQUEST", role="repair_request", kind="action")
        b.status_action("repair_request", "complete", ("scheduled",), "completed",
                        f"Record a scheduled {rr.label} as done.")
        b.status_action("repair_request", "cancel", ("open", "scheduled"), "cancelled", f"Cancel a {rr.label}.")
    if b.has("showing"):
        sh = b.ent("showing")
        b.list_tool("showing")
        b.status_action("showing", "cancel", ("scheduled",), "cancelled", f"Cancel a scheduled {sh.label}.")
        b.status_action("showing", "complete", ("scheduled",), "completed", f"Record a {sh.label} as held.")
