"""The tools of a publisher's, label's, streamer's or bookshop's own entities (awm/builder/modules/packs/media.py):
content licences, royalty statements, title releases, live events and their tickets; each with the rules its
template enforces."""

from __future__ import annotations

from awm.builder.categories.media import templates
from awm.builder.categories.media.entities import PAYOUT_MINIMUM
from awm.builder.tools.base import Param, ToolBuilder, integer

ROLES = ("content_licence", "royalty_statement", "title_release", "live_event")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("content_licence"):
        cl = b.ent("content_licence")
        b.list_tool("content_licence")
        b.add(b.names.action("content_licence", "extend"),
              f"Move the end date of an active {cl.label} later (an expired one is negotiated anew, not extended).",
              [b.id_param("content_licence"), Param("ends_on", {**DATE, "description": "the new end date"}, True)],
              templates, "extend_CONTENT_LICENCE", role="content_licence", kind="action")
        b.status_action("content_licence", "terminate", ("active", "pending"), "terminated",
                        f"Terminate a {cl.label} early.")
    if b.has("royalty_statement"):
        rs = b.ent("royalty_statement")
        b.list_tool("royalty_statement")
        b.status_action("royalty_statement", "approve", ("draft", "on_hold"), "approved", f"Approve a {rs.label}.")
        b.status_action("royalty_statement", "hold", ("draft", "approved"), "on_hold",
                        f"Put a {rs.label} on hold while it is queried.")
        b.add(b.names.action("royalty_statement", "pay"),
              f"Pay an approved {rs.label} of at least {PAYOUT_MINIMUM:.2f} (a smaller one is carried forward).",
              [b.id_param("royalty_statement")], templates, "pay_ROYALTY_STATEMENT", role="royalty_statement",
              kind="action", MAX_LIMIT=PAYOUT_MINIMUM)
    if b.has("title_release"):
        tr = b.ent("title_release")
        b.list_tool("title_release")
        b.add(b.names.action("title_release", "postpone"),
              f"Move a scheduled {tr.label} to a later date (never an earlier one).",
              [b.id_param("title_release"), Param("release_on", {**DATE, "description": "the new release date"}, True)],
              templates, "postpone_TITLE_RELEASE", role="title_release", kind="action")
        b.status_action("title_release", "cancel", ("scheduled",), "cancelled", f"Cancel a scheduled {tr.label}.")
    if b.has("live_event"):
        ev = b.ent("live_event")
        b.list_tool("live_event")
        b.status_action("live_event", "cancel", ("on_sale",), "cancelled", f"Cancel a {ev.label} that is on sale.")
    if b.has("event_ticket"):
        et = b.ent("event_ticket")
        b.list_tool("event_ticket")
        b.add(b.names.create("event_ticket"),
              f"Book seats at a {b.ent('live_event').label} on sale for an active {b.ent('party').label}; the booked "
              "seats never exceed its capacity.",
              [b.id_param("live_event"), b.id_param("party"),
               Param("seats", {**integer("seats to book"), "maximum": 6}, True)],
              templates, "create_EVENT_TICKET", role="event_ticket", kind="create")
        b.status_action("event_ticket", "cancel", ("booked",), "cancelled", f"Cancel a booked {et.label}.")
