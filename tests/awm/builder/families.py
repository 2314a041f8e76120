"""What the tests of a family of single-goal requests share (tests/awm/builder/test_errands.py, test_goals.py): a
built-in world's plan and rows, a request planned in it, the requests proven in worlds that plan them in each voice
they allow, each request read aloud in each voice, and the verdicts on a wrong trajectory beside the reference's."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from functools import cache

from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.phrasing import Realiser, grammar_faults
from awm.builder.taskgen import _party_may, _task, generate_tasks, staff_only_tools
from awm.builder.toolgen import dialect_for
from awm.builder.world import make_scenario, plan_world
from awm.contracts import TaskSet
from awm.quality.realism import RealismText, voice_of, voice_violation
from awm.quality.tasks import task_findings, unstated_values
from awm.runtime.environment import Environment
from awm.store import ArtifactStore
from tests.awm.builder.test_intents import assert_every_proof_passed, prove
from tests.awm.builder.worlds import worlds_planning
from tests.conftest import build_environment
from tests.lanes import sample_in_fast_lane


@cache
def rows_of(domain: str, slot: int):
    """(plan, rows) of a built-in domain's slot, planned once per process."""
    plan = plan_world(make_scenario(domain, slot))
    return plan, generate_rows(plan)


def builtin_worlds(step: int, slots: int = 1):
    """(plan, rows) of every `step`-th built-in domain in the first `slots` slots."""
    for slot in range(slots):
        for domain in builtin_domains()[::step]:
            yield rows_of(domain, slot)


def planned(name: str, domain: str, slot: int, seed: int = 0):
    """The request `name` planned in a built-in world, or None where it does not fit or finds no targets."""
    plan = plan_world(make_scenario(domain, slot))
    if not INTENTS[name].fits(World(plan, {}, random.Random(0))):
        return None
    plan, rows = rows_of(domain, slot)
    return INTENTS[name].build(World(plan, rows, random.Random(seed)))


def world_and_plan(name: str, plan, rows, seed: int = 1):
    """(world, the request `name` planned in it) of a built-in world's plan and rows (None where it does not fit or
    finds no targets)."""
    world = World(plan, rows, random.Random(seed))
    return world, (INTENTS[name].build(world) if INTENTS[name].fits(world) else None)


@cache
def family_worlds(names: tuple[str, ...], per_intent: int) -> tuple[tuple[str, int], ...]:
    """The worlds a family's requests are proven in: for each request, the first built-in worlds that plan it, one
    per lifecycle, up to `per_intent` (tests/awm/builder/worlds.worlds_planning)."""
    return worlds_planning(names, lambda *world: planned(*world) is not None, per_intent)


def prove_family(tmp_path_factory, config, names: tuple[str, ...], label: str, per_intent: int = 2):
    """(store, runs) of a family's requests proven in `per_intent` worlds each (one in the fast lane): the module
    fixture of each family's tests (`proven_in`)."""
    store = ArtifactStore(tmp_path_factory.mktemp(label))
    return store, proven_in(store, names, family_worlds(tuple(names), sample_in_fast_lane(config, 1, per_intent)))


def assert_proven_in_each_voice(runs, voices: dict[str, tuple[str, ...]]) -> None:
    """Every request of the family proven at least once in each voice it allows, and every proof passed."""
    who = {"staff": "staff", "self": "party"}
    proved = Counter((name, t.requester) for _, named, tasks, _ in runs
                     for (name, _), t in zip(named, tasks, strict=True))
    assert all(proved[name, who[v]] >= 1 for name, allowed in voices.items() for v in allowed), proved
    assert_every_proof_passed(runs)


def planned_requests(names: tuple[str, ...], step: int, slots: int, seeds=(1,)):
    """(name, seed, world, plan of the request) of each request of `names` planned in every `step`-th built-in world
    of the first `slots` slots, once per seed (where it fits and finds targets)."""
    for plan, rows in builtin_worlds(step, slots):
        for name in names:
            for seed in seeds:
                world, built = world_and_plan(name, plan, rows, seed)
                if built is not None:
                    yield name, seed, world, built


def read_in_each_voice(requests, voices: dict[str, tuple[str, ...]], hidden) -> Counter:
    """How many texts of each (request, voice) were read aloud (`read_aloud`), of `requests` ((name, seed, world,
    plan) as `planned_requests` yields them), each in the voices `voices[name]` allows and hiding `hidden(world,
    plan)`; a person named 'Charles Charles' is skipped (a doubled word, whoever writes)."""
    seen = Counter()
    for name, seed, world, built in requests:
        if built.say.party and len(set(built.say.party.name.split())) == 1:
            continue
        read = read_aloud(world.plan, built, voices[name], seed, hidden(world, built))
        for voice in voices[name]:
            seen[name, voice] += read // len(voices[name])
    return seen


