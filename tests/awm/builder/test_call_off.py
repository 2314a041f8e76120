"""A day's bookings at one site called off (awm/builder/intents/shapes.call_off_day: a charger out of service, an office
closed, an instructor ill, a frost warning, severe weather, a maintenance closure, a training day): every booking
there that day that can still be cancelled is cancelled with a note; where the business refunds a cancelled booking,
what was captured on each is refunded (the agent lists each one's payments); where it sends messages, each person is
told. Each request is planned in many worlds, reads as one staff message, is proven by the verification stage, and an
agent that stops after the cancellations (no refunds, or no messages) scores zero."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from awm.builder.intents.shapes import OUTAGE_REASON
from awm.builder.intents.steps import captured
from tests.awm.builder.families import (
    assert_proven_in_each_voice,
    judged,
    planned_requests,
    prove_family,
    read_aloud,
    wrong_runs,
)

CALLED_OFF = ("energy_charger_outage", "gov_office_closure", "fitness_class_cancellation", "farm_frost_cancellations",
              "travel_weather_cancellations", "realestate_closed_day", "edu_centre_closed_day", "fin_office_closed_day",
              "mkt_venue_closed_day")


def test_each_day_called_off_cancels_refunds_and_tells_every_booking_of_that_day():
    planned = Counter()
    for name, seed, world, built in planned_requests(CALLED_OFF, 1, 2):
        cancel = world.n.action("case", world.fl.cancel.verb)
        cancelled = [world.by_id("case", a[world.fk("case")]) for t, a in built.calls if t == cancel]
        assert cancelled and len({c[world.fk("party")] for c in cancelled}) == len(cancelled), built.calls
        refunded = [a[world.pk("payment")] for t, a in built.calls if t == world.n.action("payment", "refund")]
        listed = [a[world.fk("case")] for t, a in built.calls if t == world.n.list("payment")]
        told = [a[world.fk("party")] for t, a in built.calls
                if world.has("notification") and t == world.n.create("notification")]
        if world.items_are("refundable") and world.fl.cancel.target in world.fl.refundable:
            assert sorted(listed) == sorted(c["id"] for c in cancelled)
            assert sorted(refunded) == sorted(p["id"] for c in cancelled for p in captured(world, c))
            assert all("{reason}" in clause for clause in built.say.clauses)
            assert built.say.slots["reason"] == f"'{OUTAGE_REASON}'"
        else:
            assert not listed and not refunded and "reason" not in built.say.slots
        if world.has("notification"):
            assert sorted(told) == sorted(c[world.fk("party")] for c in cancelled) and built.messages
        else:
            assert not told and "subject" not in built.say.slots
        # the day as a person writes it ("June 4, 2025"), never as the database keeps it
        assert not any(re.search(r"\d{4}-\d{2}-\d{2}", str(v)) for v in built.say.slots.values()), built.say.slots
        read_aloud(world.plan, built, ("staff",), seed, [])
        planned[name] += 1
    assert sum(planned.values()) >= 15 and len(planned) == len(CALLED_OFF), planned


@pytest.fixture(scope="module")
def proven(tmp_path_factory, request):
    return prove_family(tmp_path_factory, request.config, CALLED_OFF, "called_off", 1)


def test_every_day_called_off_passes_every_proof(proven):
    assert_proven_in_each_voice(proven[1], {name: ("staff",) for name in CALLED_OFF})


def test_cancelling_without_the_refunds_or_the_messages_scores_zero(proven):
    """The cancellations and notes alone; everything but the messages: each incomplete where the request asks for
    what it leaves out, while the reference is complete."""
    checked = 0
    for name in CALLED_OFF:
        for store, env_id, plan, world, built, task in wrong_runs(proven, name):
            refund = world.n.action("payment", "refund")
            message = world.n.create("notification") if world.has("notification") else None
            wrong = []
            if any(t == refund for t, _ in built.calls):
                wrong.append([c for c in built.calls if c[0] not in (refund, message)])
            if any(t == message for t, _ in built.calls):
                wrong.append([c for c in built.calls if c[0] != message])
            for calls in wrong:
                bad, good = judged(store, env_id, plan, task, calls)
                assert good["complete"] and not bad["complete"], (name, calls, bad, good)
                checked += 1
    assert checked >= 2, checked
