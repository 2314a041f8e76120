"""The one place the Dagster layer uses a name Dagster does not export: checked against one release.

Dagster 1.13 keeps `AssetCheckEvaluationTargetMaterializationData` in a private module, and a check's
evaluation must carry it to name the materialization it judged (else the UI treats the result as stale and
shows no status for the partition: checks/environments.py). A private module may move or change in any
release, so it is imported here only, and tests/checks/test_dagster_private.py pins the release it was
checked against: upgrading Dagster fails that test until this import has been checked again (is the name
exported now? are its fields the same?) and CHECKED_AGAINST updated.
"""

from dagster._core.definitions.asset_checks.asset_check_evaluation import (
    AssetCheckEvaluationTargetMaterializationData as TargetMaterialization,
)

CHECKED_AGAINST = "1.13.27"  # dagster.__version__ this import was checked against (the pin in pyproject.toml)
FIELDS = ("storage_id", "run_id", "timestamp")  # what checks/environments.py gives it


def target_materialization(storage_id: int, run_id: str, timestamp: float) -> TargetMaterialization:
    """The materialization a check evaluation judged (dagster's private AssetCheckEvaluationTargetMaterializationData)."""
    return TargetMaterialization(storage_id=storage_id, run_id=run_id, timestamp=timestamp)


__all__ = ["CHECKED_AGAINST", "FIELDS", "TargetMaterialization", "target_materialization"]
