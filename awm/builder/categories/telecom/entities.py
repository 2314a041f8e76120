"""What only a telecom provider keeps: service lines on plans, their monthly usage, and number port requests;
with the rules its tools enforce (a suspended line cannot change plan, a port completes only with a verified PIN)."""

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

CATEGORY = "telecom"
LABELS = {"service_line": "service line", "usage": "usage record", "port_request": "port request"}
ALT_LABELS = {"service_line": "connected line", "usage": "usage summary", "port_request": "number port request"}
GROUPS = {
    "lines": Group(("service_line",)),
    "usage": Group(("service_line", "usage")),
    "porting": Group(("port_request",), not_for=("internet_provider",)),
}
CODED = ()

LINE_STATUSES = ("active", "suspended", "disconnected")
PERIODS = ("2025-03", "2025-04", "2025-05")
DONORS = ("Horizon Wireless", "T-Link", "Apex Mobile", "Metro Telecom", "ClearCall")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the service_line, usage and port_request tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("service_line"):
        ents["service_line"] = Entity("service_line", L["service_line"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "item"), Col("phone_number", "TEXT", unique=True),
            Col("sim_serial", "TEXT"), Col("status", "TEXT", enum=LINE_STATUSES),
            Col("suspend_reason", "TEXT", nullable=True), Col("activated_on", "TEXT"),
        ], f"Numbers and connections of {plural(L['party'])}, each on a plan ({L['item']}).",
            filters=(party_fk, "phone_number", "status", f"{snake(L['item'])}_id"))
    if has("usage"):
        ents["usage"] = Entity("usage", L["usage"], [
            pk_col(), fk_col(L, "service_line"), Col("period", "TEXT"), Col("data_gb", "REAL", minimum=0),
            Col("minutes", "INTEGER", minimum=0), Col("overage_charge", "REAL", minimum=0),
        ], f"Monthly usage of each {L['service_line']}.", filters=(f"{snake(L['service_line'])}_id", "period"))
    if has("port_request"):
        ents["port_request"] = Entity("port_request", L["port_request"], [
            pk_col(), fk_col(L, "party"), Col("phone_number", "TEXT"), Col("donor_carrier", "TEXT"),
            Col("pin_verified", "INTEGER", minimum=0, maximum=1),
            Col("status", "TEXT", enum=("pending", "completed", "rejected", "cancelled")),
            Col("requested_on", "TEXT"),
        ], f"Numbers {plural(L['party'])} bring from another carrier; a port completes only once its PIN is "
           "verified.", filters=(party_fk, "phone_number", "status"))
    return ents


def fill_lines(gen: RowGen) -> None:
    items = [i["id"] for i in gen.rows["item"] if i["active"]]
    n = 0
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2))):
            n += 1
            status = gen.rng.choices(LINE_STATUSES, (8, 1, 1))[0]
            line = gen.add("service_line", {
                gen.fk("party"): party["id"], gen.fk("item"): gen.rng.choice(items),
                "phone_number": f"555-{200 + n // 100:03d}-{1000 + n * 37 % 9000:04d}",
                "sim_serial": f"8901{gen.rng.randint(10**11, 10**12 - 1)}", "status": status,
                "suspend_reason": gen.rng.choice(("non_payment", "lost_device", "customer_request"))
                if status == "suspended" else None,
                "activated_on": day(gen.between(party["created_at"])),
            })
            if gen.has("usage"):
                for period in PERIODS:
                    data = round(gen.rng.uniform(0.2, 40), 2)
                    gen.add("usage", {gen.fk("service_line"): line["id"], "period": period, "data_gb": data,
                                      "minutes": gen.rng.randint(0, 1500),
                                      "overage_charge": round(max(0.0, data - 30) * 10, 2)})


def fill_ports(gen: RowGen) -> None:
    for n, party in enumerate(gen.rng.sample(gen.rows["party"], min(10, len(gen.rows["party"])))):
        status = gen.rng.choices(("pending", "completed", "rejected", "cancelled"), (4, 3, 1, 1))[0]
        gen.add("port_request", {
            gen.fk("party"): party["id"], "phone_number": f"555-{800 + n:03d}-{gen.rng.randint(1000, 9999)}",
            "donor_carrier": gen.rng.choice(DONORS), "pin_verified": 1 if status == "completed" else gen.rng.randint(0, 1),
            "status": status, "requested_on": day(REFERENCE_NOW - timedelta(days=gen.rng.randint(1, 20))),
        })


FILL = {"service_line": fill_lines, "port_request": fill_ports}

