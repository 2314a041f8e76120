"""A customer asking, in their own voice, for something on another person's behalf: carried out where the world records
the speaker as that person's authorised representative (a guardian, a delegate), refused where it does not, and both
proven by the verification stage like every other request (awm/builder/intents/people.py); and the same claim beside
a case of the speaker's own, which is cancelled either way while the other person's is refused."""

from __future__ import annotations

import json
import random
import re
from collections import Counter

import pytest

from awm import artifacts
from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.intents.people import AUTHORITY_INTENTS, AUTHORITY_PARTIAL
from awm.builder.phrasing import grammar_faults
from awm.builder.taskgen import generate_tasks
from awm.builder.world import make_scenario, plan_world
from awm.quality.realism import RealismText, voice_of, voice_violation
from awm.runtime.environment import Environment
from awm.store import ArtifactStore
from tests.awm.builder.test_intents import WORLDS, assert_every_proof_passed, prove_requests
from tests.lanes import sample_or_whole

FEASIBLE, REFUSED = AUTHORITY_INTENTS


def lifecycle(world: tuple[str, int]) -> str:
    return plan_world(make_scenario(*world)).flavour.name


# The fast lane proves the requests in the first of the worlds of each lifecycle; `make test` in every world.
ONE_PER_LIFECYCLE = tuple(w for n, w in enumerate(WORLDS) if lifecycle(w) not in map(lifecycle, WORLDS[:n]))


def test_every_world_records_authority_on_its_parties_and_the_family_fits_it():
    """The fact lives in every world (a column of the party table pointing at another party), so the family fits
    every built-in domain; most worlds have both a represented person to act for and one to refuse."""
    both = 0
    domains = builtin_domains()
    for domain in domains:
        plan = plan_world(make_scenario(domain, 0))
        column = plan.entities["party"].col("representative_id")
        assert column.ref == "party" and column.nullable
        rows = generate_rows(plan)
        represented = [p for p in rows["party"] if p["representative_id"] is not None]
        assert represented and all(p["representative_id"] < p["id"] for p in represented)
        world = World(plan, rows, random.Random(0))
        assert all(INTENTS[name].fits(world) for name in AUTHORITY_INTENTS)
        both += all(INTENTS[name].build(world) is not None for name in AUTHORITY_INTENTS)
    assert both >= 0.8 * len(domains), (both, len(domains))


@pytest.mark.slow
def test_task_sets_write_every_authority_request_in_the_customers_own_voice():
    """Drawn by the task generator (its realiser picks voices by the request's own), across domains of every kind:
    never relayed by staff ("This request is for Ann Lee. I act for Bo Fox as their guardian ...")."""
    seen = Counter()
    kinds = (*AUTHORITY_INTENTS, AUTHORITY_PARTIAL)

    def enough() -> bool:
        return all(seen[name] >= 1 for name in kinds) and seen[FEASIBLE] >= 3 and \
            seen[REFUSED] + seen[AUTHORITY_PARTIAL] >= 3
    # until each kind was seen: the draw decides where they fall (a set keeps its deeper refusals first, so the
    # refused request alone is rare: 14 of the default corpus's 10,000 tasks, none of them in slot 0)
    for domain, slot in ((d, s) for s in range(3) for d in builtin_domains()):
        if enough():
            break
        plan = plan_world(make_scenario(domain, slot))
        for task in generate_tasks(plan, generate_rows(plan)).tasks:
            intents = tuple(task.template.split("+"))
            if not set(intents) & set(kinds):
                continue
            seen.update(i for i in intents if i in kinds)
            assert voice_of(task.instruction) == "self", task.instruction
            assert not grammar_faults(task.instruction), (task.instruction, grammar_faults(task.instruction))
            refusal = all(INTENTS[i].shape == "infeasible" for i in intents)
            assert voice_violation(RealismText(task.instruction, intents, refusal)) is None, task.instruction
    assert enough(), seen


@pytest.fixture(scope="module", params=sample_or_whole(ONE_PER_LIFECYCLE, WORLDS))
def proven(request, tmp_path_factory):
    """Both requests in worlds of every lifecycle, as tasks of their own, through the verification stage."""
    store = ArtifactStore(tmp_path_factory.mktemp("authority"))
    runs = []
    for domain, slot in request.param:
        run = prove_requests(store, domain, slot, AUTHORITY_INTENTS)
        assert set(run[1]) == set(AUTHORITY_INTENTS), run[:2]
        runs.append(run)
    return store, runs


