"""What only a school or course provider keeps: class sections and enrolments in them (a full section
waitlists), registration holds that block enrolment, and transcript requests; with the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "education"
LABELS = {"section": "class section", "enrolment": "course enrolment", "registration_hold": "registration hold",
          "transcript_request": "transcript request"}
ALT_LABELS = {"section": "course section", "enrolment": "section enrolment", "registration_hold": "enrolment hold",
              "transcript_request": "records request"}
GROUPS = {
    "sections": Group(("section", "enrolment")),
    "holds": Group(("registration_hold",)),
    "transcripts": Group(("transcript_request",), not_for=("tutoring_center",)),
}
CODED = ("section",)

TERMS = ("fall 2025", "spring 2025", "summer 2025")
ENROLMENT_STATUSES = ("enrolled", "waitlisted", "dropped", "completed")
HOLD_REASONS = ("unpaid_fees", "missing_documents", "advising_required", "conduct_review")
DESTINATIONS = ("State University", "City College", "Employer verification", "Scholarship board", "Graduate school")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the section, enrolment, registration_hold and transcript_request tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("section"):
        ents["section"] = Entity("section", L["section"], [
            pk_col(), Col("code", "TEXT", unique=True), fk_col(L, "item"), fk_col(L, "staff"), fk_col(L, "site"),
            Col("term", "TEXT", enum=TERMS), Col("capacity", "INTEGER", minimum=1), Col("enrolled", "INTEGER", minimum=0),
            Col("status", "TEXT", enum=("open", "closed")),
        ], f"Scheduled runs of each {L['item']}, with a capacity; a full one waitlists new enrolments.",
            filters=("code", f"{snake(L['item'])}_id", f"{snake(L['staff'])}_id", "term", "status"), code="code")
        ents["enrolment"] = Entity("enrolment", L["enrolment"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "section"), Col("status", "TEXT", enum=ENROLMENT_STATUSES),
            Col("grade", "TEXT", nullable=True, enum=("A", "B", "C", "D", "F", "P")), Col("enrolled_at", "TEXT"),
        ], f"Who takes which {L['section']}.", filters=(party_fk, f"{snake(L['section'])}_id", "status"))
    if has("registration_hold"):
        ents["registration_hold"] = Entity("registration_hold", L["registration_hold"], [
            pk_col(), fk_col(L, "party"), Col("reason", "TEXT", enum=HOLD_REASONS),
            Col("status", "TEXT", enum=("active", "lifted")), Col("placed_on", "TEXT"), Col("lifted_on", "TEXT", nullable=True),
        ], f"Holds that stop a {L['party']} from enrolling until lifted.", filters=(party_fk, "reason", "status"))
    if has("transcript_request"):
        ents["transcript_request"] = Entity("transcript_request", L["transcript_request"], [
            pk_col(), fk_col(L, "party"), Col("destination", "TEXT"), Col("copies", "INTEGER", minimum=1, maximum=5),
            Col("status", "TEXT", enum=("requested", "sent", "cancelled")), Col("requested_at", "TEXT"),
            Col("sent_on", "TEXT", nullable=True),
        ], f"Official records a {L['party']} asked to have sent; none is sent while an unpaid-fees hold is active.",
            filters=(party_fk, "status"))
    return ents


def fill_sections(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["section"]
    staff = [s for s in gen.rows["staff"] if s["active"]]
    parties = [p for p in gen.rows["party"] if p["status"] == "active"]
    for n, item in enumerate([i for i in gen.rows["item"] if i["active"]][:10]):
        capacity = gen.rng.choice((8, 12, 15, 20, 25))
        member = gen.rng.choice(staff)
        section = gen.add("section", {
            "code": f"{prefix}-{101 + n}", gen.fk("item"): item["id"], gen.fk("staff"): member["id"],
            gen.fk("site"): member[gen.fk("site")], "term": gen.rng.choice(TERMS), "capacity": capacity,
            "enrolled": 0, "status": gen.rng.choices(("open", "closed"), (5, 1))[0],
        })
        takers = gen.rng.sample(parties, min(len(parties), gen.rng.randint(2, capacity + 2)))
        for party in takers:
            status = "waitlisted" if section["enrolled"] >= capacity else gen.rng.choices(
                ("enrolled", "dropped", "completed"), (6, 1, 2))[0]
            section["enrolled"] += status == "enrolled"
            gen.add("enrolment", {
                gen.fk("party"): party["id"], gen.fk("section"): section["id"], "status": status,
                "grade": gen.rng.choice(("A", "B", "C", "P")) if status == "completed" else None,
                "enrolled_at": iso(gen.between(party["created_at"])),
            })


def fill_holds(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        if gen.rng.random() < 0.25:
            status = gen.rng.choices(("active", "lifted"), (2, 1))[0]
            placed = gen.between(party["created_at"])
            gen.add("registration_hold", {gen.fk("party"): party["id"], "reason": gen.rng.choice(HOLD_REASONS),
                                          "status": status, "placed_on": day(placed),
                                          "lifted_on": day(gen.between(placed)) if status == "lifted" else None})


def fill_transcripts(gen: RowGen) -> None:
    for party in gen.rng.sample(gen.rows["party"], min(12, len(gen.rows["party"]))):
        status = gen.rng.choices(("requested", "sent", "cancelled"), (3, 4, 1))[0]
        asked = gen.between(party["created_at"])
        gen.add("transcript_request", {
            gen.fk("party"): party["id"], "destination": gen.rng.choice(DESTINATIONS), "copies": gen.rng.randint(1, 3),
            "status": status, "requested_at": iso(asked),
            "sent_on": day(min(gen.between(asked), REFERENCE_NOW)) if status == "sent" else None,
        })


FILL = {"section": fill_sections, "registration_hold": fill_holds, "transcript_request": fill_transcripts}

