"""What only a food or drink business keeps: product lots with their best-before dates, food safety temperature
checks, delivery windows, and a restaurant's dining tables; with the rules their tools enforce."""

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

CATEGORY = "food_and_beverage"
LABELS = {"product_lot": "product lot", "temperature_check": "temperature check",
          "delivery_window": "delivery window", "dining_table": "dining table"}
ALT_LABELS = {"product_lot": "stock lot", "temperature_check": "temperature log",
              "delivery_window": "delivery slot", "dining_table": "restaurant table"}
GROUPS = {
    "lots": Group(("product_lot",), not_for=("restaurant_chain",)),
    "safety": Group(("temperature_check",)),
    "windows": Group(("delivery_window",), not_for=("restaurant_chain",)),
    "tables": Group(("dining_table",), not_for=("grocery_delivery", "coffee_roastery", "meal_kit_service",
                                                 "craft_brewery")),
}
CODED = ()

LOT_STATUSES = ("released", "on_hold", "recalled")
SHELF_DAYS = {"grocery_delivery": (5, 30), "coffee_roastery": (90, 270), "meal_kit_service": (4, 12),
              "craft_brewery": (60, 180)}
DEFAULT_SHELF_DAYS = (14, 120)
# unit -> (lowest, highest) safe temperature in Celsius
SAFE_RANGES = {"walk_in_cooler": (-2.0, 5.0), "prep_fridge": (-2.0, 5.0), "freezer": (-30.0, -18.0),
               "hot_holding": (63.0, 95.0)}
UNITS = tuple(SAFE_RANGES)
CORRECTIVE_ACTIONS = ("stock moved to the backup cooler", "door seal replaced and unit rechecked",
                      "food reheated to 75 C", "compressor service called", "product discarded")
