"""What only a public agency keeps: the licences and permits it has issued, inspections on applications, fines,
and public records requests; with the rules their tools enforce (a licence is renewed only near its expiry, an
inspection result only once its date has come, a fine appealed within 30 days, a records request extended once)."""

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

CATEGORY = "government"
LABELS = {"issued_licence": "issued licence", "inspection_visit": "inspection", "fine_notice": "fine",
          "records_request": "public records request"}
ALT_LABELS = {"issued_licence": "licence record", "inspection_visit": "site inspection",
              "fine_notice": "penalty charge", "records_request": "records request"}
GROUPS = {
    "licences": Group(("issued_licence",), not_for=("public_library",)),
    "inspections": Group(("inspection_visit",), not_for=("public_library", "tax_authority")),
    "fines": Group(("fine_notice",)),
    "records": Group(("records_request",)),
}
CODED = ("issued_licence", "fine_notice", "records_request")

LICENCE_STATUSES = ("active", "suspended", "expired", "revoked")
RENEWAL_DAYS = 90  # a licence is renewed only in the last 90 days before it expires, or after it lapsed
INSPECTION_STATUSES = ("scheduled", "passed", "failed", "cancelled")
FINE_STATUSES = ("unpaid", "paid", "appealed", "waived")
APPEAL_DAYS = 30  # a fine is appealed within 30 days of being issued
REQUEST_STATUSES = ("received", "in_review", "fulfilled", "denied")
# what a fine is for, and its amounts, by the kind of agency (others get the general ones)
FINE_REASONS = {
    "dmv_services": (("late registration renewal", "expired plates", "missed road test fee"), 25, 250),
    "building_permits": (("work started without a permit", "failed reinspection", "unsafe structure notice"),
                         100, 2500),
    "public_library": (("overdue items", "damaged item", "lost item"), 1, 60),
    "tax_authority": (("late filing penalty", "late payment penalty", "underpayment penalty"), 50, 4000),
}
GENERAL_FINE = (("late payment", "missed deadline", "rule violation"), 20, 500)
RECORD_SUBJECTS = ("emails about the Oak Street repaving", "minutes of the March planning session",
                   "the contract with the cleaning vendor", "incident reports from May", "the annual budget workpapers",
                   "visitor logs for April", "complaints about the Elm Avenue site", "staff overtime records for 2024")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the issued_licence, inspection_visit, fine_notice and records_request tables."""
    party_fk, case_fk = f"{snake(L['party'])}_id", f"{snake(L['case'])}_id"
    ents: dict[str, Entity] = {}
    if has("issued_licence"):
        ents["issued_licence"] = Entity("issued_licence", L["issued_licence"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "item"),
            Col("status", "TEXT", enum=LICENCE_STATUSES), Col("issued_on", "TEXT"), Col("expires_on", "TEXT"),
            Col("suspend_reason", "TEXT", nullable=True),
        ], f"Licences, permits and registrations issued to {plural(L['party'])}; renewed only in the last "
           f"{RENEWAL_DAYS} days before expiry or once expired.", filters=("number", party_fk, "status"), code="number")
    if has("inspection_visit"):
        ents["inspection_visit"] = Entity("inspection_visit", L["inspection_visit"], [
            pk_col(), fk_col(L, "case"), fk_col(L, "staff"), Col("scheduled_on", "TEXT"),
            Col("status", "TEXT", enum=INSPECTION_STATUSES), Col("result_note", "TEXT", nullable=True),
        ], f"Inspections for {plural(L['case'])}; a result is recorded only on or after the scheduled day.",
            filters=(case_fk, f"{snake(L['staff'])}_id", "status"))
    if has("fine_notice"):
        ents["fine_notice"] = Entity("fine_notice", L["fine_notice"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), Col("reason", "TEXT"),
            Col("amount", "REAL", minimum=0), Col("issued_on", "TEXT"), Col("status", "TEXT", enum=FINE_STATUSES),
            Col("appeal_grounds", "TEXT", nullable=True),
        ], f"Fines issued to {plural(L['party'])}; an unpaid fine may be appealed within {APPEAL_DAYS} days of issue.",
            filters=("number", party_fk, "status"), code="number")
    if has("records_request"):
        ents["records_request"] = Entity("records_request", L["records_request"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), Col("subject", "TEXT"),
            Col("received_on", "TEXT"), Col("due_on", "TEXT"), Col("extended", "INTEGER", minimum=0, maximum=1),
            Col("status", "TEXT", enum=REQUEST_STATUSES),
        ], f"Requests from {plural(L['party'])} for copies of public records; the answer is due by a date that may "
           "be extended once.", filters=("number", party_fk, "status"), code="number")
    return ents


def fill_licences(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["issued_licence"]
    items = [i["id"] for i in gen.rows["item"]]
    n = 0
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2))):
            n += 1
            # some lapsed, some in their renewal window, most further out
            days = gen.rng.choice(((-60, -1), (1, RENEWAL_DAYS - 5), (RENEWAL_DAYS + 5, 1000), (RENEWAL_DAYS + 5, 1000)))
            expires = REFERENCE_NOW + timedelta(days=gen.rng.randint(*days))
            years = max(gen.rng.randint(1, 5), (expires - REFERENCE_NOW).days // 365 + 1)
            status = "expired" if expires < REFERENCE_NOW else gen.rng.choices(("active", "suspended", "revoked"),
                                                                               (10, 1, 1))[0]
            gen.add("issued_licence", {
                "number": f"{prefix}-{3100 + n * 3}", gen.fk("party"): party["id"], gen.fk("item"): gen.rng.choice(items),
                "status": status, "issued_on": day(expires - timedelta(days=365 * years)),
                "expires_on": day(expires),
                "suspend_reason": gen.rng.choice(("unpaid fees", "failed inspection", "court order"))
                if status == "suspended" else None,
            })


def fill_inspections(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    for case in gen.rows["case"]:
        if case["status"] == "cancelled" or gen.rng.random() < 0.55:
            continue
        when = REFERENCE_NOW + timedelta(days=gen.rng.randint(-20, 20))
        status = "scheduled" if when > REFERENCE_NOW else gen.rng.choices(INSPECTION_STATUSES, (2, 4, 2, 1))[0]
        gen.add("inspection_visit", {
            gen.fk("case"): case["id"], gen.fk("staff"): gen.rng.choice(staff), "scheduled_on": day(when),
            "status": status, "result_note": gen.rng.choice(("All items in order", "Corrections needed", "Access denied"))
            if status in ("passed", "failed") else None,
        })


def fill_fines(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["fine_notice"]
    reasons, lo, hi = FINE_REASONS.get(gen.sc.domain, GENERAL_FINE)
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(14, len(gen.rows["party"])))):
        issued = REFERENCE_NOW - timedelta(days=gen.rng.randint(2, 120))
        status = gen.rng.choices(FINE_STATUSES, (6, 3, 1, 1))[0]
        gen.add("fine_notice", {
            "number": f"{prefix}-{5200 + n * 7}", gen.fk("party"): party["id"], "reason": gen.rng.choice(reasons),
            "amount": gen.money(lo, hi), "issued_on": day(issued), "status": status,
            "appeal_grounds": "The notice was sent to an old address" if status in ("appealed", "waived") else None,
        })


def fill_records(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["records_request"]
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(10, len(gen.rows["party"])))):
        received = REFERENCE_NOW - timedelta(days=gen.rng.randint(1, 40))
        status = gen.rng.choices(REQUEST_STATUSES, (3, 4, 3, 1))[0]
        extended = int(gen.rng.random() < 0.3)
        gen.add("records_request", {
            "number": f"{prefix}-{801 + n}", gen.fk("party"): party["id"], "subject": gen.rng.choice(RECORD_SUBJECTS),
            "received_on": day(received), "due_on": day(received + timedelta(days=20 + 10 * extended)),
            "extended": extended, "status": status,
        })


FILL = {"issued_licence": fill_licences, "inspection_visit": fill_inspections, "fine_notice": fill_fines,
        "records_request": fill_records}
