"""The tools of a hotel's own entities (awm/builder/modules/packs/hospitality.py): rooms, incidental charges,
room blocks; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.hospitality import templates
from awm.builder.categories.hospitality.entities import CHARGE_KINDS, HOUSEKEEPING, MAX_CHARGE
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLES = ("room", "charge", "room_block")


def declare(b: ToolBuilder) -> None:
    if b.has("room"):
        r = b.ent("room")
        b.list_tool("room")
        b.add(b.names.action("room", "set_housekeeping"),
              f"Record the housekeeping state of a {r.label} (clean, dirty or inspected); a {r.label} is inspected "
              "only after it was cleaned.",
              [b.id_param("room"), Param("housekeeping", string("the new state", HOUSEKEEPING), True)],
              templates, "set_housekeeping_ROOM", role="room", kind="update")
        b.status_action("room", "take_out_of_service", ("available",), "out_of_service",
                        f"Take an available {r.label} out of service, giving the reason.",
                        [Param("reason", string("why"), True)], '{"out_of_service_reason": reason}')
        b.status_action("room", "return_to_service", ("out_of_service",), "available",
                        f"Return a {r.label} to service.", extra='{"out_of_service_reason": None}')
    if b.has("charge"):
        ch, c = b.ent("charge"), b.ent("case")
        fl = b.plan.flavour
        open_ = tuple(s for s in fl.statuses if s not in ("cancelled", fl.initial))
        b.list_tool("charge")
        b.add(b.names.create("charge"),
              f"Post an {ch.label} to a {c.label} that is {', '.join(open_)}; at most {MAX_CHARGE:.0f} at once.",
              [b.id_param("case"), Param("kind", string("what it is for", CHARGE_KINDS), True),
               Param("amount", {**number("amount", 0, True), "maximum": MAX_CHARGE}, True),
               Param("description", string("what the guest sees"), True)],
              templates, "create_CHARGE", role="charge", kind="create", OPEN_STATUSES=open_)
        b.status_action("charge", "void", ("posted",), "voided", f"Void a posted {ch.label}.")
    if b.has("room_block"):
        rb = b.ent("room_block")
        b.list_tool("room_block")
        b.status_action("room_block", "release", ("held",), "released", f"Release a held {rb.label} back to sale.")
        b.add(b.names.action("room_block", "resize"),
              f"Change how many rooms a held {rb.label} keeps; only before its release date.",
              [b.id_param("room_block"), Param("rooms_held", {**integer("rooms to hold", 1), "maximum": 200}, True)],
              templates, "resize_ROOM_BLOCK", role="room_block", kind="update")
