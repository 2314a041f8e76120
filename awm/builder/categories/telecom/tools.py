"""The tools of a telecom provider's own entities (awm/builder/modules/packs/telecom.py): service lines, usage,
number ports; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.telecom import templates
from awm.builder.tools.base import Param, ToolBuilder, string

ROLES = ("service_line", "port_request")


def declare(b: ToolBuilder) -> None:
    if b.has("service_line"):
        ln, item = b.ent("service_line"), b.ent("item")
        b.list_tool("service_line")
        b.status_action("service_line", "suspend", ("active",), "suspended", f"Suspend an active {ln.label}.",
                        [Param("reason", string("why", ("non_payment", "lost_device", "customer_request")), True)],
                        '{"suspend_reason": reason}')
        b.status_action("service_line", "restore", ("suspended",), "active", f"Restore a suspended {ln.label}.",
                        extra='{"suspend_reason": None}')
        b.add(b.names.action("service_line", "change_plan"),
              f"Move an active {ln.label} to another active {item.label} (a suspended line keeps its plan).",
              [b.id_param("service_line"), b.id_param("item", f"id of the new {item.label}")],
              templates, "change_plan_SERVICE_LINE", role="service_line", kind="action")
    if b.has("usage"):
        b.list_tool("usage")
    if b.has("port_request"):
        pr = b.ent("port_request")
        b.list_tool("port_request")
        b.add(b.names.action("port_request", "verify_pin"),
              f"Record that the donor carrier confirmed the PIN of a pending {pr.label}.",
              [b.id_param("port_request")], templates, "verify_pin_PORT_REQUEST", role="port_request", kind="action")
        b.add(b.names.action("port_request", "complete"),
              f"Complete a pending {pr.label}; its PIN must have been verified.",
              [b.id_param("port_request")], templates, "complete_PORT_REQUEST", role="port_request", kind="action")
        b.status_action("port_request", "cancel", ("pending",), "cancelled", f"Cancel a pending {pr.label}.")
