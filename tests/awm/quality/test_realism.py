"""Tasks a real user would send: one goal per task, no stock filler, no contradicting context, the right voice
(awm/quality/realism.py measures it; awm/builder/taskgen.py and phrasing.py write it)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from awm.builder.catalogue.seeds import builtin_domains
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, Plan
from awm.builder.intents.context import BY_CATEGORY, GENERAL, ORGANISATION, clashes, context_for
from awm.builder.phrasing import (
    _SELF_INTROS_BY_IDENT,
    STAFF_INTROS,
    Context,
    PartyRef,
    Realiser,
    Say,
    alternatives,
    every_choice,
    parse,
    voice_named,
)
from awm.builder.taskgen import PAIR_SHARE, _assemble, generate_tasks
from awm.builder.tools import generate_tools
from awm.builder.world import make_scenario, plan_world
from awm.contracts import Goal, Task, ToolCall
from awm.quality.realism import (
    RealismText,
    contradiction,
    needs_staff_tool,
    realism,
    sentences,
    voice_of,
    voice_violation,
)

SAMPLE_DOMAINS = builtin_domains()[::3]  # 34 domains of every kind, two slots each: 680 tasks


@pytest.fixture(scope="module")
def sample() -> list[RealismText]:
    texts = []
    for domain in SAMPLE_DOMAINS:
        for slot in (0, 5):
            plan = plan_world(make_scenario(domain, slot))
            for t in generate_tasks(plan, generate_rows(plan)).tasks:
                intents = tuple(t.template.split("+"))
                texts.append(RealismText(t.instruction, intents, all(INTENTS[i].shape == "infeasible" for i in intents)))
    return texts


def test_the_measures_read_voice_filler_and_contradictions_as_a_reader_would():
    proxy = "Hi, I'm writing for my child, Ann Lee (ann.lee@example.com). Could you cancel their order ORD-1001?"
    own = "Hello, my name is Ann Lee and my email is ann.lee@example.com. Could you cancel my order ORD-1001?"
    staff = "Ann Lee (ann.lee@example.com) called earlier. Please cancel their order ORD-1001."
    assert [voice_of(t) for t in (proxy, own, staff)] == ["proxy", "self", "staff"]
    assert voice_violation(RealismText(proxy, ("cancel_case",))) is not None
    assert voice_violation(RealismText(proxy, ("cancel_shipped",), refusal=True)) is None  # nothing is done for them
    assigning = "Hi, this is Ann Lee. Please move my booking BOO-1 to 2025-07-01 and assign it to host Mary Murray."
    preference = "Hi, this is Ann Lee. Book me in again with the same stylist as last time."
    quoted = "Hi, this is Ann Lee. Cancel my order and send me an email with the subject 'It has been handled'."
    assert voice_violation(RealismText(assigning, ("reschedule_case",))) == "a customer asks for a staff operation"
    assert voice_violation(RealismText(preference, ("book_with_same_staff",))) is None
    asking = "Hi, this is Ann Lee. Where does my latest booking stand, and who is looking after it?"
    assert voice_violation(RealismText(asking, ("case_status_question",))) is None
    assert voice_violation(RealismText(quoted, ("cancel_case",))) is None
    assert voice_violation(RealismText(assigning.replace("Hi, this is Ann Lee.", "Ann Lee called."), ("x",))) is None
    assert contradiction("Brittany Garza sent a letter by post. It arrived via the chat widget. Cancel it.")
    assert contradiction("Brittany Garza called earlier. Please add the note 'Sent by post'.") is None
    assert contradiction("Ann Lee wrote to us. Please confirm their booking that is on hold.") is None  # a status
    assert contradiction("Ann Lee is waiting on hold. She wrote to us last week.")
    assert contradiction("Ann Lee left a voicemail. Their car came in showing 16944 miles. Record it.") is None
    assert contradiction("Ann Lee left a voicemail. Ann Lee came in this morning. Record it.")
    # a sentence of context the request contradicts
    tight = "Hi, I'm Ann Lee. Our household budget is tight this month. Book the priciest room under 200.00 for me."
    assert contradiction(tight) == "Our household budget is tight this month. / priciest"
    assert contradiction(tight.replace("priciest", "cheapest")) is None
    assert contradiction("Hi, I'm Ann Lee. It's my first time doing this. Repeat my most recent order.")
    assert contradiction("Hi, I'm Ann Lee. It's my first time doing this. Cancel my order ORD-1001.") is None
    assert sentences("Mail ann.lee@example.net. Is it 2.50? Yes!") == ["Mail ann.lee@example.net.", "Is it 2.50?",
                                                                        "Yes!"]
    report = realism([RealismText("Two things. Cancel order 1. Also, ship order 2.", ("a", "b")),
                      RealismText("Two things. Ship order 3.", ("c",)), RealismText(proxy, ("d",))])
    assert report["multi_request_share"] == round(1 / 3, 4)
    assert report["top_sentence"] == "Two things." and report["top_sentence_share"] == round(2 / 3, 4)
    assert report["voice_violations"] == 1 and report["user_goal_share"] == 0 and report["proxy_share"] == round(1 / 3, 4)


def test_a_sample_of_the_corpus_reads_like_real_users(sample):
    """One goal per task (at most a tenth join two requests, of one person), no sentence in more than a small share
    of tasks, a share of first-person requests, no voice violation, no contradicting context."""
    report = realism(sample)
    assert report["tasks"] == 20 * len(SAMPLE_DOMAINS)
    assert report["multi_request_share"] <= PAIR_SHARE
    assert report["top_sentence_share"] <= 0.01, report["top_sentence"]  # 0.5% on the 10,000 tasks of `make run`
    assert report["user_goal_share"] >= 0.15
    assert report["voice_violations"] == 0, report["voice_violation_examples"]
    assert report["proxy_share"] == 0
    assert report["contradictions"] == 0, report["contradiction_examples"]


def test_every_introduction_beside_every_context_sentence_states_one_channel_at_most():
    """Each introduction in each wording, with each sentence of context its voice may add: no two ways the request
    arrived ("sent a letter by post" beside "it arrived via the chat widget")."""
    staff_context = {s for category in [*BY_CATEGORY, "none"] for s in context_for(category)["staff"]}
    self_context = set(GENERAL) | set(ORGANISATION) | {s for pool in BY_CATEGORY.values() for s in pool}
    checked = 0
    for voice, intros, context in (("staff", STAFF_INTROS, staff_context | {""}),
                                   ("self", [i for p in _SELF_INTROS_BY_IDENT.values() for i in p], self_context)):
        for intro in intros:
            for pick in every_choice(limit=alternatives(intro)):
                ctx = Context({"name": "Ann Lee", "email": "ann.lee@example.com"}, {}, voice_named(voice), pick,
                              party_full="Ann Lee (ann.lee@example.com)")
                rendered = ctx.render(parse(intro))
                for sentence in context:
                    text = f"{rendered} {sentence} Please cancel the order."
                    checked += 1
                    assert contradiction(text) is None, text
    assert checked > 1000 and not staff_context  # a member of staff adds no aside about their day


@pytest.mark.parametrize(("clause", "opened"), [("book the priciest {ROOM} under 200.00 for {them}", False),
                                                 ("book the cheapest {ROOM} for {them}", True)])
def test_a_request_does_not_open_with_context_its_own_words_contradict(clause, opened):
    """A tight budget opens a request for the cheapest room now and then, never one for the priciest."""
    tight = "Our household budget is tight this month."
    say = Say("do", (clause,), {}, party=PartyRef("Ann Lee", "ann.lee@example.com", "name_email"), voices=("self",))
    texts = [Realiser({"party": "guest", "room": "room"}, random.Random(seed), {"self": (tight,)}, clashes)
             .request([say])[0] for seed in range(60)]
    assert any(tight in t for t in texts) is opened
    assert all(contradiction(t) is None for t in texts)


def _plan(name: str, email: str, table: str, pk: int) -> Plan:
    say = Say("do", ("cancel {their} {CASE}",), {}, party=PartyRef(name, email, "name_email"), voices=("staff",))
    return Plan([(f"cancel_{table}", {f"{table}_id": pk})],
                [Goal(kind="row_equals", table=table, pk=pk, expect={"status": "cancelled"})], say,
                intent=f"cancel_{table}_{pk}", shape="action")


def test_two_requests_share_a_task_only_when_they_are_about_the_same_person_and_rarely():
    """Requests about different people are never joined; two about one person may be, in at most a tenth of a
    set's tasks."""
    ann = [_plan("Ann Lee", "ann@example.com", t, n) for n, t in enumerate(("order", "booking", "ticket"), 1)]
    bob = [_plan("Bob Roe", "bob@example.com", t, n) for n, t in enumerate(("invoice", "claim"), 10)]
    tasks = _assemble([bob[0], *ann, bob[1]], 10)
    assert sorted(len(t) for t in tasks) == [1, 1, 1, 2]
    joined = next(t for t in tasks if len(t) == 2)
    assert {p.say.party.name for p in joined} == {"Ann Lee"}
    assert [len(t) for t in _assemble([bob[0], *ann, bob[1]], 9)] == [1, 1, 1, 1, 1]  # 9 tasks: no pair allowed
    strangers = [_plan(f"P{n} Lee", f"p{n}@example.com", "order", n) for n in range(1, 9)]
    assert all(len(t) == 1 for t in _assemble(strangers, 10))


