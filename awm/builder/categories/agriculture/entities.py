"""What only a farm business keeps: growers' fields and the crop inputs applied to them, soil samples, a herd
with its treatment withdrawal periods, and a nursery's growing batches; with the rules their tools enforce."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "agriculture"
LABELS = {"field": "farm field", "field_application": "field application", "soil_sample": "soil sample",
          "animal": "herd animal", "crop_batch": "growing batch"}
ALT_LABELS = {"field": "crop field", "field_application": "spray record", "soil_sample": "soil test sample",
              "animal": "livestock animal", "crop_batch": "crop batch"}
GROUPS = {
    "applications": Group(("field", "field_application"), not_for=("wholesale_plant_nursery", "dairy_farm_creamery")),
    "soil_tests": Group(("soil_sample",)),
    "herd": Group(("animal",), not_for=("wholesale_plant_nursery",)),
    "batches": Group(("crop_batch",), not_for=("farm_supply_cooperative", "dairy_farm_creamery",
                                                "agronomy_field_services")),
}
CODED = ()

CROPS = ("corn", "soybeans", "wheat", "alfalfa", "canola", "barley")
FIELD_NAMES = ("North Forty", "River Bottom", "Home Quarter", "East Pivot", "Creek Field", "Hill Pasture",
               "South Eighty", "Old Orchard Block", "West Section", "Schoolhouse Field")
# product -> (unit, the most its label allows per acre)
MAX_RATES = {"glyphosate": ("qt", 1.5), "atrazine": ("lb", 2.0), "dicamba": ("pt", 1.0), "urea": ("lb", 250.0),
             "potash": ("lb", 200.0), "azoxystrobin": ("fl oz", 15.5)}
APPLICATION_STATUSES = ("planned", "applied", "cancelled")
SAMPLE_STATUSES = ("received", "analysed", "reported")
SAMPLE_SITES = ("north pasture", "corn ground", "bean stubble", "hay field", "orchard rows", "garden plot")
SPECIES = {"goat": ("Saanen", "Alpine", "Nubian"), "sheep": ("East Friesian", "Lacaune"),
           "cow": ("Holstein", "Jersey", "Brown Swiss", "Guernsey")}
ANIMAL_STATUSES = ("milking", "dry", "treated", "sold")
TREATMENTS = ("penicillin", "ceftiofur", "oxytetracycline")
BATCH_STATUSES = ("growing", "ready", "sold_out")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the field, field_application, soil_sample, animal and crop_batch tables."""
    party_fk, staff_fk, site_fk = (f"{snake(L[r])}_id" for r in ("party", "staff", "site"))
    ents: dict[str, Entity] = {}
    if has("field"):
        ents["field"] = Entity("field", L["field"], [
            pk_col(), fk_col(L, "party"), Col("name", "TEXT"), Col("acres", "REAL", minimum=1),
            Col("crop", "TEXT", enum=CROPS), Col("status", "TEXT", enum=("active", "fallow")),
        ], f"Fields of {plural(L['party'])}, with the crop on each.", filters=(party_fk, "name", "crop", "status"))
    if has("field_application"):
        ents["field_application"] = Entity("field_application", L["field_application"], [
            pk_col(), fk_col(L, "field"), fk_col(L, "staff"), Col("product", "TEXT", enum=tuple(MAX_RATES)),
            Col("rate_per_acre", "REAL", minimum=0), Col("unit", "TEXT"), Col("applied_on", "TEXT"),
            Col("status", "TEXT", enum=APPLICATION_STATUSES),
        ], f"Crop inputs applied to {plural(L['field'])}; never above the rate the product's label allows.",
            filters=(f"{snake(L['field'])}_id", staff_fk, "product", "status"))
    if has("soil_sample"):
        ents["soil_sample"] = Entity("soil_sample", L["soil_sample"], [
            pk_col(), Col("sample_code", "TEXT", unique=True), fk_col(L, "party"), Col("location", "TEXT"),
            Col("sampled_on", "TEXT"), Col("ph", "REAL", nullable=True, minimum=3, maximum=10),
            Col("organic_matter_pct", "REAL", nullable=True, minimum=0, maximum=20),
            Col("phosphorus_ppm", "INTEGER", nullable=True, minimum=0),
            Col("potassium_ppm", "INTEGER", nullable=True, minimum=0), Col("status", "TEXT", enum=SAMPLE_STATUSES),
        ], f"Soil samples of {plural(L['party'])}: results are recorded for a received sample, and only an analysed "
           "one is reported.", filters=("sample_code", party_fk, "status"))
    if has("animal"):
        ents["animal"] = Entity("animal", L["animal"], [
            pk_col(), Col("tag", "TEXT", unique=True), fk_col(L, "party", nullable=True, name="owner_id"),
            Col("species", "TEXT", enum=tuple(SPECIES)), Col("breed", "TEXT"), Col("born_on", "TEXT"),
            Col("status", "TEXT", enum=ANIMAL_STATUSES), Col("treatment", "TEXT", nullable=True),
            Col("withdrawal_until", "TEXT", nullable=True),
        ], "Animals of the herd (an owner where they belong to a client); a treated animal returns to milking "
           "only after its withdrawal period.", filters=("tag", "owner_id", "species", "status"))
    if has("crop_batch"):
        ents["crop_batch"] = Entity("crop_batch", L["crop_batch"], [
            pk_col(), fk_col(L, "item"), fk_col(L, "site"), Col("bench", "TEXT"),
            Col("quantity", "INTEGER", minimum=0), Col("potted_on", "TEXT"), Col("ready_on", "TEXT"),
            Col("status", "TEXT", enum=BATCH_STATUSES),
        ], f"Plants growing on the benches of each {L['site']}; a batch is ready only from its ready date, and "
           "no more plants are allocated than it holds.", filters=(f"{snake(L['item'])}_id", site_fk, "status"))
    return ents


