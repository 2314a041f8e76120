"""Jobs: build the corpus for a set of domain partitions, and publish the catalog."""

import dagster as dg

from awm_assets.constants import CATALOG_JOB, CORPUS_JOB, ENVIRONMENT_CATALOG, STAGE_ASSETS
from awm_assets.executors import selected_executor
from awm_assets.partitions import domain_partitions

corpus_job = dg.define_asset_job(
    CORPUS_JOB,
    selection=dg.AssetSelection.assets(*STAGE_ASSETS),
    partitions_def=domain_partitions,
    executor_def=selected_executor(),
    description="All six stages for the chosen domain partitions (one or a range per run).",
)

catalog_job = dg.define_asset_job(
    CATALOG_JOB,
    selection=dg.AssetSelection.assets(ENVIRONMENT_CATALOG),
    executor_def=dg.in_process_executor,
    description="Rebuild catalog.jsonl from what passed verification.",
)
