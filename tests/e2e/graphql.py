"""What the UI reads, asked of the webserver's GraphQL API directly."""

import json
import time
import urllib.request
from collections.abc import Callable

from tests.lanes import PATIENCE_S, POLL_S  # a wait ends when its signal holds; PATIENCE_S against a hang only

CHECK_PARTITIONS = """
query($key: AssetKeyInput!) { assetNodeOrError(assetKey: $key) { ... on AssetNode {
  assetChecksOrError { ... on AssetChecks { checks { name partitionStatuses {
    ... on AssetCheckDefaultPartitionStatuses { succeededPartitions failedPartitions skippedPartitions
                                                inProgressPartitions executionFailedPartitions } } } } } } } }"""

FIELDS = {"succeeded": "succeededPartitions", "failed": "failedPartitions", "skipped": "skippedPartitions",
          "in_progress": "inProgressPartitions", "execution_failed": "executionFailedPartitions"}


def graphql(url: str, query: str, variables: dict) -> dict:
    request = urllib.request.Request(f"{url}/graphql", data=json.dumps({"query": query, "variables": variables}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=PATIENCE_S) as response:
        body = json.loads(response.read())
    if body.get("errors"):
        raise AssertionError(body["errors"])
    return body["data"]


def check_partition_statuses(url: str, asset: str, check: str, until: Callable[[dict], bool] = lambda s: True,
                             seconds: float = PATIENCE_S) -> dict[str, list[str]]:
    """The check's partitions by status, as the check's Partitions view shows them; asked again until
    `until(statuses)` holds (checks run after their asset) or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        node = graphql(url, CHECK_PARTITIONS, {"key": {"path": [asset]}})["assetNodeOrError"]
        found = next(c for c in node["assetChecksOrError"]["checks"] if c["name"] == check)
        statuses = {name: sorted(found["partitionStatuses"][field]) for name, field in FIELDS.items()}
        if until(statuses) or time.monotonic() > deadline:
            return statuses
        time.sleep(POLL_S)


RUNS = """query($filter: RunsFilter) { runsOrError(filter: $filter) { ... on Runs { results { runId status } } } }"""
FINAL = ("SUCCESS", "FAILURE", "CANCELED")


def run_status(url: str, run_id: str) -> str:
    """The run's final status, once it has one."""
    deadline = time.monotonic() + PATIENCE_S
    query = """query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }"""
    while True:
        status = graphql(url, query, {"id": run_id})["runOrError"]["status"]
        if status in FINAL or time.monotonic() > deadline:
            return status
        time.sleep(POLL_S)


def finished_runs(url: str, tags: dict[str, str]) -> list[dict]:
    """The runs with these tags, once there is one and every one has a final status."""
    deadline = time.monotonic() + PATIENCE_S
    run_filter = {"tags": [{"key": k, "value": v} for k, v in tags.items()]}
    while True:
        runs = graphql(url, RUNS, {"filter": run_filter})["runsOrError"]["results"]
        if (runs and all(r["status"] in FINAL for r in runs)) or time.monotonic() > deadline:
            return runs
        time.sleep(POLL_S)
