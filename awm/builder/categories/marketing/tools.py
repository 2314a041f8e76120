"""The tools of an agency's, print shop's, research firm's or show organiser's own entities
(awm/builder/modules/packs/marketing.py): approval rounds, client campaigns, contact lists, survey waves; each with
the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.marketing import templates
from awm.builder.categories.marketing.entities import MAX_ROUNDS
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("approval_round", "ad_campaign", "contact_list", "survey_wave")


def declare(b: ToolBuilder) -> None:
    if b.has("approval_round"):
        ar, case, fl = b.ent("approval_round"), b.ent("case"), b.plan.flavour
        b.list_tool("approval_round")
        b.add(b.names.create("approval_round"),
              f"Send the next {ar.label} of an open {case.label} to the client (at most {MAX_ROUNDS} rounds, one "
              "waiting at a time).",
              [b.id_param("case"), Param("deliverable", string("what is sent for sign-off"), True)],
              templates, "create_APPROVAL_ROUND", role="approval_round", kind="create", MAX_LIMIT=MAX_ROUNDS,
              CLOSED=tuple(s for s in fl.statuses if s not in fl.open))
        b.status_action("approval_round", "approve", ("pending",), "approved", f"Record that the client approved a {ar.label}.")
        b.status_action("approval_round", "request_changes", ("pending",), "changes_requested",
                        f"Record that the client asked for changes in a {ar.label}.",
                        [Param("feedback", string("what the client wants changed"), True)], '{"feedback": feedback}')
    if b.has("ad_campaign"):
        ac = b.ent("ad_campaign")
        b.list_tool("ad_campaign")
        b.add(b.names.action("ad_campaign", "set_budget"),
              f"Set the budget of a {ac.label} that has not ended; never below what it has already spent.",
              [b.id_param("ad_campaign"), Param("budget", number("the new budget", 0, True), True)],
              templates, "set_budget_AD_CAMPAIGN", role="ad_campaign", kind="update")
        b.status_action("ad_campaign", "pause", ("live",), "paused", f"Pause a live {ac.label}.")
        b.status_action("ad_campaign", "resume", ("paused",), "live", f"Put a paused {ac.label} live again.")
    if b.has("contact_list"):
        cl = b.ent("contact_list")
        b.list_tool("contact_list")
        b.status_action("contact_list", "verify", ("unverified",), "verified",
                        f"Record that a {cl.label} was checked against the opt-outs.")
        b.add(b.names.action("contact_list", "release"),
              f"Release a verified {cl.label} for a mailing or a sample, before its usable_until date.",
              [b.id_param("contact_list")], templates, "release_CONTACT_LIST", role="contact_list", kind="action")
    if b.has("survey_wave"):
        sw = b.ent("survey_wave")
        b.list_tool("survey_wave")
        b.status_action("survey_wave", "pause", ("fielding",), "paused", f"Pause the fieldwork of a {sw.label}.")
        b.status_action("survey_wave", "resume", ("paused",), "fielding", f"Resume the fieldwork of a {sw.label}.")
        b.add(b.names.action("survey_wave", "close"),
              f"Close a {sw.label} whose completes have reached its target.",
              [b.id_param("survey_wave")], templates, "close_SURVEY_WAVE", role="survey_wave", kind="action")
