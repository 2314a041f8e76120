"""Category entity modules (awm.builder.modules.packs): every domain of a category with its own entities builds
valid, proven environments; its entities, columns and requests appear in that category only; siblings differ in
schema; the tools enforce each entity's rules; the same seed gives the same rows."""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache

import pytest
from pydantic import ValidationError

from awm.builder.catalogue import DOMAIN_SEEDS, PACKS
from awm.builder.catalogue.model import Pack
from awm.builder.data import generate_rows
from awm.builder.intents import INTENTS, World
from awm.builder.modules import MODULE_ROLES
from awm.builder.modules.packs import PACK_MODULES, PACK_ROLE_OWNER, group_roles, groups_for
from awm.builder.toolgen import ToolNames
from awm.builder.tools import dialect_for, tool_defs
from awm.builder.world import make_scenario, plan_world
from awm.contracts import SchemaSpec, VerificationReport
from awm.runtime.environment import Environment
from awm.store import ArtifactStore
from tests.awm.builder.test_builder import assert_papers_size
from tests.awm.builder.test_intents import _tasks_for, prove
from tests.awm.builder.worlds import SLOTS, worlds_with
from tests.conftest import build_environment

# The requests about a category's own entities: those that need a table only one category keeps. (A category's
# requests.py also registers requests over the generic modules, some shared with other categories.)
ENTITY_INTENT_CATEGORY = {name: next(PACK_ROLE_OWNER[r].CATEGORY for r in intent.needs if r in PACK_ROLE_OWNER)
                          for name, intent in INTENTS.items() if any(r in PACK_ROLE_OWNER for r in intent.needs)}
ENTITY_INTENTS = list(ENTITY_INTENT_CATEGORY)



@pytest.fixture(scope="module")
def built_store(tmp_path_factory) -> ArtifactStore:
    """One store for this module's tests: an environment one test built (every stage, every proof) is read, not
    rebuilt, by the next (a build skips the stages whose artifacts exist); the tests only read it and replay
    episodes on copies of its database."""
    return ArtifactStore(tmp_path_factory.mktemp("category-entities"))


def _domains(category: str) -> list[str]:
    return [slug for slug, seed in DOMAIN_SEEDS.items() if seed.category == category]


def category_worlds(category: str) -> list[tuple[str, int]]:
    """The first world of each domain of `category`, then, for an entity group none of them carries, the first
    world that does (the same worlds the proofs below start from)."""
    found = [(domain, 0) for domain in _domains(category)]
    carried = {g for d, s in found for g in make_scenario(d, s).entity_groups}
    for group in PACK_MODULES[category].GROUPS:
        if group not in carried:
            found += [w for w in worlds_with(group, 1, category) if w not in found]
    return found


# The fast lane builds the worlds of the first category (agriculture); the full run those of every category.
@pytest.mark.parametrize("category", [c if n == 0 else pytest.param(c, marks=pytest.mark.slow)
                                      for n, c in enumerate(sorted(PACK_MODULES))])
def test_every_domain_of_the_category_builds_valid_proven_environments(category, built_store):
    store = built_store
    seen = set()
    for domain, slot in category_worlds(category):
        outcomes = build_environment(store, domain, slot)
        assert all(o.ok for o in outcomes), (domain, slot, [(o.stage, o.error) for o in outcomes if not o.ok])
        env_id = outcomes[0].env_id
        scenario = make_scenario(domain, slot)
        tables = {t.name for t in store.read_model(env_id, "schema.json", SchemaSpec).tables}
        plan = plan_world(scenario)
        own = group_roles(category, scenario.entity_groups)
        assert {plan[role].table for role in own} <= tables
        seen |= set(scenario.entity_groups)
        for report in store.read_model(env_id, "report.json", VerificationReport).tasks:
            assert report.publishable, (env_id, report.task_id, report.failure_check(), report.error)
    assert seen == set(PACK_MODULES[category].GROUPS)


@pytest.mark.slow
def test_every_builtin_domain_builds_a_valid_environment_of_the_papers_size(built_store):
    """Each built-in domain's first environment valid and of the paper's size, and the steps and distinct tools per
    task over all of them: on the environments the test above built (read, not built again: they run in this
    module's order on one worker), or built now where this test runs alone."""
    assert_papers_size(built_store, DOMAIN_SEEDS)


@cache
def _planned(world: tuple[str, int]) -> frozenset[str]:
    """The entity intents that have rows to start from in `world`, planned as the test below plans them."""
    plan = plan_world(make_scenario(*world))
    try:
        return frozenset(_tasks_for(plan, generate_rows(plan), ENTITY_INTENTS)[1])
    except ValidationError:  # not one of them fits
        return frozenset()


