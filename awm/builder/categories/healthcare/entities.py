"""What only a clinic keeps: its practitioners' appointment slots, the clinical procedures done at visits, and
the insurance claims filed for them; each with its lifecycle and the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "healthcare"
LABELS = {"slot": "appointment slot", "procedure": "clinical procedure", "insurance_claim": "insurance claim"}
ALT_LABELS = {"slot": "schedule slot", "procedure": "procedure record", "insurance_claim": "claim submission"}
GROUPS = {
    "schedules": Group(("slot",), not_for=("retail_pharmacy",)),
    "procedures": Group(("procedure",), not_for=("retail_pharmacy",)),
    "claims": Group(("insurance_claim",)),
}
CODED = ("insurance_claim",)

SLOT_STATUSES = ("open", "booked", "blocked")
PROCEDURE_STATUSES = ("planned", "performed", "cancelled")
CLAIM_STATUSES = ("draft", "submitted", "approved", "denied", "paid")
FILING_WINDOW_DAYS = 90  # a claim must be submitted within this many days of the service
INSURERS = ("Blue Shield", "Aetna", "Cigna", "UnitedHealthcare", "Medicare", "Humana")
PET_INSURERS = ("Trupanion", "Nationwide Pet", "Healthy Paws", "Figo", "Embrace")
DENIAL_REASONS = ("not_covered", "missing_information", "duplicate_claim", "no_authorisation")


def insurers(domain: str) -> tuple[str, ...]:
    return PET_INSURERS if domain == "veterinary_clinic" else INSURERS


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the slot, procedure and insurance_claim tables."""
    staff_fk, case_fk, party_fk = (f"{snake(L[r])}_id" for r in ("staff", "case", "party"))
    ents: dict[str, Entity] = {}
    if has("slot"):
        ents["slot"] = Entity("slot", L["slot"], [
            pk_col(), fk_col(L, "staff"), fk_col(L, "site"), Col("starts_at", "TEXT", description="ISO timestamp"),
            Col("duration_minutes", "INTEGER", minimum=10, maximum=240), Col("status", "TEXT", enum=SLOT_STATUSES),
            fk_col(L, "case", nullable=True), Col("block_reason", "TEXT", nullable=True),
        ], f"Bookable times of each {L['staff']}: statuses {', '.join(SLOT_STATUSES)}.",
            filters=(staff_fk, f"{snake(L['site'])}_id", "status"), indexes=[(staff_fk,)])
    if has("procedure"):
        ents["procedure"] = Entity("procedure", L["procedure"], [
            pk_col(), fk_col(L, "case"), fk_col(L, "item"), fk_col(L, "staff"),
            Col("procedure_code", "TEXT"), Col("body_site", "TEXT", nullable=True),
            Col("status", "TEXT", enum=PROCEDURE_STATUSES), Col("fee", "REAL", minimum=0),
            Col("performed_on", "TEXT", nullable=True),
        ], f"Procedures planned or performed at {plural(L['case'])}.",
            filters=(case_fk, staff_fk, "status", "procedure_code"))
    if has("insurance_claim"):
        ents["insurance_claim"] = Entity("insurance_claim", L["insurance_claim"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "case"),
            Col("insurer", "TEXT"), Col("amount_claimed", "REAL", minimum=0),
            Col("amount_approved", "REAL", nullable=True, minimum=0), Col("service_date", "TEXT"),
            Col("status", "TEXT", enum=CLAIM_STATUSES), Col("submitted_on", "TEXT", nullable=True),
            Col("denial_reason", "TEXT", nullable=True, enum=DENIAL_REASONS),
        ], f"Claims to insurers for {plural(L['case'])}; a claim is submitted within {FILING_WINDOW_DAYS} days of "
           "the service.",
            filters=("number", party_fk, case_fk, "status", "insurer"), code="number")
    return ents


