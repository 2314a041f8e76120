"""The tools of a software, hosting or IT services business's own entities
(awm/builder/modules/packs/technology.py): seat licences, service incidents, server instances, API keys; each with
the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.technology import templates
from awm.builder.categories.technology.entities import KEY_DAYS, KEY_SCOPES, MAX_ACTIVE_KEYS, MONTHLY_COST, SIZES
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLES = ("seat_licence", "service_incident", "server_instance", "api_key")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("seat_licence"):
        sl = b.ent("seat_licence")
        b.list_tool("seat_licence")
        b.add(b.names.action("seat_licence", "set_seats"),
              f"Change the number of seats of an active {sl.label}; never below the seats in use.",
              [b.id_param("seat_licence"), Param("seats", {**integer("the new number of seats"), "maximum": 5000}, True)],
              templates, "set_seats_SEAT_LICENCE", role="seat_licence", kind="update")
        b.status_action("seat_licence", "suspend", ("active",), "suspended", f"Suspend an active {sl.label}.")
        b.status_action("seat_licence", "reactivate", ("suspended",), "active", f"Reactivate a suspended {sl.label}.")
    if b.has("service_incident"):
        si = b.ent("service_incident")
        b.list_tool("service_incident")
        b.status_action("service_incident", "mitigate", ("investigating",), "mitigated",
                        f"Record that the impact of a {si.label} is mitigated.")
        b.add(b.names.action("service_incident", "resolve"),
              f"Resolve a mitigated {si.label}, recording its root cause.",
              [b.id_param("service_incident"), Param("root_cause", string("what caused it"), True)],
              templates, "resolve_SERVICE_INCIDENT", role="service_incident", kind="action")
    if b.has("server_instance"):
        sv = b.ent("server_instance")
        b.list_tool("server_instance")
        b.status_action("server_instance", "stop", ("running",), "stopped", f"Stop a running {sv.label}.")
        b.status_action("server_instance", "start", ("stopped",), "running", f"Start a stopped {sv.label}.")
        b.status_action("server_instance", "terminate", ("running", "stopped"), "terminated",
                        f"Terminate a {sv.label} for good.")
        b.add(b.names.action("server_instance", "resize"),
              f"Change the size of a stopped {sv.label} (its monthly cost follows: "
              + ", ".join(f"{s} {c:.2f}" for s, c in MONTHLY_COST.items()) + ").",
              [b.id_param("server_instance"), Param("size", string("the new size", SIZES), True)],
              templates, "resize_SERVER_INSTANCE", role="server_instance", kind="update", SIZE_COSTS=MONTHLY_COST)
    if b.has("api_key"):
        ak = b.ent("api_key")
        b.list_tool("api_key")
        b.add(b.names.create("api_key"),
              f"Issue a {ak.label} to an active {b.ent('party').label} (at most {MAX_ACTIVE_KEYS} active each), "
              f"expiring within {KEY_DAYS} days.",
              [b.id_param("party"), Param("name", string("what the key is for"), True),
               Param("scope", string("what the key may do", KEY_SCOPES), True),
               Param("expires_on", {**DATE, "description": "ISO date the key stops working"}, True)],
              templates, "create_API_KEY", role="api_key", kind="create", MAX_LIMIT=MAX_ACTIVE_KEYS,
              FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=KEY_DAYS)))
        b.status_action("api_key", "revoke", ("active",), "revoked", f"Revoke an active {ak.label}.")
