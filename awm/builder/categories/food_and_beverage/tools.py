"""The tools of a food or drink business's own entities (awm/builder/modules/packs/food_and_beverage.py): product
lots, temperature checks, delivery windows, dining tables; each with the rules its template enforces."""

from __future__ import annotations

from awm.builder.categories.food_and_beverage import templates
from awm.builder.categories.food_and_beverage.entities import SAFE_RANGES, UNITS
from awm.builder.tools.base import Param, ToolBuilder, integer, number, string

ROLES = ("product_lot", "temperature_check", "delivery_window", "dining_table")


def declare(b: ToolBuilder) -> None:
    if b.has("product_lot"):
        lot = b.ent("product_lot")
        b.list_tool("product_lot")
        b.status_action("product_lot", "hold", ("released",), "on_hold", f"Put a released {lot.label} on hold.")
        b.add(b.names.action("product_lot", "release"),
              f"Release a {lot.label} that is on hold; one past its best-before date cannot be released.",
              [b.id_param("product_lot")], templates, "release_PRODUCT_LOT", role="product_lot", kind="action")
        b.status_action("product_lot", "recall", ("released", "on_hold"), "recalled",
                        f"Recall a {lot.label}; a recalled lot is never released again.")
    if b.has("temperature_check"):
        t = b.ent("temperature_check")
        ranges = "; ".join(f"{unit} {low:g} to {high:g} C" for unit, (low, high) in SAFE_RANGES.items())
        b.list_tool("temperature_check")
        b.add(b.names.create("temperature_check"),
              f"Log a {t.label} taken now. Safe ranges: {ranges}. A reading outside its range fails and must come "
              "with the corrective action taken.",
              [b.id_param("site"), b.id_param("staff", f"id of the {b.ent('staff').label} who took the reading"),
               Param("unit", string("the unit checked", UNITS), True),
               Param("temperature_c", number("the reading in degrees Celsius"), True),
               Param("corrective_action", string("what was done about a failing reading"))],
              templates, "create_TEMPERATURE_CHECK", role="temperature_check", kind="create",
              SAFE_RANGES=SAFE_RANGES)
    if b.has("delivery_window"):
        d = b.ent("delivery_window")
        b.list_tool("delivery_window")
        b.add(b.names.action("delivery_window", "set_capacity"),
              f"Change how many deliveries a {d.label} takes; never fewer than it has booked.",
              [b.id_param("delivery_window"), Param("capacity", {**integer("deliveries the window takes"),
                                                                 "maximum": 200}, True)],
              templates, "set_capacity_DELIVERY_WINDOW", role="delivery_window", kind="update")
        b.status_action("delivery_window", "close", ("open", "full"), "closed",
                        f"Close a {d.label} to further bookings.")
    if b.has("dining_table"):
        dt = b.ent("dining_table")
        b.list_tool("dining_table")
        b.add(b.names.action("dining_table", "seat"),
              f"Seat a party at an available {dt.label} with at least as many seats as the party has guests.",
              [b.id_param("dining_table"), Param("party_size", {**integer("guests in the party"), "maximum": 30}, True)],
              templates, "seat_DINING_TABLE", role="dining_table", kind="action")
        b.status_action("dining_table", "clear", ("occupied",), "available", f"Clear an occupied {dt.label}.",
                        extra='{"party_size": None}')
