"""What only a software, hosting or IT services business keeps: seat licences (never fewer seats than are in use),
service incidents (resolved only once mitigated), its clients' server instances (resized only while stopped) and
API keys (at most a year ahead, a few at a time); with the rules their tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day, iso
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "technology"
LABELS = {"seat_licence": "seat licence", "service_incident": "service incident",
          "server_instance": "server instance", "api_key": "access key"}
ALT_LABELS = {"seat_licence": "seat allocation", "service_incident": "platform incident",
              "server_instance": "virtual server", "api_key": "client key"}
GROUPS = {
    # hosting sells capacity, not seats
    "seats": Group(("seat_licence",), not_for=("cloud_hosting",)),
    # a licence seller runs no service whose outages it tracks
    "incidents": Group(("service_incident",), not_for=("software_licensing",)),
    # only hosts and managed-service providers run their clients' servers
    "instances": Group(("server_instance",), not_for=("saas_helpdesk", "software_licensing")),
    # a managed-service provider works on its clients' own systems
    "keys": Group(("api_key",), not_for=("it_managed_services",)),
}
CODED = ()

SEAT_STATUSES = ("active", "suspended", "expired")
SEVERITIES = ("sev1", "sev2", "sev3", "sev4")
INCIDENT_STATUSES = ("investigating", "mitigated", "resolved")
INCIDENT_TITLES = ("Login failures for SSO users", "Elevated API error rates", "Slow dashboard loads",
                   "Email notifications delayed", "Storage volume degraded", "DNS resolution errors",
                   "Payment webhook backlog", "Search index out of date", "VPN tunnel flapping",
                   "Backup job failures", "Certificate renewal failed", "Database replica lag")
ROOT_CAUSES = ("expired certificate", "bad configuration push", "disk full on a primary node",
               "upstream provider outage", "memory leak after a release")
SIZES = ("small", "medium", "large", "xlarge")
MONTHLY_COST = {"small": 20.0, "medium": 40.0, "large": 80.0, "xlarge": 160.0}
REGIONS = ("us-east", "us-west", "eu-central", "eu-west", "ap-southeast")
INSTANCE_STATUSES = ("running", "stopped", "terminated")
HOST_ROLES = ("web", "db", "app", "cache", "worker", "mail", "files")
KEY_SCOPES = ("read", "write", "admin")
KEY_NAMES = ("Production", "Staging", "CI pipeline", "Reporting", "Mobile app", "Zapier", "Data warehouse")
KEY_DAYS = 365  # a key expires at most this many days ahead
MAX_ACTIVE_KEYS = 5  # active keys one client may hold


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the seat_licence, service_incident, server_instance and api_key tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("seat_licence"):
        ents["seat_licence"] = Entity("seat_licence", L["seat_licence"], [
            pk_col(), fk_col(L, "party"), fk_col(L, "item"), Col("seats", "INTEGER", minimum=1),
            Col("seats_in_use", "INTEGER", minimum=0), Col("status", "TEXT", enum=SEAT_STATUSES),
            Col("renews_on", "TEXT"),
        ], f"Seats of a {L['item']} held by {plural(L['party'])}; never fewer seats than are in use.",
            filters=(party_fk, f"{snake(L['item'])}_id", "status"))
    if has("service_incident"):
        ents["service_incident"] = Entity("service_incident", L["service_incident"], [
            pk_col(), Col("title", "TEXT"), Col("severity", "TEXT", enum=SEVERITIES),
            Col("status", "TEXT", enum=INCIDENT_STATUSES), Col("started_at", "TEXT"),
            Col("root_cause", "TEXT", nullable=True), Col("resolved_at", "TEXT", nullable=True),
        ], "Outages and degradations of the service; one is resolved only once mitigated, with its root cause.",
            filters=("severity", "status"), search=("title",))
    if has("server_instance"):
        ents["server_instance"] = Entity("server_instance", L["server_instance"], [
            pk_col(), fk_col(L, "party"), Col("hostname", "TEXT", unique=True), Col("size", "TEXT", enum=SIZES),
            Col("region", "TEXT", enum=REGIONS), Col("status", "TEXT", enum=INSTANCE_STATUSES),
            Col("monthly_cost", "REAL", minimum=0),
        ], f"Servers run for {plural(L['party'])}; resized only while stopped, never started once terminated.",
            filters=(party_fk, "hostname", "status", "region"))
    if has("api_key"):
        ents["api_key"] = Entity("api_key", L["api_key"], [
            pk_col(), fk_col(L, "party"), Col("name", "TEXT"), Col("key_prefix", "TEXT", unique=True),
            Col("scope", "TEXT", enum=KEY_SCOPES), Col("status", "TEXT", enum=("active", "revoked")),
            Col("expires_on", "TEXT"), Col("created_at", "TEXT"),
        ], f"Keys {plural(L['party'])} call the API with; at most {MAX_ACTIVE_KEYS} active a client, each expiring "
           f"within {KEY_DAYS} days of issue.", filters=(party_fk, "scope", "status"))
    return ents


def fill_seats(gen: RowGen) -> None:
    items = [i["id"] for i in gen.rows["item"] if i["active"]]
    for party in gen.rows["party"]:
        for item in gen.rng.sample(items, min(len(items), gen.rng.choice((0, 1, 1, 2)))):
            seats = gen.rng.choice((5, 10, 25, 50, 100, 250))
            gen.add("seat_licence", {gen.fk("party"): party["id"], gen.fk("item"): item, "seats": seats,
                                     "seats_in_use": gen.rng.randint(seats // 3, seats),
                                     "status": gen.rng.choices(SEAT_STATUSES, (8, 1, 1))[0],
                                     "renews_on": day(REFERENCE_NOW + timedelta(days=gen.rng.randint(10, 360)))})


def fill_incidents(gen: RowGen) -> None:
    for title in gen.rng.sample(INCIDENT_TITLES, 9):
        status = gen.rng.choices(INCIDENT_STATUSES, (2, 3, 5))[0]
        started = gen.past(1, 60) if status == "resolved" else gen.past(0, 2)
        gen.add("service_incident", {
            "title": title, "severity": gen.rng.choices(SEVERITIES, (1, 3, 4, 2))[0], "status": status,
            "started_at": iso(started),
            "root_cause": gen.rng.choice(ROOT_CAUSES) if status == "resolved" else None,
            "resolved_at": iso(started + timedelta(minutes=gen.rng.randint(20, 600))) if status == "resolved" else None})


def fill_instances(gen: RowGen) -> None:
    n = 0
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2, 3))):
            n += 1
            size = gen.rng.choice(SIZES)
            gen.add("server_instance", {
                gen.fk("party"): party["id"],
                "hostname": f"{gen.rng.choice(HOST_ROLES)}-{n:02d}.{party['last_name'].lower().replace(' ', '')}.host",
                "size": size, "region": gen.rng.choice(REGIONS),
                "status": gen.rng.choices(INSTANCE_STATUSES, (6, 2, 1))[0], "monthly_cost": MONTHLY_COST[size]})


def fill_keys(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        for name in gen.rng.sample(KEY_NAMES, gen.rng.choice((0, 1, 1, 2, 3))):
            created = gen.between(party["created_at"])
            gen.add("api_key", {
                gen.fk("party"): party["id"], "name": name, "key_prefix": f"ak_{gen.rng.getrandbits(32):08x}",
                "scope": gen.rng.choices(KEY_SCOPES, (4, 3, 1))[0],
                "status": gen.rng.choices(("active", "revoked"), (4, 1))[0],
                "expires_on": day(REFERENCE_NOW + timedelta(days=gen.rng.randint(-30, 330))),
                "created_at": iso(created)})


FILL = {"seat_licence": fill_seats, "service_incident": fill_incidents, "server_instance": fill_instances,
        "api_key": fill_keys}
