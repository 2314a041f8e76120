"""What only an agency, print shop, research firm or show organiser keeps: client approval rounds on its work (three
included in the fee), its clients' campaigns with their budgets (never cut below what is already spent), the
contact lists it mails or samples (released only once verified and before they lapse) and survey fieldwork
(closed only when its quota is met); with the rules their tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "marketing"
LABELS = {"approval_round": "approval round", "ad_campaign": "client campaign", "contact_list": "contact list",
          "survey_wave": "survey wave"}
ALT_LABELS = {"approval_round": "signoff round", "ad_campaign": "marketing campaign", "contact_list": "mailing list",
              "survey_wave": "fieldwork wave"}
GROUPS = {
    "approvals": Group(("approval_round",)),
    # a research firm runs no campaigns for its clients
    "campaigns": Group(("ad_campaign",), not_for=("market_research_firm",)),
    "lists": Group(("contact_list",)),
    # a print shop and a show organiser field no surveys
    "fieldwork": Group(("survey_wave",), not_for=("commercial_print_shop", "trade_show_organizer")),
}
CODED = ()

MAX_ROUNDS = 3  # approval rounds the fee includes; another needs a change order
ROUND_STATUSES = ("pending", "approved", "changes_requested")
FEEDBACK = ("Tighten the headline", "Use the new logo", "Warmer colours please", "Shorten the copy",
            "Swap the hero image", "Check the bleed margins", "Add the legal disclaimer")
CAMPAIGN_STATUSES = ("draft", "live", "paused", "ended")
CHANNELS = {"advertising_agency": ("search", "social", "display", "video", "email"),
            "commercial_print_shop": ("direct_mail", "print"),
            "trade_show_organizer": ("email", "social", "direct_mail")}
CAMPAIGN_THEMES = ("Spring Launch", "Back to School", "Holiday Push", "Brand Awareness", "Summer Sale",
                   "Product Relaunch", "Customer Win-Back", "Grand Opening", "Year-End Clearance", "Loyalty Drive")
LIST_STATUSES = ("unverified", "verified", "released", "lapsed")
LIST_SOURCES = ("client CRM export", "rented list", "event registrations", "panel sample", "website sign-ups")
LIST_NAMES = ("Regional Homeowners", "Past Customers", "Trade Buyers", "Newsletter Subscribers", "Lapsed Members",
              "Healthcare Decision Makers", "Small Business Owners", "Young Families", "IT Managers",
              "Hospitality Buyers")
WAVE_STATUSES = ("fielding", "paused", "closed")
METHODS = ("online survey", "phone interviews", "intercept interviews", "online panel", "in-home test")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the approval_round, ad_campaign, contact_list and survey_wave tables."""
    party_fk, case_fk = f"{snake(L['party'])}_id", f"{snake(L['case'])}_id"
    ents: dict[str, Entity] = {}
    if has("approval_round"):
        ents["approval_round"] = Entity("approval_round", L["approval_round"], [
            pk_col(), fk_col(L, "case"), Col("round_number", "INTEGER", minimum=1, maximum=MAX_ROUNDS),
            Col("deliverable", "TEXT"), Col("status", "TEXT", enum=ROUND_STATUSES), Col("sent_on", "TEXT"),
            Col("feedback", "TEXT", nullable=True),
        ], f"Rounds of work sent to the client for sign-off on a {L['case']}; the fee includes {MAX_ROUNDS}.",
            filters=(case_fk, "status"))
    if has("ad_campaign"):
        ents["ad_campaign"] = Entity("ad_campaign", L["ad_campaign"], [
            pk_col(), fk_col(L, "party"), Col("name", "TEXT"), Col("channel", "TEXT"),
            Col("budget", "REAL", minimum=0), Col("spent", "REAL", minimum=0), Col("starts_on", "TEXT"),
            Col("ends_on", "TEXT"), Col("status", "TEXT", enum=CAMPAIGN_STATUSES),
        ], f"Campaigns run for {plural(L['party'])}; a budget is never cut below what is already spent.",
            filters=(party_fk, "channel", "status"), search=("name",))
    if has("contact_list"):
        ents["contact_list"] = Entity("contact_list", L["contact_list"], [
            pk_col(), fk_col(L, "party"), Col("name", "TEXT"), Col("source", "TEXT"),
            Col("records", "INTEGER", minimum=0), Col("status", "TEXT", enum=LIST_STATUSES),
            Col("usable_until", "TEXT"),
        ], "Lists of contacts mailed or sampled for a client; a list is released only once verified and before it "
           "lapses.", filters=(party_fk, "status"), search=("name",))
    if has("survey_wave"):
        ents["survey_wave"] = Entity("survey_wave", L["survey_wave"], [
            pk_col(), fk_col(L, "case"), Col("method", "TEXT", enum=METHODS),
            Col("target_completes", "INTEGER", minimum=1), Col("completes", "INTEGER", minimum=0),
            Col("incentive", "REAL", minimum=0), Col("status", "TEXT", enum=WAVE_STATUSES), Col("closes_on", "TEXT"),
        ], f"Fieldwork for a {L['case']}: interviews wanted and done; a wave closes only when its quota is met.",
            filters=(case_fk, "method", "status"))
    return ents


