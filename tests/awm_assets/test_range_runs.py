"""A run over a range of domain partitions records each domain's own check results and metadata, as a
one-domain run does: nothing of one domain shows on another, and no check is left Skipped."""

import dagster as dg
import pytest
from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus

from awm.store import ArtifactStore
from awm_assets.databases import databases
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from checks.databases import database_checks
from checks.scenarios import scenario_checks
from checks.schemas import schema_checks
from checks.tasks import task_checks
from checks.tools import tool_checks
from checks.verification_reports import verification_checks
from resources import ArtifactStoreResource, GeneratorResource

DOMAINS = ["airline", "dental_clinic", "pet_grooming"]
RANGE = {"dagster/asset_partition_range_start": DOMAINS[0], "dagster/asset_partition_range_end": DOMAINS[-1]}
BROKEN = "dental_clinic__01"
UPSTREAM = [scenarios, tasks, schemas]
DOWNSTREAM = [databases, tools, verification_reports]
UPSTREAM_CHECKS = [*scenario_checks, *task_checks, *schema_checks]
DOWNSTREAM_CHECKS = [*database_checks, *tool_checks, *verification_checks]


def resources_for(home):
    return {"store": ArtifactStoreResource(home=str(home)), "generator": GeneratorResource(slots=2)}


def check_keys(check_defs) -> list[dg.AssetCheckKey]:
    return [key for c in check_defs for key in c.check_keys]


@pytest.mark.slow
def test_a_range_run_records_each_domains_own_checks_and_metadata(tmp_path):
    store = ArtifactStore(tmp_path)
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", DOMAINS)
        first = dg.materialize([*UPSTREAM, *UPSTREAM_CHECKS], instance=instance, resources=resources_for(tmp_path),
                               tags=RANGE)
        assert first.success
        store.write_text(BROKEN, "schema.sql", "CREATE TABLE broken (")  # the databases stage will fail it
        result = dg.materialize([*DOWNSTREAM, *DOWNSTREAM_CHECKS], instance=instance,
                                resources=resources_for(tmp_path), tags=RANGE)
        assert result.success

        # one evaluation per check and domain, each on its own partition, judging that partition's
        # latest materialization
        evaluations = {(e.check_name, e.partition): e for e in result.get_asset_check_evaluations()}
        assert set(evaluations) == {(key.name, d) for key in check_keys(DOWNSTREAM_CHECKS) for d in DOMAINS}
        for (name, domain), evaluation in evaluations.items():
            assert evaluation.metadata["domain"].value == domain, name
            assert evaluation.target_materialization_data is not None, (name, domain)
            assert evaluation.passed == ((name, domain) != ("databases_yield", "dental_clinic")), (name, domain)
        warn = evaluations[("databases_yield", "dental_clinic")]
        assert warn.severity == dg.AssetCheckSeverity.WARN and not warn.blocking
        assert warn.metadata["failed_environment_ids"].value == BROKEN
        assert BROKEN in warn.description and "1 of 2" in warn.description
        assert evaluations[("databases_yield", "airline")].metadata["failed_environment_ids"].value == "none"
        assert evaluations[("databases_valid", "dental_clinic")].metadata["environments_checked"].value == 1

        # what the UI reads: every (check, domain) current and passed, but the one warning
        infos = instance.event_log_storage.get_asset_check_partition_info(
            check_keys([*UPSTREAM_CHECKS, *DOWNSTREAM_CHECKS]))
        statuses = {(i.check_key.name, i.partition_key): (i.latest_execution_status, i.is_current) for i in infos}
        failed = AssetCheckExecutionRecordStatus.FAILED
        succeeded = AssetCheckExecutionRecordStatus.SUCCEEDED
        expected = {(key.name, d): (failed if (key.name, d) == ("databases_yield", "dental_clinic") else succeeded, True)
                    for key in check_keys([*UPSTREAM_CHECKS, *DOWNSTREAM_CHECKS]) for d in DOMAINS}
        assert statuses == expected

        # each domain partition's materialization describes that domain alone
        by_partition = {m.partition: {k: v.value for k, v in m.metadata.items()}
                        for m in result.asset_materializations_for_node("databases")}
        assert set(by_partition) == set(DOMAINS)
        for domain, meta in by_partition.items():
            assert meta["domain"] == domain and meta["environments"] == 2
            assert meta["artifact_root"].endswith(f"/corpus/{domain}")
            others = [d for d in DOMAINS if d != domain]
            assert not any(f"| {d}__0" in meta["environments_table"] for d in others), domain
        assert by_partition["dental_clinic"]["failed"] == 1 and by_partition["dental_clinic"]["built"] == 1
        assert by_partition["dental_clinic"]["failed_environment_ids"] == BROKEN
        assert BROKEN in by_partition["dental_clinic"]["failures"]
        assert "- attempt 1, the last: " in by_partition["dental_clinic"]["attempt_errors"]
        assert by_partition["airline"]["failed"] == 0 and "failures" not in by_partition["airline"]
        assert "| airline__00 |" in by_partition["airline"]["environments_table"]
        tool_previews = {m.partition: m.metadata["preview"].value
                         for m in result.asset_materializations_for_node("tools")}
        assert all(f"**{d}__00**" in tool_previews[d] for d in DOMAINS)

        # the step's totals over the range stay on the run, in its log
        logs = [e.message for e in instance.all_logs(result.run_id) if e.message]
        assert any(m.startswith("databases: airline .. pet_grooming (3 domains), 6 environments: 5 built")
                   and BROKEN in m for m in logs)


def test_partition_links_open_on_the_ui_that_shows_them(monkeypatch):
    from awm_assets.partitions import partition_url

    monkeypatch.delenv("AWM_UI_URL", raising=False)
    assert partition_url("tools", "pet_grooming") == "/assets/tools?view=partitions&partition=pet_grooming"
    monkeypatch.setenv("AWM_UI_URL", "https://dagster.example.org/awm/")
    assert partition_url("tools", "pet_grooming") == (
        "https://dagster.example.org/awm/assets/tools?view=partitions&partition=pet_grooming")
