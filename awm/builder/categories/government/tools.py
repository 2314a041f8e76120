"""The tools of a public agency's own entities (awm/builder/modules/packs/government.py): issued licences,
inspections, fines, public records requests; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.government import templates
from awm.builder.categories.government.entities import APPEAL_DAYS, RENEWAL_DAYS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, string

ROLES = ("issued_licence", "inspection_visit", "fine_notice", "records_request")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("issued_licence"):
        li = b.ent("issued_licence")
        b.list_tool("issued_licence")
        b.add(b.names.action("issued_licence", "renew"),
              f"Renew an active or expired {li.label} to a new expiry date; only in the last {RENEWAL_DAYS} days "
              "before it expires, or after.", [b.id_param("issued_licence"), Param("expires_on", DATE, True)],
              templates, "renew_ISSUED_LICENCE", role="issued_licence", kind="action",
              FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=RENEWAL_DAYS)), WINDOW_TEXT=str(RENEWAL_DAYS))
        b.status_action("issued_licence", "suspend", ("active",), "suspended", f"Suspend an active {li.label}.",
                        [Param("reason", string("why"), True)], '{"suspend_reason": reason}')
        b.status_action("issued_licence", "reinstate", ("suspended",), "active", f"Reinstate a suspended {li.label}.",
                        extra='{"suspend_reason": None}')
    if b.has("inspection_visit"):
        iv = b.ent("inspection_visit")
        b.list_tool("inspection_visit")
        b.add(b.names.action("inspection_visit", "record_result"),
              f"Record whether a scheduled {iv.label} passed or failed; only on or after its scheduled day.",
              [b.id_param("inspection_visit"), Param("result", string("the outcome", ("passed", "failed")), True),
               Param("note", string("what the inspector found"))],
              templates, "record_result_INSPECTION_VISIT", role="inspection_visit", kind="action")
        b.status_action("inspection_visit", "cancel", ("scheduled",), "cancelled", f"Cancel a scheduled {iv.label}.")
    if b.has("fine_notice"):
        fn = b.ent("fine_notice")
        b.list_tool("fine_notice")
        b.add(b.names.action("fine_notice", "appeal"),
              f"File an appeal against an unpaid {fn.label}; only within {APPEAL_DAYS} days of its issue date.",
              [b.id_param("fine_notice"), Param("grounds", string("why the fine is disputed"), True)],
              templates, "appeal_FINE_NOTICE", role="fine_notice", kind="action",
              CUTOFF=day(REFERENCE_NOW - timedelta(days=APPEAL_DAYS)), WINDOW_TEXT=str(APPEAL_DAYS))
        b.status_action("fine_notice", "waive", ("appealed",), "waived", f"Waive an appealed {fn.label}.")
        b.status_action("fine_notice", "mark_paid", ("unpaid",), "paid", f"Record an unpaid {fn.label} as paid.")
    if b.has("records_request"):
        rr = b.ent("records_request")
        b.list_tool("records_request")
        b.add(b.names.action("records_request", "extend"),
              f"Move the due date of an open {rr.label} later; a request is extended once only.",
              [b.id_param("records_request"), Param("due_on", DATE, True)],
              templates, "extend_RECORDS_REQUEST", role="records_request", kind="action")
        b.status_action("records_request", "fulfil", ("received", "in_review"), "fulfilled",
                        f"Record an open {rr.label} as answered with the records.")
        b.status_action("records_request", "deny", ("received", "in_review"), "denied", f"Deny an open {rr.label}.")
