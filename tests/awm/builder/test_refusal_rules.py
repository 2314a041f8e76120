"""A refusal names the rule that refuses the request, and the rule is the tools' own: an infeasible request
declares the call it asks for and the error code the environment's tool refuses it with, the verification stage
makes that call after the reference (`refused_attempt`) and quarantines a task whose tools take the call or refuse
it for another rule, and the rule's closed set is every code the environment's tools can return."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest

from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.intents.base import intent
from awm.builder.intents.steps import get_case
from awm.builder.phrasing import Realiser
from awm.builder.taskgen import _task
from awm.builder.toolgen import canonical_tool_defs, dialect_for, error_codes, generate_tools
from awm.builder.world import make_scenario, plan_world
from awm.contracts import TaskSet
from awm.store import ArtifactStore
from tests.awm.builder.test_intents import prove
from tests.conftest import build_environment

WORLD = ("accounting_firm", 0)  # a world where cancel_too_late finds a case past cancelling


@pytest.mark.parametrize("domain", ["accounting_firm", "k12_school", "retail_banking", "dental_clinic",
                                    "online_course_platform", "coffee_roastery", "electronics_store"])
def test_the_rules_closed_set_is_every_code_the_written_tools_return(domain):
    """Equal to the codes the environment's tools.py writes (a template's branch its bindings rule out, such as
    education's registration holds in a world without them, returns nothing)."""
    for slot in (0, 1):
        plan = plan_world(make_scenario(domain, slot))
        source, _ = generate_tools(plan)
        written = {code.lower() for code in re.findall(r"error\(\s*['\"]([a-z_]+)['\"]", source)}
        assert set(error_codes(canonical_tool_defs(plan))) == written, (domain, slot)


@pytest.fixture(scope="module")
def proven(tmp_path_factory):
    """cancel_too_late planned in its world three ways (as declared; naming another rule of the world; with a
    read for the refused call), each its own task, proven by the verification stage."""
    store = ArtifactStore(tmp_path_factory.mktemp("rules"))
    outcomes = build_environment(store, *WORLD)
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    env_id = outcomes[0].env_id
    plan = plan_world(make_scenario(*WORLD))
    rows = generate_rows(plan)
    dialect = dialect_for(plan)
    realiser = Realiser(plan.scenario.labels, random.Random(0))

    def planned(**change):
        built = INTENTS["cancel_too_late"].build(World(plan, rows, random.Random(0)))
        assert built is not None and built.refused is not None
        return replace(built, **change) if change else built

    honest = planned()
    (call, code) = honest.refused
    other = next(c for c in error_codes(list(dialect.tools.values())) if c != code)
    case_id = next(iter(call[1].values()))
    world = World(plan, rows, random.Random(0))
    variants = {"honest": honest, "other_rule": planned(refused=(call, other)),
                "accepted": planned(refused=(get_case(world, world.by_id("case", case_id)), code))}
    tasks = [_task(f"t{n:02d}", [p], realiser.instruction([p.say]), dialect) for n, p in enumerate(variants.values(), 1)]
    report = prove(store, env_id, TaskSet(env_id=env_id, acting_user="Test User, Manager", tasks=tasks))
    return dict(zip(variants, report.tasks)), dict(zip(variants, tasks)), code, other


def test_a_refusal_the_tools_give_is_proven_and_another_rule_rejected(proven):
    reports, tasks, code, _ = proven
    report, task = reports["honest"], tasks["honest"]
    assert report.publishable, report.failure_check()
    assert report.proofs["refused_attempt"].tried == report.proofs["refused_attempt"].right == 1
    rules = next(s for s in task.answer_schema if s.type == "rule")
    wrong = report.proofs["wrong_rule"]
    assert wrong.tried == wrong.right >= len(rules.values) - 1 >= 2  # every other rule, typed, and one in prose
    assert f"{code.replace('_', ' ')}" in task.reference_answer


def test_a_task_whose_tools_refuse_for_another_rule_is_quarantined(proven):
    reports, _, code, other = proven
    report = reports["other_rule"]
    assert not report.publishable
    assert report.proofs["refused_attempt"].right == 0
    assert f"returned the error {code!r}; the task's rule is {other!r}" in report.proofs["refused_attempt"].wrong[0]


def test_a_task_whose_tools_take_the_refused_call_is_quarantined(proven):
    reports, *_ = proven
    report = reports["accepted"]
    assert not report.publishable
    assert "was not refused" in report.proofs["refused_attempt"].wrong[0]


def test_a_rule_no_tool_of_the_world_returns_is_refused_when_the_task_is_made():
    plan = plan_world(make_scenario(*WORLD))
    rows = generate_rows(plan)
    built = INTENTS["cancel_too_late"].build(World(plan, rows, random.Random(0)))
    built.refused = (built.refused[0], "no_such_rule")
    with pytest.raises(ValueError, match=r"no tool of this environment returns the error code 'no_such_rule' "
                                         r"\(its codes: .*invalid_state"):
        _task("t01", [built], "Cancel it, please, right away.", dialect_for(plan))


def test_an_infeasible_request_must_name_the_refused_call_unless_no_tool_can_refuse_it():
    plan = plan_world(make_scenario(*WORLD))
    world = World(plan, generate_rows(plan), random.Random(0))
    honest = INTENTS["cancel_too_late"].build(world)
    try:
        intent("infeasible")(lambda w: replace(honest, refused=None))
        with pytest.raises(ValueError, match="its plan declares no refused call"):
            INTENTS["<lambda>"].build(world)
        del INTENTS["<lambda>"]
        intent("infeasible", rule=False)(lambda w: replace(honest))
        with pytest.raises(ValueError, match="registered with rule=False, its plan declares a refused call"):
            INTENTS["<lambda>"].build(world)
    finally:
        INTENTS.pop("<lambda>", None)
    unruled = [name for name, spec in INTENTS.items() if spec.shape == "infeasible" and not spec.rule]
    assert unruled == ["cancel_without_authority", "cancel_own_and_unauthorised"]


def test_a_plan_made_into_a_task_twice_names_its_rule_once():
    plan = plan_world(make_scenario(*WORLD))
    built = INTENTS["cancel_too_late"].build(World(plan, generate_rows(plan), random.Random(0)))
    first = _task("t01", [built], "Cancel it, please, right away.", dialect_for(plan))
    again = _task("t01", [built], "Cancel it, please, right away.", dialect_for(plan))
    assert first == again and [s.type for s in again.answer_schema].count("rule") == 1
    assert again.reference_answer.count("The rule that refuses it") == 1
