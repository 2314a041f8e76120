"""The tools of a nonprofit's own entities (awm/builder/modules/packs/nonprofit.py): grant applications, pledges,
events and their registrations, volunteers' service logs; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.nonprofit import templates
from awm.builder.categories.nonprofit.entities import MAX_DAY_HOURS
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("grant_application", "pledge", "charity_event", "event_signup", "service_log")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("grant_application"):
        ga = b.ent("grant_application")
        b.list_tool("grant_application")
        b.add(b.names.action("grant_application", "submit"),
              f"Submit a {ga.label} that is still being drafted; only on or before the funder's deadline.",
              [b.id_param("grant_application")], templates, "submit_GRANT_APPLICATION", role="grant_application",
              kind="action")
        b.add(b.names.action("grant_application", "record_award"),
              f"Record the amount a funder awarded on a submitted {ga.label}; at most the amount requested.",
              [b.id_param("grant_application"), Param("amount_awarded", number("amount awarded", 0, True), True)],
              templates, "record_award_GRANT_APPLICATION", role="grant_application", kind="action")
        b.status_action("grant_application", "decline", ("submitted",), "declined",
                        f"Record that the funder declined a submitted {ga.label}.")
    if b.has("pledge"):
        pl = b.ent("pledge")
        b.list_tool("pledge")
        b.add(b.names.action("pledge", "record_payment"),
              f"Record a payment toward an open {pl.label}; never more than is still owed, and a {pl.label} paid "
              "in full is fulfilled.", [b.id_param("pledge"), Param("amount", number("amount paid", 0, True), True)],
              templates, "record_payment_PLEDGE", role="pledge", kind="action")
        b.status_action("pledge", "cancel", ("open",), "cancelled", f"Cancel an open {pl.label}.")
    if b.has("charity_event"):
        b.list_tool("charity_event")
    if b.has("event_signup"):
        es, ev, p = b.ent("event_signup"), b.ent("charity_event"), b.ent("party")
        b.list_tool("event_signup")
        b.add(b.names.create("event_signup"),
              f"Register an active {p.label} for a scheduled {ev.label} that has not started; a full {ev.label} "
              "(as many registered as its capacity) takes no more.", [b.id_param("charity_event"), b.id_param("party")],
              templates, "create_EVENT_SIGNUP", role="event_signup", kind="create")
        b.status_action("event_signup", "cancel", ("registered",), "cancelled", f"Cancel an {es.label}.")
    if b.has("service_log"):
        sl = b.ent("service_log")
        b.list_tool("service_log")
        b.add(b.names.create("service_log"),
              f"Log hours a {b.ent('party').label} served at a {b.ent('site').label} on a past day; at most "
              f"{MAX_DAY_HOURS:.0f} hours a day per person.",
              [b.id_param("party"), b.id_param("site"), Param("served_on", DATE, True),
               Param("hours", {**number("hours served", 0, True), "maximum": MAX_DAY_HOURS}, True),
               Param("activity", string("what they did"), True)],
              templates, "create_SERVICE_LOG", role="service_log", kind="create", MAX_LIMIT=MAX_DAY_HOURS)
        b.status_action("service_log", "approve", ("pending",), "approved", f"Approve a pending {sl.label}.")
        b.status_action("service_log", "reject", ("pending",), "rejected", f"Reject a pending {sl.label}.")
