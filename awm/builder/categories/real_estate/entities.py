"""What only a landlord or property manager keeps: leases (renewed or terminated with notice), repair requests
from residents, and property showings; with the rules its tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "real_estate"
LABELS = {"lease": "lease", "repair_request": "repair request", "showing": "property showing"}
ALT_LABELS = {"lease": "tenancy agreement", "repair_request": "repair ticket", "showing": "viewing appointment"}
GROUPS = {
    "leases": Group(("lease",), not_for=("home_inspection",)),
    "repairs": Group(("repair_request",), not_for=("home_inspection",)),
    "showings": Group(("showing",)),
}
CODED = ("lease",)

NOTICE_DAYS = 30  # a lease ends at least 30 days after notice is given
REPAIR_KINDS = ("plumbing", "electrical", "appliance", "heating", "pest", "locks")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the lease, repair_request and showing tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("lease"):
        ents["lease"] = Entity("lease", L["lease"], [
            pk_col(), Col("number", "TEXT", unique=True), fk_col(L, "party"), fk_col(L, "item"),
            Col("monthly_rent", "REAL", minimum=0), Col("deposit", "REAL", minimum=0),
            Col("status", "TEXT", enum=("pending", "active", "ended", "terminated")),
            Col("starts_on", "TEXT"), Col("ends_on", "TEXT"),
        ], f"Leases of {plural(L['party'])}; a termination takes effect at least {NOTICE_DAYS} days after notice.",
            filters=("number", party_fk, "status"), code="number")
    if has("repair_request"):
        ents["repair_request"] = Entity("repair_request", L["repair_request"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "site"), fk_col(L, "staff", nullable=True),
            Col("kind", "TEXT", enum=REPAIR_KINDS), Col("priority", "TEXT", enum=("routine", "urgent", "emergency")),
            Col("status", "TEXT", enum=("open", "scheduled", "completed", "cancelled")),
            Col("scheduled_for", "TEXT", nullable=True), Col("reported_at", "TEXT"),
        ], f"Repairs {plural(L['party'])} report; scheduling one assigns an active {L['staff']}.",
            filters=(party_fk, f"{snake(L['site'])}_id", "status", "priority", "kind"))
    if has("showing"):
        ents["showing"] = Entity("showing", L["showing"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "item"), fk_col(L, "staff"), Col("scheduled_for", "TEXT"),
            Col("status", "TEXT", enum=("scheduled", "completed", "no_show", "cancelled")),
        ], f"Visits booked for {plural(L['party'])} to see a {L['item']}.",
            filters=(party_fk, f"{snake(L['staff'])}_id", "status"))
    return ents


def fill_leases(gen: RowGen) -> None:
    prefix = gen.plan.code_prefixes["lease"]
    items = [i for i in gen.rows["item"] if i["active"]]
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(len(gen.rows["party"]), 18))):
        start = gen.between(party["created_at"], gen.past(30, 30)).date()
        ends = start + timedelta(days=gen.rng.choice((180, 365, 365, 730)))
        status = "active" if ends > REFERENCE_NOW.date() else "ended"
        if gen.rng.random() < 0.1:
            status = gen.rng.choice(("pending", "terminated"))
        item = gen.rng.choice(items)
        rent = round(max(item["price"], 400.0), 2)
        gen.add("lease", {"number": f"{prefix}-{2101 + n}", gen.fk("party"): party["id"], gen.fk("item"): item["id"],
                          "monthly_rent": rent, "deposit": rent, "status": status, "starts_on": start.isoformat(),
                          "ends_on": ends.isoformat()})


def fill_repairs(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    for party in gen.rng.sample(gen.rows["party"], min(len(gen.rows["party"]), 16)):
        status = gen.rng.choices(("open", "scheduled", "completed", "cancelled"), (4, 3, 3, 1))[0]
        gen.add("repair_request", {
            gen.fk("party"): party["id"], gen.fk("site"): gen.rng.choice(gen.rows["site"])["id"],
            gen.fk("staff"): gen.rng.choice(staff) if status in ("scheduled", "completed") else None,
            "kind": gen.rng.choice(REPAIR_KINDS), "priority": gen.rng.choices(("routine", "urgent", "emergency"), (6, 3, 1))[0],
            "status": status, "scheduled_for": iso(gen.future(1, 14)) if status == "scheduled" else None,
            "reported_at": iso(gen.past(1, 30)),
        })


def fill_showings(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"] if s["active"]]
    items = [i["id"] for i in gen.rows["item"] if i["active"]]
    for party in gen.rng.sample(gen.rows["party"], min(len(gen.rows["party"]), 14)):
        upcoming = gen.rng.random() < 0.6
        gen.add("showing", {
            gen.fk("party"): party["id"], gen.fk("item"): gen.rng.choice(items), gen.fk("staff"): gen.rng.choice(staff),
            "scheduled_for": iso(gen.future(1, 20) if upcoming else gen.past(1, 40)),
            "status": "scheduled" if upcoming else gen.rng.choice(("completed", "no_show", "cancelled")),
        })


FILL = {"lease": fill_leases, "repair_request": fill_repairs, "showing": fill_showings}