@pytest.mark.parametrize("domain", ["dental_clinic", "retail_banking", "hotel_group"])
def test_customers_never_write_for_someone_else_or_ask_for_staff_operations(domain):
    """Every slot of a few domains: the first-person requests are the customer's own, and ask nothing only staff do."""
    for slot in range(10):
        plan = plan_world(make_scenario(domain, slot))
        staff_only = {s.name for s in generate_tools(plan)[1].tools if s.staff_only}
        for t in generate_tasks(plan, generate_rows(plan)).tasks:
            intents = tuple(t.template.split("+"))
            text = RealismText(t.instruction, intents, staff_tool=needs_staff_tool(t, staff_only))
            assert voice_violation(text) is None, t.instruction


def test_a_customers_request_that_needs_a_staff_tool_is_a_voice_violation():
    own = "Hello, my name is Ann Lee. Please cancel my order ORD-1001."
    assert voice_violation(RealismText(own, ("cancel_case",))) is None
    assert voice_violation(RealismText(own, ("cancel_case",), staff_tool=True)) == (
        "a customer's own request needs a tool only staff may use")
    task = Task(task_id="t01", instruction=own, kind="action", template="cancel_case", requester="party",
                reference_solution=[ToolCall(tool="find_orders"), ToolCall(tool="cancel_order")],
                goals=[Goal(kind="row_deleted", table="orders", pk=1)])
    assert not needs_staff_tool(task, {"ship_order"})
    assert needs_staff_tool(task, {"cancel_order"})
    assert not needs_staff_tool(task.model_copy(update={"requester": "staff"}), {"cancel_order"})


