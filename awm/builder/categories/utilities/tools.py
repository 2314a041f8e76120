"""The tools of a utility's own entities (awm/builder/modules/packs/utilities.py): meters and their readings,
service outages; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.utilities import templates
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("meter", "outage")


def declare(b: ToolBuilder) -> None:
    if b.has("meter"):
        m = b.ent("meter")
        b.list_tool("meter")
        if b.has("meter_reading"):
            b.list_tool("meter_reading")
        readings = b.has("meter_reading")
        # who read the meter is kept with the reading, where the world keeps readings
        source = [Param("source", string("who read it", ("actual", "estimated", "customer")), True)] if readings else []
        b.add(b.names.action("meter", "record_reading"),
              f"Record today's reading of an active {m.label}; it may not be below its last reading.",
              [b.id_param("meter"), Param("reading", number("the meter's value", 0), True), *source],
              templates, "record_reading_METER", role="meter", kind="action", HAS_READINGS=readings)
    if b.has("outage"):
        o, st = b.ent("outage"), b.ent("staff")
        b.list_tool("outage")
        b.add(b.names.action("outage", "dispatch_crew"), f"Send an active {st.label} to a reported {o.label}.",
              [b.id_param("outage"), b.id_param("staff")], templates, "dispatch_crew_OUTAGE", role="outage",
              kind="action")
        b.status_action("outage", "restore", ("crew_dispatched",), "restored",
                        f"Record that supply is back after a {o.label} (a crew must have been dispatched).",
                        extra='{"restored_at": REFERENCE_NOW}')
