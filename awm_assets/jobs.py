"""Jobs: build the corpus for a set of domain partitions, and publish the catalog."""

import dagster as dg

from awm_assets.awm1k import awm1k_partitions
from awm_assets.constants import (
    AWM1K_ENVIRONMENTS,
    AWM1K_JOB,
    CATALOG_JOB,
    CORPUS_JOB,
    ENVIRONMENT_CATALOG,
    EVALUATION_GROUP,
    IMPORT_GROUP,
)
from awm_assets.executors import selected_executor
from awm_assets.partitions import domain_partitions

# Every asset but the catalog (its own job, run after), the agent evaluation (evaluate_agent) and the imports
# (import_awm1k, partitioned by their scenarios): the six stages
# and whatever is added beside them, so `make run` builds a new domain-partitioned asset without a change here.
# tests/awm_assets/test_definitions.py checks that every asset is built by a job the README names.
CORPUS_SELECTION = (dg.AssetSelection.all() - dg.AssetSelection.assets(ENVIRONMENT_CATALOG)
                    - dg.AssetSelection.groups(EVALUATION_GROUP) - dg.AssetSelection.groups(IMPORT_GROUP))

corpus_job = dg.define_asset_job(
    CORPUS_JOB,
    selection=CORPUS_SELECTION,
    partitions_def=domain_partitions,
    executor_def=selected_executor(),
    description="All six stages (and every asset added beside them) for the chosen domain partitions (one or a "
                "range per run).",
)

catalog_job = dg.define_asset_job(
    CATALOG_JOB,
    selection=dg.AssetSelection.assets(ENVIRONMENT_CATALOG),
    executor_def=dg.in_process_executor,
    description="Rebuild catalog.jsonl from what passed verification.",
)

awm1k_job = dg.define_asset_job(
    AWM1K_JOB,
    selection=dg.AssetSelection.assets(AWM1K_ENVIRONMENTS),
    partitions_def=awm1k_partitions,
    executor_def=dg.in_process_executor,
    description="Import AWM-1K scenarios (the chosen awm1k_scenarios partitions) from their files and check them.",
)
