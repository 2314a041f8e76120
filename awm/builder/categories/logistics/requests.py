"""Requests about the logistics category's own entities (awm/builder/modules/packs/logistics.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import BOTH, TODAY, active_party
from awm.builder.intents.shapes import define, ticket_for_case
from awm.builder.intents.steps import add_note, get_case
from awm.builder.phrasing import Say, count, quote
from awm.contracts import Goal


@intent("chained", categories=("logistics",), needs=("rate_quote",))
def logistics_accept_cheapest_quote(w: World) -> Plan | None:
    """Of a person's offered, still valid quotes for one lane, the cheapest accepted and the others declined."""
    lanes: dict[tuple, list[dict]] = {}
    for q in w.rows["rate_quote"]:
        if q["status"] == "offered" and q["valid_until"] >= TODAY:
            lanes.setdefault((q[w.fk("party")], q["origin_city"], q["destination_city"]), []).append(q)
    options = [(k, sorted(v, key=lambda q: q["amount"])) for k, v in lanes.items()
               if active_party(w, v[0]) is not None and len(v) <= 4]
    options = [(k, v) for k, v in options if len(v) == 1 or v[0]["amount"] < v[1]["amount"]]
    if not options:
        return None
    (party_id, origin, dest), quotes = w.rng.choice(options)
    party = w.by_id("party", party_id)
    ref = w.party_ref(party)
    calls = [w.find_party(ref), (w.n.list("rate_quote"), {w.fk("party"): party_id, "origin_city": origin,
                                                          "destination_city": dest, "status": "offered"}),
             (w.n.action("rate_quote", "accept"), {w.pk("rate_quote"): quotes[0]["id"]}),
             *[(w.n.action("rate_quote", "decline"), {w.pk("rate_quote"): q["id"]}) for q in quotes[1:]]]
    goals = [Goal(kind="row_equals", table=w.table("rate_quote"), pk=quotes[0]["id"], expect={"status": "accepted"}),
             *[Goal(kind="row_equals", table=w.table("rate_quote"), pk=q["id"], expect={"status": "declined"})
               for q in quotes[1:]]]
    say = Say("do", (
        "accept the cheapest of {their} open {RATE_QUOTE/pl} from {origin} to {dest} and decline any others",
        "{they} want to book {origin} to {dest} || accept the lowest of {their} offered {RATE_QUOTE/pl} for that "
        "lane and decline the rest",
    ), {"origin": origin, "dest": dest}, party=ref, voices=BOTH)
    return Plan(calls, goals, say, targets={("party", party_id)}).derive(w.n.action("rate_quote", "accept"),
                                                                        w.pk("rate_quote"))


@intent("infeasible", categories=("logistics",), needs=("rate_quote",))
def logistics_accept_lapsed_quote(w: World) -> Plan | None:
    quote_ = w.pick([q for q in w.rows["rate_quote"] if q["status"] == "expired"])
    if quote_ is None:
        return None
    say = Say("do", (
        "accept {RATE_QUOTE} {number} for the {origin} to {dest} move",
        "the customer said yes to {RATE_QUOTE} {number} || accept it",
    ), {"number": quote_["number"], "origin": quote_["origin_city"], "dest": quote_["destination_city"]})
    return Plan([(w.n.list("rate_quote"), {"number": quote_["number"]})], [w.status_answer("expired")], say,
                answer="That quote has expired, so it is too late to take it up.",
                targets={("rate_quote", quote_["id"])},
                refused=((w.n.action("rate_quote", "accept"), {w.pk("rate_quote"): quote_["id"]}), "invalid_state"))


@intent("action", categories=("logistics",), needs=("exception",))
def logistics_report_exception(w: World) -> Plan | None:
    shipment = w.pick([s for s in w.rows["shipment"] if s["status"] in ("booked", "in_transit")])
    if shipment is None:
        return None
    kind = w.pick(["delay", "damage", "address_issue", "customs_hold"])
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}),
             (w.n.create("exception"), {w.fk("shipment"): shipment["id"], "kind": kind})]
    goals = [Goal(kind="rows_created", table=w.table("exception"), count=1,
                  expect={w.fk("shipment"): shipment["id"], "kind": kind, "status": "open"}),
             Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"], expect={"status": "exception"})]
    words = {"delay": "is running late", "damage": "arrived at a hub damaged", "address_issue":
             "has a delivery address problem", "customs_hold": "is held at customs"}[kind]
    say = Say("do", (
        "{SHIPMENT} {number} " + words + " || report a {kind} {EXCEPTION} on it",
        "log a {kind} {EXCEPTION} against {SHIPMENT} {number}",
    ), {"number": shipment["number"], "kind": kind.replace("_", " ")})
    return Plan(calls, goals, say, targets={("shipment", shipment["id"])})


@intent("action", categories=("logistics",), needs=("exception",))
def logistics_resolve_exception(w: World) -> Plan | None:
    options = []
    for ex in w.rows["exception"]:
        if ex["status"] != "open":
            continue
        shipment = w.by_id("shipment", ex[w.fk("shipment")])
        if sum(e["status"] == "open" for e in w.children("exception", "shipment", shipment["id"])) == 1:
            options.append((ex, shipment))
    pick = w.pick(options)
    if pick is None:
        return None
    ex, shipment = pick
    resolution = w.pick(["Goods re-inspected and released", "New delivery address confirmed", "Carrier rebooked",
                         "Customs paperwork corrected"])
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}),
             (w.n.list("exception"), {w.fk("shipment"): shipment["id"], "status": "open"}),
             (w.n.action("exception", "resolve"), {w.pk("exception"): ex["id"], "resolution": resolution})]
    goals = [Goal(kind="row_equals", table=w.table("exception"), pk=ex["id"],
                  expect={"status": "resolved", "resolution": {"text": resolution}})]
    if shipment["status"] == "exception":
        goals.append(Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"],
                          expect={"status": "in_transit"}))
    say = Say("do", (
        "close the open {EXCEPTION} on {SHIPMENT} {number} with the resolution {resolution}",
        "the problem with {SHIPMENT} {number} is sorted || resolve its open {EXCEPTION}: {resolution}",
    ), {"number": shipment["number"], "resolution": quote(resolution)})
    return Plan(calls, goals, say, targets={("shipment", shipment["id"])})


