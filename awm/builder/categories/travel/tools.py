"""The tools of a travel business's own entities (awm/builder/modules/packs/travel.py): travel documents,
itinerary segments, special service requests; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.travel import templates
from awm.builder.categories.travel.entities import REQUEST_KINDS, VALIDITY_DAYS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, string

ROLES = ("travel_document", "segment", "special_request")


def declare(b: ToolBuilder) -> None:
    if b.has("travel_document"):
        d = b.ent("travel_document")
        b.list_tool("travel_document")
        b.add(b.names.action("travel_document", "verify"),
              f"Verify a pending {d.label}; it must stay valid at least {VALIDITY_DAYS} days from today.",
              [b.id_param("travel_document")], templates, "verify_TRAVEL_DOCUMENT", role="travel_document",
              kind="action", FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=VALIDITY_DAYS)),
              WINDOW_TEXT=str(VALIDITY_DAYS))
        b.status_action("travel_document", "reject", ("pending",), "rejected", f"Reject a pending {d.label}.")
    if b.has("segment"):
        s = b.ent("segment")
        b.list_tool("segment")
        b.status_action("segment", "confirm", ("waitlisted",), "confirmed", f"Confirm a waitlisted {s.label}.")
        b.status_action("segment", "cancel", ("confirmed", "waitlisted"), "cancelled", f"Cancel a {s.label}.")
    if b.has("special_request"):
        r, c = b.ent("special_request"), b.ent("case")
        b.list_tool("special_request")
        b.add(b.names.create("special_request"),
              f"Note a {r.label} on a {c.label} that is not cancelled; one of a kind per {c.label}.",
              [b.id_param("case"), Param("kind", string("what is needed", REQUEST_KINDS), True)],
              templates, "create_SPECIAL_REQUEST", role="special_request", kind="create")
        b.status_action("special_request", "confirm", ("requested",), "confirmed", f"Confirm a {r.label}.")
        b.status_action("special_request", "decline", ("requested",), "declined", f"Decline a {r.label}.")
