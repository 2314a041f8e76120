"""AWM-1K environments as an asset: `awm1k_environments`, one dynamic partition per scenario of their files.

The dataset folder is the run config's `dataset_dir`, else $AWM1K_DIR. The sensor `awm1k_scenarios_sensor`
registers a partition for every scenario of $AWM1K_DIR that has tasks or a schema; materializing a partition
imports that scenario (awm/awm1k/importer.py: files, checks in the OS-isolated foreign runtime, tiers), and
the catalog (`environment_catalog`) publishes its checked tasks with the tier `checked`. A backfill runs up to
50 scenarios per run, reading the dataset once per run.
"""


import os
from pathlib import Path

import dagster as dg
from pydantic import Field

from awm.awm1k.dataset import read_dataset, scenario_names
from awm.awm1k.importer import CODE_VERSION, import_scenario
from awm_assets.constants import AWM1K_ENVIRONMENTS, AWM1K_PARTITIONS_NAME, IMPORT_GROUP, OWNERS
from resources import ArtifactStoreResource

DATASET_ENV = "AWM1K_DIR"
awm1k_partitions = dg.DynamicPartitionsDefinition(name=AWM1K_PARTITIONS_NAME)


class Awm1kConfig(dg.Config):
    dataset_dir: str = Field(default="", description="the folder of their gen_*.jsonl files (default $AWM1K_DIR)")


def dataset_dir(config: Awm1kConfig) -> Path:
    folder = config.dataset_dir or os.environ.get(DATASET_ENV, "")
    if not folder:
        raise dg.Failure(f"no AWM-1K dataset: set the run config's dataset_dir or ${DATASET_ENV}")
    return Path(folder)


@dg.asset(name=AWM1K_ENVIRONMENTS, partitions_def=awm1k_partitions, group_name=IMPORT_GROUP, owners=OWNERS,
          kinds={"sqlite", "python"}, code_version=CODE_VERSION,
          backfill_policy=dg.BackfillPolicy.multi_run(max_partitions_per_run=50))
def awm1k_environments(context: dg.AssetExecutionContext, config: Awm1kConfig,
                       store: ArtifactStoreResource) -> dg.MaterializeResult:
    """Imports each scenario of the partitions: schema, initial database, their app and verifiers, with the
    provenance of each file; checks them (schema, inserts, routes, verifiers) and records each task's tier."""
    folder = dataset_dir(config)
    found = read_dataset(folder)
    st = store.store()
    rows, statuses = [], {}
    for name in context.partition_keys:
        if name not in found:
            raise dg.Failure(f"scenario {name!r} is not in {folder}")
        result = import_scenario(st, found[name], folder.name)
        statuses[name] = result.status
        tiers = ", ".join(f"{n} {t}" for t, n in sorted(result.tasks.items()))
        reason = result.reason.replace("|", "/").replace("\n", " ")[:200]
        rows.append(f"| {name} | {result.status} | {tiers} | {result.seconds:.2f} | {reason} |")
        context.log.info(f"{name}: {result.status} ({tiers}) in {result.seconds:.2f} s")
    table = "| scenario | status | tasks by tier | seconds | reason |\n|---|---|---|---|---|\n" + "\n".join(rows)
    return dg.MaterializeResult(metadata={
        "dataset": dg.MetadataValue.path(str(folder)),
        "checked_environments": sum(s == "checked" for s in statuses.values()),
        "quarantined_environments": sum(s == "quarantined" for s in statuses.values()),
        "imports": dg.MetadataValue.md(table),
    })


@dg.sensor(name="awm1k_scenarios_sensor", minimum_interval_seconds=300,
           default_status=dg.DefaultSensorStatus.RUNNING,
           description=f"Registers an awm1k_scenarios partition for every scenario of ${DATASET_ENV} (their files).")
def awm1k_scenarios_sensor(context: dg.SensorEvaluationContext):
    folder = os.environ.get(DATASET_ENV, "")
    if not folder:
        return dg.SkipReason(f"${DATASET_ENV} is not set")
    wanted = scenario_names(Path(folder))
    existing = set(context.instance.get_dynamic_partitions(AWM1K_PARTITIONS_NAME))
    new = [n for n in wanted if n not in existing]
    if not new:
        return dg.SkipReason(f"all {len(wanted)} scenarios of {folder} already registered")
    return dg.SensorResult(dynamic_partitions_requests=[awm1k_partitions.build_add_request(new)])