def test_both_requests_pass_every_proof_in_every_lifecycle(proven, request):
    _, runs = proven
    worlds = request.node.callspec.params["proven"]
    assert len({env for env, *_ in runs}) == len(worlds) and len(WORLDS) >= 8
    assert {lifecycle(w) for w in worlds} == {lifecycle(w) for w in WORLDS}
    assert_every_proof_passed(runs)


def test_the_requests_are_in_the_customers_own_voice_and_read_the_same_either_way(proven):
    _, runs = proven
    for _, _, tasks, _ in runs:
        for task in tasks:
            assert voice_of(task.instruction) == "self", task.instruction
            assert not grammar_faults(task.instruction), (task.instruction, grammar_faults(task.instruction))
            refusal = task.template == REFUSED
            assert voice_violation(RealismText(task.instruction, (task.template,), refusal)) is None
            # the speaker's claim is the same in both: the instruction never says whether the record backs it
            assert "not" not in task.instruction.split()


def test_the_authority_is_found_through_the_tools_never_stated(proven):
    """The reference reads the other person's record, whose representative is the speaker (carried out) or someone
    else (refused); the instruction names neither that field nor, when refused, who holds the authority."""
    store, runs = proven
    for env_id, plans, tasks, _ in runs:
        env = Environment.from_store(store, env_id)
        try:
            for name, task in zip(plans, tasks, strict=True):
                results = env.replay([(c.tool, c.arguments) for c in task.reference_solution])
                speaker = json.dumps(results[0])
                other = json.dumps(results[1])
                assert "representative_id" in other and "representative_id" not in task.instruction
                if name == FEASIBLE:
                    rep_ids = {int(x) for x in re.findall(r'"representative_id": (\d+)', other)}
                    assert any(f'"id": {i},' in speaker for i in rep_ids), (speaker, other)
                else:
                    holder = task.reference_answer.split("; ")[-1].removesuffix(" is.")
                    assert holder not in task.instruction
                    assert holder.split()[0] in json.dumps(results[2])
        finally:
            env.close()


def test_an_agent_that_acts_without_the_authority_is_refused_and_scores_zero_where_the_tools_allow_it(proven):
    """The refusal's answer given, but the case cancelled anyway (what an agent that takes the speaker's word does):
    in the speaker's own episode the runtime refuses the cancel (the case is another customer's, whose record names
    someone else); where the tools let it through (the same request relayed by the staff), the verdict is
    incomplete, and the reference (reads and the answer) complete."""
    store, runs = proven
    for env_id, plans, tasks, _ in runs:
        feasible, refused = tasks
        cancel = feasible.reference_solution[4]
        assert not cancel.tool.startswith(("get", "list", "find", "search")) and len(cancel.arguments) == 1
        case_id = next(v for role, v in plans[REFUSED].targets if role == "case")
        calls = [(c.tool, c.arguments) for c in refused.reference_solution]
        overreach = calls + [(cancel.tool, {next(iter(cancel.arguments)): case_id})]
        env = Environment.from_store(store, env_id)
        relayed = refused.model_copy(update={"requester": "staff", "party_id": None})
        staff = Environment(env_id, env.tools_source, env.toolset, env.taskset.model_copy(update={"tasks": [relayed]}),
                            artifacts.VERIFIERS.read(store, env_id), env.db_path)
        try:
            assert refused.requester == "party" and refused.party_id is not None
            mine, _ = env.send_trajectory(overreach, refused.task_id).result()
            assert mine[-1]["error"]["code"] == "not_permitted", mine[-1]
            assert "error" not in json.dumps(staff.replay(overreach)[-1])  # the tools allow it: only authority forbids
            done, honest = staff.judge_trajectories(refused.task_id, [(overreach, refused.reference_answer),
                                                                     (calls, refused.reference_answer)])
        finally:
            env.close()
            staff.close()
        assert honest["complete"], honest
        assert not done["complete"] and done["diff"]["unexpected"] >= 1, done


def test_the_representative_cancels_and_refunds_in_their_own_episode(proven):
    """The carried-out request's reference, in the speaker's own episode (the runtime's ownership rules on): every
    call runs, the refunds of what was captured on the other person's case too, and the verdict is complete."""
    store, runs = proven
    refunds = 0
    for env_id, _, tasks, _ in runs:
        feasible = tasks[0]
        assert feasible.requester == "party" and feasible.template == FEASIBLE
        calls = [(c.tool, c.arguments) for c in feasible.reference_solution]
        refunds += sum("refund" in tool for tool, _ in calls)
        env = Environment.from_store(store, env_id)
        try:
            results, verdicts = env.send_trajectory(calls, feasible.task_id, [feasible.reference_answer]).result()
        finally:
            env.close()
        assert not [r for r in results if "error" in json.dumps(r)], results
        assert verdicts[0]["complete"], verdicts
    assert refunds >= 1, refunds