def fitting_worlds(names: tuple[str, ...], step: int, slots: int):
    """(plan, rows) of every `step`-th built-in world of the first `slots` slots that some request of `names` fits."""
    return ((plan, rows) for plan, rows in builtin_worlds(step, slots)
            if any(INTENTS[n].fits(World(plan, {}, random.Random(0))) for n in names))


def drawn_requests(names: tuple[str, ...], worlds):
    """(name, task) of each task the task sets of `worlds` ((plan, rows) pairs) make of a request of `names`: what a
    set draws of a family (a task joining two requests of it counts for each)."""
    for plan, rows in worlds:
        for task in generate_tasks(plan, rows).tasks:
            for name in set(task.template.split("+")) & set(names):
                yield name, task


def proven_in(store: ArtifactStore, names: tuple[str, ...], worlds) -> list[tuple]:
    """Each request of `names` planned in each of `worlds` ((domain, slot) pairs), written once in each voice it
    allows, as tasks of their own through the verification stage: [(env_id, [(name, plan)], tasks, reports)]."""
    runs = []
    for domain, slot in worlds:
        outcomes = build_environment(store, domain, slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        env_id = outcomes[0].env_id
        plan, rows = rows_of(domain, slot)
        world = World(plan, rows, random.Random(0))
        # each request in the voices a task set would write it in: not the party's own where it needs a staff tool
        staff = staff_only_tools(dialect_for(plan))
        plans = {}
        for name in names:
            if INTENTS[name].fits(world):
                built = INTENTS[name].build(world)
                plans[name] = _party_may(built, staff) if built is not None else None
        realiser = Realiser(plan.scenario.labels, random.Random(0))
        tasks, named = [], []
        for name, built in plans.items():
            for voice in built.say.voices if built is not None else ():
                instruction, written = realiser.request([replace(built.say, voices=(voice,))])
                tasks.append(_task(f"t{len(tasks) + 1:02d}", [built], instruction, dialect_for(plan), written))
                named.append((name, built))
        taskset = TaskSet(env_id=env_id, acting_user="Test User, Manager", tasks=tasks)
        assert not task_findings(taskset, env_id, None)
        report = {r.task_id: r for r in prove(store, env_id, taskset).tasks}
        runs.append((env_id, named, tasks, [report[t.task_id] for t in tasks]))
    return runs


def judged(store: ArtifactStore, env_id: str, plan, task, wrong: list[tuple[str, dict]],
           answer: str | None = None) -> tuple[dict, dict]:
    """The verdicts on a wrong trajectory (canonical calls, made the environment's own) and on the reference."""
    calls = [(c.tool, c.arguments) for c in task.reference_solution]
    wrong, _ = dialect_for(plan).reference(wrong, [])
    env = Environment.from_store(store, env_id)
    try:
        return tuple(env.judge_trajectories(task.task_id, [(wrong, answer), (calls, task.reference_answer)]))
    finally:
        env.close()


def wrong_runs(proven, name: str):
    """(store, env_id, plan, world, plan of the request, task) of every proven task of the request `name`."""
    store, runs = proven
    for env_id, named, tasks, _ in runs:
        domain, slot = env_id.rsplit("__", 1)
        plan, rows = rows_of(domain, int(slot))
        world = World(plan, rows, random.Random(0))
        for (intent_name, built), task in zip(named, tasks, strict=True):
            if intent_name == name:
                yield store, env_id, plan, world, built, task


def read_aloud(plan, built, voices: tuple[str, ...], seed: int, hidden: list[str], dialect=None) -> int:
    """Each phrasing of a planned request written in each of `voices` as one person's message: a frame ("I was
    hoping you could ...") wraps a part that starts with a verb, the text is in the voice asked for, grammatical,
    with no slot left unfilled, states every value the reference needs, and gives away none of `hidden` (what the
    agent must find). Returns how many texts were read."""
    dialect = dialect or dialect_for(plan)
    read = 0
    for clause in built.say.clauses:
        assert not clause.rpartition(" || ")[2].startswith("{"), clause
        for voice in voices:
            say = replace(built.say, clauses=(clause,), voices=(voice,))
            text, written = Realiser(plan.scenario.labels, random.Random(seed)).request([say])
            assert written == voice and voice_of(text) == voice, text
            assert not grammar_faults(text), (text, grammar_faults(text))
            assert voice_violation(RealismText(text, (built.intent,), False)) is None, text
            assert "{" not in text and "}" not in text and "[" not in text, text
            task = _task("t01", [replace(built, say=say)], text, dialect, voice)
            assert not unstated_values(task), (text, unstated_values(task))
            for value in hidden:
                assert value not in text, (value, text)
            read += 1
    return read
