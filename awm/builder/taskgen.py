"""Task generation: user requests with reference solutions and goals, by construction.

The intents (awm/builder/intents) decide what each request changes and answers; this module draws the
intents that fit a world (a business rule that must refuse, the ones specific to the world's category of
business, requests whose steps depend on each other or on a condition, aggregations), makes each request a task
of its own (one goal per message, as a person writes; its steps come from the request's own depth: lookups,
chained and conditional steps), joins at most one in ten with a second request about the same person (a
customer's two matters in one message, never two unrelated errands), and has the realiser
(awm/builder/phrasing.py) write each instruction. Everything is drawn from rngs seeded by the scenario, so a
seed gives the same tasks.
"""

from __future__ import annotations

import random
import re

from awm.builder.data import Rows
from awm.builder.dialect import Dialect
from awm.builder.intents import INTENTS, Intent, Plan, World
from awm.builder.intents.context import clashes, context_for
from awm.builder.phrasing import RELATIONS, Realiser, compatible, same_party
from awm.builder.templates.verifier_prelude import words
from awm.builder.toolgen import dialect_for, error_codes
from awm.builder.world import WorldPlan, stable_seed
from awm.contracts import DerivedArgument, Goal, Refusal, Task, TaskSet, ToolCall

TASKS_PER_ENV = 10
SHORT_TASK_STEPS = 8  # independent requests this short may be asked together, two in one task
PAIR_SHARE = 0.1  # at most this share of a set's tasks join two requests (then about the same person)
REFUSALS = 1  # infeasible requests in a set (EXTRA_INFEASIBLE: sometimes one more)
PAIRABLE = ("action", "question", "aggregate", "infeasible", "chained", "conditional")
# How many intents of each shape a task set starts with (when the world has them), before the rest; None: all of
# them, in shuffled order (of the infeasible ones the set draws `REFUSALS`, sometimes one more: `_draw`).
QUOTAS = (("specific", 3), ("infeasible", None), ("chained", 3), ("conditional", 1), ("aggregate", 1))
TRIES = 3  # attempts per intent at targets no earlier task of the set uses
READ_PREFIXES = ("get_", "list_", "search_")
EXTRA_INFEASIBLE = 0.2  # the chance that a task set has a second infeasible request (else it has one)
INFEASIBLE_ALONE = 0.6  # the chance that an infeasible request is a task of its own (else it may share one)
ALONE = 0.1  # the same for any other request short enough to share a task


def _ordered(fitting: list[Intent], rng: random.Random) -> tuple[list[Intent], int]:
    """The intents to try, in order, and how many of them may be refusals: the quotas first (each from a shuffled
    pool; after the requests specific to the world's category, every infeasible one), then everything else. A set
    has one refusal, sometimes two (`_draw` takes twice as many as fit the world's rows, a specific one first, and
    `_deepest_first` keeps the first found by reading): enough to learn to refuse, not so many that refusing pays."""
    pool = list(fitting)
    rng.shuffle(pool)
    refusals = REFUSALS + (rng.random() < EXTRA_INFEASIBLE)
    chosen: list[Intent] = []
    for kind, quota in QUOTAS:
        matching = [i for i in pool if i not in chosen and (i.specific if kind == "specific" else i.shape == kind)]
        chosen += matching[:quota]
    rest = [i for i in pool if i not in chosen and i.shape != "infeasible"]
    return chosen + rest, refusals


def staff_only_tools(dialect: Dialect) -> frozenset[str]:
    """The environment's tools for its staff only (awm.builder.tools.audience): a request that needs one is not
    written in the party's own voice (`_party_may`)."""
    return frozenset(name for name, tool in dialect.tools.items() if tool.audience == "staff")


def _party_may(plan: Plan, staff_tools: frozenset[str]) -> Plan | None:
    """The request as it may be written: a request whose calls (or the call it is refused) need a staff-only tool
    (awm.builder.tools.audience) is not written in the party's own voice; None when that leaves it no voice."""
    tools = [tool for tool, _ in plan.calls] + ([plan.refused[0][0]] if plan.refused is not None else [])
    if "self" in plan.say.voices and any(tool in staff_tools for tool in tools):
        plan.say.voices = tuple(v for v in plan.say.voices if v != "self")
    return plan if plan.say.voices else None


