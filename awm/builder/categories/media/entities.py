"""What only a publisher, label, streamer or bookshop keeps: content licences (extended only while still in
force), royalty statements (paid once approved, and only above a minimum), scheduled title releases (postponed,
never brought forward) and live events with their tickets (never more seats than the room holds); with the rules
their tools enforce."""

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

CATEGORY = "media"
LABELS = {"content_licence": "content licence", "royalty_statement": "royalty statement",
          "title_release": "title release", "live_event": "live event", "event_ticket": "event ticket"}
ALT_LABELS = {"content_licence": "rights licence", "royalty_statement": "royalty report",
              "title_release": "release date", "live_event": "public event", "event_ticket": "event booking"}
GROUPS = {
    # a bookshop sells titles others license
    "rights": Group(("content_licence",), not_for=("independent_bookstore",)),
    # a streamer's and a bookshop's customers are not paid royalties
    "royalties": Group(("royalty_statement",), not_for=("video_streaming_service", "independent_bookstore")),
    "releases": Group(("title_release",)),
    # a streamer holds no readings, signings or gigs
    "events": Group(("live_event", "event_ticket"), not_for=("video_streaming_service",)),
}
CODED = ()

TITLES = ("The Salt Road", "Midnight Harbor", "Paper Lanterns", "A Winter in Lisbon", "Northern Lights Suite",
          "The Glass Orchard", "Echoes of Avalon", "Small Hours", "The Cartographer's Daughter", "Velvet Static",
          "River of Ash", "Summer at Hollow Creek", "The Last Lighthouse", "Neon Prairie", "Quiet Machines",
          "Letters from Kyoto", "The Copper Crown", "Wild Honey", "Tidewater", "The Long Goodbye Tour")
TERRITORIES = ("north_america", "europe", "asia_pacific", "latin_america", "worldwide")
COUNTERPARTIES = {"video_streaming_service": ("Harbor Lane Studios", "Bluebird Pictures", "Kestrel Media",
                                             "Lumen Distribution"),
                  "book_publishing": ("Meridian Books", "Northfield Press", "Lanternlight Audio", "Verso Films"),
                  "music_label": ("Saltwater Records", "Atlas Music Group", "Bluebird Pictures", "Kestrel Media")}
LICENCE_STATUSES = ("pending", "active", "expired", "terminated")
STATEMENT_STATUSES = ("draft", "approved", "paid", "on_hold")
PERIODS = ("2024-Q3", "2024-Q4", "2025-Q1")
PAYOUT_MINIMUM = 25.0  # an approved statement below this is carried into the next period, not paid
RELEASE_STATUSES = ("scheduled", "released", "cancelled")
FORMATS = {"video_streaming_service": ("series", "film", "documentary"),
           "book_publishing": ("hardcover", "paperback", "ebook", "audiobook"),
           "music_label": ("album", "single", "EP", "vinyl reissue"),
           "independent_bookstore": ("hardcover", "paperback", "signed edition")}
EVENT_KINDS = ("signing", "reading", "launch", "concert", "listening_party")
KINDS = {"book_publishing": ("launch", "reading", "signing"), "music_label": ("concert", "listening_party", "signing"),
         "independent_bookstore": ("signing", "reading", "launch")}
EVENT_NAMES = {"signing": "Book Signing", "reading": "Author Reading", "launch": "Launch Night",
               "concert": "Live in Concert", "listening_party": "Listening Party"}
