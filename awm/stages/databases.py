"""Stage 4: databases. env.db, the deterministic initial state."""

from __future__ import annotations

from awm import artifacts
from awm.database_writer import write_database
from awm.errors import StageError
from awm.quality.gates import gate_database
from awm.registry import stage
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore

STAGE = stage("databases")
MIN_ROWS = 100


def build(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = artifacts.SCENARIO.read(store, env_id)
        spec = artifacts.SCHEMA_JSON.read(store, env_id)
        ddl = artifacts.SCHEMA_SQL.read(store, env_id)
        rows = backend.database_rows(scenario, spec)
        tmp = store.temp_path(env_id, artifacts.DATABASE.name)
        try:
            counts = write_database(tmp, ddl, spec, rows)
            total = sum(counts.values())
            if total < MIN_ROWS:
                raise StageError(STAGE.name, env_id, f"only {total} rows; at least {MIN_ROWS} are required")
            gate_database(env_id, tmp, spec)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return {artifacts.DATABASE.name: tmp}, {"rows": total, "tables": len(counts), "empty_tables": sum(1 for n in counts.values() if n == 0),
                                 "rows_per_table": counts}

    return run_env_stage(store, STAGE, env_id, produce, backend, force)
