"""A small client for a running Dagster webserver's GraphQL API (no dagster import needed).

Used by `awm backfill` to register domain partitions and launch per-domain backfills through
the webserver, exactly as the UI does, and to follow their progress.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass

from awm.errors import AWMError
from awm.registry import STAGE_NAMES

STAGE_ASSETS = STAGE_NAMES  # the asset keys a per-domain backfill materializes
DONE_STATUSES = {"COMPLETED", "COMPLETED_SUCCESS", "COMPLETED_FAILED", "FAILED", "CANCELED"}

ADD_PARTITION = """
mutation($selector: RepositorySelector!, $name: String!, $key: String!) {
  addDynamicPartition(repositorySelector: $selector, partitionsDefName: $name, partitionKey: $key) {
    __typename
    ... on PythonError { message }
    ... on UnauthorizedError { message }
  }
}"""

LAUNCH_BACKFILL = """
mutation($params: LaunchBackfillParams!) {
  launchPartitionBackfill(backfillParams: $params) {
    __typename
    ... on LaunchBackfillSuccess { backfillId }
    ... on PythonError { message }
    ... on PartitionSetNotFoundError { message }
    ... on InvalidStepError { invalidStepKey }
    ... on InvalidOutputError { invalidOutputName }
    ... on UnauthorizedError { message }
  }
}"""

BACKFILL_STATUS = """
query($id: String!) {
  partitionBackfillOrError(backfillId: $id) {
    __typename
    ... on PartitionBackfill {
      id status numPartitions
      error { message }
      assetBackfillData {
        assetBackfillStatuses {
          ... on AssetPartitionsStatusCounts {
            assetKey { path } numPartitionsTargeted numPartitionsInProgress numPartitionsMaterialized
            numPartitionsFailed
          }
        }
      }
    }
    ... on PythonError { message }
    ... on BackfillNotFoundError { message }
  }
}"""


@dataclass
class BackfillProgress:
    backfill_id: str
    status: str
    per_asset: dict[str, tuple[int, int, int, int]]  # asset -> (targeted, in progress, materialized, failed)
    error: str | None = None

    @property
    def done(self) -> bool:
        return self.status in DONE_STATUSES

    @property
    def succeeded(self) -> bool:
        failed = sum(v[3] for v in self.per_asset.values())
        return self.status in ("COMPLETED", "COMPLETED_SUCCESS") and failed == 0

    def line(self) -> str:
        parts = [f"{asset} {m}/{t}" + (f" ({f} failed)" if f else "")
                 for asset, (t, _, m, f) in self.per_asset.items()]
        return f"backfill {self.backfill_id} {self.status}: " + ", ".join(parts)


class DagsterClient:
    def __init__(self, url: str = "http://127.0.0.1:3000", location: str = "awm",
                 repository: str = "__repository__", timeout: float = 30.0):
        self.url = url.rstrip("/")
        self.selector = {"repositoryLocationName": location, "repositoryName": repository}
        self.timeout = timeout

    def query(self, query: str, variables: dict) -> dict:
        body = json.dumps({"query": query, "variables": variables}).encode()
        request = urllib.request.Request(f"{self.url}/graphql", data=body,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = json.loads(response.read())
        except urllib.error.URLError as exc:
            raise AWMError(f"cannot reach the Dagster webserver at {self.url} ({exc.reason}); start it with make ui "
                           "or pass --url") from exc
        if payload.get("errors"):
            raise AWMError(f"GraphQL error from {self.url}: {payload['errors'][0].get('message')}")
        return payload["data"]

    def add_domain(self, domain: str) -> bool:
        """Register a domain partition; False if it already existed."""
        result = self.query(ADD_PARTITION, {"selector": self.selector, "name": "domains", "key": domain})
        kind = result["addDynamicPartition"]["__typename"]
        if kind == "DuplicateDynamicPartitionError":
            return False
        if kind != "AddDynamicPartitionSuccess":
            raise AWMError(f"could not register domain {domain!r}: {result['addDynamicPartition'].get('message', kind)}")
        return True

    def launch_backfill(self, domains: list[str], title: str | None = None) -> str:
        params = {
            "partitionNames": domains,
            "assetSelection": [{"path": [name]} for name in STAGE_ASSETS],
            "title": title or f"awm backfill {', '.join(domains)}",
            "tags": [{"key": "awm/trigger", "value": "cli-backfill"}],
        }
        result = self.query(LAUNCH_BACKFILL, {"params": params})["launchPartitionBackfill"]
        if result["__typename"] != "LaunchBackfillSuccess":
            raise AWMError(f"backfill was not launched: {result.get('message') or result['__typename']}")
        return result["backfillId"]

    def backfill_progress(self, backfill_id: str) -> BackfillProgress:
        result = self.query(BACKFILL_STATUS, {"id": backfill_id})["partitionBackfillOrError"]
        if result["__typename"] != "PartitionBackfill":
            raise AWMError(f"backfill {backfill_id}: {result.get('message', result['__typename'])}")
        per_asset = {}
        for status in (result.get("assetBackfillData") or {}).get("assetBackfillStatuses", []):
            if "assetKey" in status:
                per_asset["/".join(status["assetKey"]["path"])] = (
                    status["numPartitionsTargeted"], status["numPartitionsInProgress"],
                    status["numPartitionsMaterialized"], status["numPartitionsFailed"])
        error = (result.get("error") or {}).get("message")
        return BackfillProgress(backfill_id, result["status"], per_asset, error)
