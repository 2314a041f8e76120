"""Requests about the hospitality category's own entities (awm/builder/modules/packs/hospitality.py), each needing the
tables it asks about."""

from __future__ import annotations

from awm.builder.intents.base import Plan, World, intent
from awm.builder.intents.entities.common import TODAY, active_party
from awm.builder.intents.shapes import define, reroute_to_quietest_site, ticket_for_case, upgrade_to_priciest
from awm.builder.phrasing import Say, money, quote
from awm.contracts import Goal


def _room_ref(w: World, room: dict) -> tuple[dict, dict]:
    site = w.by_id("site", room[w.fk("site")])
    same = [r for r in w.rows["room"] if r[w.fk("site")] == site["id"] and r["room_number"] == room["room_number"]]
    return site, ({"ok": True} if len(same) == 1 else {})


@intent("action", categories=("hospitality",), needs=("room",))
def hotel_room_out_of_service(w: World) -> Plan | None:
    options = [r for r in w.rows["room"] if r["status"] == "available" and _room_ref(w, r)[1]]
    room = w.pick(options)
    if room is None:
        return None
    site = w.by_id("site", room[w.fk("site")])
    reason = w.pick(["Leaking shower", "Broken window", "Carpet replacement", "Electrical fault"])
    calls = [w.find_site(site), (w.n.list("room"), {w.fk("site"): site["id"], "room_number": room["room_number"]}),
             (w.n.action("room", "take_out_of_service"), {w.pk("room"): room["id"], "reason": reason})]
    goal = Goal(kind="row_equals", table=w.table("room"), pk=room["id"],
                expect={"status": "out_of_service", "out_of_service_reason": {"text": reason}})
    say = Say("do", (
        "take {ROOM} {number} at {site} out of service: {reason}",
        "{ROOM} {number} at {site} can't be sold || put it out of service with the reason {reason}",
    ), {"number": room["room_number"], "site": site["name"], "reason": quote(reason)})
    return Plan(calls, [goal], say, targets={("room", room["id"])})


@intent("infeasible", categories=("hospitality",), needs=("room",))
def hotel_inspect_dirty_room(w: World) -> Plan | None:
    room = w.pick([r for r in w.rows["room"] if r["housekeeping"] == "dirty" and _room_ref(w, r)[1]])
    if room is None:
        return None
    site = w.by_id("site", room[w.fk("site")])
    say = Say("do", (
        "mark {ROOM} {number} at {site} as inspected",
        "housekeeping says {ROOM} {number} at {site} is ready || record it as inspected",
    ), {"number": room["room_number"], "site": site["name"]})
    return Plan([w.find_site(site), (w.n.list("room"), {w.fk("site"): site["id"], "room_number": room["room_number"]})],
                [w.text_answer("dirty", ["clean", "dirty", "inspected"])], say,
                answer="The room is still dirty; it has to be cleaned first.",
                targets={("room", room["id"])},
                refused=((w.n.action("room", "set_housekeeping"), {w.pk("room"): room["id"], "housekeeping": "inspected"}),
                         "invalid_state"))


@intent("action", categories=("hospitality",), needs=("charge",))
def hotel_post_charge(w: World) -> Plan | None:
    fl = w.fl
    open_ = tuple(s for s in fl.statuses if s not in ("cancelled", fl.initial))
    case = w.pick([c for c in w.rows["case"] if c["status"] in open_ and active_party(w, c) is not None])
    if case is None:
        return None
    kind = w.pick(["minibar", "room_service", "parking", "laundry", "spa"])
    amount = float(w.pick([12.5, 18.0, 24.0, 35.0, 42.5, 60.0]))
    description = {"minibar": "Minibar", "room_service": "Room service dinner", "parking": "Overnight parking",
                   "laundry": "Laundry service", "spa": "Spa treatment"}[kind]
    ref = w.party_ref(w.party_of(case))
    case_np, lookup = w.case_ref(case, ref)
    calls = [*lookup, (w.n.create("charge"), {w.fk("case"): case["id"], "kind": kind, "amount": amount,
                                              "description": description})]
    goal = Goal(kind="rows_created", table=w.table("charge"), count=1, expect={
        w.fk("case"): case["id"], "kind": kind, "amount": {"approx": amount}, "description": {"text": description},
        "status": "posted"})
    say = Say("do", (
        "post {a CHARGE} of {amount} for {what} to {case}",
        "add {amount} for {what} to {case} as {a CHARGE}",
    ), {"amount": money(amount), "what": description.lower(), "case": case_np}, party=ref, voices=("staff",))
    return Plan(calls, [goal], say, targets={("case", case["id"])})


