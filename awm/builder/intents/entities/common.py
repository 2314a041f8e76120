"""What the requests about category entities share: the reference day, the voices they are asked in, the
active person a row belongs to, and a visit booked into a clinic's appointment slot."""

from __future__ import annotations

from awm.builder.clock import REFERENCE_NOW_ISO as NOW
from awm.builder.clock import TODAY
from awm.builder.intents.base import BOTH, World
from awm.builder.phrasing import PartyRef, T
from awm.contracts import Goal

__all__ = ["BOTH", "NOW", "TODAY", "active_party", "book_into_slot", "slotless_cases"]


def active_party(w: World, row: dict, role: str = "party") -> dict | None:
    party = w.by_id("party", row[w.fk(role)]) if role == "party" else None
    return party if party is not None and party["status"] == "active" else None


def slotless_cases(w: World) -> list[dict]:
    """Upcoming cases of active people, still editable and booked into no slot: the visits a slot can take."""
    tc = w.fl.time_column
    booked = {s[w.fk("case")] for s in w.rows["slot"] if s[w.fk("case")] is not None}
    return [c for c in w.rows["case"] if c["status"] in w.fl.editable and c["id"] not in booked
            and active_party(w, c) is not None and c[tc] > TODAY]


def book_into_slot(w: World, case: dict, member: dict, slot: dict
                   ) -> tuple[PartyRef, T, list[tuple[str, dict]], list[Goal]]:
    """A person's `case` booked into `slot`, one of a staff member's open slots: how the request names the person
    and the case, the calls (the case looked up, the staff member's open slots listed, the slot booked) and the
    goals (the slot booked for the case, the case at the slot's time with that staff member)."""
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, w.find_staff(member), (w.n.list("slot"), {w.fk("staff"): member["id"], "status": "open"}),
             (w.n.action("slot", "book"), {w.pk("slot"): slot["id"], w.fk("case"): case["id"]})]
    goals = [Goal(kind="row_equals", table=w.table("slot"), pk=slot["id"],
                  expect={"status": "booked", w.fk("case"): case["id"]}),
             Goal(kind="row_equals", table=w.table("case"), pk=case["id"],
                  expect={w.fl.time_column: slot["starts_at"], w.fk("staff"): member["id"]})]
    return ref, case_np, calls, goals