def fill_fields(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        for name in gen.rng.sample(FIELD_NAMES, gen.rng.choice((1, 2, 3))):
            gen.add("field", {gen.fk("party"): party["id"], "name": name, "acres": float(gen.rng.randint(12, 640)),
                              "crop": gen.rng.choice(CROPS), "status": gen.rng.choices(("active", "fallow"), (6, 1))[0]})


def fill_applications(gen: RowGen) -> None:
    staff = [s["id"] for s in gen.rows["staff"]]
    for field in gen.rows["field"]:
        for _ in range(gen.rng.choice((0, 1, 2)) if field["status"] == "active" else 0):
            product = gen.rng.choice(sorted(MAX_RATES))
            unit, top = MAX_RATES[product]
            status = gen.rng.choices(APPLICATION_STATUSES, (2, 6, 1))[0]
            when = gen.future(2, 20) if status == "planned" else gen.past(3, 60)
            gen.add("field_application", {gen.fk("field"): field["id"], gen.fk("staff"): gen.rng.choice(staff),
                                          "product": product, "rate_per_acre": round(top * gen.rng.uniform(0.4, 1), 2),
                                          "unit": unit, "applied_on": day(when), "status": status})
    if not gen.rows.get("field_application"):
        field = gen.rows["field"][0]
        gen.add("field_application", {gen.fk("field"): field["id"], gen.fk("staff"): staff[0], "product": "potash",
                                      "rate_per_acre": 150.0, "unit": "lb", "applied_on": day(gen.past(3, 30)),
                                      "status": "applied"})


def fill_samples(gen: RowGen) -> None:
    n = 0
    for party in gen.rows["party"]:
        for _ in range(gen.rng.choice((0, 1, 1, 2))):
            n += 1
            status = gen.rng.choices(SAMPLE_STATUSES, (2, 2, 5))[0]
            tested = status != "received"
            gen.add("soil_sample", {
                "sample_code": f"S-{4100 + n}", gen.fk("party"): party["id"], "location": gen.rng.choice(SAMPLE_SITES),
                "sampled_on": day(gen.past(2, 50)), "ph": round(gen.rng.uniform(5.2, 7.9), 1) if tested else None,
                "organic_matter_pct": round(gen.rng.uniform(1.2, 6.5), 1) if tested else None,
                "phosphorus_ppm": gen.rng.randint(8, 70) if tested else None,
                "potassium_ppm": gen.rng.randint(90, 320) if tested else None, "status": status})


def fill_animals(gen: RowGen) -> None:
    own_herd = gen.sc.domain == "dairy_farm_creamery"
    sub = gen.sc.sub_business.lower()
    kinds = [k for k in SPECIES if k in sub] or ["cow"]
    owners = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    for n in range(gen.rng.randint(14, 22)):
        species = gen.rng.choice(kinds)
        status = gen.rng.choices(ANIMAL_STATUSES, (8, 2, 3, 1))[0]
        treated = status == "treated"
        gen.add("animal", {
            "tag": f"840-{3100 + n * 7}", "owner_id": None if own_herd else gen.rng.choice(owners),
            "species": species, "breed": gen.rng.choice(SPECIES[species]),
            "born_on": day(gen.past(400, 3000)), "status": status,
            "treatment": gen.rng.choice(TREATMENTS) if treated else None,
            "withdrawal_until": day(REFERENCE_NOW + timedelta(days=gen.rng.randint(-6, 9))) if treated else None})


def fill_batches(gen: RowGen) -> None:
    sites = [s["id"] for s in gen.rows["site"]]
    for item in gen.rows["item"]:
        potted = gen.past(20, 160)
        ready = potted + timedelta(days=gen.rng.choice((45, 60, 90, 120)))
        status = "growing" if ready > REFERENCE_NOW else gen.rng.choices(("ready", "sold_out"), (5, 1))[0]
        gen.add("crop_batch", {gen.fk("item"): item["id"], gen.fk("site"): gen.rng.choice(sites),
                               "bench": f"{gen.rng.choice('ABCDEF')}{gen.rng.randint(1, 24)}",
                               "quantity": 0 if status == "sold_out" else gen.rng.choice((48, 72, 96, 144, 200, 288)),
                               "potted_on": day(potted), "ready_on": day(ready), "status": status})


FILL = {"field": fill_fields, "field_application": fill_applications, "soil_sample": fill_samples,
        "animal": fill_animals, "crop_batch": fill_batches}
