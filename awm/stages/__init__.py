"""The pipeline stages as plain functions over the artifact store.

Order: scenarios -> tasks -> schemas -> databases -> tools -> verification_reports,
then the catalog. Each stage builds one environment at a time and never raises
for a bad environment: it records the failure (failed.json) and moves on.
"""

from awm.stages.base import STAGES, StageOutcome

__all__ = ["STAGES", "StageOutcome"]
