"""The blocking fact a refusal must give is one the tools reveal about this world, not a rule constant that a
policy learns once from the corpus and repeats without a call (issue: rewards that cannot be gamed)."""

from __future__ import annotations

import random
from collections import defaultdict
from functools import cache

import pytest
from pydantic import ValidationError

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.toolgen import canonical_tool_defs, error_codes
from awm.builder.world import make_scenario, plan_world
from tests.awm.builder.test_category_entities import ENTITY_INTENT_CATEGORY
from tests.awm.builder.test_intents import _tasks_for
from tests.awm.builder.worlds import worlds_with

INFEASIBLE = sorted(name for name, spec in INTENTS.items() if spec.shape == "infeasible")

# Requests whose blocking fact is still the rule itself (a window or a limit that is the same in every world of
# the category): the rule's figure is what the tool's refusal says, and no row of the world holds a better one.
RULE_CONSTANTS = {"bank_dispute_old_charge", "fit_freeze_too_long", "realestate_short_notice",
                  "mkt_round_over_limit"}

WORLDS = [("dental_clinic", 0), ("primary_care", 0), ("auto_dealership", 0), ("auto_dealership", 1),
          ("auto_repair", 2), ("life_insurance", 1), ("health_insurance", 0), ("auto_insurance", 1),
          ("airline_carrier", 1), ("travel_agency", 2), ("online_retail", 0), ("online_retail", 1),
          ("fashion_boutique", 2), ("retail_banking", 0), ("gym_membership", 2), ("residential_leasing", 0),
          *worlds_with("beneficiary", n=4)]


@cache  # two tests read the same values (never change them): built once
def _refusal_values() -> dict[str, list]:
    values: dict[str, list] = defaultdict(list)
    for domain, slot in WORLDS:
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        try:
            taskset, ids = _tasks_for(plan, rows, INFEASIBLE)
        except ValidationError as exc:  # no infeasible request fits this world: an empty task set
            if exc.errors()[0]["loc"] != ("tasks",) or exc.errors()[0]["type"] != "too_short":
                raise
            continue
        by_id = {t.task_id: t for t in taskset.tasks}
        for name, task_id in ids.items():
            task = by_id[task_id]
            refusals = [s.name for s in task.answer_schema if s.refusal]
            assert refusals, f"{name}: an infeasible request publishes no refusal slot"
            goals = {g.slot or f"answer_{i + 1}": g for i, g in
                     enumerate(g for g in task.goals if g.kind == "answer")}
            values[name].extend(goals[s].expect["value"] for s in refusals if s in goals)
    return values


@pytest.mark.slow
def test_no_refusal_is_one_number_repeated_in_every_world():
    values = _refusal_values()
    seen = {name: v for name, v in values.items() if len(v) >= 3}
    assert len(seen) >= 4, sorted(seen)  # the sample reaches the requests it is meant to judge
    constant = sorted(name for name, v in seen.items()
                      if len(set(map(str, v))) == 1 and isinstance(v[0], int | float) and name not in RULE_CONSTANTS)
    assert not constant, {name: values[name] for name in constant}


@pytest.mark.slow
def test_the_date_and_amount_refusals_give_the_rows_fact():
    values = _refusal_values()
    for name in ("return_too_late", "health_late_claim", "insurance_renew_too_early",
                 "travel_verify_expiring_document"):
        assert values.get(name), f"{name}: not drawn in the sample worlds"
        assert all(isinstance(v, str) and len(v) == 10 and v[4] == "-" for v in values[name]), (name, values[name])
    assert values.get("auto_warranty_over_limit")
    assert all(isinstance(v, float) and v > 5000 for v in values["auto_warranty_over_limit"])


def test_every_infeasible_request_about_category_entities_names_the_call_and_its_code():
    """Each category's infeasible request declares the call it asks for (a tool of its world, given every argument
    the tool requires and no other) and an error code those tools can return; the verification stage makes the
    call and checks the code (test_category_entities proves them)."""
    pending = {n for n in INFEASIBLE if n in ENTITY_INTENT_CATEGORY}
    assert len(pending) >= 40, sorted(pending)
    for domain, seed in DOMAIN_SEEDS.items():
        for slot in range(3) if any(seed.category in INTENTS[n].categories for n in pending) else ():
            plan = plan_world(make_scenario(domain, slot))
            world = World(plan, generate_rows(plan), random.Random(0))
            tools = {t.name: t for t in canonical_tool_defs(plan)}
            for name in sorted(n for n in pending if INTENTS[n].fits(world)):
                built = INTENTS[name].build(world)
                if built is None:
                    continue
                assert built.refused is not None, f"{name}: no refused call declared"
                (tool, arguments), code = built.refused
                assert tool in tools, (name, tool)
                params = tools[tool].params
                assert {p.name for p in params if p.required} <= set(arguments) <= {p.name for p in params}, \
                    (name, tool, sorted(arguments))
                assert code in error_codes(list(tools.values())), (name, code)
                pending.discard(name)
    assert not pending, f"never built in a catalogue world: {sorted(pending)}"
