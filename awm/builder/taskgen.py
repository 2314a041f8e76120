"""Task generation: user requests with reference solutions and goals, by construction.

The intents (awm/builder/intents) decide what each request changes and answers; this module draws the
intents that fit a world (a business rule that must refuse, the ones specific to the world's category of
business, requests whose steps depend on each other or on a condition, aggregations), joins short
independent requests in pairs as a person would ask them, and has the realiser (awm/builder/phrasing.py)
write each instruction. Everything is drawn from rngs seeded by the scenario, so a seed gives the same tasks.
"""

from __future__ import annotations

import random

from awm.builder.data import Rows
from awm.builder.intents import INTENTS, Intent, Plan, World
from awm.builder.intents.context import context_for
from awm.builder.phrasing import Realiser, compatible
from awm.builder.world import WorldPlan, stable_seed
from awm.contracts import DerivedArgument, Task, TaskSet, ToolCall

TASKS_PER_ENV = 10
SHORT_TASK_STEPS = 4  # independent requests this short may be asked together, two in one task
PAIRABLE = ("action", "question", "aggregate")
# How many intents of each shape a task set starts with (when the world has them), before the rest.
QUOTAS = (("infeasible", 1), ("specific", 3), ("chained", 2), ("conditional", 1), ("aggregate", 1))
TRIES = 3  # attempts per intent at targets no earlier task of the set uses
EXTRA_INFEASIBLE = 0.2  # the chance that a task set has a second infeasible request


def _ordered(fitting: list[Intent], rng: random.Random) -> list[Intent]:
    """The intents to try, in order: the quotas first (each from a shuffled pool), then everything else but the
    infeasible requests (a set has one, sometimes two: enough to learn to refuse, not so many that refusing
    pays)."""
    pool = list(fitting)
    rng.shuffle(pool)
    chosen: list[Intent] = []
    for kind, quota in QUOTAS:
        if kind == "infeasible" and rng.random() < EXTRA_INFEASIBLE:
            quota += 1
        matching = [i for i in pool if i not in chosen and (i.specific if kind == "specific" else i.shape == kind)]
        chosen += matching[:quota]
    rest = [i for i in pool if i not in chosen and i.shape != "infeasible"]
    return chosen + rest


def _draw(world: World, order: list[Intent], wanted: int) -> list[Plan]:
    plans: list[Plan] = []
    used: set = set()
    for round_ in range(3):
        for item in order:
            if len(plans) >= wanted:
                return plans
            if sum(p.intent == item.name for p in plans) > (0 if item.shape == "infeasible" else round_):
                continue
            for _ in range(TRIES):
                plan = item.build(world)
                if plan is not None and not (plan.targets & used):
                    plans.append(plan)
                    used |= plan.targets
                    break
    return plans


def _pairable(plan: Plan) -> bool:
    return plan.shape in PAIRABLE and len(plan.calls) <= SHORT_TASK_STEPS


def _clash(a: Plan, b: Plan) -> bool:
    """Two requests that cannot share a task: a whole-number answer beside an answer whose text holds digits
    (a name such as '55 Inch TV' would read as a second count), or a row deleted where the other inserts into the
    same table (SQLite hands the freed id of a last row to the next insert)."""
    for x, y in ((a, b), (b, a)):
        counts = any(g.kind == "answer" and isinstance(g.expect["value"], int) for g in x.goals)
        if counts and any(ch.isdigit() for g in y.goals if g.kind == "answer" and isinstance(g.expect["value"], str)
                          for ch in g.expect["value"]):
            return True
        deleted = {g.table for g in x.goals if g.kind == "row_deleted"}
        if deleted & {g.table for g in y.goals if g.kind == "rows_created"}:
            return True
    return False


def _assemble(plans: list[Plan], count: int) -> list[list[Plan]]:
    """Each task's requests: long ones alone, short independent ones with a short partner of the same mood
    that can be asked in the same voice."""
    tasks: list[list[Plan]] = []
    waiting: list[Plan] = []
    for plan in plans:
        if len(tasks) >= count:
            break
        if not _pairable(plan):
            tasks.append([plan])
            continue
        partner = next((p for p in waiting if p.is_question == plan.is_question and compatible(p.say, plan.say)
                        and not _clash(p, plan)), None)
        if partner is None:
            waiting.append(plan)
        else:
            waiting.remove(partner)
            tasks.append([partner, plan])
    for plan in waiting:
        if len(tasks) < count:
            tasks.append([plan])
    return tasks


def _task(task_id: str, parts: list[Plan], instruction: str) -> Task:
    calls = [c for p in parts for c in p.calls]
    goals = [g for p in parts for g in p.goals]
    answers = [p.answer for p in parts if p.answer]
    derived, offset = [], 0
    for p in parts:
        derived += [DerivedArgument(call=offset + n, argument=a) for n, a in sorted(p.derived)]
        offset += len(p.calls)
    return Task(
        task_id=task_id,
        instruction=instruction,
        kind="question" if all(g.kind == "answer" for g in goals) else "action",
        template="+".join(p.intent for p in parts),
        reference_solution=[ToolCall(tool=t, arguments=a) for t, a in calls],
        reference_answer="; ".join(answers) if answers else None,
        goals=goals,
        segments=[len(p.calls) for p in parts] if len(parts) > 1 else [],
        derived=derived,
    )


def generate_tasks(plan: WorldPlan, rows: Rows, count: int = TASKS_PER_ENV) -> TaskSet:
    """`count` tasks from the intents that fit this world; short independent requests are paired."""
    sc = plan.scenario
    rng = random.Random(stable_seed("tasks", sc.seed))
    world = World(plan, rows, rng)
    fitting = [i for i in INTENTS.values() if i.fits(world)]
    order = _ordered(fitting, rng)
    grouped = _assemble(_draw(world, order, 2 * count), count)
    if len(grouped) < count:  # a small world: allow more requests per intent
        grouped = _assemble(_draw(world, order * 2, 4 * count), count)
    rng.shuffle(grouped)
    realiser = Realiser(sc.labels, random.Random(stable_seed("phrasing", sc.seed)), context_for(sc.category))
    tasks = [_task(f"t{n:02d}", parts, realiser.instruction([p.say for p in parts]))
             for n, parts in enumerate(grouped, 1)]
    staff = rows["staff"][0]
    acting = f"{staff['first_name']} {staff['last_name']}, {staff['title']}"
    return TaskSet(env_id=sc.env_id, acting_user=acting, tasks=tasks)
