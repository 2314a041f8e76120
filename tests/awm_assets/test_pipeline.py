"""Materialize real partitions through Dagster with a test instance."""

import json
from datetime import datetime

import dagster as dg
import pytest

from awm.runtime import cgroups
from awm.store import ArtifactStore
from awm_assets.catalog import environment_catalog
from awm_assets.constants import CORPUS_JOB
from awm_assets.databases import databases
from awm_assets.definitions import defs
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.sensors import domain_seeds_sensor, nightly_domain_regeneration
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from resources import ArtifactStoreResource, GeneratorResource

STAGES = [scenarios, tasks, schemas, databases, tools, verification_reports]


def resources_for(home, slots=2):
    return {"store": ArtifactStoreResource(home=str(home)), "generator": GeneratorResource(slots=slots)}


def stage_metadata(result, asset_name):
    mats = result.asset_materializations_for_node(asset_name)
    assert mats, f"no materialization for {asset_name}"
    return {k: v.value for k, v in mats[0].metadata.items()}


def test_materialize_one_domain_end_to_end(tmp_path):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["dental_clinic"])
        result = dg.materialize(STAGES, partition_key="dental_clinic", instance=instance,
                                resources=resources_for(tmp_path))
        assert result.success
        meta = stage_metadata(result, "verification_reports")
        assert meta["environments"] == 2 and meta["built"] == 2 and meta["failed"] == 0
        assert meta["total_publishable"] == 20
        assert "| dental_clinic__00 |" in meta["preview"]
        # which isolation the generated code ran under, and whether a sandbox worker stayed down
        assert meta["sandbox_isolation"].split(":")[0] in ("os", "process") and meta["sandbox_workers_down"] == 0
        # and whether its workers ran under cgroup limits (processes, memory), or why not
        assert meta["sandbox_cgroups"].startswith("applied (cgroup v") or \
            meta["sandbox_cgroups"].startswith("not applied: ")
        assert meta["sandbox_cgroups"].startswith("applied") == \
            (meta["sandbox_isolation"].startswith("os") and not isinstance(cgroups.find_hierarchy(), str))
        tasks_meta = stage_metadata(result, "tasks")
        assert "| t01 |" in tasks_meta["preview"]
        assert stage_metadata(result, "schemas")["mean_tables_per_env"] >= 15
        store = ArtifactStore(tmp_path)
        for name in ("scenario.json", "tasks.json", "schema.sql", "schema.json", "env.db", "tools.py", "tools.json",
                     "report.json"):
            assert store.exists("dental_clinic__01", name), name
        provenance = store.provenance("dental_clinic__01")
        assert set(provenance) == {"scenarios", "tasks", "schemas", "databases", "tools", "verification_reports"}
        assert provenance["databases"].inputs["schema.sql"] == store.hash("dental_clinic__01", "schema.sql")

        # the catalog publishes what passed, for the registered domains
        cat = dg.materialize([environment_catalog], instance=instance, resources=resources_for(tmp_path))
        lines = store.catalog_path.read_text().splitlines()
        assert len(lines) == 20
        entry = json.loads(lines[0])
        assert {"env_id", "domain", "task_id", "instruction"} <= set(entry)
        catalog_meta = stage_metadata(cat, "environment_catalog")
        assert catalog_meta["published_environments"] == 2
        # how varied the published tasks are, where a user looks first
        diversity = catalog_meta["task_diversity_json"]
        assert diversity["tasks"] == 20 and diversity["distinct_intents"] >= 10
        assert catalog_meta["distinct_intents"] == diversity["distinct_intents"]
        assert catalog_meta["instruction_vocabulary"] > 100 and "| distinct intents |" in catalog_meta["task_diversity"]
        assert 0 < catalog_meta["top_request_sentence_share"] <= 1 and "request sentence" in catalog_meta["task_diversity"]
        assert 0 <= catalog_meta["cross_domain_near_duplicate_share"] <= 1
        # and whether they read like a real user's requests
        assert catalog_meta["voice_violations"] == 0 and catalog_meta["multi_request_share"] <= 0.1
        assert 0 < catalog_meta["top_context_sentence_share"] <= 1 and 0 <= catalog_meta["user_goal_share"] <= 1
        assert diversity["realism"]["tasks"] == 20 and "| voice violations | 0 |" in catalog_meta["task_diversity"]

        # a second materialization reuses every valid environment
        again = dg.materialize(STAGES, partition_key="dental_clinic", instance=instance,
                               resources=resources_for(tmp_path))
        meta = stage_metadata(again, "databases")
        assert meta["built"] == 0 and meta["reused"] == 2


@pytest.mark.slow
def test_a_range_run_covers_several_domains(tmp_path, monkeypatch):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline", "pet_grooming", "k12_school"])
        job = defs.resolve_job_def(CORPUS_JOB)
        result = job.execute_in_process(
            instance=instance, resources=resources_for(tmp_path, slots=1),
            tags={"dagster/asset_partition_range_start": "airline",
                  "dagster/asset_partition_range_end": "pet_grooming"})
        assert result.success
        store = ArtifactStore(tmp_path)
        assert store.exists("airline__00", "report.json") and store.exists("pet_grooming__00", "report.json")
        assert not store.env_dir("k12_school__00").exists()


