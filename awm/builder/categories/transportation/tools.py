"""The tools of a transport operator's own entities (awm/builder/modules/packs/transportation.py): fleet
vehicles, damage reports, lost property, service disruptions; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.transportation import templates
from awm.builder.categories.transportation.entities import (
    DISRUPTION_KINDS,
    HOLD_DAYS,
    NOTICE_DAYS,
    SERVICE_INTERVAL_DAYS,
)
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("fleet_vehicle", "damage_report", "lost_item", "disruption")
MOMENT = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$",
          "description": "ISO date and time, e.g. 2025-06-20T22:00:00"}


def declare(b: ToolBuilder) -> None:
    if b.has("fleet_vehicle"):
        fv = b.ent("fleet_vehicle")
        b.list_tool("fleet_vehicle")
        b.add(b.names.action("fleet_vehicle", "record_service"),
              f"Record that a {fv.label} was serviced today; its next service falls due in {SERVICE_INTERVAL_DAYS} days.",
              [b.id_param("fleet_vehicle")], templates, "record_service_FLEET_VEHICLE", role="fleet_vehicle",
              kind="action", FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=SERVICE_INTERVAL_DAYS)))
        b.add(b.names.action("fleet_vehicle", "return_to_service"),
              f"Put a {fv.label} that is out of service back in service; its service may not be overdue.",
              [b.id_param("fleet_vehicle")], templates, "return_to_service_FLEET_VEHICLE", role="fleet_vehicle",
              kind="action")
        b.status_action("fleet_vehicle", "take_out_of_service", ("in_service",), "out_of_service",
                        f"Take a {fv.label} off the road.")
    if b.has("damage_report"):
        dr = b.ent("damage_report")
        b.list_tool("damage_report")
        b.add(b.names.action("damage_report", "settle"),
              f"Settle an assessed {dr.label} for an amount no higher than its estimated cost.",
              [b.id_param("damage_report"), Param("amount", number("the amount paid out", 0, exclusive=True), True)],
              templates, "settle_DAMAGE_REPORT", role="damage_report", kind="action")
        b.status_action("damage_report", "deny", ("reported", "assessed"), "denied", f"Deny a {dr.label}.")
    if b.has("lost_item"):
        li = b.ent("lost_item")
        b.list_tool("lost_item")
        b.add(b.names.action("lost_item", "hand_over"),
              f"Hand a held {li.label} to the {b.ent('party').label} who lost it; items found more than {HOLD_DAYS} "
              "days ago are past the holding period.", [b.id_param("lost_item"), b.id_param("party")],
              templates, "hand_over_LOST_ITEM", role="lost_item", kind="action",
              FAR_CUTOFF=day(REFERENCE_NOW - timedelta(days=HOLD_DAYS)))
        b.status_action("lost_item", "dispose", ("held",), "disposed", f"Dispose of a held {li.label}.")
    if b.has("disruption"):
        d = b.ent("disruption")
        b.list_tool("disruption")
        b.add(b.names.create("disruption"),
              f"Announce a {d.label} at a {b.ent('site').label}; planned works must start at least {NOTICE_DAYS} days "
              "from now. One starting now or earlier is active, a later one planned.",
              [b.id_param("site"), Param("kind", string("what is happening", DISRUPTION_KINDS), True),
               Param("starts_at", MOMENT, True), Param("message", string("what riders are told"), True)],
              templates, "create_DISRUPTION", role="disruption", kind="create",
              FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=NOTICE_DAYS)))
        b.status_action("disruption", "resolve", ("active",), "resolved", f"Record that an active {d.label} is over.",
                        extra='{"ends_at": REFERENCE_NOW}')