def _draw(world: World, order: list[Intent], wanted: int, refusals: int,
          staff_tools: frozenset[str] = frozenset()) -> list[Plan]:
    """Up to `wanted` requests, each intent of `order` tried in turn (an intent drawn again in later rounds, but
    an infeasible one once, and `refusals` of them at most), none touching what an earlier one does; a request
    that needs a tool of `staff_tools` is written by staff."""
    plans: list[Plan] = []
    used: set = set()
    for round_ in range(3):
        for item in order:
            if len(plans) >= wanted:
                return plans
            if sum(p.intent == item.name for p in plans) > (0 if item.shape == "infeasible" else round_):
                continue
            if item.shape == "infeasible" and sum(p.shape == "infeasible" for p in plans) >= refusals:
                continue
            for _ in range(TRIES):
                plan = item.build(world)
                if plan is not None:
                    plan = _party_may(plan, staff_tools)
                if plan is not None and not (plan.targets & used) and not hedgeable([plan]):
                    plan.alone = world.rng.random() < (INFEASIBLE_ALONE if plan.shape == "infeasible" else ALONE)
                    plans.append(plan)
                    used |= plan.targets
                    break
    return plans


# a set keeps a refusal, a conditional, an aggregate and one of its category's own requests whatever their
# depth (`_deepest_first`): of the aggregates drawn, the first of at least this many steps where one was drawn
# (at six, or the widest drawn, a person's short questions, "how much do I still owe?", were all but never
# drawn); of the conditionals and the category's own requests, the widest drawn (`_widest`)
KEPT_AGGREGATE_STEPS = 4
DEEP_STEPS = 7  # requests of at least this many steps come before shallower ones (`_deep`)
CANDIDATES = 4  # requests drawn for each task a set needs: the deep ones among them are made tasks first
# refusals drawn for each one a set keeps: the first drawn of `REFUSAL_STEPS` or more steps (a goal of which the
# rules forbid one part, or a refusal found by reading the person's cases, where the draw offers one)
REFUSAL_CANDIDATES = 2
REFUSAL_STEPS = 5


def _first_deep(plans: list[Plan], n: int, steps: int) -> list[Plan]:
    """The first `n` of `plans` (in drawn order) of at least `steps` steps, filled up with the first of the
    shallower ones where fewer were drawn."""
    return sorted(plans, key=lambda p: len(p.calls) < steps)[:n]


def _widest(plans: list[Plan]) -> list[Plan]:
    """The drawn request using the most distinct tools (the first drawn of them where several do), as a list of
    none or one: a conditional or a category's own request is kept for the work it asks, not its length."""
    return sorted(plans, key=lambda p: -len({tool for tool, _ in p.calls}))[:1]


def _deep(plan: Plan) -> bool:
    """Whether a request comes before the shallower ones: `DEEP_STEPS` or more steps, but not an aggregate's (its
    steps are reads of one or two tools record by record, length rather than depth: a set keeps one aggregate,
    and the others come after the deep goals)."""
    return len(plan.calls) >= DEEP_STEPS and plan.shape != "aggregate"


def _deepest_first(plans: list[Plan], refusals: int = REFUSALS) -> list[Plan]:
    """The drawn requests in the order tasks are made of them: `refusals` of the refusals, one conditional and one
    aggregate request and one request specific to the world's category (a set keeps its mix of shapes and its kind
    of business's own requests: of the conditionals and the category's own, the widest drawn (`_widest`); of the
    aggregates, the first drawn with `KEPT_AGGREGATE_STEPS` or more steps where the draw offers one; of the refusals
    the first with `REFUSAL_STEPS` or more), then the deep requests (`_deep`: one goal per task, so a task's steps
    are its request's own: lookups, chained steps, a confirmation), then the rest, each group in drawn order (so
    the intents stay varied). The refusals not kept are dropped."""
    kept = _first_deep([p for p in plans if p.shape == "infeasible"], refusals, REFUSAL_STEPS)
    if not any(p.shape == "conditional" for p in kept):
        kept += _widest([p for p in plans if p.shape == "conditional"])
    if not any(p.shape == "aggregate" for p in kept):
        kept += _first_deep([p for p in plans if p.shape == "aggregate"], 1, KEPT_AGGREGATE_STEPS)
    if not any(INTENTS[p.intent].specific for p in kept):
        kept += _widest([p for p in plans if INTENTS[p.intent].specific and p.shape != "infeasible"])
    kept = [p for p in plans if any(p is k for k in kept)]  # in drawn order
    rest = sorted((p for p in plans if p.shape != "infeasible" and not any(p is k for k in kept)),
                  key=lambda p: not _deep(p))
    return kept + rest


