"""The tools of a professional firm's own entities (awm/builder/modules/packs/professional_services.py): time
entries, client retainers, filing deadlines, engagement letters; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.professional_services import templates
from awm.builder.categories.professional_services.entities import LETTER_DAYS, MAX_DAY_HOURS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("time_entry", "client_retainer", "filing_deadline", "engagement_letter")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("time_entry"):
        te, c, st = b.ent("time_entry"), b.ent("case"), b.ent("staff")
        open_ = b.plan.flavour.open
        b.list_tool("time_entry")
        b.add(b.names.create("time_entry"),
              f"Log hours a {st.label} worked on a {c.label} that is {', '.join(open_)}, on a day not in the future; "
              f"one person's entries on one day add up to at most {MAX_DAY_HOURS:.0f} hours.",
              [b.id_param("case"), b.id_param("staff"), Param("worked_on", DATE, True),
               Param("hours", {**number("hours worked", 0, True), "maximum": 12}, True),
               Param("description", string("what was done"), True)],
              templates, "create_TIME_ENTRY", role="time_entry", kind="create", OPEN_STATUSES=open_,
              MAX_LIMIT=MAX_DAY_HOURS)
        b.status_action("time_entry", "write_off", ("unbilled",), "written_off",
                        f"Write off an unbilled {te.label} so it is never billed.")
    if b.has("client_retainer"):
        cr = b.ent("client_retainer")
        b.list_tool("client_retainer")
        b.add(b.names.action("client_retainer", "draw"),
              f"Draw an amount from an active {cr.label} to pay for work; never more than its balance.",
              [b.id_param("client_retainer"), Param("amount", number("amount to draw", 0, True), True)],
              templates, "draw_CLIENT_RETAINER", role="client_retainer", kind="action")
        b.add(b.names.action("client_retainer", "top_up"), f"Add money a client paid in to an active {cr.label}.",
              [b.id_param("client_retainer"), Param("amount", number("amount paid in", 0, True), True)],
              templates, "top_up_CLIENT_RETAINER", role="client_retainer", kind="action")
        b.add(b.names.action("client_retainer", "close"),
              f"Close an active {cr.label}; only once its balance is zero (refund or draw what is left first).",
              [b.id_param("client_retainer")], templates, "close_CLIENT_RETAINER", role="client_retainer",
              kind="action")
    if b.has("filing_deadline"):
        fd = b.ent("filing_deadline")
        b.list_tool("filing_deadline")
        b.add(b.names.action("filing_deadline", "extend"),
              f"Record an extension of an open {fd.label} to a later date; only before the deadline has passed, and "
              "once.", [b.id_param("filing_deadline"), Param("due_on", DATE, True)],
              templates, "extend_FILING_DEADLINE", role="filing_deadline", kind="action")
        b.status_action("filing_deadline", "mark_met", ("open", "extended"), "met",
                        f"Record that what a {fd.label} asks for was filed in time.")
    if b.has("engagement_letter"):
        el = b.ent("engagement_letter")
        b.list_tool("engagement_letter")
        b.status_action("engagement_letter", "send", ("draft",), "sent",
                        f"Send a draft {el.label} to the client; it may be signed for {LETTER_DAYS} days.",
                        extra=f'{{"sent_on": TODAY, "expires_on": "{day(REFERENCE_NOW + timedelta(days=LETTER_DAYS))}"}}')
        b.add(b.names.action("engagement_letter", "sign"),
              f"Record that the client signed a sent {el.label}; only until it expires.",
              [b.id_param("engagement_letter")], templates, "sign_ENGAGEMENT_LETTER", role="engagement_letter",
              kind="action")
        b.status_action("engagement_letter", "withdraw", ("draft", "sent"), "withdrawn",
                        f"Withdraw an {el.label} that was not signed.")