@intent("infeasible", categories=("hospitality",), needs=("room_block",))
def hotel_resize_released_block(w: World) -> Plan | None:
    block = w.pick([b for b in w.rows["room_block"] if b["status"] != "held"])
    if block is None:
        return None
    rooms = block["rooms_held"] + w.pick([2, 4, 5])
    say = Say("do", (
        "the group needs {rooms} rooms || change {ROOM_BLOCK} {code} to hold {rooms}",
        "set {ROOM_BLOCK} {code} to {rooms} rooms",
    ), {"code": block["code"], "rooms": rooms})
    return Plan([(w.n.list("room_block"), {"code": block["code"]})], [w.status_answer(block["status"])], say,
                answer=f"That block is already {block['status'].replace('_', ' ')}, so it no longer holds rooms to "
                       "change.", targets={("room_block", block["id"])},
                refused=((w.n.action("room_block", "resize"), {w.pk("room_block"): block["id"], "rooms_held": rooms}),
                         "invalid_state"))


@intent("action", categories=("hospitality",), needs=("room_block",))
def hotel_resize_block(w: World) -> Plan | None:
    block = w.pick([b for b in w.rows["room_block"] if b["status"] == "held" and b["release_on"] > TODAY])
    if block is None:
        return None
    rooms = max(2, block["rooms_held"] + w.pick([-3, -2, 2, 5]))  # never "1 rooms"
    calls = [(w.n.list("room_block"), {"code": block["code"]}),
             (w.n.action("room_block", "resize"), {w.pk("room_block"): block["id"], "rooms_held": rooms})]
    goal = Goal(kind="row_equals", table=w.table("room_block"), pk=block["id"], expect={"rooms_held": rooms})
    say = Say("do", (
        "the group on {ROOM_BLOCK} {code} now needs {rooms} rooms || change the block to hold that many",
        "set {ROOM_BLOCK} {code} to {rooms} rooms",
    ), {"code": block["code"], "rooms": rooms})
    return Plan(calls, [goal], say, targets={("room_block", block["id"])})


# --- requests over the generic modules and lifecycles, most built on a shape of awm/builder/intents/shapes.py;
# one that other categories share names them all and is kept in the folder of the first it names ----------

define("hotel_room_upgrade", "chained", ("hospitality", "transportation", "travel"), lambda w: upgrade_to_priciest(
    w, (
        "upgrade {case} to the most expensive active option in the same {CATEGORY} as what is booked now, keeping "
        "the quantity, and tell me the new total",
        "{they} would like the best we have || swap the {ITEM} on {case} for the priciest active {ITEM} of the "
        "same {CATEGORY} (same quantity) and give me the new total",
    )), flavours=("reservation", "appointment"))
define("hotel_noise_complaint", "action", ("hospitality",), lambda w: ticket_for_case(
    w, ("Noise complaint: {code}", "Disturbance reported for {code}"), "high",
    ("Noise complaint logged", "Guest asked for a quieter room"), (
        "{they} complained about noise during {case} || open a high-priority {TICKET} with the subject {subject} "
        "assigned to {staff}, and note {note} on the {CASE}",
        "log {a TICKET} titled {subject} at high priority for {staff}, and add the note {note} to {case}",
    ), assign=True, open_only=True), needs=("ticket",))


# a site that cannot take more work: a case moved to the least busy other site (shapes.reroute_to_quietest_site)
define("hosp_kitchen_at_capacity", "chained", ("hospitality",), lambda w: reroute_to_quietest_site(
    w, ("Moved: kitchen at capacity", "Rerouted to balance the kitchens"), (
        "the kitchen at {site} is at capacity || move {CASE} {code} to whichever other {SITE} has the fewest "
        "{CASE/pl} that are {open}, and note {note} on it",
        "transfer {CASE} {code} from {site} to the other {SITE} with the fewest {open} {CASE/pl}, with the note {note}",
    )), flavours=("fulfillment",))