def _pairable(plan: Plan) -> bool:
    """Short enough to share a task, and with a wording of one sentence (the second request of a task is joined
    into the first one's sentence)."""
    return (plan.shape in PAIRABLE and len(plan.calls) <= SHORT_TASK_STEPS and not plan.alone
            and any(" || " not in clause for clause in plan.say.clauses))


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _numbers(plan: Plan) -> set[float]:
    """Every number the request's instruction can state (its values, amounts, counts and dates, and its own
    words: "quantity 1")."""
    found: set[float] = set()
    for value in [*plan.say.slots.values(), *plan.say.clauses]:
        found |= {float(x) for x in _NUMBER.findall(str(value))}
    if plan.say.party is not None:
        found |= {float(x) for x in _NUMBER.findall(plan.say.party.email)}
    return found


def hedgeable(plans: list[Plan]) -> bool:
    """Whether a task's instruction states a number next to one it expects as an answer ('add 5 units ... how many
    are left?' with 4 left): an answer hedging with that neighbour would pass, since stated numbers are allowed."""
    stated = set().union(*(_numbers(p) for p in plans))
    counts = [g for p in plans for g in p.goals if g.kind == "answer" and isinstance(g.expect["value"], (int, float))
              and not isinstance(g.expect["value"], bool)]
    for plan in plans:
        for goal in plan.goals:
            value = goal.expect.get("value") if goal.kind == "answer" else None
            if isinstance(value, bool):
                continue
            if isinstance(value, int) and ({value - 1, value, value + 1} & stated):
                return True  # a neighbour would pass as a hedge; the value itself, as an echo of the instruction
            if isinstance(value, float) and ({value, round(value * 1.1 + 1, 2)} & stated):
                return True
            if isinstance(value, str) and any(ch.isdigit() for ch in value) and not counts and not \
                    re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
                return True  # a name with digits ('55 Inch TV'), alone: a hedge with its digits shifted would pass
    return False


def _row_arg(name: str) -> str:
    """The row an id argument names, whichever end of a move it is ("from_account_id" -> "account_id")."""
    return name.removeprefix("from_").removeprefix("to_").removeprefix("source_").removeprefix("target_")


def _touched(plan: Plan) -> set[tuple[str, object]]:
    """(argument, id) of every row the request's writes name."""
    return {(_row_arg(name), value) for tool, args in plan.calls if not tool.startswith(READ_PREFIXES)
            for name, value in args.items() if name.endswith("_id")}


def _named(plan: Plan) -> set[tuple[str, object]]:
    """(argument, id) of every row the request's calls name, and the call a refusal is refused (made after the
    whole task's reference: a request beside it that suspends the person would have it refused for another rule)."""
    calls = [*plan.calls, *([plan.refused[0]] if plan.refused is not None else [])]
    return {(_row_arg(name), value) for _, args in calls for name, value in args.items() if name.endswith("_id")}


def _goal_rows(plan: Plan) -> set[tuple[str, object]]:
    """(table, primary key) of every row the request's goals judge."""
    return {(g.table, g.pk) for g in plan.goals if g.table and g.pk is not None}


def _is_identifier(name: str) -> bool:
    return name == "id" or name.endswith("_id") or name in ("limit", "offset", "query")


def _argument_values(plan: Plan) -> list[object]:
    """The values the request's calls pass that are neither identifiers, paging nor search text."""
    return [v for _, args in plan.calls for k, v in args.items()
            if not _is_identifier(k) and v is not None and not isinstance(v, (bool, dict, list))]


def _goal_values(plan: Plan) -> list[object]:
    """The values the request's goals demand (`Goal.literals`, the ones the tasks gate's self-contained check
    compares the reference's arguments with), identifiers aside."""
    return [v for g in plan.goals for c, v in g.literals() if not _is_identifier(c)]


def _same_value(a: object, b: object) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(abs(a) - abs(b)) < 0.005
    return a == b


def _crossed_values(a: Plan, b: Plan) -> bool:
    """A value one request passes without stating it (a filter it looks rows up by, such as status 'open')
    that the other request's goals demand: asked together, the task would seem to expect the agent to guess it."""
    return any(_same_value(v, e) for x, y in ((a, b), (b, a)) for v in _argument_values(x) for e in _goal_values(y))


def _says_answer(a: Plan, b: Plan) -> bool:
    """A word answer of one request that the other's wording or values use ('closed' beside the note 'Cancelled:
    office closed'): asked together, an echo of the instruction would state the answer."""
    values = [_padded(g.expect["value"]) for g in a.goals if g.kind == "answer" and isinstance(g.expect["value"], str)]
    texts = [*b.say.clauses, *(v for v in b.say.slots.values() if isinstance(v, str)),
             *(v for v in _argument_values(b) if isinstance(v, str))]
    return any(v in _padded(t) for v in values for t in texts)


