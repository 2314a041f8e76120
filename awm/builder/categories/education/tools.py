"""The tools of a school's own entities (awm/builder/modules/packs/education.py): class sections and enrolments,
registration holds, transcript requests; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.education import templates
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLES = ("section", "registration_hold", "transcript_request")


def declare(b: ToolBuilder) -> None:
    p = b.ent("party")
    holds = b.has("registration_hold")
    if holds:
        h = b.ent("registration_hold")
        b.list_tool("registration_hold")
        b.status_action("registration_hold", "lift", ("active",), "lifted", f"Lift an active {h.label}.",
                        extra='{"lifted_on": TODAY}')
    if b.has("section"):
        s, e = b.ent("section"), b.ent("enrolment")
        b.get_tool("section", ("enrolment",))
        b.list_tool("section")
        b.list_tool("enrolment")
        b.add(b.names.create("enrolment"),
              f"Enrol an active {p.label} in an open {s.label}; when it is full the {p.label} is waitlisted. "
              f"A {p.label} with an active hold cannot enrol, nor enrol twice.",
              [b.id_param("party"), b.id_param("section")], templates, "create_ENROLMENT", role="enrolment",
              kind="create", HAS_HOLDS=holds)
        b.add(b.names.action("enrolment", "drop"),
              f"Drop an {e.label} that is enrolled or waitlisted; a freed seat goes to nobody automatically.",
              [b.id_param("enrolment")], templates, "drop_ENROLMENT", role="enrolment", kind="action")
    if b.has("transcript_request"):
        t = b.ent("transcript_request")
        b.list_tool("transcript_request")
        b.add(b.names.create("transcript_request"),
              f"Ask for an official transcript to be sent for a {p.label} (1 to 5 copies).",
              [b.id_param("party"), Param("destination", string("where it goes"), True),
               Param("copies", {**integer("how many copies", 1), "maximum": 5}, True)],
              templates, "create_TRANSCRIPT_REQUEST", role="transcript_request", kind="create")
        b.add(b.names.action("transcript_request", "mail"),
              f"Send a requested transcript; not while the {p.label} has an active unpaid-fees hold.",
              [b.id_param("transcript_request")], templates, "mail_TRANSCRIPT_REQUEST", role="transcript_request",
              kind="action", HAS_HOLDS=holds)
        b.status_action("transcript_request", "cancel", ("requested",), "cancelled", f"Cancel a {t.label}.")
