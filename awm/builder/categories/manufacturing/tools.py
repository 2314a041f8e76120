"""The tools of a manufacturer's own entities (awm/builder/modules/packs/manufacturing.py): production runs,
nonconformance reports, measuring instruments, customer assets; each with the rules its template enforces."""

from __future__ import annotations

from datetime import timedelta

from awm.builder.categories.manufacturing import templates
from awm.builder.categories.manufacturing.entities import CALIBRATION_DAYS, DISPOSITIONS
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.tools.base import Param, ToolBuilder, integer, string

ROLES = ("production_run", "nonconformance", "instrument", "customer_asset")


def declare(b: ToolBuilder) -> None:
    if b.has("production_run"):
        run = b.ent("production_run")
        b.list_tool("production_run")
        b.status_action("production_run", "start", ("scheduled", "on_hold"), "running", f"Start a {run.label}.",
                        extra='{"started_at": REFERENCE_NOW}')
        b.add(b.names.action("production_run", "record_output"),
              f"Add the good and scrapped units made on a running {run.label}.",
              [b.id_param("production_run"), Param("good", integer("good units made", 0), True),
               Param("scrap", integer("units scrapped", 0), True)],
              templates, "record_output_PRODUCTION_RUN", role="production_run", kind="action")
        b.add(b.names.action("production_run", "complete"),
              f"Complete a running {run.label}; its good quantity must have reached the planned quantity.",
              [b.id_param("production_run")], templates, "complete_PRODUCTION_RUN", role="production_run",
              kind="action")
        b.status_action("production_run", "hold", ("running",), "on_hold", f"Put a running {run.label} on hold.")
    if b.has("nonconformance"):
        ncr = b.ent("nonconformance")
        b.list_tool("nonconformance")
        b.add(b.names.action("nonconformance", "set_disposition"),
              f"Decide what happens to the parts of an open {ncr.label}.",
              [b.id_param("nonconformance"), Param("disposition", string("the decision", DISPOSITIONS), True)],
              templates, "set_disposition_NONCONFORMANCE", role="nonconformance", kind="action")
        b.add(b.names.action("nonconformance", "close"),
              f"Close an open {ncr.label}; a disposition must have been set first.",
              [b.id_param("nonconformance")], templates, "close_NONCONFORMANCE", role="nonconformance", kind="action")
    if b.has("instrument"):
        ins = b.ent("instrument")
        b.list_tool("instrument")
        b.add(b.names.action("instrument", "check_out"),
              f"Check out an available {ins.label} to an active {b.ent('staff').label}; one past its calibration due "
              "date may not be used.", [b.id_param("instrument"), b.id_param("staff")],
              templates, "check_out_INSTRUMENT", role="instrument", kind="action")
        b.status_action("instrument", "check_in", ("checked_out",), "available", f"Check a {ins.label} back in.",
                        extra=f'{{"{b.ent("staff").fk}": None}}')
        b.add(b.names.action("instrument", "record_calibration"),
              f"Record that a {ins.label} that is not checked out was calibrated today; it is due again in "
              f"{CALIBRATION_DAYS} days and becomes available.", [b.id_param("instrument")],
              templates, "record_calibration_INSTRUMENT", role="instrument", kind="action",
              FAR_CUTOFF=day(REFERENCE_NOW + timedelta(days=CALIBRATION_DAYS)))
    if b.has("customer_asset"):
        ca = b.ent("customer_asset")
        b.list_tool("customer_asset")
        b.add(b.names.action("customer_asset", "return_to_owner"),
              f"Hand a {ca.label} back to the {b.ent('party').label} who owns it; only one in storage (not in use or "
              "under repair) can go back.", [b.id_param("customer_asset")],
              templates, "return_to_owner_CUSTOMER_ASSET", role="customer_asset", kind="action")
        b.status_action("customer_asset", "store", ("in_use", "under_repair"), "in_storage",
                        f"Put a {ca.label} into storage.")