_HELD = re.compile(r"that (?:\[included\|contained\]|included|contained) ('[^']+')")


def _names_held_item(a: Plan, b: Plan) -> bool:
    """A case one request names by an item it held ("their latest order that included 'Kettle'") where the other
    names that item: asked together, the item is named anyway, and a case is never named by an item its message
    names (`World.case_ref`)."""
    held = {m.group(1) for v in a.say.slots.values() for m in _HELD.finditer(str(v))}
    texts = [*b.say.clauses, *(str(v) for v in b.say.slots.values())]
    return any(name in text for name in held for text in texts)


def _padded(text: str) -> str:
    return " " + " ".join(re.findall("[a-z0-9]+", text.lower())) + " "


def _clash(a: Plan, b: Plan) -> bool:
    """Two requests that cannot share a task: one writes a row the other names (they would not be independent:
    done in the other order, the outcome differs), a whole-number answer beside an answer whose text holds digits
    (a name such as '55 Inch TV' would read as a second count), an answer text naming another value of the other's
    answer kind, a stated number next to an expected one (see `hedgeable`), or a row deleted where the other
    inserts into the same table (SQLite hands the freed id of a last row to the next insert), a value one
    passes unstated that the other's goals demand (`_crossed_values`), a word answer the other's wording uses
    (`_says_answer`), or a case named by an item the other names (`_names_held_item`)."""
    if (_touched(a) & _named(b) or _touched(b) & _named(a) or _goal_rows(a) & _goal_rows(b) or hedgeable([a, b])
            or _crossed_values(a, b) or _says_answer(a, b) or _says_answer(b, a) or _names_held_item(a, b)
            or _names_held_item(b, a)):
        return True
    for x, y in ((a, b), (b, a)):
        others = {str(o).lower() for g in x.goals if g.kind == "answer" for o in g.expect.get("others", [])}
        if y.answer and any(re.search(rf"\b{re.escape(o)}\b", y.answer.lower()) for o in others):
            return True
        counts = any(g.kind == "answer" and isinstance(g.expect["value"], int) for g in x.goals)
        if counts and any(ch.isdigit() for g in y.goals if g.kind == "answer" and isinstance(g.expect["value"], str)
                          for ch in g.expect["value"]):
            return True
        deleted = {g.table for g in x.goals if g.kind == "row_deleted"}
        if deleted & {t for g in y.goals if g.kind == "rows_created" for t in (g.table, g.child_table)}:
            return True
    return False


def _mates(a: Plan, b: Plan) -> bool:
    """Requests a person would send in one message: two matters of the same person (a customer's, named the same
    way), neither a refusal that stands alone, and not two refusals."""
    if a.shape == "infeasible" and b.shape == "infeasible":
        return False
    if (a.shape == "infeasible" and a.alone) or (b.shape == "infeasible" and b.alone):
        return False
    return same_party(a.say, b.say)


def _assemble(plans: list[Plan], count: int) -> list[list[Plan]]:
    """Each task's requests: one request per task, but for at most `PAIR_SHARE` of the tasks, where a short
    request is joined by a short, independent request about the same person that can be asked in the same voice."""
    tasks: list[list[Plan]] = []
    pairs = int(count * PAIR_SHARE)
    for plan in plans:
        if len(tasks) >= count:
            break
        partner = next((i for i, t in enumerate(tasks) if pairs and len(t) == 1 and _pairable(t[0])
                        and _pairable(plan) and _mates(t[0], plan) and compatible(t[0].say, plan.say)
                        and not _clash(t[0], plan)), None)
        if partner is None:
            tasks.append([plan])
        else:
            tasks[partner].append(plan)
            pairs -= 1
    return tasks


def _task(task_id: str, parts: list[Plan], instruction: str, dialect: Dialect, voice: str = "staff") -> Task:
    """One task from its requests, its reference calls translated from the canonical dialect into the
    environment's own (tool names, filters, paging); `voice` is the realiser's: "self" when the person the
    request is about writes it (the task's requester is then that person, not the acting staff member)."""
    calls = [c for p in parts for c in p.calls]
    for goal in (g for p in parts if p.shape == "infeasible" for g in p.goals if g.kind == "answer"):
        goal.expect["refusal"] = True  # the blocking fact of a refusal (awm.contracts.AnswerSlot)
    refusals = [_rule(p, dialect) for p in parts if p.refused is not None]
    goals = [g for p in parts for g in p.goals]
    answers = [p.answer for p in parts if p.answer]
    learnt, offset = [], 0
    for p in parts:
        learnt += [(offset + n, a) for n, a in sorted(p.derived)]
        offset += len(p.calls)
    calls, learnt = dialect.reference(calls, learnt)
    derived = [DerivedArgument(call=n, argument=a) for n, a in learnt]
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
        refusals=refusals,
        requester="party" if voice == "self" else "staff",
        party_id=_writer(parts) if voice == "self" else None,
    )


