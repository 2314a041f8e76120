"""The tools of a dealership's or garage's own entities (awm/builder/modules/packs/automotive.py): vehicles,
warranty claims, loaner cars; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.automotive import templates
from awm.builder.categories.automotive.entities import LOAN_DAYS, WARRANTY_LIMIT
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, integer

ROLES = ("vehicle", "warranty_claim", "loaner")
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}$", "description": "ISO date"}


def declare(b: ToolBuilder) -> None:
    if b.has("vehicle"):
        v = b.ent("vehicle")
        b.list_tool("vehicle")
        b.add(b.names.action("vehicle", "record_mileage"),
              f"Record the odometer reading of a {v.label}; it may not be below the one on record.",
              [b.id_param("vehicle"), Param("mileage", {**integer("miles on the odometer", 0), "maximum": 999999}, True)],
              templates, "record_mileage_VEHICLE", role="vehicle", kind="update")
    if b.has("warranty_claim"):
        wc = b.ent("warranty_claim")
        b.list_tool("warranty_claim")
        b.add(b.names.action("warranty_claim", "approve"),
              f"Approve a submitted {wc.label} of at most {WARRANTY_LIMIT:.0f} (larger ones go to the manufacturer).",
              [b.id_param("warranty_claim")], templates, "approve_WARRANTY_CLAIM", role="warranty_claim",
              kind="action", MAX_LIMIT=WARRANTY_LIMIT)
        b.status_action("warranty_claim", "reject", ("submitted",), "rejected", f"Reject a submitted {wc.label}.")
    if b.has("loaner"):
        ln = b.ent("loaner")
        b.list_tool("loaner")
        b.add(b.names.action("loaner", "lend"),
              f"Lend an available {ln.label} to an active {b.ent('party').label} until a date at most {LOAN_DAYS} "
              "days from today.", [b.id_param("loaner"), b.id_param("party"), Param("due_back", DATE, True)],
              templates, "lend_LOANER", role="loaner", kind="action",
              FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=LOAN_DAYS)))
        b.status_action("loaner", "take_back", ("out",), "available", f"Take back a {ln.label} that is out.",
                        extra=f'{{"{b.ent("party").fk}": None, "due_back": None}}')
