"""An evaluation launched the way the UI's Materialize dialog launches it: the evaluate_agent job for one
(domain, agent) cell with the launchpad's run config, through the real webserver's GraphQL API, run by the
real daemon, against `awm llm-serve --agent`."""

import json
import os

from awm.dagster_client import ADD_PARTITION, DagsterClient
from awm.eval.rollouts import agent_dir
from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.e2e.conftest import dagster_home_for, running_dagster_dev
from tests.e2e.graphql import graphql, run_status
from tests.llm.conftest import API_KEY, start_llm_serve

DOMAIN = "dental_clinic"
MODEL = "awm-agent-reference"

LAUNCH = """
mutation($params: ExecutionParams!) { launchPipelineExecution(executionParams: $params) {
  __typename
  ... on LaunchRunSuccess { run { runId } }
  ... on PythonError { message }
  ... on RunConfigValidationInvalid { errors { message } }
} }"""

MATERIALIZATIONS = """
query($key: AssetKeyInput!, $partition: String!) { assetOrError(assetKey: $key) { ... on Asset {
  assetMaterializations(partitions: [$partition]) { partition metadataEntries { label
    ... on FloatMetadataEntry { floatValue } ... on IntMetadataEntry { intValue } } } } } }"""


def test_an_evaluation_cell_launched_with_launchpad_config_runs_through_the_daemon(tmp_path):
    awm_home = tmp_path / "awm"
    store = ArtifactStore(awm_home)
    env_ids = [build_environment(store, DOMAIN, slot)[0].env_id for slot in (0, 1)]
    assert len(build_catalog(store, env_ids).entries) == 20
    serve = start_llm_serve("--agent", home=awm_home)
    env = {**os.environ, "DAGSTER_HOME": str(dagster_home_for(awm_home)), "AWM_HOME": str(awm_home),
           "AWM_REGISTER_BUILTINS": "0", "DAGSTER_DISABLE_TELEMETRY": "1", "OPENAI_API_KEY": API_KEY}
    try:
        with running_dagster_dev(env, tmp_path / "dagster-dev.log") as url:
            client = DagsterClient(url)
            for name, key in (("domains", DOMAIN), ("agents", MODEL)):  # as the dialog's "add partition"
                client.query(ADD_PARTITION, {"selector": client.selector, "name": name, "key": key})
            partition = f"{MODEL}|{DOMAIN}"  # dimensions in name order: agent, domain
            params = {
                "selector": {**client.selector, "pipelineName": "evaluate_agent"},
                "runConfigData": {"ops": {"agent_rollouts": {"config": {"k": 2, "max_steps": 40}}},
                                  "resources": {"agent": {"config": {"base_url": serve.url, "concurrency": 4}}}},
                "executionMetadata": {"tags": [{"key": "dagster/partition", "value": partition},
                                               {"key": "dagster/partition/agent", "value": MODEL},
                                               {"key": "dagster/partition/domain", "value": DOMAIN}]},
            }
            launched = graphql(url, LAUNCH, {"params": params})["launchPipelineExecution"]
            assert launched["__typename"] == "LaunchRunSuccess", launched
            run_id = launched["run"]["runId"]
            status = run_status(url, run_id)
            assert status == "SUCCESS", (status, (tmp_path / "dagster-dev.log").read_text()[-3000:])
            found = graphql(url, MATERIALIZATIONS, {"key": {"path": ["evaluation_report"]},
                                                    "partition": partition})["assetOrError"]
            [materialization] = found["assetMaterializations"]
            metadata = {e["label"]: e.get("floatValue", e.get("intValue")) for e in materialization["metadataEntries"]}
            assert metadata["pass@1"] == 1.0 and metadata["pass@2"] == 1.0 and metadata["rollouts"] == 40
    finally:
        serve.stop()
    report = json.loads((agent_dir(awm_home, MODEL) / DOMAIN / "report.json").read_text())
    assert report["k"] == 2 and report["passed_rollouts"] == 40