def _writer(parts: list[Plan]) -> int | None:
    """The row id of the party who writes a request in their own words: the person its requests are about."""
    ids = {p.say.party.id for p in parts if p.say.party is not None}
    if len(ids) > 1:
        raise ValueError(f"requests {'+'.join(p.intent for p in parts)} in one voice are about {len(ids)} people")
    return ids.pop() if ids else None


def _rule(plan: Plan, dialect: Dialect) -> Refusal:
    """An infeasible request's refusal, in the environment's dialect: the call it asks for and the rule its
    tools refuse it with. The plan's answer gains the rule slot (its closed set: every error code the
    environment's tools can return) and its prose names the rule."""
    (tool, arguments), code = plan.refused
    codes = error_codes(list(dialect.tools.values()))
    if code not in codes:
        raise ValueError(f"intent {plan.intent}: no tool of this environment returns the error code {code!r} "
                         f"(its codes: {', '.join(codes)})")
    name, styled = dialect.call(tool, arguments)
    if any(g.kind == "answer" and g.slot == "rule" for g in plan.goals):  # a plan made into a task before
        return Refusal(call=ToolCall(tool=name, arguments=styled), code=code)
    facts = [g for g in plan.goals if g.kind == "answer"]
    taken = {words(str(v)) for g in facts for v in (g.expect["value"], *g.expect.get("others", ()))}
    for goal in facts:  # the rule named in prose is no rival of the fact (nor a word of it: 'cases assigned')
        others = [o for o in goal.expect.get("others", ()) if f" {words(str(o))} " not in f" {words(code)} "]
        if "others" in goal.expect:
            goal.expect["others"] = others
    said = f" {words(plan.answer or '')} "  # a code the prose uses in another sense ('it expired on ...')
    rivals = [c for c in codes if c != code and words(c) not in taken and f" {words(c)} " not in said]
    plan.goals.append(Goal(kind="answer", slot="rule", expect={"value": code, "type": "rule", "values": list(codes),
                                                                **({"others": rivals} if rivals else {})}))
    plan.answer = f"{plan.answer} The rule that refuses it: {words(code)}."
    return Refusal(call=ToolCall(tool=name, arguments=styled), code=code)


def generate_tasks(plan: WorldPlan, rows: Rows, count: int = TASKS_PER_ENV) -> TaskSet:
    """`count` tasks from the intents that fit this world, one request each (a few join two matters of one person)."""
    sc = plan.scenario
    rng = random.Random(stable_seed("tasks", sc.seed))
    world = World(plan, rows, rng)
    # in name order, not registration order: where an intent is registered (which module, which category's
    # folder, imported when) does not change a world's tasks
    fitting = sorted((i for i in INTENTS.values() if i.fits(world)), key=lambda i: i.name)
    order, refusals = _ordered(fitting, rng)
    dialect = dialect_for(plan)
    staff_only = staff_only_tools(dialect)
    extra = refusals * (REFUSAL_CANDIDATES - 1)  # the refusals drawn beyond those kept
    grouped = _assemble(_deepest_first(_draw(world, order, CANDIDATES * count + extra, refusals + extra,
                                             staff_only), refusals), count)
    if len(grouped) < count:  # a small world: allow more requests per intent
        grouped = _assemble(_deepest_first(_draw(world, order * 2, 4 * count + extra, refusals + extra, staff_only),
                                           refusals), count)
    rng.shuffle(grouped)
    organisation = sc.party_kind == "organisation"  # its customers speak for a company: no family, no household
    realiser = Realiser(sc.labels, random.Random(stable_seed("phrasing", sc.seed)),
                        context_for(sc.category, organisation), clashes,
                        relations=("colleague",) if organisation else RELATIONS)
    tasks = []
    for n, parts in enumerate(grouped, 1):
        instruction, voice = realiser.request([p.say for p in parts])
        tasks.append(_task(f"t{n:02d}", parts, instruction, dialect, voice))
    staff = rows["staff"][0]
    acting = f"{staff['first_name']} {staff['last_name']}, {staff['title']}"
    return TaskSet(env_id=sc.env_id, acting_user=acting, tasks=tasks)