def test_a_customer_acting_for_someone_else_is_counted_and_flagged_outside_the_authority_requests():
    """In the customer's own voice, a request on another person's behalf is one of the proven authority requests
    (carried out with the authority on record, refused without it) or a voice violation; acting for oneself, or a
    context sentence about a relative, is neither."""
    on_behalf = ("Hi, this is Ann Lee (ann.lee@example.com). I act for Bo Fox as their guardian. Please cancel their "
                 "order ORD-1001 for them.")
    for_relative = "Hello, my name is Ann Lee. Please cancel my sibling's order ORD-1001."
    own = "Hello, my name is Ann Lee. My spouse usually handles these things. Please cancel my order ORD-1001."
    assert voice_of(on_behalf) == voice_of(for_relative) == voice_of(own) == "self"
    authorised = RealismText(on_behalf, ("cancel_as_representative",))
    refused = RealismText(on_behalf, ("cancel_without_authority",), refusal=True)
    assert voice_violation(authorised) is None and voice_violation(refused) is None
    why = "a customer acts for another person outside a proven authority request"
    assert voice_violation(RealismText(on_behalf, ("cancel_case",))) == why
    assert voice_violation(RealismText(for_relative, ("cancel_case",))) == why
    assert voice_violation(RealismText(own, ("cancel_case",))) is None
    relayed = ("This request is for Ann Lee (ann.lee@example.com). I act for Bo Fox as their guardian. Please cancel "
               "their order ORD-1001 for them.")  # staff cannot say "I act for": the request is the customer's
    assert voice_of(relayed) == "staff"
    assert voice_violation(RealismText(relayed, ("cancel_as_representative",))) == (
        "a request for another person not in the customer's own voice")
    report = realism([authorised, refused, RealismText(for_relative, ("cancel_case",)), RealismText(own, ("x",))])
    assert (report["authority_requests"], report["authority_refusals"], report["voice_violations"]) == (2, 1, 1)


def test_the_sample_holds_authority_requests_of_both_kinds(sample):
    report = realism(sample)
    assert report["authority_requests"] > report["authority_refusals"] > 0, report


@pytest.mark.parametrize("domain", ["catering", "dental_clinic", "retail_banking", "hotel_group"])
def test_each_task_records_who_writes_it_as_its_text_reads(domain):
    """`Task.requester` is the realiser's voice: `party` exactly where the customer writes in their own words
    (so the prompt tells the agent it acts for that customer, not for the acting staff member), else `staff`."""
    seen = Counter()
    for slot in range(5):
        plan = plan_world(make_scenario(domain, slot))
        for t in generate_tasks(plan, generate_rows(plan)).tasks:
            assert t.requester == ("party" if voice_of(t.instruction) == "self" else "staff"), t.instruction
            seen[t.requester] += 1
    assert seen["party"] and seen["staff"], seen
