"""What only a professional firm keeps: time entries on its matters, client retainers drawn down as work is billed,
filing deadlines, and engagement letters; with the rules their tools enforce (no time on a closed matter, no draw
beyond a retainer's balance, no extension once a deadline has passed, no signature on a lapsed letter)."""

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

CATEGORY = "professional_services"
LABELS = {"time_entry": "time entry", "client_retainer": "client retainer", "filing_deadline": "filing deadline",
          "engagement_letter": "engagement letter"}
ALT_LABELS = {"time_entry": "billable hours entry", "client_retainer": "retainer deposit",
              "filing_deadline": "statutory deadline", "engagement_letter": "letter of engagement"}
GROUPS = {
    "time": Group(("time_entry",)),
    "retainers": Group(("client_retainer",), not_for=("tax_preparation",)),
    "deadlines": Group(("filing_deadline",), not_for=("management_consulting",)),
    "letters": Group(("engagement_letter",)),
}
CODED = ("client_retainer",)

TIME_STATUSES = ("unbilled", "billed", "written_off")
MAX_DAY_HOURS = 24.0  # one person's time entries on one day never add up to more
RETAINER_STATUSES = ("active", "closed")
DEADLINE_STATUSES = ("open", "extended", "met", "missed")
LETTER_STATUSES = ("draft", "sent", "signed", "withdrawn")
LETTER_DAYS = 30  # a sent engagement letter may be signed for this long
FEE_TERMS = ("hourly at standard rates", "fixed fee, half on signing", "monthly retainer", "capped fee with hourly overage")
WORK = ("Drafted the first version", "Call with the client", "Reviewed the documents received",
        "Research on the open questions", "Prepared the filing", "Meeting with the other side", "Revised the draft")
# what a deadline is for, by the kind of firm (others get the general ones)
DEADLINES = {
    "law_firm": ("Answer to the complaint", "Discovery responses", "Motion filing", "Appeal notice"),
    "accounting_firm": ("Quarterly payroll return", "Annual financial statements", "Sales tax return",
                        "Audit report"),
    "tax_preparation": ("Federal income tax return", "State income tax return", "Estimated tax payment",
                        "Amended return"),
}
GENERAL_DEADLINES = ("Regulatory filing", "Annual report", "Response to the notice")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the time_entry, client_retainer, filing_deadline and engagement_letter tables."""
    case_fk, staff_fk, party_fk = (f"{snake(L[r])}_id" for r in ("case", "staff", "party"))
    ents: dict[str, Entity] = {}
    if has("time_entry"):
        ents["time_entry"] = Entity("time_entry", L["time_entry"], [
            pk_col(), fk_col(L, "case"), fk_col(L, "staff"), Col("worked_on", "TEXT"),
            Col("hours", "REAL", minimum=0.1, maximum=12), Col("description", "TEXT"),
            Col("billable", "INTEGER", minimum=0, maximum=1), Col("status", "TEXT", enum=TIME_STATUSES),
        ], f"Hours {plural(L['staff'])} worked on {plural(L['case'])}; logged only on an open one, at most "
           f"{MAX_DAY_HOURS:.0f} hours a day per person.", filters=(case_fk, staff_fk, "status", "worked_on"))
    if has("client_retainer"):
        ents["client_retainer"] = Entity("client_retainer", L["client_retainer"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), Col("balance", "REAL", minimum=0),
            Col("status", "TEXT", enum=RETAINER_STATUSES), Col("opened_on", "TEXT"),
        ], f"Money {plural(L['party'])} pay in advance, drawn on as work is billed; never below zero.",
            filters=("number", party_fk, "status"), code="number")
    if has("filing_deadline"):
        ents["filing_deadline"] = Entity("filing_deadline", L["filing_deadline"], [
            pk_col(), fk_col(L, "case"), Col("description", "TEXT"), Col("due_on", "TEXT"),
            Col("status", "TEXT", enum=DEADLINE_STATUSES),
        ], f"Dates by which something must be filed for a {L['case']}; an extension is asked for before the date "
           "passes.", filters=(case_fk, "status"))
    if has("engagement_letter"):
        ents["engagement_letter"] = Entity("engagement_letter", L["engagement_letter"], [
            pk_col(), fk_col(L, "case"), Col("fee_terms", "TEXT"), Col("status", "TEXT", enum=LETTER_STATUSES),
            Col("sent_on", "TEXT", nullable=True), Col("expires_on", "TEXT", nullable=True),
        ], f"The terms each {L['case']} is taken on under; a sent letter is signed only before it expires.",
            filters=(case_fk, "status"))
    return ents


def fill_time(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"]]
    for case in gen.rows["case"]:
        if case["status"] == "cancelled" or gen.rng.random() < 0.4:
            continue
        for _ in range(gen.rng.randint(1, 4)):
            status = "unbilled" if case["status"] in gen.plan.flavour.open and gen.rng.random() < 0.6 else \
                gen.rng.choices(("billed", "written_off"), (5, 1))[0]
            gen.add("time_entry", {
                gen.fk("case"): case["id"], gen.fk("staff"): case.get(gen.fk("staff")) or gen.rng.choice(staff),
                "worked_on": day(gen.between(case["created_at"])), "hours": gen.rng.choice((0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.5, 6.0)),
                "description": gen.rng.choice(WORK), "billable": int(gen.rng.random() < 0.85), "status": status,
            })


def fill_retainers(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["client_retainer"]
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(12, len(gen.rows["party"])))):
        status = gen.rng.choices(RETAINER_STATUSES, (6, 1))[0]
        gen.add("client_retainer", {
            "number": f"{prefix}-{7001 + n * 3}", gen.fk("party"): party["id"],
            "balance": 0.0 if status == "closed" else float(gen.rng.choice((250, 800, 1500, 2500, 4000, 7500))),
            "status": status, "opened_on": day(gen.between(party["created_at"])),
        })


def fill_deadlines(gen: RowGen) -> None:
    kinds = DEADLINES.get(gen.sc.domain, GENERAL_DEADLINES)
    for case in gen.rows["case"]:
        if case["status"] == "cancelled" or gen.rng.random() < 0.6:
            continue
        due = REFERENCE_NOW + timedelta(days=gen.rng.randint(-40, 90))
        status = gen.rng.choices(("open", "met", "missed"), (3, 5, 1))[0] if due < REFERENCE_NOW else \
            gen.rng.choices(("open", "extended", "met"), (6, 2, 1))[0]
        gen.add("filing_deadline", {gen.fk("case"): case["id"], "description": gen.rng.choice(kinds),
                                    "due_on": day(due), "status": status})


def fill_letters(gen: RowGen) -> None:
    """A case still being taken on has a draft or a sent letter (some sent ones lapsed unsigned); the others a
    signed or withdrawn one."""
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.5:
            continue
        pending = case["status"] in gen.plan.flavour.editable
        sent = gen.between(max(case["created_at"], day(REFERENCE_NOW - timedelta(days=50))) if pending
                           else case["created_at"])
        expires = sent + timedelta(days=LETTER_DAYS)
        status = ("draft" if gen.rng.random() < 0.3 else "sent") if pending else \
            gen.rng.choices(("signed", "withdrawn"), (8, 1))[0]
        gen.add("engagement_letter", {
            gen.fk("case"): case["id"], "fee_terms": gen.rng.choice(FEE_TERMS), "status": status,
            "sent_on": None if status == "draft" else day(sent), "expires_on": None if status == "draft" else day(expires),
        })


FILL = {"time_entry": fill_time, "client_retainer": fill_retainers, "filing_deadline": fill_deadlines,
        "engagement_letter": fill_letters}