WINDOW_TIMES = (("08:00", "10:00"), ("12:00", "14:00"), ("17:00", "19:00"))
WINDOW_STATUSES = ("open", "full", "closed")
TABLE_AREAS = ("main_room", "patio", "bar", "private_room")
TABLE_STATUSES = ("available", "occupied", "reserved", "out_of_service")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the product_lot, temperature_check, delivery_window and dining_table tables."""
    site_fk, item_fk = f"{snake(L['site'])}_id", f"{snake(L['item'])}_id"
    ents: dict[str, Entity] = {}
    if has("product_lot"):
        ents["product_lot"] = Entity("product_lot", L["product_lot"], [
            pk_col(), Col("lot_code", "TEXT", unique=True), fk_col(L, "item"), fk_col(L, "site"),
            Col("quantity", "INTEGER", minimum=0), Col("produced_on", "TEXT"), Col("best_before", "TEXT"),
            Col("status", "TEXT", enum=LOT_STATUSES),
        ], f"Lots of {plural(L['item'])} at each {L['site']}; a lot past its best-before date is never released, "
           "and a recalled lot never comes back.", filters=("lot_code", item_fk, site_fk, "status"))
    if has("temperature_check"):
        ents["temperature_check"] = Entity("temperature_check", L["temperature_check"], [
            pk_col(), fk_col(L, "site"), fk_col(L, "staff"), Col("unit", "TEXT", enum=UNITS),
            Col("temperature_c", "REAL"), Col("result", "TEXT", enum=("pass", "fail")),
            Col("corrective_action", "TEXT", nullable=True), Col("checked_at", "TEXT"),
        ], "Food safety readings of coolers, freezers and hot holding; a reading outside the safe range fails and "
           "is logged only with the corrective action taken.",
            filters=(site_fk, f"{snake(L['staff'])}_id", "unit", "result"))
    if has("delivery_window"):
        ents["delivery_window"] = Entity("delivery_window", L["delivery_window"], [
            pk_col(), fk_col(L, "site"), Col("starts_at", "TEXT"), Col("ends_at", "TEXT"),
            Col("capacity", "INTEGER", minimum=1), Col("booked", "INTEGER", minimum=0),
            Col("status", "TEXT", enum=WINDOW_STATUSES),
        ], f"Time windows each {L['site']} delivers in; a window never has fewer places than it has bookings.",
            filters=(site_fk, "status"))
    if has("dining_table"):
        ents["dining_table"] = Entity("dining_table", L["dining_table"], [
            pk_col(), fk_col(L, "site"), Col("table_number", "TEXT"), Col("seats", "INTEGER", minimum=1),
            Col("area", "TEXT", enum=TABLE_AREAS), Col("status", "TEXT", enum=TABLE_STATUSES),
            Col("party_size", "INTEGER", nullable=True, minimum=1),
        ], f"The tables of each {L['site']}; a party is seated only at an available table with enough seats.",
            filters=(site_fk, "table_number", "area", "status"))
    return ents


def fill_lots(gen: RowGen) -> None:
    low, high = SHELF_DAYS.get(gen.sc.domain, DEFAULT_SHELF_DAYS)
    sites = [s["id"] for s in gen.rows["site"]]
    n = 0
    for item in gen.rows["item"]:
        for _ in range(gen.rng.choice((1, 1, 2))):
            shelf = gen.rng.randint(low, high)
            produced = gen.past(1, int(shelf * 1.3) + 2)
            n += 1
            gen.add("product_lot", {"lot_code": f"L{produced:%y%m%d}-{n:03d}", gen.fk("item"): item["id"],
                                    gen.fk("site"): gen.rng.choice(sites), "quantity": gen.rng.randint(12, 480),
                                    "produced_on": day(produced), "best_before": day(produced + timedelta(days=shelf)),
                                    "status": gen.rng.choices(LOT_STATUSES, (6, 2, 1))[0]})


def _reading(gen: RowGen, unit: str, failing: bool) -> float:
    low, high = SAFE_RANGES[unit]
    if failing:
        return round(high + gen.rng.uniform(1.5, 6) if unit != "hot_holding" else low - gen.rng.uniform(3, 12), 1)
    safe = {"freezer": (-24.0, -19.0), "hot_holding": (64.0, 75.0)}.get(unit, (0.5, 4.5))
    return round(gen.rng.uniform(*safe), 1)


def fill_checks(gen: RowGen) -> None:
    for site in gen.rows["site"]:
        staff = [s["id"] for s in gen.rows["staff"] if s[gen.fk("site")] == site["id"]] or [gen.rows["staff"][0]["id"]]
        for back in range(1, 9):
            for unit in gen.rng.sample(UNITS, 2):
                failing = gen.rng.random() < 0.15
                at = REFERENCE_NOW - timedelta(days=back, hours=gen.rng.randint(-8, 2))
                gen.add("temperature_check", {
                    gen.fk("site"): site["id"], gen.fk("staff"): gen.rng.choice(staff), "unit": unit,
                    "temperature_c": _reading(gen, unit, failing), "result": "fail" if failing else "pass",
                    "corrective_action": gen.rng.choice(CORRECTIVE_ACTIONS) if failing else None, "checked_at": iso(at)})


def fill_windows(gen: RowGen) -> None:
    for site in gen.rows["site"]:
        for ahead in range(1, 5):
            date = day(REFERENCE_NOW + timedelta(days=ahead))
            for start, end in WINDOW_TIMES:
                capacity = gen.rng.choice((20, 25, 30, 40))
                booked = min(capacity, gen.rng.randint(capacity // 3, capacity + 6))
                gen.add("delivery_window", {gen.fk("site"): site["id"], "starts_at": f"{date}T{start}:00",
                                            "ends_at": f"{date}T{end}:00", "capacity": capacity, "booked": booked,
                                            "status": "full" if booked == capacity else "open"})


def fill_tables(gen: RowGen) -> None:
    for site in gen.rows["site"]:
        for number in range(1, gen.rng.randint(9, 14)):
            seats = gen.rng.choice((2, 2, 4, 4, 4, 6, 8))
            status = gen.rng.choices(TABLE_STATUSES, (6, 3, 2, 1))[0]
            gen.add("dining_table", {gen.fk("site"): site["id"], "table_number": f"T{number}", "seats": seats,
                                     "area": gen.rng.choices(TABLE_AREAS, (6, 2, 2, 1))[0], "status": status,
                                     "party_size": gen.rng.randint(1, seats) if status == "occupied" else None})


FILL = {"product_lot": fill_lots, "temperature_check": fill_checks, "delivery_window": fill_windows,
        "dining_table": fill_tables}
