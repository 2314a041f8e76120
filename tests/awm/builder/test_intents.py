"""Intents: how many there are and for whom, the shapes a task set draws, and the proofs of the harder shapes
(chained, conditional, infeasible) through the verification stage, including agents that get them wrong."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import replace

import pytest

from awm.backends import get_backend
from awm.builder.catalogue import CATEGORIES, DOMAIN_SEEDS
from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.data import generate_rows
from awm.builder.dialect import PAGE_ITEMS
from awm.builder.intents import INTENTS, Plan, World
from awm.builder.intents.partial import PARTIAL_INTENTS
from awm.builder.intents.people import AUTHORITY_PARTIAL
from awm.builder.phrasing import Realiser, Say, quote
from awm.builder.taskgen import _clash, _deepest_first, _task, generate_tasks
from awm.builder.toolgen import dialect_for
from awm.builder.world import make_scenario, plan_world
from awm.contracts import Goal, TaskSet, VerificationReport
from awm.quality.tasks import task_findings
from awm.runtime.environment import Environment
from awm.stages.verification_reports import build as build_verification
from awm.store import ArtifactStore, dump_json
from tests.conftest import build_environment
from tests.lanes import sample_or_whole

HARD = ("chained", "conditional", "infeasible")
# Worlds that between them have every lifecycle and most modules and categories.
WORLDS = (("retail_banking", 0), ("online_retail", 1), ("dental_clinic", 2), ("saas_helpdesk", 0),
          ("hotel_group", 1), ("auto_repair", 0), ("electric_utility", 3), ("farm_supply_cooperative", 1))


def test_the_catalogue_has_at_least_150_intents_many_of_them_for_one_kind_of_business():
    specific = [i for i in INTENTS.values() if i.specific]
    assert len(INTENTS) >= 150
    assert len(specific) >= 50
    covered = Counter(c for i in specific for c in i.categories)
    assert all(covered[c] >= 2 for c in CATEGORIES), {c: covered[c] for c in CATEGORIES if covered[c] < 2}
    assert {i.shape for i in INTENTS.values()} == {"action", "question", "aggregate", "chained", "conditional",
                                                    "infeasible"}


def test_task_sets_mix_the_shapes_and_refuse_at_least_five_percent_and_at_most_twice_a_set():
    """A set has one refusal, sometimes two (taskgen.EXTRA_INFEASIBLE), never none and never a third (a refusal
    specific to the world's category, drawn first, counts as one of them)."""
    shapes = Counter()
    total = 0
    refusals = Counter()
    for domain in builtin_domains()[::5]:
        plan = plan_world(make_scenario(domain, 0))
        for task in generate_tasks(plan, generate_rows(plan)).tasks:
            total += 1
            for kind in {INTENTS[name].shape for name in task.template.split("+")}:
                shapes[kind] += 1
            refusals[domain] += sum(INTENTS[name].shape == "infeasible" for name in task.template.split("+"))
    assert set(refusals.values()) <= {1, 2}, sorted(refusals.items(), key=lambda kv: kv[1])
    assert sum(n == 2 for n in refusals.values()) < sum(n == 1 for n in refusals.values()), refusals
    assert shapes["infeasible"] / total >= 0.05
    assert shapes["chained"] / total >= 0.15 and shapes["conditional"] / total >= 0.05
    assert shapes["aggregate"] / total >= 0.05


def test_a_set_keeps_one_aggregate_and_puts_the_others_after_its_deep_goals():
    """An aggregate's many steps are reads of one tool record by record: the first drawn is kept, a second comes
    after a deep goal drawn later, not before it (taskgen._deep)."""
    def drawn(name: str, steps: int) -> Plan:
        return Plan([("list_things", {})] * steps, [], Say("ask", ("what",)), intent=name, shape=INTENTS[name].shape)

    first, second = drawn("site_takings_question", 8), drawn("staff_takings_question", 10)
    deep, short = drawn("open_new_case", 7), drawn("add_line_item", 3)
    assert _deepest_first([first, second, deep, short]) == [first, deep, second, short]


def test_a_set_keeps_the_widest_conditional_and_own_request_drawn_not_the_first_long_enough():
    """Of the conditionals and the category's own requests drawn, a set keeps the one that asks the most kinds of
    work (distinct tools), not the first with enough steps: six reads of one tool lose to six calls of four tools.
    The others still come later in drawn order (a deep one before a shallow one)."""
    def drawn(name: str, tools: int, steps: int = 6) -> Plan:
        calls = [(f"tool_{n % tools}", {}) for n in range(steps)]
        return Plan(calls, [], Say("do", ("do it",)), intent=name, shape=INTENTS[name].shape)

    narrow, wide = drawn("cancel_if_possible", 1), drawn("assign_to_less_busy_of_two", 4)
    own_narrow, own_wide = drawn("gov_renew_licence", 2), drawn("gov_appeal_fine", 3, steps=4)
    ordered = _deepest_first([narrow, own_narrow, wide, own_wide])
    assert ordered[:2] == [wide, own_wide], [p.intent for p in ordered]
    assert ordered[2:] == [narrow, own_narrow], [p.intent for p in ordered]


def test_a_case_named_by_an_item_it_held_is_never_named_by_an_item_the_request_names_anyway():
    """"Take 'Kettle' off my latest order that contained 'Kettle'" names the item twice: an item the request names
    (World.case_ref's `named`) never names its case. An order "contained" its items; a booking, a job or an
    application "included" them."""
    seen = Counter()
    for domain in builtin_domains()[::4]:
        plan = plan_world(make_scenario(domain, 0))
        w = World(plan, generate_rows(plan), random.Random(0))
        for case in w.rows["case"]:
            party = w.party_of(case)
            held = w._held_item_ref(case, party, set())
            if held is None:
                continue
            verb, name = re.search(r"that (\[included\|contained\]|included) ('.*')$", held[0]).groups()
            assert (verb != "included") == (w.fl.name == "fulfillment"), (domain, held[0])
            item = next(i for i in w.rows["item"] if quote(i["name"]) == name)
            again = w._held_item_ref(case, party, {item["id"]})
            assert again is None or name not in again[0], (domain, again)
            seen[w.fl.name] += 1
    assert seen["fulfillment"] and len(seen) >= 3, seen


def _tasks_for(plan, rows, names: list[str], seed: int = 0) -> tuple[TaskSet, dict[str, str]]:
    """One task per intent that fits the world (the intent's name -> its task id), each intent's targets drawn from
    an rng of its own (an intent registered later changes no other intent's task)."""
    realiser = Realiser(plan.scenario.labels, random.Random(seed))
    dialect = dialect_for(plan)
    tasks, ids = [], {}
    for name in names:
        world = World(plan, rows, random.Random(f"{seed}:{name}"))
        built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
        if built is None:
            continue
        task_id = f"t{len(tasks) + 1:02d}"
        tasks.append(_task(task_id, [built], realiser.instruction([built.say]), dialect))
        ids[name] = task_id
    return TaskSet(env_id=plan.scenario.env_id, acting_user="Test User, Manager", tasks=tasks), ids


def prove(store: ArtifactStore, env_id: str, taskset: TaskSet) -> VerificationReport:
    """The verification stage on a task set of our choosing, in a built environment."""
    store.write_text(env_id, "tasks.json", dump_json(taskset))
    outcome = build_verification(store, env_id, get_backend(), force=True)
    assert outcome.ok, outcome.error
    return store.read_model(env_id, "report.json", VerificationReport)


def prove_requests(store: ArtifactStore, domain: str, slot: int, names) -> tuple[str, dict[str, Plan], list, list]:
    """The world built, each of `names` that fits it and finds targets planned (seed 0) as a task of its own, and the
    task set proven: (env_id, the plans by intent, the tasks, their verification reports)."""
    outcomes = build_environment(store, domain, slot)
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    env_id = outcomes[0].env_id
    plan = plan_world(make_scenario(domain, slot))
    world = World(plan, generate_rows(plan), random.Random(0))
    realiser = Realiser(plan.scenario.labels, random.Random(0))
    plans = {name: INTENTS[name].build(world) for name in names if INTENTS[name].fits(world)}
    plans = {name: built for name, built in plans.items() if built is not None}
    tasks = []
    for n, built in enumerate(plans.values()):
        instruction, voice = realiser.request([built.say])
        tasks.append(_task(f"t{n + 1:02d}", [built], instruction, dialect_for(plan), voice))
    taskset = TaskSet(env_id=env_id, acting_user="Test User, Manager", tasks=tasks)
    assert not task_findings(taskset, env_id, None)
    report = {r.task_id: r for r in prove(store, env_id, taskset).tasks}
    return env_id, plans, tasks, [report[t.task_id] for t in tasks]


def assert_every_proof_passed(runs: list[tuple[str, dict, list, list]]) -> None:
    """Every task of `runs` (as `prove_requests` returns them) publishable: the reference passes, the null trajectory
    fails, and the mutants and shortcuts tried (at least three) are each judged as they must be, valid alternatives
    accepted."""
    failed = [(env, t.template, r.failure_check(), r.error or r.evidence or r.survivors or r.rejected_alternatives)
              for env, _, tasks, reports in runs for t, r in zip(tasks, reports, strict=True) if not r.publishable]
    assert not failed
    for _, _, _, reports in runs:
        for report in reports:
            assert report.reference_passed and not report.null_passed
            assert sum(p.tried for p in report.proofs.values()) >= 3
            assert all(p.right == p.tried and not p.wrong for p in report.proofs.values())


# The fast lane proves the hard intents in two of the worlds (two lifecycles, between them as many intents of
# each shape, every kind of proof and four of the over-eager workarounds the tests below ask for); `make test` in
# every one of them.
HARD_SAMPLE = (("retail_banking", 0), ("online_retail", 1))


@pytest.fixture(scope="module", params=sample_or_whole(HARD_SAMPLE, WORLDS))
def hard(request, tmp_path_factory):
    """Every chained, conditional and infeasible intent that fits one of the worlds, as a task, proven."""
    store = ArtifactStore(tmp_path_factory.mktemp("hard"))
    results: dict[str, list[tuple[str, str, object]]] = {}
    names = [n for n, i in INTENTS.items() if i.shape in HARD]
    for domain, slot in request.param:
        outcomes = build_environment(store, domain, slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        env_id = outcomes[0].env_id
        plan = plan_world(make_scenario(domain, slot))
        taskset, ids = _tasks_for(plan, generate_rows(plan), names)
        assert not task_findings(taskset, env_id, None)
        report = {r.task_id: r for r in prove(store, env_id, taskset).tasks}
        for name, task_id in ids.items():
            results.setdefault(name, []).append((env_id, task_id, report[task_id]))
    return store, results


def test_chained_conditional_and_infeasible_tasks_pass_every_proof(hard):
    _, results = hard
    by_shape = Counter(INTENTS[name].shape for name in results)
    assert by_shape["chained"] >= 20 and by_shape["conditional"] >= 6 and by_shape["infeasible"] >= 12, by_shape
    failed = [(name, env, r.failure_check(), r.error or r.evidence or r.survivors or r.rejected_alternatives)
              for name, runs in results.items() for env, _, r in runs if not r.publishable]
    assert not failed
    tried = Counter(c for runs in results.values() for _, _, r in runs for c, p in r.proofs.items() if p.tried)
    for kind in ("wrong_answer", "collateral_write", "hedged_answer", "dumped_answer", "echoed_instruction",
                 "wrong_row", "half_change", "detail_changed", "extra_reads", "skipped_lookups", "equivalent_answer"):
        assert tried[kind] > 0, kind


def test_infeasible_tasks_change_nothing_and_name_the_reason(hard):
    """An infeasible request changes nothing (but the parts of a goal that stand on their own, awm/builder/intents/
    partial.py, the speaker's own case beside another person's they have no authority over, and the message telling
    the person why where the request asks for one, base.explain_refusal) and its answer names the fact that forbids
    it."""
    store, results = hard
    for name, runs in results.items():
        if INTENTS[name].shape != "infeasible":
            continue
        for env_id, task_id, report in runs:
            task = next(t for t in store.read_model(env_id, "tasks.json", TaskSet).tasks if t.task_id == task_id)
            domain, slot = env_id.rsplit("__", 1)
            plan = plan_world(make_scenario(domain, int(slot)))
            notice = plan["notification"].table if "notification" in plan.entities else None
            writes = [g for g in task.goals if g.kind != "answer"]
            explained = bool(writes) and all(g.kind == "rows_created" and g.table == notice for g in writes)
            partial = name in PARTIAL_INTENTS or name == AUTHORITY_PARTIAL
            assert (task.kind == "question") != (partial or explained)
            assert (not writes) != (partial or explained), (name, writes)
            assert report.reference_passed and not report.null_passed
            for goal in (g for g in task.goals if g.kind == "answer"):
                value = goal.expect["value"]  # a whole number as it is said: '250 lb', not '250.0 lb'
                said = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
                assert said.replace("_", " ") in task.reference_answer.replace("_", " ")


def test_an_agent_that_does_an_infeasible_request_anyway_scores_zero(hard):
    """The refusal's reason stated, but a workaround written (what an over-eager agent does instead): the verdict
    is incomplete, whatever the answer says, while the reference (reads and the same answer) is complete."""
    store, results = hard
    checked = Counter()
    for name in ("overdraw_transfer", "redeem_too_many_points", "write_off_too_much", "cancel_too_late",
                 "open_for_blocked_party", "refund_not_allowed"):
        for env_id, task_id, _ in results.get(name, []):
            task = next(t for t in store.read_model(env_id, "tasks.json", TaskSet).tasks if t.task_id == task_id)
            calls = [(c.tool, c.arguments) for c in task.reference_solution]
            env = Environment.from_store(store, env_id)
            try:
                fix = _workaround(env, name, task, env.replay(calls))
                if not fix or "error" in env.replay(calls + fix)[-1]:
                    continue  # no write this world allows (a zero balance to move): nothing to try
                done, honest = env.judge_trajectories(task_id, [(calls + fix, task.reference_answer),
                                                                (calls, task.reference_answer)])
            finally:
                env.close()
            assert honest["complete"], (name, honest)
            assert not done["complete"] and done["diff"]["unexpected"] >= 1, (name, done)
            checked[name] += 1
    assert len(checked) >= 4, checked


def _workaround(env: Environment, name: str, task, results: list) -> list[tuple[str, dict]]:
    """The write an over-eager agent makes to 'fix' an infeasible request, found from the reference's own reads
    (tools named and results read in the environment's own dialect)."""
    tools = {t["name"]: t for t in env.tools}
    domain, slot = env.env_id.rsplit("__", 1)
    plan = plan_world(make_scenario(domain, int(slot)))
    dialect = dialect_for(plan)
    rows = PAGE_ITEMS[dialect.style.paging]

    def ids(tool: str) -> list[str]:
        return [k for k in tools[tool]["inputSchema"]["properties"] if k.endswith("_id")]

    if name == "overdraw_transfer":
        held = next(g.expect["value"] for g in task.goals)
        accounts = [a for a in results[-1][rows] if a["status"] == "active"]
        source = next(a for a in accounts if abs(a["balance"] - held) < 0.005)
        target = next(a for a in accounts if a["id"] != source["id"])
        if source["balance"] <= 0:
            return []
        transfer = dialect.name("transfer_funds")
        src, dst = ids(transfer)
        return [(transfer, {src: source["id"], dst: target["id"], "amount": source["balance"]})]
    if name == "redeem_too_many_points":
        account = results[-1][rows][0]
        redeem = dialect.name("redeem_points")
        return [(redeem, {ids(redeem)[0]: account["id"], "points": account["points"], "reason": "reward redemption"})]
    if name == "write_off_too_much":
        level = results[-1][rows][0]
        adjust = dialect.name(f"adjust_{plan['stock_level'].name}")
        first, second = ids(adjust)
        return [(adjust, {first: level[first], second: level[second], "change": -level["quantity"],
                          "reason": "stock write-off"})]
    if name in ("cancel_too_late", "refund_not_allowed"):
        case = next(r for r in reversed(results) if isinstance(r, dict) and "status" in r and "code" in r)
        calls = [(c.tool, c.arguments) for c in task.reference_solution]
        for canonical, tool in dialect.names.items():
            if not canonical.endswith("_" + plan["case"].name):
                continue
            spec = tools[tool]
            allowed = spec["description"].rpartition("Allowed from: ")[2].rstrip(".").split(", ")
            if case["status"] in allowed and list(spec["inputSchema"]["properties"]) == ids(tool)[:1] and \
                    not spec["annotations"].get("readOnlyHint"):
                fix = [(tool, {ids(tool)[0]: case["id"]})]
                if "error" not in env.replay(calls + fix)[-1]:  # a status change the rules allow from here
                    return fix
        return []
    party = results[0][rows][0]
    reactivate = dialect.name(f"reactivate_{plan['party'].name}")
    if party["status"] == "suspended":
        return [(reactivate, {ids(reactivate)[0]: party["id"]})]
    contact = dialect.name(f"update_{plan['party'].name}_contact")
    return [(contact, {ids(contact)[0]: party["id"], "city": "Anywhere"})]


def test_conditional_tasks_are_proven_in_both_branches(tmp_path):
    """A conditional task asks for a change if the world is one way and an answer if it is the other: each intent
    is built until both branches are seen, and both are proven."""
    store = ArtifactStore(tmp_path)
    domain, slot = "retail_banking", 0
    outcomes = build_environment(store, domain, slot)
    env_id = outcomes[0].env_id
    plan = plan_world(make_scenario(domain, slot))
    rows = generate_rows(plan)
    names = [n for n, i in INTENTS.items() if i.shape == "conditional" and i.fits(World(plan, rows, random.Random(0)))]
    tasks, branches = [], Counter()
    realiser = Realiser(plan.scenario.labels, random.Random(0))
    for name in names:
        seen = set()
        for seed in range(40):
            built = INTENTS[name].build(World(plan, rows, random.Random(seed)))
            if built is None:
                continue
            branch = "answer" if built.is_question else "change"
            if branch not in seen:
                seen.add(branch)
                tasks.append(_task(f"t{len(tasks) + 1:02d}", [built], realiser.instruction([built.say]),
                                   dialect_for(plan)))
                branches[branch] += 1
    assert branches["answer"] >= 3 and branches["change"] >= 3, branches
    report = prove(store, env_id, TaskSet(env_id=env_id, acting_user="Test User, Manager", tasks=tasks))
    assert all(r.publishable for r in report.tasks), [(r.task_id, r.failure_check(), r.evidence, r.survivors)
                                                     for r in report.tasks if not r.publishable]


@pytest.mark.parametrize(("name", "asks"), [("upgrade_if_big_spender", "subject"),
                                             ("cancel_if_possible", "confirm_subject")])
def test_a_conditional_request_sends_its_message_only_in_the_way_that_changes_something(tmp_path, name, asks):
    """A conditional request that asks for a message (an upgrade announced; a confirmation "if you make the change")
    sends it only in the branch that changes something. Both branches proven; in the branch that only answers, an
    agent that sends the message anyway (the same message, to that person) scores zero, the reference one."""
    store = ArtifactStore(tmp_path)
    domain, slot = "online_retail", 0
    env_id = build_environment(store, domain, slot)[0].env_id
    plan = plan_world(make_scenario(domain, slot))
    rows = generate_rows(plan)
    assert plan.has("notification")
    dialect = dialect_for(plan)
    send = World(plan, rows, random.Random(0)).n.create("notification")  # the tool's name in the plans' calls
    branches: dict[str, Plan] = {}
    for seed in range(200):
        built = INTENTS[name].build(World(plan, rows, random.Random(seed)))
        if built is not None and asks in built.say.slots:
            branches.setdefault("answer" if built.is_question else "change", built)
            tools = [t for t, _ in built.calls]
            # one message in the way that changes something, none in the other; a request with a message of its own
            # asks for no confirming message besides, in either way
            assert tools.count(send) == (0 if built.is_question else 1), (seed, tools)
            assert built.is_question or tools[-1] == send, (seed, tools)
            assert asks == "confirm_subject" or "confirm_subject" not in built.say.slots, (seed, built.say.clauses)
    assert set(branches) == {"answer", "change"}, branches
    realiser = Realiser(plan.scenario.labels, random.Random(0))
    tasks = [_task(f"t{n:02d}", [built], realiser.instruction([built.say]), dialect)
             for n, built in enumerate((branches["change"], branches["answer"]), 1)]
    report = prove(store, env_id, TaskSet(env_id=env_id, acting_user="Test User, Manager", tasks=tasks))
    assert all(r.publishable for r in report.tasks), [(r.task_id, r.failure_check()) for r in report.tasks]
    answer = tasks[1]
    calls = [(c.tool, c.arguments) for c in answer.reference_solution]
    sent = tasks[0].reference_solution[-1]  # the message of the other branch, in this environment's dialect
    told = {k: answer.party_id if v == tasks[0].party_id and k.endswith("_id") else v
            for k, v in sent.arguments.items()}
    env = Environment.from_store(store, env_id)
    try:
        assert "error" not in env.replay(calls + [(sent.tool, told)])[-1]  # the message is sent
        eager, honest = env.judge_trajectories(answer.task_id, [(calls + [(sent.tool, told)], answer.reference_answer),
                                                                (calls, answer.reference_answer)])
    finally:
        env.close()
    assert honest["complete"] and not eager["complete"], (honest, eager)


def test_a_conditional_request_that_changes_something_either_way_confirms_it_either_way():
    """add_to_latest_or_new_case, replace_or_settle_case and cancel_or_return_and_refund change something whichever
    way they turn: their confirming message is sent in each way and asked for after every way ("...; after that,
    confirm it to them ..."), never "if you make the change" (which reads as if one way changed nothing)."""
    from awm.builder.phrasing import grammar_faults

    asked = Counter()
    for domain in ("online_retail", "furniture_retail", "hotel_group", "dental_clinic"):
        plan = plan_world(make_scenario(domain, 0))
        rows = generate_rows(plan)
        realiser = Realiser(plan.scenario.labels, random.Random(0))
        for name in ("add_to_latest_or_new_case", "replace_or_settle_case", "cancel_or_return_and_refund"):
            for seed in range(40):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None or "confirm_subject" not in built.say.slots:
                    continue
                assert [t for t, _ in built.calls].count(world.n.create("notification")) == 1, built.calls
                text = realiser.instruction([built.say])
                assert "make the change" not in text and "make a change" not in text, text
                assert not grammar_faults(text), (text, grammar_faults(text))
                asked[name] += 1
    assert all(asked[name] >= 5 for name in ("add_to_latest_or_new_case", "replace_or_settle_case")), asked


def test_a_repeated_case_paid_at_once_is_paid_its_whole_total_learnt_from_the_reads(monkeypatch):
    """reorder_latest and register_and_open with the payment asked for every time (`PAY_SHARE` 1): the payment is on
    the case the request opens, for the sum of its lines at the items' prices, an amount the agent learns from its
    reads (derived), never stated."""
    from awm.builder.intents import steps

    monkeypatch.setattr(steps, "PAY_SHARE", 1.0)
    plan = plan_world(make_scenario("online_retail", 0))
    rows = generate_rows(plan)
    for name in ("reorder_latest", "register_and_open"):
        world = World(plan, rows, random.Random(0))
        built = INTENTS[name].build(world)
        pay = [n for n, (tool, _) in enumerate(built.calls) if tool == world.n.create("payment")]
        assert len(pay) == 1, (name, built.calls)
        lines = [args for tool, args in built.calls if tool == world.n.create("line")]
        total = round(sum(x["quantity"] * world.by_id("item", x[world.fk("item")])["price"] for x in lines), 2)
        args = built.calls[pay[0]][1]
        assert args["amount"] == total and args[world.fk("case")] == len(rows["case"]) + 1, (name, args, total)
        assert (pay[0], "amount") in built.derived


def test_a_person_suspended_at_the_business_own_wish_is_not_sent_a_confirmation_of_their_request():
    """suspend_and_cancel_open is done to a person, not for them: over many draws it never ends with a message
    confirming "your request", while close_relationship (the person leaving of their own accord) sometimes does."""
    plan = plan_world(make_scenario("online_retail", 0))
    rows = generate_rows(plan)
    sent = Counter()
    for name in ("suspend_and_cancel_open", "close_relationship"):
        for seed in range(40):
            world = World(plan, rows, random.Random(seed))
            built = INTENTS[name].build(world)
            if built is not None:
                sent[name] += any(tool == world.n.create("notification") for tool, _ in built.calls)
    assert sent["suspend_and_cancel_open"] == 0 and sent["close_relationship"] >= 5, sent


def test_chained_tasks_take_values_from_earlier_results():
    """A chained request's later steps need what the earlier ones found: its reference reads before it writes, and
    most chained intents write values the instruction never states (learnt from those reads)."""
    derived, chained = 0, 0
    for domain in builtin_domains()[::7]:
        plan = plan_world(make_scenario(domain, 1))
        rows = generate_rows(plan)
        for name, item in INTENTS.items():
            world = World(plan, rows, random.Random(3))
            if item.shape != "chained" or not item.fits(world):
                continue
            built = item.build(world)
            if built is None:
                continue
            chained += 1
            writes = [n for n, (tool, _) in enumerate(built.calls) if not tool.startswith(("get_", "list_",
                                                                                           "search_"))]
            assert writes and writes[0] > 0, name
            derived += bool(built.derived)
    assert chained >= 30 and derived / chained >= 0.4


def test_most_category_seed_domains_get_specific_requests():
    """Seed domains whose world has the modules a category's pack asks for get some of its requests; a few
    worlds have none of them (a lender without accounts, a budgeting app without invoices of its own)."""
    missing = []
    sampled = builtin_domains()[::4]
    for domain in sampled:
        plan = plan_world(make_scenario(domain, 0))
        tasks = generate_tasks(plan, generate_rows(plan)).tasks
        if not any(INTENTS[n].specific for t in tasks for n in t.template.split("+")):
            missing.append((domain, DOMAIN_SEEDS[domain].category))
    assert len(missing) <= len(sampled) // 8, missing


def test_a_worlds_tasks_do_not_depend_on_the_order_its_intents_were_registered_in(monkeypatch):
    """The fitting intents are drawn from in name order: registered in another order (from another module, from
    a category's folder, imported earlier or later), a world gets the same tasks."""
    import awm.builder.taskgen as taskgen

    for domain, slot in WORLDS[:3]:
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        registered = generate_tasks(plan, rows).model_dump_json()
        monkeypatch.setattr(taskgen, "INTENTS", dict(reversed(INTENTS.items())))
        assert generate_tasks(plan, rows).model_dump_json() == registered, domain
        monkeypatch.undo()


@pytest.mark.parametrize("env_id", ["parcel_delivery__03", "commercial_space_leasing__02"])
def test_two_requests_asked_together_never_make_a_value_one_of_them_looks_up_by_seem_unstated(env_id):
    """Worlds where one request looked rows up by a value the other's goals demand (active carriers beside a
    new primary address, open repair requests beside open invoices): such requests are not paired, so the
    tasks gate's self-contained check finds every value the agent must supply stated."""
    domain, slot = env_id.rsplit("__", 1)
    plan = plan_world(make_scenario(domain, int(slot)))
    taskset = generate_tasks(plan, generate_rows(plan))
    assert sum(bool(t.segments) for t in taskset.tasks) <= 1  # one goal per task, but for a person's two matters
    assert task_findings(taskset, env_id, 10) == []


def test_a_word_answer_is_not_asked_beside_a_request_whose_wording_uses_it():
    """'closed' (a person's status, the answer of a refusal) beside a cancellation with the note 'Cancelled: office
    closed': asked together, an agent echoing the instruction would state the answer."""
    refusal = Plan([("list_customers", {"query": "Tammy Kelly"})],
                   [Goal(kind="answer", expect={"value": "closed", "others": ["active"]})],
                   Say("do", ("open a new {CASE} for {name}",), {"name": "Tammy Kelly"}), shape="infeasible")
    closure = Plan([("cancel_appointment", {"appointment_id": 4, "note": "Cancelled: office closed"})],
                   [Goal(kind="row_equals", table="appointments", pk=4, expect={"status": "cancelled"})],
                   Say("do", ("cancel {CASE} 4 with the note '{note}'",), {"note": "Cancelled: office closed"}))
    quiet = replace(closure, say=Say("do", ("cancel {CASE} 4",)),
                    calls=[("cancel_appointment", {"appointment_id": 4})])
    assert _clash(refusal, closure) and _clash(closure, refusal)
    assert not _clash(refusal, quiet)


def test_a_case_named_by_an_item_is_not_asked_beside_a_request_that_names_the_item():
    """"check their latest book order that included 'Literary Tote Bag': cancel it ..." beside "change the quantity
    of 'Literary Tote Bag' on their book order BOO-1049": the item names the case no more (drawn once)."""
    held = Plan([("get_book_order", {"book_order_id": 3})], [Goal(kind="row_equals", table="book_orders", pk=3,
                                                                  expect={"status": "cancelled"})],
                Say("do", ("cancel {case}",), {"case": "{their} latest {CASE} that [included|contained] 'Tote Bag'"}))
    naming = Plan([("update_order_line", {"order_line_id": 9, "quantity": 3})],
                  [Goal(kind="row_equals", table="order_lines", pk=9, expect={"quantity": 3})],
                  Say("do", ("change the quantity of {item} on {case} to 3",),
                      {"item": "'Tote Bag'", "case": "their book order BOO-1049"}))
    other = replace(naming, say=Say("do", ("change the quantity of {item} on {case} to 3",),
                                    {"item": "'Reading Lamp'", "case": "their book order BOO-1049"}))
    assert _clash(held, naming) and _clash(naming, held)
    assert not _clash(held, other)


def test_a_refusal_is_not_asked_beside_a_request_that_changes_a_row_its_refused_call_names():
    """A sold-out event's booking refused beside "wind up their dealings here ... and suspend them": the refused call,
    made after the whole task's reference, would meet a suspended reader (invalid_state) instead of sold_out."""
    refusal = Plan([("list_live_events", {"query": "Launch Night"})], [Goal(kind="answer", expect={"value": 0})],
                   Say("do", ("book 2 seats at {event}",), {"event": "Launch Night"}), shape="infeasible",
                   refused=(("create_event_ticket", {"live_event_id": 6, "reader_id": 3, "seats": 2}), "sold_out"))
    closing = Plan([("suspend_reader", {"reader_id": 3})],
                   [Goal(kind="row_equals", table="readers", pk=3, expect={"status": "suspended"})],
                   Say("do", ("suspend them",)))
    other = replace(closing, calls=[("suspend_reader", {"reader_id": 4})])
    assert _clash(refusal, closing) and _clash(closing, refusal)
    assert not _clash(refusal, other)


def test_no_gold_tier_is_offered_where_people_earn_none():
    """A taxpayer, a patient, a student is never moved to a gold tier (people.UNTIERED); a shopper still may be."""
    from awm.builder.intents.people import UNTIERED

    planned = Counter()
    for domain in builtin_domains():
        plan = plan_world(make_scenario(domain, 0))
        world = World(plan, generate_rows(plan), random.Random(1))
        if INTENTS["upgrade_if_big_spender"].fits(world):
            built = INTENTS["upgrade_if_big_spender"].build(world)
            planned[plan.scenario.category in UNTIERED] += built is not None
    assert planned[True] == 0 and planned[False] >= 20, planned


def test_a_confirming_message_is_not_led_by_a_connector_its_request_already_used():
    """"...; either way confirm it after that; after that, send them an email ..." says "after that" twice: the message
    a request asks for is led by a connector its own words do not use (base._fresh)."""
    names = tuple(n for n, i in INTENTS.items() if i.shape == "conditional" and not i.specific)
    said = 0
    for domain, slot in ((d, s) for s in (0, 1) for d in builtin_domains()[::4]):
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        for name in names:
            for seed in (1, 2, 3):
                world = World(plan, rows, random.Random(seed))
                built = INTENTS[name].build(world) if INTENTS[name].fits(world) else None
                if built is None or "confirm_subject" not in built.say.slots:
                    continue
                for clause in built.say.clauses:
                    for voice in built.say.voices:
                        say = replace(built.say, clauses=(clause,), voices=(voice,))
                        text, _ = Realiser(plan.scenario.labels, random.Random(seed)).request([say])
                        for connector in ("after that", "once that's done"):
                            assert text.lower().count(connector) <= 1, (name, text[:300], text[300:])
                        said += 1
    assert said > 100, said