@intent("chained", categories=("logistics",), needs=("shipment",))
def logistics_most_punctual_carrier(w: World) -> Plan | None:
    """A booked shipment given to the active carrier with the best on-time rate (found by listing them)."""
    carriers = sorted((c for c in w.rows["carrier"] if c["active"]), key=lambda c: -c["on_time_rate"])
    if len(carriers) < 2 or carriers[0]["on_time_rate"] == carriers[1]["on_time_rate"]:
        return None
    best = carriers[0]
    shipment = w.pick([s for s in w.rows["shipment"] if s["status"] == "booked" and s[w.fk("carrier")] != best["id"]])
    if shipment is None:
        return None
    calls = [(w.n.list("shipment"), {"number": shipment["number"]}), (w.n.list("carrier"), {"active": 1}),
             (w.n.action("shipment", "assign_carrier"), {w.pk("shipment"): shipment["id"], w.fk("carrier"): best["id"]})]
    goal = Goal(kind="row_equals", table=w.table("shipment"), pk=shipment["id"], expect={w.fk("carrier"): best["id"]})
    say = Say("do", (
        "give {SHIPMENT} {number} to whichever active {CARRIER} has the best on-time rate",
        "{SHIPMENT} {number} must not be late || hand it to the most punctual active {CARRIER}",
    ), {"number": shipment["number"]})
    return Plan(calls, [goal], say, targets={("shipment", shipment["id"])}).derive(
        w.n.action("shipment", "assign_carrier"), w.fk("carrier"))


@intent("question", categories=("logistics",), needs=("leg",))
def logistics_legs_left(w: World) -> Plan | None:
    options = []
    for s in w.rows["shipment"]:
        legs = w.children("leg", "shipment", s["id"])
        if s["status"] in ("booked", "in_transit") and len(legs) >= 2:
            options.append((s, legs))
    pick = w.pick(options)
    if pick is None:
        return None
    shipment, legs = pick
    left = sum(leg["status"] != "arrived" for leg in legs)
    say = Say("ask", (
        "how many legs of {SHIPMENT} {number} have not arrived yet",
        "for {SHIPMENT} {number}, how many of its {LEG/pl} are still to arrive",
    ), {"number": shipment["number"]})
    return Plan([(w.n.list("shipment"), {"number": shipment["number"]}),
                 (w.n.get("shipment"), {w.pk("shipment"): shipment["id"]})],
                [w.number_answer(left)], say, answer=count(left, "leg"), targets={("shipment", shipment["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("logistics_lost_shipment", "action", ("logistics", "transportation"), lambda w: ticket_for_case(
    w, ("Lost shipment {code}", "Missing delivery: {code}"), "urgent",
    ("Trace requested with the carrier", "Claim opened for lost goods"), (
        "{case} never arrived || open an urgent {TICKET} for {them} with the subject {subject} and note {note} on "
        "the {CASE}",
        "file {a TICKET} titled {subject} at urgent priority and add the note {note} to {case}",
    ), statuses=("shipped", "delivered")), flavours=("fulfillment",), needs=("ticket",))


@intent("action", categories=("logistics", "commerce"), flavours=("fulfillment",), needs=("address",))
def logistics_redirect_delivery(w: World) -> Plan | None:
    """A new primary delivery address for a person, and a note on their order in transit (not where the customers
    are organisations: the request is put as their not being home)."""
    if w.organisation:
        return None
    cases = [c for c in w.rows["case"] if c["status"] in ("confirmed", "shipped") and w.party_of(c)["status"] == "active"]
    case = w.pick(cases)
    if case is None:
        return None
    party = w.party_of(case)
    street = f"{w.rng.randint(10, 999)} {w.pick(['Harbor', 'Mill', 'Station', 'Bridge'])} Road"
    city = w.pick(["Portland", "Madison", "Raleigh", "Boise"])
    postal = f"{w.rng.randint(10000, 99999)}"
    note = f"Redirect to {street}, {city}"
    ref = w.party_ref(party)
    case_np, lookup = w.case_ref(case, ref)
    note_call, note_goal = add_note(w, case, note)
    calls = [*lookup, get_case(w, case),
             (w.n.create("address"), {w.fk("party"): party["id"], "kind": "home", "street": street, "city": city,
                                      "postal_code": postal, "is_primary": True}), note_call]
    goals = [Goal(kind="rows_created", table=w.table("address"), count=1,
                  expect={w.fk("party"): party["id"], "kind": "home", "street": street, "city": city,
                          "postal_code": postal, "is_primary": 1}), note_goal]
    say = Say("do", (
        "{they} won't be home for {case} || make {street}, {city} {postal} {their} primary home {ADDRESS} and add "
        "the note {note} to the {CASE}",
        "redirect {case}: add a primary home {ADDRESS} at {street}, {city} {postal} and note {note} on it",
    ), {"case": case_np, "street": street, "city": city, "postal": postal, "note": quote(note)}, party=ref,
        voices=BOTH)
    return Plan(calls, goals, say, targets={("case", case["id"])})
