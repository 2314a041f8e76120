"""The tools of a carrier's own entities (awm/builder/modules/packs/logistics.py): carriers, shipments and their
legs, exceptions, rate quotes; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.logistics import templates
from awm.builder.categories.logistics.entities import EXCEPTION_KINDS
from awm.builder.tools.base import Param, ToolBuilder, string

ROLES = ("carrier",)


def declare(b: ToolBuilder) -> None:
    car = b.ent("carrier")
    b.list_tool("carrier")
    if b.has("shipment"):
        s = b.ent("shipment")
        b.get_tool("shipment", ("leg", "exception"))
        b.list_tool("shipment")
        b.add(b.names.action("shipment", "assign_carrier"), f"Give a booked {s.label} to an active {car.label}.",
              [b.id_param("shipment"), b.id_param("carrier")], templates, "assign_carrier_SHIPMENT", role="shipment",
              kind="action")
        b.status_action("shipment", "cancel", ("booked",), "cancelled", f"Cancel a {s.label} that has not left yet.")
    if b.has("leg"):
        lg, s = b.ent("leg"), b.ent("shipment")
        b.add(b.names.action("leg", "depart"),
              f"Record that a planned {lg.label} departed; the one before it must have arrived. The {s.label} is then "
              "in transit.", [b.id_param("leg")], templates, "depart_LEG", role="leg", kind="action")
        b.status_action("leg", "arrive", ("departed",), "arrived", f"Record that a departed {lg.label} arrived.")
    if b.has("exception"):
        ex, s = b.ent("exception"), b.ent("shipment")
        b.list_tool("exception")
        b.add(b.names.create("exception"),
              f"Report a problem on a {s.label} that is booked or in transit; the {s.label}'s status becomes exception.",
              [b.id_param("shipment"), Param("kind", string("what went wrong", EXCEPTION_KINDS), True)],
              templates, "create_EXCEPTION", role="exception", kind="create")
        b.add(b.names.action("exception", "resolve"),
              f"Resolve an open {ex.label} with a stated resolution; its {s.label} goes back in transit.",
              [b.id_param("exception"), Param("resolution", string("how it was resolved"), True)],
              templates, "resolve_EXCEPTION", role="exception", kind="action")
    if b.has("rate_quote"):
        q = b.ent("rate_quote")
        b.get_tool("rate_quote")
        b.list_tool("rate_quote")
        b.add(b.names.action("rate_quote", "accept"),
              f"Accept an offered {q.label} that is still valid (valid_until today or later); its {car.label} must "
              "be active.", [b.id_param("rate_quote")], templates, "accept_RATE_QUOTE", role="rate_quote",
              kind="action")
        b.status_action("rate_quote", "decline", ("offered",), "declined", f"Decline an offered {q.label}.")