def _deliverable(gen: RowGen, case: dict) -> str:
    lines = [x for x in gen.rows["line"] if x[gen.fk("case")] == case["id"]]
    items = {i["id"]: i["name"] for i in gen.rows["item"]}
    return items[lines[0][gen.fk("item")]] if lines else "Creative concept"


def fill_rounds(gen: RowGen) -> None:
    """One to three rounds a case; every round before the last came back with changes."""
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.45 or case["status"] == "cancelled":
            continue
        deliverable, rounds = _deliverable(gen, case), gen.rng.choice((1, 1, 2, 3, 3))
        for n in range(1, rounds + 1):
            status = gen.rng.choices(ROUND_STATUSES, (3, 2, 2))[0] if n == rounds else "changes_requested"
            gen.add("approval_round", {
                gen.fk("case"): case["id"], "round_number": n, "deliverable": deliverable, "status": status,
                "sent_on": day(gen.between(case["created_at"])),
                "feedback": gen.rng.choice(FEEDBACK) if status == "changes_requested" else None})


def fill_campaigns(gen: RowGen) -> None:
    channels = CHANNELS.get(gen.sc.domain, CHANNELS["advertising_agency"])
    for party in gen.rows["party"]:
        if gen.rng.random() < 0.5:
            continue
        status = gen.rng.choices(CAMPAIGN_STATUSES, (2, 5, 2, 2))[0]
        budget = float(gen.rng.randrange(2000, 60000, 500))
        start = REFERENCE_NOW + timedelta(days=gen.rng.randint(5, 40) if status == "draft" else -gen.rng.randint(10, 90))
        spent = 0.0 if status == "draft" else round(budget * gen.rng.uniform(0.2, 0.95 if status != "ended" else 1), 2)
        gen.add("ad_campaign", {gen.fk("party"): party["id"],
                                "name": f"{party['last_name']} {gen.rng.choice(CAMPAIGN_THEMES)}",
                                "channel": gen.rng.choice(channels), "budget": budget, "spent": spent,
                                "starts_on": day(start), "ends_on": day(start + timedelta(days=gen.rng.choice((30, 60, 90)))),
                                "status": status})


def fill_lists(gen: RowGen) -> None:
    for party in gen.rng.sample(gen.rows["party"], min(12, len(gen.rows["party"]))):
        status = gen.rng.choices(LIST_STATUSES, (2, 4, 3, 2))[0]
        until = REFERENCE_NOW + timedelta(days=-gen.rng.randint(3, 60) if status == "lapsed" else gen.rng.randint(15, 120))
        gen.add("contact_list", {gen.fk("party"): party["id"],
                                 "name": f"{party['last_name']} {gen.rng.choice(LIST_NAMES)}",
                                 "source": gen.rng.choice(LIST_SOURCES), "records": gen.rng.randrange(500, 40000, 50),
                                 "status": status, "usable_until": day(until)})


def fill_waves(gen: RowGen) -> None:
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.5 or case["status"] == "cancelled":
            continue
        status = gen.rng.choices(WAVE_STATUSES, (5, 1, 3))[0]
        target = gen.rng.choice((100, 150, 200, 300, 400, 500, 800))
        done = target if status == "closed" else gen.rng.choice((target, gen.rng.randint(target // 5, target - 1)))
        gen.add("survey_wave", {gen.fk("case"): case["id"], "method": gen.rng.choice(METHODS),
                                "target_completes": target, "completes": done,
                                "incentive": gen.rng.choice((0.0, 2.5, 5.0, 10.0, 25.0)), "status": status,
                                "closes_on": day(REFERENCE_NOW + timedelta(days=gen.rng.randint(-20, 30)))})


FILL = {"approval_round": fill_rounds, "ad_campaign": fill_campaigns, "contact_list": fill_lists,
        "survey_wave": fill_waves}
