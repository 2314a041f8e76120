"""The pipeline stages as plain functions over the artifact store.

Order (declared in awm/registry.py): scenarios -> tasks -> schemas -> databases -> tools ->
verification_reports, then the catalog. Each stage module defines build(store, env_id, backend, force),
builds one environment at a time and never raises for a bad environment: it records the failure
(failed.json) and moves on. base.py is the harness every stage runs in.
"""

from awm.stages.base import STAGES, StageOutcome

__all__ = ["STAGES", "StageOutcome"]