def fill_slots(gen: RowGen) -> None:
    tc = gen.plan.flavour.time_column
    staff = [s for s in gen.rows["staff"] if s["active"]]
    booked = {(c[gen.fk("staff")], c[tc][:16]): c for c in gen.rows["case"]
              if c[gen.fk("staff")] is not None and c["status"] in gen.plan.flavour.editable and c[tc] > day(REFERENCE_NOW)}
    for member in staff[: gen.rng.randint(3, 5)]:
        for offset in range(1, 6):
            date = (REFERENCE_NOW + timedelta(days=offset)).date()
            for hour in gen.rng.sample((8, 9, 10, 11, 13, 14, 15, 16), 3):
                starts = datetime(date.year, date.month, date.day, hour, 0)
                case = booked.get((member["id"], iso(starts)[:16]))
                status = "booked" if case else gen.rng.choices(("open", "blocked"), (8, 1))[0]
                gen.add("slot", {
                    gen.fk("staff"): member["id"], gen.fk("site"): member[gen.fk("site")], "starts_at": iso(starts),
                    "duration_minutes": gen.rng.choice((15, 20, 30, 45, 60)), "status": status,
                    gen.fk("case"): case["id"] if case else None,
                    "block_reason": gen.rng.choice(("training", "leave", "admin time")) if status == "blocked" else None,
                })
    gen.rows["slot"].sort(key=lambda r: (r[gen.fk("staff")], r["starts_at"]))
    for n, row in enumerate(gen.rows["slot"]):
        row["id"] = n + 1


_SITES = ("left knee", "right shoulder", "lower back", "upper left molar", "lower right molar", "left ankle",
          "right wrist", "neck", None, None)


def fill_procedures(gen: RowGen) -> None:
    done = ("completed", "checked_in", "delivered", "resolved", "closed", "checked_out")
    for case in gen.rows["case"]:
        if case[gen.fk("staff")] is None or gen.rng.random() < 0.35:
            continue
        for line in [x for x in gen.rows["line"] if x[gen.fk("case")] == case["id"]][:2]:
            item = gen.rows["item"][line[gen.fk("item")] - 1]
            status = "performed" if case["status"] in done else (
                "cancelled" if case["status"] in ("cancelled", "no_show") else "planned")
            performed = case[gen.plan.flavour.time_column][:10] if status == "performed" else None
            gen.add("procedure", {
                gen.fk("case"): case["id"], gen.fk("item"): item["id"], gen.fk("staff"): case[gen.fk("staff")],
                "procedure_code": f"{'DVP'[item['id'] % 3]}{1000 + item['id'] * 37 % 9000}",
                "body_site": gen.rng.choice(_SITES), "status": status, "fee": line["unit_price"],
                "performed_on": min(performed, day(REFERENCE_NOW)) if performed else None,
            })


def fill_claims(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["insurance_claim"]
    tc = gen.plan.flavour.time_column
    names = insurers(gen.sc.domain)
    n = 0
    for case in gen.rows["case"]:
        service = min(case[tc][:10], day(REFERENCE_NOW))
        if case["status"] in ("cancelled", "no_show", "requested") or case["total_amount"] <= 0 or gen.rng.random() < 0.4:
            continue
        n += 1
        status = gen.rng.choices(CLAIM_STATUSES, (3, 3, 2, 1, 2))[0]
        claimed = case["total_amount"]
        submitted = day(gen.between(service + "T12:00:00")) if status != "draft" else None
        gen.add("insurance_claim", {
            "number": f"{prefix}-{3300 + n}", gen.fk("party"): case[gen.fk("party")], gen.fk("case"): case["id"],
            "insurer": gen.rng.choice(names), "amount_claimed": claimed,
            "amount_approved": round(claimed * gen.rng.choice((0.6, 0.8, 0.9, 1.0)), 2) if status in ("approved", "paid")
            else None,
            "service_date": service, "status": status, "submitted_on": submitted,
            "denial_reason": gen.rng.choice(DENIAL_REASONS) if status == "denied" else None,
        })


FILL = {"slot": fill_slots, "procedure": fill_procedures, "insurance_claim": fill_claims}

