"""The tools of a farm business's own entities (awm/builder/modules/packs/agriculture.py): fields and their
applications, soil samples, herd animals, growing batches; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.agriculture import templates
from awm.builder.categories.agriculture.entities import MAX_RATES, TREATMENTS
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLES = ("field", "field_application", "soil_sample", "animal", "crop_batch")


def declare(b: ToolBuilder) -> None:
    if b.has("field"):
        b.list_tool("field")
    if b.has("field_application"):
        fa, f = b.ent("field_application"), b.ent("field")
        rates = "; ".join(f"{product} {top:g} {unit}" for product, (unit, top) in MAX_RATES.items())
        b.list_tool("field_application")
        b.add(b.names.create("field_application"),
              f"Record a crop input applied today to an active {f.label}, at a rate per acre no higher than its label "
              f"allows ({rates}).",
              [b.id_param("field"), b.id_param("staff", f"id of the {b.ent('staff').label} who applied it"),
               Param("product", string("the product applied", tuple(MAX_RATES)), True),
               Param("rate_per_acre", number("amount per acre, in the product's unit", 0, True), True)],
              templates, "create_FIELD_APPLICATION", role="field_application", kind="create", MAX_RATES=MAX_RATES)
        b.status_action("field_application", "cancel", ("planned",), "cancelled", f"Cancel a planned {fa.label}.")
    if b.has("soil_sample"):
        s = b.ent("soil_sample")
        b.list_tool("soil_sample")
        b.add(b.names.action("soil_sample", "record_results"),
              f"Record the lab results of a received {s.label}; it becomes analysed.",
              [b.id_param("soil_sample"), Param("ph", {**number("soil pH", 3), "maximum": 10}, True),
               Param("organic_matter_pct", {**number("organic matter in percent", 0), "maximum": 20}, True),
               Param("phosphorus_ppm", integer("phosphorus in ppm", 0), True),
               Param("potassium_ppm", integer("potassium in ppm", 0), True)],
              templates, "record_results_SOIL_SAMPLE", role="soil_sample", kind="update")
        b.status_action("soil_sample", "report", ("analysed",), "reported",
                        f"Report the results of an analysed {s.label} to its {b.ent('party').label}.")
    if b.has("animal"):
        a = b.ent("animal")
        b.list_tool("animal")
        b.add(b.names.action("animal", "treat"),
              f"Record a treatment of a {a.label}; its milk is withheld for the drug's withdrawal period in days.",
              [b.id_param("animal"), Param("treatment", string("the drug given", TREATMENTS), True),
               Param("withdrawal_days", {**integer("days the milk is withheld", 0), "maximum": 60}, True)],
              templates, "treat_ANIMAL", role="animal", kind="update")
        b.add(b.names.action("animal", "return_to_milking"),
              f"Return a treated or dry {a.label} to the milking string; not while its withdrawal period lasts "
              "(through the withdrawal_until date).",
              [b.id_param("animal")], templates, "return_to_milking_ANIMAL", role="animal", kind="action")
    if b.has("crop_batch"):
        c = b.ent("crop_batch")
        b.list_tool("crop_batch")
        b.add(b.names.action("crop_batch", "mark_ready"), f"Mark a growing {c.label} ready, on or after its ready date.",
              [b.id_param("crop_batch")], templates, "mark_ready_CROP_BATCH", role="crop_batch", kind="action")
        b.add(b.names.action("crop_batch", "allocate"),
              f"Allocate plants of a ready {c.label} to an order; never more than it holds.",
              [b.id_param("crop_batch"), Param("quantity", integer("plants allocated"), True)],
              templates, "allocate_CROP_BATCH", role="crop_batch", kind="update")
