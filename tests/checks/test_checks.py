"""The asset checks through Dagster: green on a real partition, red with names on crafted bad input,
and a failed environment reported by the WARN yield check without failing the blocking one."""

import shutil
import sqlite3

import dagster as dg
import pytest

from awm.contracts import TaskSet
from awm.store import ArtifactStore
from awm_assets.catalog import environment_catalog
from awm_assets.databases import databases
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from checks.databases import database_checks, databases_valid, databases_yield
from checks.scenarios import scenario_checks
from checks.schemas import schema_checks, schemas_valid
from checks.tasks import task_checks, tasks_near_duplicates
from checks.tools import tool_checks
from checks.verification_reports import verification_checks, verification_reports_solvability
from resources import ArtifactStoreResource, GeneratorResource

DOMAIN = "dental_clinic"
ENV = "dental_clinic__00"
STAGES = [scenarios, tasks, schemas, databases, tools, verification_reports]
CHECKS = [*scenario_checks, *task_checks, *schema_checks, *database_checks, *tool_checks, *verification_checks]


def resources_for(home):
    return {"store": ArtifactStoreResource(home=str(home)), "generator": GeneratorResource(slots=1)}


def evaluations(result) -> dict:
    return {e.check_name: e for e in result.get_asset_check_evaluations()}


