"""The single entry point of the Dagster layer: every asset, check, job, sensor, schedule and resource."""

import dagster as dg

from awm_assets.awm1k import awm1k_environments, awm1k_scenarios_sensor
from awm_assets.catalog import environment_catalog
from awm_assets.databases import databases
from awm_assets.evaluation import agent_rollouts, evaluation_job, evaluation_report
from awm_assets.executors import selected_executor
from awm_assets.jobs import awm1k_job, catalog_job, corpus_job
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.sensors import domain_seeds_sensor, nightly_domain_regeneration
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from checks.databases import database_checks
from checks.scenarios import scenario_checks
from checks.schemas import schema_checks
from checks.tasks import task_checks
from checks.tools import tool_checks
from checks.verification_reports import verification_checks
from resources import resources_from_env

defs = dg.Definitions(
    assets=[scenarios, tasks, schemas, databases, tools, verification_reports, environment_catalog, agent_rollouts,
            evaluation_report, awm1k_environments],
    asset_checks=[*scenario_checks, *task_checks, *schema_checks, *database_checks, *tool_checks,
                  *verification_checks],
    jobs=[corpus_job, catalog_job, evaluation_job, awm1k_job],
    sensors=[domain_seeds_sensor, awm1k_scenarios_sensor],
    schedules=[nightly_domain_regeneration],
    resources=resources_from_env(),
    executor=selected_executor(),
)