# --- the speaker's own case cancelled, the other person's refused ------------------------------------------------


def test_the_partial_request_is_planned_in_most_worlds_on_the_speakers_own_case():
    """The writes touch the speaker's own case alone (its cancel and its refunds), the other person's record names
    someone else, and the agent reads it before anything changes."""
    planned, steps = 0, 0
    for domain in builtin_domains():
        plan = plan_world(make_scenario(domain, 0))
        world = World(plan, generate_rows(plan), random.Random(0))
        built = INTENTS[AUTHORITY_PARTIAL].build(world)
        if built is None:
            continue
        planned += 1
        steps += len(built.calls)
        speaker = next(p for p in world.rows["party"] if p["email"] == built.say.party.email)
        cases = [world.by_id("case", i) for role, i in built.targets if role == "case"]
        mine = [c for c in cases if c[world.fk("party")] == speaker["id"]]
        theirs = [c for c in cases if c[world.fk("party")] != speaker["id"]]
        assert len(mine) == len(theirs) == 1
        other = world.by_id("party", theirs[0][world.fk("party")])
        assert other["representative_id"] not in (None, speaker["id"])
        writes = [(t, a) for t, a in built.calls if not t.startswith(("get_", "list_", "search_"))]
        assert writes[0] == (world.n.action("case", world.fl.cancel.verb), {world.fk("case"): mine[0]["id"]})
        assert [t for t, _ in writes[1:]] == [world.n.action("payment", "refund")] * (len(writes) - 1)
        assert built.calls.index((world.n.list("party"), {"query": world.person(other)})) < built.calls.index(writes[0])
        assert built.say.voices == ("self",) and built.refused is None
    assert planned >= 60 and steps / planned >= 6, (planned, steps)


@pytest.fixture(scope="module", params=sample_or_whole(ONE_PER_LIFECYCLE[:3], ONE_PER_LIFECYCLE))
def partly(request, tmp_path_factory):
    """The partial request in worlds of several lifecycles, as a task of its own, through the verification stage."""
    store = ArtifactStore(tmp_path_factory.mktemp("authority_partial"))
    runs = [run for domain, slot in request.param
            if (run := prove_requests(store, domain, slot, (AUTHORITY_PARTIAL,)))[1]]
    assert runs
    return store, runs


def test_the_partial_request_passes_every_proof_and_reads_as_the_customers_own(partly):
    _, runs = partly
    assert_every_proof_passed(runs)
    for _, _, tasks, _ in runs:
        for task in tasks:
            assert voice_of(task.instruction) == "self" and not grammar_faults(task.instruction), task.instruction
            assert voice_violation(RealismText(task.instruction, (task.template,), True)) is None
            assert "not" not in task.instruction.split()


def test_refusing_everything_claiming_all_done_or_overreaching_scores_zero(partly):
    """The reads and the refusal's answer with the speaker's own case left as it was; the whole reference with
    "All done." for an answer; and the reference with the other person's case cancelled too (the runtime refuses
    it in the speaker's own episode; relayed by staff the tools let it through and the verdict is incomplete).
    Each incomplete, the reference complete."""
    store, runs = partly
    for env_id, plans, tasks, _ in runs:
        (task,) = tasks
        built = plans[AUTHORITY_PARTIAL]
        calls = [(c.tool, c.arguments) for c in task.reference_solution]  # in the environment's own tool names
        read = [t.startswith(("get_", "list_", "search_")) for t, _ in built.calls]  # the plan's are canonical
        assert len(read) == len(calls)
        reads = [call for call, r in zip(calls, read, strict=True) if r]
        tool, args = calls[read.index(False)]
        (column, mine), = args.items()
        theirs = next(i for role, i in built.targets if role == "case" and i != mine)
        overreach = calls + [(tool, {column: theirs})]
        env = Environment.from_store(store, env_id)
        relayed = task.model_copy(update={"requester": "staff", "party_id": None})
        staff = Environment(env_id, env.tools_source, env.toolset, env.taskset.model_copy(update={"tasks": [relayed]}),
                            artifacts.VERIFIERS.read(store, env_id), env.db_path)
        try:
            own_episode, _ = env.send_trajectory(overreach, task.task_id).result()
            assert own_episode[-1]["error"]["code"] == "not_permitted", own_episode[-1]
            good, refused, done, over = staff.judge_trajectories(task.task_id, [
                (calls, task.reference_answer), (reads, task.reference_answer), (calls, "All done."),
                (overreach, task.reference_answer)])
        finally:
            env.close()
            staff.close()
        assert good["complete"], good
        assert not refused["complete"] and not done["complete"] and not over["complete"], (refused, done, over)
