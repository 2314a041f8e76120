"""What the UI reads, asked of the webserver's GraphQL API directly."""

import json
import time
import urllib.request
from collections.abc import Callable

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
    with urllib.request.urlopen(request, timeout=30) as response:
        body = json.loads(response.read())
    if body.get("errors"):
        raise AssertionError(body["errors"])
    return body["data"]


def check_partition_statuses(url: str, asset: str, check: str, until: Callable[[dict], bool] = lambda s: True,
                             seconds: float = 180) -> dict[str, list[str]]:
    """The check's partitions by status, as the check's Partitions view shows them; asked again until
    `until(statuses)` holds (checks run after their asset) or `seconds` pass."""
    deadline = time.monotonic() + seconds
    while True:
        node = graphql(url, CHECK_PARTITIONS, {"key": {"path": [asset]}})["assetNodeOrError"]
        found = next(c for c in node["assetChecksOrError"]["checks"] if c["name"] == check)
        statuses = {name: sorted(found["partitionStatuses"][field]) for name, field in FIELDS.items()}
        if until(statuses) or time.monotonic() > deadline:
            return statuses
        time.sleep(1)