EVENT_STATUSES = ("on_sale", "cancelled", "held")


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the content_licence, royalty_statement, title_release, live_event and event_ticket
    tables."""
    party_fk = f"{snake(L['party'])}_id"
    ents: dict[str, Entity] = {}
    if has("content_licence"):
        ents["content_licence"] = Entity("content_licence", L["content_licence"], [
            pk_col(), Col("title", "TEXT"), Col("territory", "TEXT", enum=TERRITORIES), Col("counterparty", "TEXT"),
            Col("fee", "REAL", minimum=0), Col("starts_on", "TEXT"), Col("ends_on", "TEXT"),
            Col("status", "TEXT", enum=LICENCE_STATUSES),
        ], "Rights to a title in a territory for a term; only a licence still in force can be extended.",
            filters=("title", "territory", "status"))
    if has("royalty_statement"):
        ents["royalty_statement"] = Entity("royalty_statement", L["royalty_statement"], [
            pk_col(), fk_col(L, "party"), Col("title", "TEXT"), Col("period", "TEXT"),
            Col("units_sold", "INTEGER", minimum=0), Col("royalty_rate", "REAL", minimum=0, maximum=1),
            Col("amount", "REAL", minimum=0), Col("status", "TEXT", enum=STATEMENT_STATUSES),
        ], f"Quarterly royalties owed to {plural(L['party'])}; paid once approved and only from "
           f"{PAYOUT_MINIMUM:.2f} up (less is carried forward).", filters=(party_fk, "title", "period", "status"))
    if has("title_release"):
        ents["title_release"] = Entity("title_release", L["title_release"], [
            pk_col(), Col("title", "TEXT"), Col("format", "TEXT"), Col("release_on", "TEXT"),
            Col("first_announced_on", "TEXT"), Col("status", "TEXT", enum=RELEASE_STATUSES),
        ], "The release calendar; a scheduled release can be postponed, never brought forward.",
            filters=("title", "format", "status"))
    if has("live_event"):
        ents["live_event"] = Entity("live_event", L["live_event"], [
            pk_col(), fk_col(L, "site"), Col("name", "TEXT"), Col("kind", "TEXT", enum=EVENT_KINDS),
            Col("starts_at", "TEXT"), Col("capacity", "INTEGER", minimum=1),
            Col("status", "TEXT", enum=EVENT_STATUSES),
        ], f"Signings, readings, launches and gigs at a {L['site']}, each for a set number of seats.",
            filters=(f"{snake(L['site'])}_id", "kind", "status"), search=("name",))
    if has("event_ticket"):
        ents["event_ticket"] = Entity("event_ticket", L["event_ticket"], [
            pk_col(), fk_col(L, "live_event"), fk_col(L, "party"), Col("seats", "INTEGER", minimum=1, maximum=6),
            Col("status", "TEXT", enum=("booked", "cancelled")), Col("booked_at", "TEXT"),
        ], f"Seats booked by {plural(L['party'])}; the booked seats of a {L['live_event']} never exceed its capacity.",
            filters=(f"{snake(L['live_event'])}_id", party_fk, "status"))
    return ents


def fill_licences(gen: RowGen) -> None:
    counterparties = COUNTERPARTIES.get(gen.sc.domain, COUNTERPARTIES["book_publishing"])
    for title in gen.rng.sample(TITLES, 9):
        for territory in gen.rng.sample(TERRITORIES, gen.rng.choice((1, 2))):
            status = gen.rng.choices(LICENCE_STATUSES, (1, 5, 3, 1))[0]
            start = REFERENCE_NOW - timedelta(days=gen.rng.randint(400, 1100))
            end = start + timedelta(days=365 * gen.rng.choice((1, 2, 3)))
            if status == "active" and end <= REFERENCE_NOW:
                end = REFERENCE_NOW + timedelta(days=gen.rng.randint(20, 400))
            if status == "expired" and end > REFERENCE_NOW:
                end = REFERENCE_NOW - timedelta(days=gen.rng.randint(5, 200))
            if status == "pending":
                start = REFERENCE_NOW + timedelta(days=gen.rng.randint(10, 90))
                end = start + timedelta(days=730)
            gen.add("content_licence", {"title": title, "territory": territory,
                                        "counterparty": gen.rng.choice(counterparties),
                                        "fee": float(gen.rng.randrange(2000, 120000, 500)),
                                        "starts_on": day(start), "ends_on": day(end), "status": status})


def fill_statements(gen: RowGen) -> None:
    for party in gen.rows["party"]:
        if gen.rng.random() < 0.4:
            continue
        title = gen.rng.choice(TITLES)
        rate = gen.rng.choice((0.08, 0.1, 0.12, 0.15, 0.18))
        for period in PERIODS:
            units = gen.rng.choice((gen.rng.randint(5, 40), gen.rng.randint(200, 6000)))
            status = "paid" if period != PERIODS[-1] else gen.rng.choices(STATEMENT_STATUSES, (4, 4, 1, 1))[0]
            gen.add("royalty_statement", {gen.fk("party"): party["id"], "title": title, "period": period,
                                          "units_sold": units, "royalty_rate": rate,
                                          "amount": round(units * gen.rng.uniform(1.5, 3.0) * rate, 2),
                                          "status": status})


def fill_releases(gen: RowGen) -> None:
    formats = FORMATS.get(gen.sc.domain, FORMATS["book_publishing"])
    for title in gen.rng.sample(TITLES, 10):
        status = gen.rng.choices(RELEASE_STATUSES, (6, 3, 1))[0]
        offset = gen.rng.randint(7, 200) if status == "scheduled" else -gen.rng.randint(5, 300)
        release = REFERENCE_NOW + timedelta(days=offset)
        gen.add("title_release", {"title": title, "format": gen.rng.choice(formats), "release_on": day(release),
                                  "first_announced_on": day(release - timedelta(days=gen.rng.randint(60, 240))),
                                  "status": status})


def fill_events(gen: RowGen) -> None:
    parties = [p["id"] for p in gen.rows["party"] if p["status"] == "active"]
    kinds = KINDS.get(gen.sc.domain, EVENT_KINDS)
    for site in gen.rows["site"]:
        for _ in range(gen.rng.randint(2, 3)):
            status = gen.rng.choices(EVENT_STATUSES, (6, 1, 2))[0]
            days = gen.rng.randint(3, 60) if status != "held" else -gen.rng.randint(3, 60)
            kind = gen.rng.choice(kinds)
            event = gen.add("live_event", {
                gen.fk("site"): site["id"], "name": f"{gen.rng.choice(TITLES)}: {EVENT_NAMES[kind]}",
                "kind": kind, "starts_at": iso((REFERENCE_NOW + timedelta(days=days)).replace(hour=19)),
                "capacity": gen.rng.choice((8, 12, 20, 40)), "status": status})
            if gen.has("event_ticket"):
                _fill_tickets(gen, event, parties)


def _fill_tickets(gen: RowGen, event: dict, parties: list[int]) -> None:
    """Bookings up to the capacity, sometimes all of it (a sold-out event)."""
    left = event["capacity"] if gen.rng.random() < 0.3 else event["capacity"] - gen.rng.randint(2, 6)
    for party in gen.rng.sample(parties, min(len(parties), gen.rng.randint(2, 8))):
        seats = min(left, gen.rng.randint(1, 4))
        if seats <= 0:
            break
        left -= seats
        gen.add("event_ticket", {gen.fk("live_event"): event["id"], gen.fk("party"): party, "seats": seats,
                                 "status": "booked", "booked_at": iso(gen.past(5, 40))})


FILL = {"content_licence": fill_licences, "royalty_statement": fill_statements, "title_release": fill_releases,
        "live_event": fill_events}
