"""The tools of an energy business's own entities (awm/builder/modules/packs/energy.py): installed equipment,
rebate claims, safety inspections, charge points and charging sessions; each with the rules its template
enforces."""

from __future__ import annotations

from awm.builder.categories.energy import templates
from awm.builder.categories.energy.entities import PROGRAMS
from awm.builder.tools.base import Param, ToolBuilder, number, string

ROLES = ("equipment_unit", "rebate_claim", "safety_inspection", "charge_point")


def declare(b: ToolBuilder) -> None:
    if b.has("equipment_unit"):
        eq = b.ent("equipment_unit")
        b.list_tool("equipment_unit")
        b.status_action("equipment_unit", "report_fault", ("operating",), "faulty", f"Report an {eq.label} faulty.")
        b.add(b.names.action("equipment_unit", "repair_under_warranty"),
              f"Record a free repair of a faulty {eq.label}; it must still be under warranty (warranty_until today or "
              "later).", [b.id_param("equipment_unit")], templates, "repair_under_warranty_EQUIPMENT_UNIT",
              role="equipment_unit", kind="action")
        b.status_action("equipment_unit", "decommission", ("operating", "faulty"), "decommissioned",
                        f"Take an {eq.label} out of use for good.")
    if b.has("rebate_claim"):
        rc = b.ent("rebate_claim")
        b.list_tool("rebate_claim")
        b.add(b.names.action("rebate_claim", "submit"),
              f"Submit a draft {rc.label} to its programme; its amount may not exceed the programme's cap.",
              [b.id_param("rebate_claim")], templates, "submit_REBATE_CLAIM", role="rebate_claim", kind="action",
              PROGRAM_CAPS=dict(PROGRAMS))
        b.status_action("rebate_claim", "withdraw", ("draft", "submitted"), "rejected", f"Withdraw a {rc.label}.")
    if b.has("safety_inspection"):
        si = b.ent("safety_inspection")
        b.list_tool("safety_inspection")
        b.add(b.names.action("safety_inspection", "record_result"),
              f"Record the result of a scheduled {si.label} carried out today by an active "
              f"{b.ent('staff').label}; one due after today cannot have a result yet.",
              [b.id_param("safety_inspection"), Param("result", string("the outcome", ("passed", "failed")), True),
               b.id_param("staff")], templates, "record_result_SAFETY_INSPECTION", role="safety_inspection",
              kind="action")
    if b.has("charge_point"):
        cp = b.ent("charge_point")
        b.list_tool("charge_point")
        b.add(b.names.action("charge_point", "take_offline"),
              f"Take a {cp.label} offline for maintenance; not while a vehicle is charging at it.",
              [b.id_param("charge_point")], templates, "take_offline_CHARGE_POINT", role="charge_point", kind="action")
        b.status_action("charge_point", "reset", ("faulted", "offline"), "available",
                        f"Bring a faulted or offline {cp.label} back into use.")
    if b.has("charging_session"):
        b.list_tool("charging_session")
        b.add(b.names.action("charging_session", "stop"),
              f"End an active {b.ent('charging_session').label} with the energy delivered (never below what is already "
              f"recorded); its {b.ent('charge_point').label} becomes available.",
              [b.id_param("charging_session"), Param("energy_kwh", number("energy delivered, kWh", 0), True)],
              templates, "stop_CHARGING_SESSION", role="charging_session", kind="action")