def proof_worlds() -> list[tuple[str, int]]:
    """Worlds that between them carry every entity group of every category module and rows every request about
    them can start from (a released room block, a lapsed rate quote, a claim past its filing window), found by
    what they contain: the first world carrying each group, then, for a request none of those can start from,
    the first world of its category that can (a slot named by hand silently stops covering what it meant to
    when the groups or rows a slot draws change)."""
    found: list[tuple[str, int]] = []
    for category, module in sorted(PACK_MODULES.items()):
        for group in module.GROUPS:
            found += [w for w in worlds_with(group, 1, category) if w not in found]
    planned = set().union(*(_planned(w) for w in found))
    for name in [n for n in ENTITY_INTENTS if n not in planned]:
        world = next((w for w in ((d, s) for d in _domains(ENTITY_INTENT_CATEGORY[name]) for s in range(SLOTS))
                      if w not in found and name in _planned(w)), None)
        assert world is not None, f"no world of slots 0-{SLOTS - 1} has rows {name} can start from"
        found.append(world)
        planned |= _planned(world)
    return found


@pytest.mark.slow
def test_every_request_about_category_entities_passes_every_proof(built_store):
    store = built_store
    proven: Counter = Counter()
    failed = []
    for domain, slot in proof_worlds():
        outcomes = build_environment(store, domain, slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        env_id = outcomes[0].env_id
        plan = plan_world(make_scenario(domain, slot))
        taskset, ids = _tasks_for(plan, generate_rows(plan), ENTITY_INTENTS)
        reports = {r.task_id: r for r in prove(store, env_id, taskset).tasks}
        for name, task_id in ids.items():
            report = reports[task_id]
            if report.publishable:
                proven[name] += 1
            else:
                failed.append((env_id, name, report.failure_check(), report.error or report.survivors))
    assert not failed
    assert set(proven) == set(ENTITY_INTENTS), sorted(set(ENTITY_INTENTS) - set(proven))


@pytest.mark.slow
def test_category_entities_appear_in_their_category_only():
    for slug, seed in DOMAIN_SEEDS.items():
        allowed = groups_for(seed.category, slug)
        for slot in range(10):
            scenario = make_scenario(slug, slot)
            assert set(scenario.entity_groups) <= set(allowed), (slug, slot)
            plan = plan_world(scenario)
            assert tool_defs(plan), (slug, slot)  # every tool gets a distinct name in the world's API style
            for role in plan.entities:
                if role in PACK_ROLE_OWNER:
                    assert PACK_ROLE_OWNER[role].CATEGORY == seed.category, (slug, slot, role)
            for group in scenario.entity_groups:
                assert set(allowed[group].needs) <= set(scenario.modules), (slug, slot, group)
    # a pawn shop issues no cards, a pharmacy keeps no appointment slots
    assert not any(make_scenario("pawn_brokerage", s).entity_groups for s in range(10))
    assert all("schedules" not in make_scenario("retail_pharmacy", s).entity_groups for s in range(10))


def test_sibling_scenarios_carry_different_entity_groups():
    for category in PACK_MODULES:
        for slug in _domains(category):
            groups = [tuple(make_scenario(slug, slot).entity_groups) for slot in range(10)]
            if len(groups_for(category, slug)) >= 3:
                assert len(set(groups)) >= 3, (slug, groups)
                assert all(a != b for a, b in zip(groups, groups[1:], strict=False)), (slug, groups)


@pytest.mark.slow
def test_code_prefixes_stay_unique_with_category_entities():
    for category in PACK_MODULES:
        for slug in _domains(category):
            for slot in range(4):
                plan = plan_world(make_scenario(slug, slot))
                assert len(set(plan.code_prefixes.values())) == len(plan.code_prefixes), (slug, slot)
                rows = generate_rows(plan)
                for role, prefix in plan.code_prefixes.items():
                    codes = [r.get("number") or r.get("code") or r.get("sku") for r in rows.get(role, [])]
                    assert all(str(c).startswith(prefix + "-") for c in codes), (slug, slot, role, codes[:3])


def test_the_same_seed_gives_the_same_rows_and_another_seed_other_rows():
    for slug in ("retail_banking", "dental_clinic", "freight_brokerage"):
        first = json.dumps(generate_rows(plan_world(make_scenario(slug, 1))), sort_keys=True)
        again = json.dumps(generate_rows(plan_world(make_scenario(slug, 1))), sort_keys=True)
        other = json.dumps(generate_rows(plan_world(make_scenario(slug, 1, base_seed=7))), sort_keys=True)
        assert first == again and first != other


def test_requests_about_category_entities_belong_to_exactly_that_category():
    generic = {role for roles in MODULE_ROLES.values() for role in roles}
    for name in ENTITY_INTENTS:
        intent = INTENTS[name]
        assert len(intent.categories) == 1, name
        module = PACK_MODULES[intent.categories[0]]
        own = [r for r in intent.needs if r not in generic]
        assert own and all(PACK_ROLE_OWNER[r] is module for r in own), (name, intent.needs)
        assert intent.module == f"awm.builder.categories.{intent.categories[0]}.requests", (name, intent.module)
    # an injury note is for sessions and visits: never asked of a pharmacy's orders
    plan = plan_world(make_scenario("retail_pharmacy", 0))
    world = World(plan, generate_rows(plan), random.Random(0))
    assert not INTENTS["fitness_injury_note"].fits(world)
    assert INTENTS["fitness_injury_note"].fits(World(*(lambda p: (p, generate_rows(p)))(
        plan_world(make_scenario("physical_therapy", 0))), random.Random(0)))


def test_category_columns_are_on_their_tables_and_filled():
    plan = plan_world(make_scenario("dental_clinic", 0))
    rows = generate_rows(plan)
    patient = plan["party"]
    assert {"date_of_birth", "insurer", "blood_type"} <= {c.name for c in patient.columns}
    assert "insurer" in patient.filters
    assert all(r["date_of_birth"] < "2025-06-01" and r["insurer"] for r in rows["party"])
    bank = plan_world(make_scenario("retail_banking", 0))
    assert bank["party"].col("kyc_status").enum == ("verified", "pending", "expired")
    assert not plan_world(make_scenario("online_retail", 0))["party"].has("kyc_status")


@pytest.mark.parametrize("column,message", [
    ({"name": "bad name", "values": ["a", "b"]}, "bad column name"),
    ({"name": "score"}, "give exactly one of values, range, days"),
    ({"name": "score", "range": [5, 1]}, "must be [low, high]"),
])
def test_a_bad_category_column_is_refused_with_its_name(column, message):
    base = PACKS["healthcare"].model_dump()
    with pytest.raises(ValidationError, match=message.replace("[", r"\[")):
        Pack.model_validate({**base, "columns": {"party": [column]}})
    with pytest.raises(ValidationError, match="unknown role 'vendor'"):
        Pack.model_validate({**base, "columns": {"vendor": [{"name": "extra", "values": ["a", "b"]}]}})


def _refused(env: Environment, plan, calls: list[tuple[str, dict]]) -> str:
    """The last call's result, as text, after replaying canonical calls in the environment's own API dialect."""
    dialect = dialect_for(plan)
    return json.dumps(env.replay([dialect.call(tool, args) for tool, args in calls])[-1])


def _tally_refusals(env: Environment, plan, calls: list[tuple[str, tuple[str, dict]]], refused: Counter) -> None:
    """Replay each (code, call) on its own and count its code, which the refusal must name; then close `env`."""
    try:
        for code, call in calls:
            result = _refused(env, plan, [call])
            assert code in result.lower(), (plan.scenario.env_id, result)
            refused[code] += 1
    finally:
        env.close()


# Per role: (the rows one is picked from, what that row must be, the canonical calls that run into the role's rule,
# and the code that names it); the first row matching wins. A card blocked as lost stays blocked, a charge past its
# window or a claim past its filing window is refused, a lapsed quote cannot be accepted, a hold cannot exceed the
# balance; a licence renewed too early, an inspection result before its day, a late appeal, a second extension, a
# day of more than 24 hours, an overdrawn retainer, a passed deadline, a lapsed letter, a late grant, an overpaid
# pledge, more than 12 hours of service a day; a vehicle's mileage or a meter's reading below the last one.
RULE_CALLS = {
    "card": (lambda r: r["status"] == "active",
             lambda p, n, r: [(n.action("card", "block"), {**_pk(p, "card", r), "reason": "lost"}),
                              (n.action("card", "unblock"), _pk(p, "card", r))], "not_allowed"),
    "dispute": (lambda r: r["amount"] < 0 and r["posted_at"] < "2025-04-02" and r["entry_type"] in ("withdrawal", "fee"),
                lambda p, n, r: [(n.create("dispute"), {p["account_entry"].fk: r["id"], "reason": "unrecognised"})],
                "window_closed", "account_entry"),
    "hold": (lambda r: r["status"] == "active",
             lambda p, n, r: [(n.create("hold"), {p["account"].fk: r["id"], "amount": r["balance"] + 1,
                                                  "reason": "legal_order", "expires_on": "2025-07-01"})],
             "insufficient_funds", "account"),
    "insurance_claim": (lambda r: r["status"] == "draft" and r["service_date"] < "2025-03-03",
                        lambda p, n, r: [(n.action("insurance_claim", "submit"), _pk(p, "insurance_claim", r))],
                        "window_closed"),
    "rate_quote": (lambda r: r["status"] == "expired",
                   lambda p, n, r: [(n.action("rate_quote", "accept"), _pk(p, "rate_quote", r))], "invalid_state"),
    "issued_licence": (lambda r: r["status"] == "active" and r["expires_on"] > "2025-09-15",
                       lambda p, n, r: [(n.action("issued_licence", "renew"),
                                         {**_pk(p, "issued_licence", r), "expires_on": "2030-01-01"})],
                       "window_closed"),
    "inspection_visit": (lambda r: r["status"] == "scheduled" and r["scheduled_on"] > "2025-06-01",
                         lambda p, n, r: [(n.action("inspection_visit", "record_result"),
                                           {**_pk(p, "inspection_visit", r), "result": "passed"})], "too_early"),
    "fine_notice": (lambda r: r["status"] == "unpaid" and r["issued_on"] < "2025-05-01",
                    lambda p, n, r: [(n.action("fine_notice", "appeal"),
                                      {**_pk(p, "fine_notice", r), "grounds": "Too late"})], "window_closed"),
    "records_request": (lambda r: r["status"] in ("received", "in_review") and not r["extended"],
                        lambda p, n, r: [(n.action("records_request", "extend"),
                                          {**_pk(p, "records_request", r), "due_on": "2025-08-01"})] * 2,
                        "not_allowed"),
    "time_entry": (lambda r: r["status"] == "unbilled",  # an unbilled entry is on an open case
                   lambda p, n, r: [(n.create("time_entry"), {p["case"].fk: r[p["case"].fk], p["staff"].fk: r[p["staff"].fk],
                                                              "worked_on": "2025-05-20", "hours": 12,
                                                              "description": "Long day"})] * 3, "over_limit"),
    "client_retainer": (lambda r: r["status"] == "active",
                        lambda p, n, r: [(n.action("client_retainer", "draw"),
                                          {**_pk(p, "client_retainer", r), "amount": r["balance"] + 1})],
                        "insufficient_funds"),
    "filing_deadline": (lambda r: r["status"] == "open" and r["due_on"] < "2025-06-01",
                        lambda p, n, r: [(n.action("filing_deadline", "extend"),
                                          {**_pk(p, "filing_deadline", r), "due_on": "2025-09-01"})],
                        "window_closed"),
    "engagement_letter": (lambda r: r["status"] == "sent" and r["expires_on"] < "2025-06-01",
                          lambda p, n, r: [(n.action("engagement_letter", "sign"),
                                            {**_pk(p, "engagement_letter", r)})], "expired"),
    "grant_application": (lambda r: r["status"] == "drafting" and r["deadline"] < "2025-06-01",
                          lambda p, n, r: [(n.action("grant_application", "submit"),
                                            {**_pk(p, "grant_application", r)})], "window_closed"),
    "pledge": (lambda r: r["status"] == "open",
               lambda p, n, r: [(n.action("pledge", "record_payment"),
                                 {**_pk(p, "pledge", r), "amount": r["amount_pledged"] + 1})], "over_limit"),
    "vehicle": (lambda r: r["mileage"] > 0,
                lambda p, n, r: [(n.action("vehicle", "record_mileage"), {**_pk(p, "vehicle", r), "mileage": r["mileage"] - 1})],
                "mileage_backwards"),
    "meter": (lambda r: r["status"] == "active" and r["last_reading"] > 0,
              lambda p, n, r: [(n.action("meter", "record_reading"), {
                  **_pk(p, "meter", r), "reading": r["last_reading"] - 1,
                  **({"source": "actual"} if p.has("meter_reading") else {})})], "reading_backwards"),
    "service_log": (lambda r: True,
                    lambda p, n, r: [(n.create("service_log"), {p["party"].fk: r[p["party"].fk], p["site"].fk: r[p["site"].fk],
                                                                "served_on": "2025-05-20", "hours": 12,
                                                                "activity": "Long day"})] * 2, "over_limit"),
}


FAST_RULES = ("card", "dispute", "hold", "insurance_claim", "rate_quote")  # the fast lane's; the full run all


@pytest.mark.parametrize("role", [r if r in FAST_RULES else pytest.param(r, marks=pytest.mark.slow) for r in RULE_CALLS])
def test_the_tools_enforce_each_entitys_rule(role, built_store):
    """Through the real runtime, in the first world that carries the role: its rule's calls are refused with its
    code."""
    fits, calls, code, *source = RULE_CALLS[role]
    [(domain, slot)] = worlds_with(role)
    assert all(o.ok for o in build_environment(built_store, domain, slot))
    plan = plan_world(make_scenario(domain, slot))
    row = next(r for r in generate_rows(plan)[source[0] if source else role] if fits(r))
    env = Environment.from_store(built_store, f"{domain}__{slot:02d}")
    try:
        result = _refused(env, plan, calls(plan, ToolNames(plan), row))
    finally:
        env.close()
    assert code in result.lower(), (domain, slot, role, result)


@pytest.mark.slow
def test_a_full_charity_event_takes_no_more_signups(built_store):
    [(domain, slot)] = worlds_with("event_signup")
    assert all(o.ok for o in build_environment(built_store, domain, slot))
    plan = plan_world(make_scenario(domain, slot))
    rows = generate_rows(plan)
    full = next(e for e in rows["charity_event"] if e["status"] == "scheduled" and e["starts_on"] > "2025-06-01"
                and sum(s[plan["charity_event"].fk] == e["id"] and s["status"] == "registered"
                        for s in rows["event_signup"]) >= e["capacity"])
    party = next(p for p in rows["party"] if p["status"] == "active" and not any(
        s[plan["charity_event"].fk] == full["id"] and s[plan["party"].fk] == p["id"] for s in rows["event_signup"]))
    env = Environment.from_store(built_store, f"{domain}__{slot:02d}")
    try:
        result = _refused(env, plan, [(ToolNames(plan).create("event_signup"), {plan["charity_event"].fk: full["id"],
                                                                               plan["party"].fk: party["id"]})])
    finally:
        env.close()
    assert "event_full" in result.lower(), result


@pytest.mark.slow
def test_every_table_of_every_scenario_with_category_entities_has_rows():
    """The databases gate wants at least one row a table: a world that keeps a category's entities has some of
    each, in every slot (a cold-chain scenario once had shipments but not one exception)."""
    empty = []
    for slug, seed in DOMAIN_SEEDS.items():
        if seed.category not in PACK_MODULES:
            continue
        for slot in range(10):
            plan = plan_world(make_scenario(slug, slot))
            rows = generate_rows(plan)
            empty += [(plan.scenario.env_id, role) for role in plan.entities if not rows.get(role)]
    assert empty == []


def _pk(plan, role: str, row: dict) -> dict:
    """The argument naming `row` of `role` in its tools."""
    return {f"{plan[role].name}_id": row["id"]}


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_transport_tools_enforce_their_rules(built_store):
    """Through the real runtime: an overdue vehicle stays off the road, damage is not settled above its assessed
    cost, lost property past its holding period is not handed over, planned works need a week's notice."""
    store = built_store
    checked = Counter()
    for domain, slot in (("car_rental_agency", 1), ("car_rental_agency", 0), ("car_rental_agency", 2),
                         ("public_transit_agency", 1)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            late = next((v for v in rows.get("fleet_vehicle", []) if v["status"] == "out_of_service"
                         and v["next_service_due"] < "2025-06-01"), None)
            if late is not None:
                result = _refused(env, plan, [(names.action("fleet_vehicle", "return_to_service"),
                                               _pk(plan, "fleet_vehicle", late))])
                assert "service_overdue" in result.lower(), result
                checked["fleet_vehicle"] += 1
            report = next((d for d in rows.get("damage_report", []) if d["status"] == "assessed"), None)
            if report is not None:
                result = _refused(env, plan, [(names.action("damage_report", "settle"), {
                    **_pk(plan, "damage_report", report), "amount": report["estimated_cost"] + 1})])
                assert "over_limit" in result.lower(), result
                checked["damage_report"] += 1
            old = next((x for x in rows.get("lost_item", []) if x["status"] == "held"
                        and x["found_on"] < "2025-04-02"), None)
            if old is not None:
                result = _refused(env, plan, [(names.action("lost_item", "hand_over"), {
                    **_pk(plan, "lost_item", old), plan["party"].fk: rows["party"][0]["id"]})])
                assert "expired" in result.lower(), result
                checked["lost_item"] += 1
            if plan.has("disruption"):
                result = _refused(env, plan, [(names.create("disruption"), {
                    plan["site"].fk: 1, "kind": "planned_works", "starts_at": "2025-06-04T22:00:00",
                    "message": "Track works"})])
                assert "short_notice" in result.lower(), result
                checked["disruption"] += 1
        finally:
            env.close()
    assert set(checked) == {"fleet_vehicle", "damage_report", "lost_item", "disruption"}, checked


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_the_fitness_tools_enforce_their_rules(built_store):
    """Through the real runtime: a class keeps at least its booked places, a freeze lasts at most 90 days, an
    expired package redeems nothing, no one is assessed without a signed waiver, no result before kick-off."""
    store = built_store
    refused = Counter()
    for domain, slot in (("gym_membership", 2), ("gym_membership", 5), ("sports_league", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows, names = generate_rows(plan), ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        pk = {role: f"{plan[role].name}_id" for role in plan.entities}
        calls = []
        if plan.has("class_session"):
            full = next(c for c in rows["class_session"] if c["status"] == "scheduled" and c["spots_booked"] > 1)
            calls.append(("below_booked", (names.action("class_session", "set_capacity"),
                                           {pk["class_session"]: full["id"], "capacity": full["spots_booked"] - 1})))
        if plan.has("freeze"):
            sub = next(s for s in rows["subscription"] if s["status"] == "active")
            calls.append(("over_limit", (names.create("freeze"), {plan["subscription"].fk: sub["id"],
                                                                  "starts_on": "2025-06-10", "days": 120,
                                                                  "reason": "travel"})))
        if plan.has("training_package"):
            lapsed = next(t for t in rows["training_package"] if t["status"] == "expired")
            calls.append(("expired", (names.action("training_package", "redeem_session"),
                                      {pk["training_package"]: lapsed["id"]})))
        if plan.has("assessment"):
            unsigned = next(p for p in rows["party"] if p["waiver_signed"] == "no")
            calls.append(("waiver_missing", (names.create("assessment"), {
                plan["party"].fk: unsigned["id"], plan["staff"].fk: rows["staff"][0]["id"], "weight_kg": 70.5,
                "body_fat_pct": 21.0, "resting_heart_rate": 62})))
        if plan.has("fixture"):
            ahead = next(f for f in rows["fixture"] if f["status"] == "scheduled" and f["starts_at"] > "2025-06-01T09")
            calls.append(("not_started", (names.action("fixture", "record_result"),
                                          {pk["fixture"]: ahead["id"], "home_score": 2, "away_score": 1})))
        _tally_refusals(env, plan, calls, refused)
    assert set(refused) == {"below_booked", "over_limit", "expired", "waiver_missing", "not_started"}, refused


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_the_food_and_beverage_tools_enforce_their_rules(built_store):
    """Through the real runtime: an expired lot stays on hold, a failing reading needs its corrective action, a
    delivery window keeps its booked places, a party is not seated at a table too small for it."""
    store = built_store
    refused = Counter()
    for domain, slot in (("grocery_delivery", 0), ("grocery_delivery", 1), ("restaurant_chain", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows, names = generate_rows(plan), ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        pk = {role: f"{plan[role].name}_id" for role in plan.entities}
        calls = []
        if plan.has("product_lot"):
            lapsed = next(x for x in rows["product_lot"] if x["status"] == "on_hold" and x["best_before"] < "2025-06-01")
            calls.append(("expired", (names.action("product_lot", "release"), {pk["product_lot"]: lapsed["id"]})))
        if plan.has("temperature_check"):
            calls.append(("action_required", (names.create("temperature_check"), {
                plan["site"].fk: 1, plan["staff"].fk: next(s["id"] for s in rows["staff"] if s["active"]),
                "unit": "walk_in_cooler", "temperature_c": 9.5})))
        if plan.has("delivery_window"):
            busy = next(d for d in rows["delivery_window"] if d["booked"] > 1)
            calls.append(("below_booked", (names.action("delivery_window", "set_capacity"),
                                           {pk["delivery_window"]: busy["id"], "capacity": busy["booked"] - 1})))
        if plan.has("dining_table"):
            small = next(t for t in rows["dining_table"] if t["status"] == "available")
            calls.append(("over_capacity", (names.action("dining_table", "seat"),
                                            {pk["dining_table"]: small["id"], "party_size": small["seats"] + 1})))
        _tally_refusals(env, plan, calls, refused)
    assert set(refused) == {"expired", "action_required", "below_booked", "over_capacity"}, refused


def test_the_agriculture_tools_enforce_their_rules(built_store):
    """Through the real runtime: no input above its label rate, no results over an analysed sample, no milking
    during a withdrawal period, no batch ready before its date nor allocated beyond what it holds."""
    store = built_store
    refused = Counter()
    for domain, slot in (("farm_supply_cooperative", 1), ("dairy_farm_creamery", 0), ("wholesale_plant_nursery", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows, names = generate_rows(plan), ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        pk = {role: f"{plan[role].name}_id" for role in plan.entities}
        calls = []
        if plan.has("field_application"):
            field = next(f for f in rows["field"] if f["status"] == "active")
            calls.append(("over_limit", (names.create("field_application"), {
                plan["field"].fk: field["id"], plan["staff"].fk: rows["staff"][0]["id"], "product": "dicamba",
                "rate_per_acre": 2.0})))
        if plan.has("soil_sample"):
            done = next(s for s in rows["soil_sample"] if s["status"] == "reported")
            calls.append(("invalid_state", (names.action("soil_sample", "record_results"), {
                pk["soil_sample"]: done["id"], "ph": 6.5, "organic_matter_pct": 3.1, "phosphorus_ppm": 22,
                "potassium_ppm": 160})))
        if plan.has("animal"):
            held = next(a for a in rows["animal"] if a["status"] == "treated" and a["withdrawal_until"] >= "2025-06-01")
            calls.append(("withdrawal_period", (names.action("animal", "return_to_milking"), {pk["animal"]: held["id"]})))
        if plan.has("crop_batch"):
            young = next(b for b in rows["crop_batch"] if b["status"] == "growing")
            ready = next(b for b in rows["crop_batch"] if b["status"] == "ready")
            calls.append(("too_early", (names.action("crop_batch", "mark_ready"), {pk["crop_batch"]: young["id"]})))
            calls.append(("over_limit", (names.action("crop_batch", "allocate"),
                                         {pk["crop_batch"]: ready["id"], "quantity": ready["quantity"] + 1})))
        _tally_refusals(env, plan, calls, refused)
    assert set(refused) == {"over_limit", "invalid_state", "withdrawal_period", "too_early"}, refused


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_energy_tools_enforce_their_rules(built_store):
    """Through the real runtime: no free repair out of warranty, no rebate above its programme's cap, no
    inspection result before its date, no charge point taken offline while a vehicle charges at it."""
    store = built_store
    checked = Counter()
    for domain, slot in (("solar_installation", 0), ("solar_installation", 1), ("ev_charging_network", 1)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            if plan.has("equipment_unit"):
                old = next(u for u in rows["equipment_unit"] if u["warranty_until"] < "2025-06-01"
                           and u["status"] == "faulty")
                result = _refused(env, plan, [(names.action("equipment_unit", "repair_under_warranty"),
                                               _pk(plan, "equipment_unit", old))])
                assert "out_of_warranty" in result.lower(), result
                checked["equipment_unit"] += 1
            if plan.has("rebate_claim"):
                caps = PACK_MODULES["energy"].PROGRAMS
                big = next(c for c in rows["rebate_claim"] if c["status"] == "draft" and c["amount"] > caps[c["program"]])
                result = _refused(env, plan, [(names.action("rebate_claim", "submit"), _pk(plan, "rebate_claim", big))])
                assert "over_limit" in result.lower(), result
                checked["rebate_claim"] += 1
            if plan.has("safety_inspection"):
                later = next(i for i in rows["safety_inspection"] if i["status"] == "scheduled" and i["due_on"] > "2025-06-01")
                result = _refused(env, plan, [(names.action("safety_inspection", "record_result"), {
                    **_pk(plan, "safety_inspection", later), "result": "passed", plan["staff"].fk: 1})])
                assert "too_early" in result.lower(), result
                checked["safety_inspection"] += 1
            if plan.has("charge_point"):
                busy = next(p for p in rows["charge_point"] if p["status"] == "in_use")
                result = _refused(env, plan, [(names.action("charge_point", "take_offline"),
                                               _pk(plan, "charge_point", busy))])
                assert "in_use" in result.lower(), result
                checked["charge_point"] += 1
        finally:
            env.close()
    assert set(checked) == {"equipment_unit", "rebate_claim", "safety_inspection", "charge_point"}, checked


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_the_media_tools_enforce_their_rules(built_store):
    """An expired licence is not extended, a release is never brought forward, a sold-out event takes no more
    bookings, a royalty statement below the minimum is not paid."""
    store = built_store
    checked = Counter()
    for domain, slot in (("video_streaming_service", 0), ("book_publishing", 0), ("independent_bookstore", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            if plan.has("content_licence"):
                lapsed = next(c for c in rows["content_licence"] if c["status"] == "expired")
                result = _refused(env, plan, [(names.action("content_licence", "extend"), {
                    f"{plan['content_licence'].name}_id": lapsed["id"], "ends_on": "2027-01-01"})])
                assert '"expired"' in result.lower(), result
                checked["content_licence"] += 1
            if plan.has("title_release"):
                release = next(r for r in rows["title_release"] if r["status"] == "scheduled")
                result = _refused(env, plan, [(names.action("title_release", "postpone"), {
                    f"{plan['title_release'].name}_id": release["id"], "release_on": "2025-06-02"})])
                assert '"invalid_argument"' in result.lower(), result
                checked["title_release"] += 1
            if plan.has("royalty_statement"):
                small = next(s for s in rows["royalty_statement"] if s["amount"] < 25 and s["status"] == "draft")
                pk = f"{plan['royalty_statement'].name}_id"
                result = _refused(env, plan, [(names.action("royalty_statement", "approve"), {pk: small["id"]}),
                                              (names.action("royalty_statement", "pay"), {pk: small["id"]})])
                assert '"below_minimum"' in result.lower(), result
                checked["royalty_statement"] += 1
            if plan.has("event_ticket"):
                booked = Counter()
                for t in rows["event_ticket"]:
                    booked[t[plan["live_event"].fk]] += t["seats"] if t["status"] == "booked" else 0
                full = next(e for e in rows["live_event"] if e["status"] == "on_sale"
                            and booked[e["id"]] == e["capacity"])
                party = next(p for p in rows["party"] if p["status"] == "active")
                result = _refused(env, plan, [(names.create("event_ticket"), {
                    plan["live_event"].fk: full["id"], plan["party"].fk: party["id"], "seats": 1})])
                assert '"sold_out"' in result.lower(), result
                checked["event_ticket"] += 1
        finally:
            env.close()
    assert set(checked) == {"content_licence", "title_release", "royalty_statement", "event_ticket"}, checked


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_the_marketing_tools_enforce_their_rules(built_store):
    """A fourth approval round is refused, a budget is never cut below its spend, a lapsed list is not released,
    fieldwork short of its quota is not closed."""
    store = built_store
    checked = Counter()
    for domain, slot in (("advertising_agency", 1), ("market_research_firm", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            if plan.has("approval_round"):
                counts = Counter(r[plan["case"].fk] for r in rows["approval_round"])
                pending = {r[plan["case"].fk] for r in rows["approval_round"] if r["status"] == "pending"}
                case = next(c for c in rows["case"] if counts[c["id"]] == 3 and c["id"] not in pending
                            and c["status"] in plan.flavour.open)
                result = _refused(env, plan, [(names.create("approval_round"), {
                    plan["case"].fk: case["id"], "deliverable": "Revised layout"})])
                assert '"over_limit"' in result.lower(), result
                checked["approval_round"] += 1
            if plan.has("ad_campaign"):
                campaign = next(c for c in rows["ad_campaign"] if c["status"] == "live")
                result = _refused(env, plan, [(names.action("ad_campaign", "set_budget"), {
                    f"{plan['ad_campaign'].name}_id": campaign["id"], "budget": round(campaign["spent"] / 2, 2)})])
                assert '"below_spend"' in result.lower(), result
                checked["ad_campaign"] += 1
            if plan.has("contact_list"):
                for status, code in (("lapsed", "expired"), ("unverified", "not_verified")):
                    lst = next((c for c in rows["contact_list"] if c["status"] == status), None)
                    if lst is not None:
                        result = _refused(env, plan, [(names.action("contact_list", "release"), {
                            f"{plan['contact_list'].name}_id": lst["id"]})])
                        assert f'"{code}"' in result.lower(), result
                        checked["contact_list"] += 1
            if plan.has("survey_wave"):
                short = next(s for s in rows["survey_wave"] if s["status"] == "fielding"
                             and s["completes"] < s["target_completes"])
                result = _refused(env, plan, [(names.action("survey_wave", "close"), {
                    f"{plan['survey_wave'].name}_id": short["id"]})])
                assert '"quota_not_met"' in result.lower(), result
                checked["survey_wave"] += 1
        finally:
            env.close()
    assert set(checked) == {"approval_round", "ad_campaign", "contact_list", "survey_wave"}, checked


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_the_technology_tools_enforce_their_rules(built_store):
    """Seats never drop below those in use, an incident under investigation is not resolved, a running server is
    not resized, a key expiring more than a year ahead is not issued."""
    store = built_store
    checked = Counter()
    for domain, slot in (("saas_helpdesk", 1), ("cloud_hosting", 1), ("cloud_hosting", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            if plan.has("seat_licence"):
                licence = next(s for s in rows["seat_licence"] if s["status"] == "active" and s["seats_in_use"] > 1)
                result = _refused(env, plan, [(names.action("seat_licence", "set_seats"), {
                    f"{plan['seat_licence'].name}_id": licence["id"], "seats": licence["seats_in_use"] - 1})])
                assert '"seats_in_use"' in result.lower(), result
                checked["seat_licence"] += 1
            if plan.has("service_incident"):
                incident = next(i for i in rows["service_incident"] if i["status"] != "mitigated")
                result = _refused(env, plan, [(names.action("service_incident", "resolve"), {
                    f"{plan['service_incident'].name}_id": incident["id"], "root_cause": "bad deploy"})])
                assert '"not_mitigated"' in result.lower(), result
                checked["service_incident"] += 1
            if plan.has("server_instance"):
                running = next(s for s in rows["server_instance"] if s["status"] == "running" and s["size"] != "xlarge")
                result = _refused(env, plan, [(names.action("server_instance", "resize"), {
                    f"{plan['server_instance'].name}_id": running["id"], "size": "xlarge"})])
                assert '"invalid_state"' in result.lower(), result
                checked["server_instance"] += 1
            if plan.has("api_key"):
                party = next(p for p in rows["party"] if p["status"] == "active")
                result = _refused(env, plan, [(names.create("api_key"), {
                    plan["party"].fk: party["id"], "name": "Nightly sync", "scope": "read", "expires_on": "2027-01-01"})])
                assert '"over_limit"' in result.lower(), result
                checked["api_key"] += 1
        finally:
            env.close()
    assert set(checked) == {"seat_licence", "service_incident", "server_instance", "api_key"}, checked


@pytest.mark.slow  # the fast lane keeps the rules of every entity and of agriculture
def test_manufacturing_tools_enforce_their_rules(built_store):
    """Through the real runtime: a run short of its plan is not completed, a nonconformance is not closed without a
    disposition, an instrument past its calibration date is not checked out, a customer asset in use is not handed
    back."""
    store = built_store
    checked = Counter()
    for domain, slot in (("contract_manufacturing", 0), ("contract_manufacturing", 1),
                         ("industrial_equipment_service", 0)):
        assert all(o.ok for o in build_environment(store, domain, slot))
        plan = plan_world(make_scenario(domain, slot))
        rows = generate_rows(plan)
        names = ToolNames(plan)
        env = Environment.from_store(store, f"{domain}__{slot:02d}")
        try:
            if plan.has("production_run"):
                short = next(r for r in rows["production_run"] if r["status"] == "running")
                result = _refused(env, plan, [(names.action("production_run", "complete"),
                                               _pk(plan, "production_run", short))])
                assert "short_quantity" in result.lower(), result
                checked["production_run"] += 1
            if plan.has("nonconformance"):
                bare = next(n for n in rows["nonconformance"] if n["status"] == "open" and n["disposition"] is None)
                result = _refused(env, plan, [(names.action("nonconformance", "close"),
                                               _pk(plan, "nonconformance", bare))])
                assert "no_disposition" in result.lower(), result
                checked["nonconformance"] += 1
            if plan.has("instrument"):
                late = next(i for i in rows["instrument"] if i["status"] == "available"
                            and i["calibration_due"] < "2025-06-01")
                result = _refused(env, plan, [(names.action("instrument", "check_out"), {
                    **_pk(plan, "instrument", late), plan["staff"].fk: 1})])
                assert "calibration_due" in result.lower(), result
                checked["instrument"] += 1
            if plan.has("customer_asset"):
                busy = next(a for a in rows["customer_asset"] if a["status"] in ("in_use", "under_repair"))
                result = _refused(env, plan, [(names.action("customer_asset", "return_to_owner"),
                                               _pk(plan, "customer_asset", busy))])
                assert "invalid_state" in result.lower() and "in storage" in result, result
                checked["customer_asset"] += 1
        finally:
            env.close()
    assert set(checked) == {"production_run", "nonconformance", "instrument", "customer_asset"}, checked
