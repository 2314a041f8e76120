"""Stage 4: databases. env.db, the deterministic initial state."""

from __future__ import annotations

from awm.contracts import Scenario, SchemaSpec
from awm.database_writer import write_database
from awm.errors import StageError
from awm.quality.gates import gate_database
from awm.stages.base import StageOutcome, run_env_stage
from awm.store import ArtifactStore

STAGE = "databases"
MIN_ROWS = 100


def build_database(store: ArtifactStore, env_id: str, backend, force: bool = False) -> StageOutcome:
    def produce():
        scenario = store.read_model(env_id, "scenario.json", Scenario)
        spec = store.read_model(env_id, "schema.json", SchemaSpec)
        ddl = store.read_text(env_id, "schema.sql")
        rows = backend.database_rows(scenario, spec)
        tmp = store.temp_path(env_id, "env.db")
        try:
            counts = write_database(tmp, ddl, spec, rows)
            total = sum(counts.values())
            if total < MIN_ROWS:
                raise StageError(STAGE, env_id, f"only {total} rows; at least {MIN_ROWS} are required")
            gate_database(env_id, tmp, spec)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return {"env.db": tmp}, {"rows": total, "tables": len(counts), "empty_tables": sum(1 for n in counts.values() if n == 0),
                                 "rows_per_table": counts}

    return run_env_stage(store, STAGE, env_id, ["scenario.json", "schema.json", "schema.sql"], ["env.db"],
                         produce, backend, force)
