"""The offline world builder: size, determinism, diversity, unseen domains, solvability."""

import hashlib
import statistics

import pytest

from awm.builder.catalogue import DOMAIN_SEEDS
from awm.builder.world import make_scenario, plan_world
from awm.contracts import SchemaSpec, TaskSet, ToolSet, VerificationReport
from awm.domains import env_id_for
from awm.stages.schemas import looks_like_auth
from awm.store import ArtifactStore
from tests.conftest import build_environment

ARTIFACTS = ("scenario.json", "tasks.json", "schema.sql", "schema.json", "env.db", "tools.py", "tools.json",
             "verifiers.json", "report.json")


def digests(store: ArtifactStore, env_id: str) -> dict[str, str]:
    return {name: hashlib.sha256(store.path(env_id, name).read_bytes()).hexdigest() for name in ARTIFACTS}


@pytest.mark.slow  # the golden corpus digest (tests/awm/test_golden_corpus.py) checks the same in the fast lane
def test_same_seed_gives_byte_identical_artifacts(corpus, tmp_path):
    other = ArtifactStore(tmp_path / "again")
    build_environment(other, "retail_banking", 1)
    assert digests(other, "retail_banking__01") == digests(corpus, "retail_banking__01")


@pytest.mark.slow
def test_database_does_not_depend_on_the_clock(corpus):
    """No value after the fixed reference date that is not explicitly a future booking."""
    import sqlite3

    conn = sqlite3.connect(corpus.path("dental_clinic__00", "env.db"))
    for (sql,) in conn.execute("SELECT sql FROM sqlite_master WHERE type='table'"):
        assert "now" not in sql.lower() and "current_timestamp" not in sql.lower()
    conn.close()


def test_scenarios_of_a_domain_genuinely_differ():
    scenarios = [make_scenario("retail_banking", slot) for slot in range(10)]
    assert len({s.sub_business for s in scenarios}) == 10
    assert len({tuple(s.items) for s in scenarios}) == 10
    assert len({tuple(s.modules) for s in scenarios}) >= 6


def test_unseen_domain_composes_a_sensible_environment(corpus):
    sc = corpus.read_model("pet_grooming__00", "scenario.json", __import__("awm.contracts").contracts.Scenario)
    assert not sc.builtin and "pet grooming" in sc.description
    schema = corpus.read_model("pet_grooming__00", "schema.json", SchemaSpec)
    assert len(schema.tables) >= 15


def assert_papers_size(store: ArtifactStore, domains, means: bool = True) -> None:
    """Each domain's environment valid and of the paper's size; with `means`, the steps and distinct tools per
    task averaged over all of them too (a property of the whole catalogue, not of a few domains)."""
    tables, tools, tasks, steps, distinct, rows = [], [], [], [], [], []
    for domain in domains:
        outcomes = build_environment(store, domain, 0)
        assert all(o.ok for o in outcomes), (domain, [(o.stage, o.error) for o in outcomes if not o.ok])
        env_id = env_id_for(domain, 0)
        tables.append(len(store.read_model(env_id, "schema.json", SchemaSpec).tables))
        tools.append(len(store.read_model(env_id, "tools.json", ToolSet).tools))
        taskset = store.read_model(env_id, "tasks.json", TaskSet)
        tasks.append(len(taskset.tasks))
        steps += [t.steps for t in taskset.tasks]
        distinct += [t.distinct_tools for t in taskset.tasks]
        rows.append(outcomes[3].metrics["rows"])
        report = store.read_model(env_id, "report.json", VerificationReport)
        for r in report.tasks:
            assert r.reference_passed, (env_id, r.task_id, r.error, r.evidence)
            assert not r.null_passed, (env_id, r.task_id)
    assert statistics.median(tables) >= 15
    assert min(tools) >= 30
    assert min(tasks) >= 10
    assert min(rows) >= 100
    if not means:
        return
    # one goal per task (no second request glued on): 4.7 steps and 4.2 distinct tools per task on average, where
    # the paper reports about 8.5 and 7.1; deeper single requests, not gluing, are what would close the gap
    assert statistics.mean(steps) >= 4.5
    assert statistics.mean(distinct) >= 4.0


# The fast lane's sample of the test below: the first domain of every eighth category.
SAMPLED_DOMAINS = [next(d for d, seed in DOMAIN_SEEDS.items() if seed.category == c)
                   for c in sorted({seed.category for seed in DOMAIN_SEEDS.values()})[::8]]


def test_a_sample_of_builtin_domains_builds_valid_environments_of_the_papers_size(tmp_path):
    assert len(SAMPLED_DOMAINS) >= 3
    assert_papers_size(ArtifactStore(tmp_path), SAMPLED_DOMAINS, means=False)


# Every built-in domain's: tests/awm/builder/test_category_entities.py, on the environments its category tests build.


@pytest.mark.parametrize("name,expected", [("authors", False), ("user_auth", True), ("password_hash", True),
                                           ("login_events", True), ("session_tokens", True), ("coaching_sessions", False),
                                           ("game_tokens", False), ("author_id", False)])
def test_auth_detection_uses_whole_words(name, expected):
    assert looks_like_auth(name) is expected


def test_world_plan_tables_are_unique_for_every_domain():
    for domain in DOMAIN_SEEDS:
        plan = plan_world(make_scenario(domain, 3))
        tables = [e.table for e in plan.entities.values()]
        assert len(tables) == len(set(tables))


def test_a_longer_name_containing_the_expected_one_is_a_wrong_answer():
    from awm.builder.verifiergen import verifier_source
    from awm.contracts import Goal, Task, ToolCall
    from awm.runtime.sandbox import load_module

    task = Task(task_id="t01", instruction="Which session is the priciest?", kind="question", template="x",
                reference_solution=[ToolCall(tool="search_items", arguments={})], reference_answer="Biology Session",
                goals=[Goal(kind="answer", expect={"value": "Biology Session", "exclude": ["AP Biology Session"]})])
    verify = load_module(verifier_source("demo__00", task), "verifier")["verify"]
    assert verify(None, None, "Biology Session at 435.52")["complete"]
    assert not verify(None, None, "AP Biology Session at 435.52")["complete"]
    assert not verify(None, None, None)["complete"]
