"""The single entry point of the Dagster layer: every asset, check, job, sensor, schedule and resource."""

import dagster as dg

from awm_assets.catalog import environment_catalog
from awm_assets.databases import databases
from awm_assets.jobs import catalog_job, corpus_job
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.sensors import domain_seeds_sensor, nightly_domain_regeneration
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from resources import ArtifactStoreResource, GeneratorResource

defs = dg.Definitions(
    assets=[scenarios, tasks, schemas, databases, tools, verification_reports, environment_catalog],
    jobs=[corpus_job, catalog_job],
    sensors=[domain_seeds_sensor],
    schedules=[nightly_domain_regeneration],
    resources={"store": ArtifactStoreResource.from_env(), "generator": GeneratorResource.from_env()},
    executor=dg.in_process_executor,
)