def run_checks(instance, home, *check_defs):
    # Only the checks run (a user re-running a red check from the UI); the partition goes in as a run tag.
    return dg.materialize([*STAGES, *check_defs], selection=dg.AssetSelection.checks(*check_defs),
                          tags={"dagster/partition": DOMAIN}, instance=instance, resources=resources_for(home),
                          raise_on_error=False)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One domain partition, every stage and every check, through Dagster."""
    home = tmp_path_factory.mktemp("checked")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        result = dg.materialize([*STAGES, *CHECKS], partition_key=DOMAIN, instance=instance,
                                resources=resources_for(home))
        yield home, result


def test_every_check_passes_on_a_real_partition(built):
    _, result = built
    assert result.success
    found = evaluations(result)
    assert set(found) == {spec.name for c in CHECKS for spec in c.check_specs}
    failed = {name: e.metadata for name, e in found.items() if not e.passed}
    assert failed == {}
    solvability = {k: v.value for k, v in found["verification_reports_solvability"].metadata.items()}
    assert solvability["tasks"] == 10 and solvability["publishable_tasks"] == 10
    assert solvability["mutations_tried"] >= 10 and solvability["mutation_kill_rate"] >= 0.9
    assert found["databases_valid"].metadata["suites_run"].value == 1


def copy_home(built, tmp_path):
    home, _ = built
    target = tmp_path / "home"
    shutil.copytree(home / "corpus", target / "corpus")
    return target


def test_duplicate_primary_keys_turn_the_blocking_database_check_red_with_names(built, tmp_path):
    home = copy_home(built, tmp_path)
    db = ArtifactStore(home).path(ENV, "env.db")
    conn = sqlite3.connect(db)
    table, columns = conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                                  "AND sql NOT LIKE '%REFERENCES%' ORDER BY name LIMIT 1").fetchone()
    conn.executescript(f"PRAGMA foreign_keys = OFF; CREATE TABLE loose AS SELECT * FROM {table}; "
                       f"INSERT INTO loose SELECT * FROM {table} WHERE id = 1; DROP TABLE {table}; "
                       f"ALTER TABLE loose RENAME TO {table};")
    conn.close()
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        result = run_checks(instance, home, databases_valid)
    evaluation = evaluations(result)["databases_valid"]
    assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.ERROR
    why = evaluation.metadata["why"].value
    assert ENV in why and table in why and "| id |" in why and "expect_column_values_to_be_unique" in why
    assert evaluation.metadata["environments_with_findings"].value == ENV


def test_a_dangling_foreign_key_turns_the_schema_check_red(built, tmp_path):
    home = copy_home(built, tmp_path)
    store = ArtifactStore(home)
    ddl = store.read_text(ENV, "schema.sql")
    store.write_text(ENV, "schema.sql", ddl.replace("REFERENCES ", "REFERENCES ghost_", 1))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        evaluation = evaluations(run_checks(instance, home, schemas_valid))["schemas_valid"]
    assert not evaluation.passed
    assert "ghost_" in evaluation.metadata["why"].value and "foreign_keys" in evaluation.metadata["why"].value


def test_an_environment_the_stage_failed_is_reported_by_the_yield_check_not_the_blocking_one(built, tmp_path):
    home = copy_home(built, tmp_path)
    store = ArtifactStore(home)
    store.mark_failed(ENV, "databases", "QualityError: databases failed for dental_clinic__00: [database_rows] "
                                        "1 problem(s): table patients: 0 rows, at least 1 required")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        found = evaluations(run_checks(instance, home, databases_valid, databases_yield))
    assert found["databases_valid"].passed  # the failed environment went no further: nothing invalid downstream
    warn = found["databases_yield"]
    # the domain's only environment failed: nothing of it is left at this stage, an error (never blocking)
    assert not warn.passed and warn.severity == dg.AssetCheckSeverity.ERROR and not warn.blocking
    assert warn.partition == DOMAIN
    assert warn.metadata["failed"].value == 1 and warn.metadata["yield"].value == 0.0
    assert warn.metadata["failed_environment_ids"].value == ENV
    table = warn.metadata["failed_environments"].value
    assert "database_rows" in table and "0 rows" in table
    assert "/assets/databases?view=partitions&partition=dental_clinic" in table


def test_a_partition_of_near_duplicate_tasks_is_a_warning(built, tmp_path):
    home = copy_home(built, tmp_path)
    store = ArtifactStore(home)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        varied = evaluations(run_checks(instance, home, tasks_near_duplicates))["tasks_near_duplicates"]
    assert varied.passed and varied.partition == DOMAIN and varied.metadata["near_duplicate_share"].value < 0.5
    tasks = store.read_model(ENV, "tasks.json", TaskSet)
    same = [t.model_copy(update={"instruction": f"Please cancel appointment APP-{1000 + n} for the patient today."})
            for n, t in enumerate(tasks.tasks)]
    store.write_text(ENV, "tasks.json", tasks.model_copy(update={"tasks": same}).model_dump_json())
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        warn = evaluations(run_checks(instance, home, tasks_near_duplicates))["tasks_near_duplicates"]
    assert not warn.passed and warn.severity == dg.AssetCheckSeverity.WARN
    assert warn.partition == DOMAIN and warn.metadata["near_duplicate_share"].value == 1.0
    assert warn.description.startswith("10 of 10 task(s) are near-duplicates")
    assert "APP-1001" in warn.metadata["examples"].value


def test_unproven_tasks_are_listed_by_the_solvability_check(built, tmp_path):
    home = copy_home(built, tmp_path)
    store = ArtifactStore(home)
    report = store.read_text(ENV, "report.json")
    store.write_text(ENV, "report.json", report.replace('"null_passed": false', '"null_passed": true', 1))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        evaluation = evaluations(run_checks(instance, home, verification_reports_solvability))[
            "verification_reports_solvability"]
    assert not evaluation.passed and evaluation.severity == dg.AssetCheckSeverity.WARN
    assert evaluation.metadata["publishable_tasks"].value == 9
    assert "| t01 | null_trajectory |" in evaluation.metadata["failed_tasks"].value


def test_the_catalog_charts_the_corpus_and_links_each_failure_to_its_partition(built, tmp_path):
    home = copy_home(built, tmp_path)
    store = ArtifactStore(home)
    report = store.read_text(ENV, "report.json")
    store.write_text(ENV, "report.json", report.replace('"null_passed": false', '"null_passed": true', 6))
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [DOMAIN])
        result = dg.materialize([environment_catalog], instance=instance, resources=resources_for(home))
    meta = {k: v.value for k, v in result.asset_materializations_for_node("environment_catalog")[0].metadata.items()}
    assert meta["quarantined_environments"] == 1 and meta["published_tasks"] == 0  # 4 of 10 < min 5
    assert meta["corpus"].startswith("![corpus](data:image/png;base64,")
    assert "| dental_clinic | 0 | 1 | 0 | 0 | 0 |" in meta["per_domain"]
    assert "null_trajectory" in meta["failure_report"]
    assert "/assets/verification_reports?view=partitions&partition=dental_clinic" in meta["failure_report"]
    assert (home / "catalog_chart.png").read_bytes().startswith(b"\x89PNG")
    line = (home / "failures.jsonl").read_text().splitlines()[0]
    assert '"check": "null_trajectory"' in line and '"partition": "dental_clinic"' in line
