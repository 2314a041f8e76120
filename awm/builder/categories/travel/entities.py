"""What only a travel business keeps: travellers' documents (checked for validity), the segments of an itinerary,
and special service requests on bookings; with the rules their tools enforce."""

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

CATEGORY = "travel"
LABELS = {"travel_document": "travel document", "segment": "itinerary segment",
          "special_request": "special service request"}
ALT_LABELS = {"travel_document": "identity document", "segment": "trip segment", "special_request": "service request"}
GROUPS = {
    "documents": Group(("travel_document",)),
    "segments": Group(("segment",), not_for=("visa_passport_service",)),
    "requests": Group(("special_request",), not_for=("visa_passport_service",)),
}
CODED = ()

VALIDITY_DAYS = 180  # a document must stay valid this long after today to be verified
DOCUMENT_KINDS = ("passport", "visa", "travel_authorisation", "national_id")
SEGMENT_KINDS = ("flight", "hotel", "transfer", "excursion", "cruise")
REQUEST_KINDS = ("wheelchair", "special_meal", "extra_bag", "infant", "pet")
CITIES = ("Lisbon", "Rome", "Tokyo", "Cancun", "Reykjavik", "Cape Town", "Vancouver", "Athens", "Bangkok", "Sydney")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the travel_document, segment and special_request tables."""
    party_fk, case_fk = f"{snake(L['party'])}_id", f"{snake(L['case'])}_id"
    ents: dict[str, Entity] = {}
    if has("travel_document"):
        ents["travel_document"] = Entity("travel_document", L["travel_document"], [
            pk_col(), fk_col(L, "party"), Col("kind", "TEXT", enum=DOCUMENT_KINDS), Col("document_number", "TEXT"),
            Col("country", "TEXT"), Col("expires_on", "TEXT"),
            Col("status", "TEXT", enum=("pending", "verified", "rejected")),
        ], f"Documents {plural(L['party'])} travel on; one is verified only if it stays valid {VALIDITY_DAYS} days "
           "from today.", filters=(party_fk, "kind", "status", "document_number"))
    if has("segment"):
        ents["segment"] = Entity("segment", L["segment"], [
            pk_col(), fk_col(L, "case"), Col("sequence", "INTEGER", minimum=1), Col("kind", "TEXT", enum=SEGMENT_KINDS),
            Col("origin", "TEXT"), Col("destination", "TEXT"), Col("departs_at", "TEXT"),
            Col("status", "TEXT", enum=("confirmed", "waitlisted", "cancelled")),
        ], f"The parts of each {L['case']}'s itinerary, in order.", filters=(case_fk, "kind", "status"))
    if has("special_request"):
        ents["special_request"] = Entity("special_request", L["special_request"], [
            pk_col(), fk_col(L, "case"), Col("kind", "TEXT", enum=REQUEST_KINDS),
            Col("status", "TEXT", enum=("requested", "confirmed", "declined")), Col("requested_at", "TEXT"),
        ], f"Needs noted on a {L['case']}: at most one request of a kind per {L['case']}.",
            filters=(case_fk, "kind", "status"))
    return ents


def fill_documents(gen: RowGen) -> None:
    countries = ("US", "CA", "GB", "DE", "FR", "JP", "MX", "AU")
    for party in gen.rows["party"]:
        for kind in gen.rng.sample(DOCUMENT_KINDS, gen.rng.choice((1, 1, 2))):
            expires = REFERENCE_NOW + timedelta(days=gen.rng.choice((-20, 40, 120, 200, 400, 900, 2500)))
            gen.add("travel_document", {
                gen.fk("party"): party["id"], "kind": kind,
                "document_number": f"{kind[:1].upper()}{gen.rng.randint(10**7, 10**8 - 1)}",
                "country": gen.rng.choice(countries), "expires_on": day(expires),
                "status": gen.rng.choices(("pending", "verified", "rejected"), (4, 5, 1))[0],
            })


def fill_segments(gen: RowGen) -> None:
    tc = gen.plan.flavour.time_column
    for case in gen.rows["case"]:
        stops = gen.rng.sample(CITIES, gen.rng.randint(2, 4))
        for seq, (a, b) in enumerate(zip(stops, stops[1:], strict=False), start=1):
            status = "cancelled" if case["status"] == "cancelled" else gen.rng.choices(("confirmed", "waitlisted"), (6, 1))[0]
            gen.add("segment", {gen.fk("case"): case["id"], "sequence": seq, "kind": gen.rng.choice(SEGMENT_KINDS),
                                "origin": a, "destination": b, "status": status,
                                "departs_at": iso(max(REFERENCE_NOW, gen.between(case[tc])) + timedelta(days=2 * seq))})


def fill_requests(gen: RowGen) -> None:
    for case in gen.rows["case"]:
        if gen.rng.random() < 0.7:
            continue
        for kind in gen.rng.sample(REQUEST_KINDS, gen.rng.randint(1, 2)):
            gen.add("special_request", {gen.fk("case"): case["id"], "kind": kind,
                                        "status": gen.rng.choices(("requested", "confirmed", "declined"), (3, 5, 1))[0],
                                        "requested_at": iso(gen.between(case["created_at"]))})


FILL = {"travel_document": fill_documents, "segment": fill_segments, "special_request": fill_requests}