def test_invalid_domain_partition_is_refused_with_a_clear_message(tmp_path):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["Not_A_Slug"])
        result = dg.materialize([scenarios], partition_key="Not_A_Slug", instance=instance,
                                resources=resources_for(tmp_path), raise_on_error=False)
        assert not result.success
        failure = next(e for e in result.all_events if e.event_type_value == "STEP_FAILURE")
        assert "partition key 'Not_A_Slug' is not a valid domain" in str(failure.step_failure_data.user_failure_data
                                                                         or failure.message)


def test_one_bad_environment_does_not_fail_its_domain(tmp_path):
    store = ArtifactStore(tmp_path)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline"])
        assert dg.materialize(STAGES[:3], partition_key="airline", instance=instance,
                              resources=resources_for(tmp_path)).success
        store.write_text("airline__01", "schema.sql", "CREATE TABLE broken (")  # corrupt one environment
        result = dg.materialize(STAGES[3:], partition_key="airline", instance=instance,
                                resources=resources_for(tmp_path))
        assert result.success
        meta = stage_metadata(result, "databases")
        assert meta["failed"] == 1 and meta["built"] == 1
        assert "airline__01" in meta["failures"]
        assert store.failure("airline__01").stage == "databases"
        assert store.exists("airline__00", "report.json")


def test_sensor_registers_builtin_and_seeds_file_domains(tmp_path, monkeypatch):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("llama_farm\n")
    monkeypatch.setenv("AWM_SEEDS_FILE", str(seeds))
    with dg.instance_for_test() as instance:
        result = domain_seeds_sensor(dg.build_sensor_context(instance=instance))
        added = result.dynamic_partitions_requests[0].partition_keys
        assert "llama_farm" in added and "retail_banking" in added
        instance.add_dynamic_partitions("domains", list(added))
        again = domain_seeds_sensor(dg.build_sensor_context(instance=instance))
        assert isinstance(again, dg.SkipReason)


def test_sensor_reports_a_malformed_seeds_file(tmp_path, monkeypatch):
    seeds = tmp_path / "seeds.txt"
    seeds.write_text("good_one\nBad Slug!\n")
    monkeypatch.setenv("AWM_SEEDS_FILE", str(seeds))
    from awm.errors import SeedsFileError

    with dg.instance_for_test() as instance, pytest.raises(SeedsFileError, match=r"seeds.txt, entry 2"):
        domain_seeds_sensor(dg.build_sensor_context(instance=instance))


def test_schedule_requests_one_run_per_domain(monkeypatch):
    monkeypatch.setenv("AWM_SCHEDULE_DOMAINS", "airline,retail_banking")
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline", "retail_banking", "k12_school"])
        ctx = dg.build_schedule_context(instance=instance, scheduled_execution_time=datetime(2026, 1, 2, 3, 0))
        requests = list(nightly_domain_regeneration(ctx))
        assert sorted(r.partition_key for r in requests) == ["airline", "retail_banking"]


def test_a_truncated_provenance_is_set_aside_and_its_environment_rebuilt(tmp_path):
    store = ArtifactStore(tmp_path)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline"])
        assert dg.materialize(STAGES[:2], partition_key="airline", instance=instance,
                              resources=resources_for(tmp_path)).success
        path = store.path("airline__01", "provenance.json")
        path.write_text(path.read_text()[:40])  # a disk or an editor cut it short
        for _ in range(2):  # every rerun succeeds, not only the first
            result = dg.materialize(STAGES[:2], partition_key="airline", instance=instance,
                                    resources=resources_for(tmp_path))
            assert result.success
        first = stage_metadata(result, "scenarios")
        assert first["reused"] == 2  # the second rerun reuses what the first rebuilt
        provenance = store.provenance("airline__01")
        assert set(provenance) == {"scenarios", "tasks"}
        assert "provenance.json" in provenance["scenarios"].metrics["provenance_discarded"]
        assert store.path("airline__01", "provenance.json.corrupt").read_text().startswith("{")


@pytest.mark.slow
def test_a_damaged_failed_json_and_a_torn_catalog_line_are_set_aside_and_rebuilt(tmp_path):
    from awm.runtime.server import published_catalog

    store = ArtifactStore(tmp_path)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline"])
        assert dg.materialize(STAGES, partition_key="airline", instance=instance,
                              resources=resources_for(tmp_path)).success
        failed = store.path("airline__01", "failed.json")
        failed.write_text('{"env_id": "airline__01", "stage": "to')  # a write cut short
        result = dg.materialize(STAGES, partition_key="airline", instance=instance, resources=resources_for(tmp_path))
        assert result.success and stage_metadata(result, "verification_reports")["failed"] == 0
        assert store.path("airline__01", "failed.json.corrupt").exists() and not failed.exists()
        dg.materialize([environment_catalog], instance=instance, resources=resources_for(tmp_path))
        lines = store.catalog_path.read_text().splitlines()
        store.catalog_path.write_text("\n".join(lines[:3] + [lines[3][:25]] + lines[4:]) + "\n")  # one line torn
        served = published_catalog(store)  # awm serve carries on without the torn line
        assert sum(len(tasks) for tasks in served.values()) == len(lines) - 1
        assert dg.materialize([environment_catalog], instance=instance, resources=resources_for(tmp_path)).success
        assert store.catalog_path.read_text().splitlines() == lines  # written anew
        assert store.catalog_path.with_name("catalog.jsonl.corrupt").exists()
