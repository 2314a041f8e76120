"""Checks on the databases asset: a great-expectations suite derived from each schema, and clock
independence (a second build of the same environment is byte-identical)."""

import dagster as dg

from awm import artifacts
from awm.quality.databases import (
    ddl_clock_findings,
    rebuild_findings,
    run_expectation_suite,
    suites_pass_together,
)
from awm.registry import stage
from awm_assets.constants import DATABASES
from awm_assets.partitions import domain_partitions
from checks.environments import domain_of, validity_results, yield_check
from resources import ArtifactStoreResource, GeneratorResource


@dg.asset_check(asset=DATABASES, name=stage(DATABASES).valid_check, blocking=True, partitions_def=domain_partitions,
                description="Every database the stage kept passes a great-expectations 1.x suite derived from its "
                            "schema (primary keys unique, NOT NULL, foreign keys resolve, rows per table, enums, "
                            "ranges); one environment per domain is rebuilt and must be byte-identical (no clock, "
                            "no randomness), and no DDL reads the clock.")
def databases_valid(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                    generator: GeneratorResource):
    # An LLM backend's rows come from its response cache, so only the offline builder is rebuilt here.
    backend = generator.get(store.store()) if generator.deterministic else None
    suites: list[dict] = []
    # The builder's code is shared by a domain's environments, so a clock dependence shows in any one of
    # them: one rebuild per domain partition; every environment's DDL is scanned for clock functions.
    rebuilt: set[str] = set()

    def inspect(st, env_ids):
        findings = []
        specs = {env_id: artifacts.SCHEMA_JSON.read(st, env_id) for env_id in env_ids}
        # the whole partition in one validation; one by one (with details) only if the batch fails
        together, cells = suites_pass_together([(e, st.database_path(e), specs[e]) for e in env_ids])
        for env_id in env_ids:
            if together:
                suites.append({"env_id": env_id, "success": True, "cells": cells // max(1, len(env_ids)),
                               "validated_in_batch": True})
            else:
                result = run_expectation_suite(st.database_path(env_id), specs[env_id])
                suites.append({"env_id": env_id, "success": result.success, "expectations": result.expectations,
                               "cells": result.cells, "failed": result.failed_expectations})
                findings += result.findings
            domain = env_id.rsplit("__", 1)[0]
            if backend is not None and domain not in rebuilt:
                rebuilt.add(domain)
                findings += rebuild_findings(st, env_id, backend)  # also scans the DDL for clock functions
            else:
                findings += ddl_clock_findings(env_id, artifacts.SCHEMA_SQL.read(st, env_id))
        return findings

    def extra(domain: str) -> dict:
        mine = [s for s in suites if domain_of(s["env_id"]) == domain]
        failed = [s for s in mine if not s["success"]]
        return {"suites_run": len(mine), "cells_validated": sum(s.get("cells", 0) for s in mine),
                "rebuilt_for_clock_independence": "yes" if domain in rebuilt else "no",
                "failed_expectations": dg.MetadataValue.json(failed[:20])}

    yield from validity_results(context, store, generator, DATABASES, inspect, extra)


databases_yield = yield_check(DATABASES,
                              "How many databases of the partition the stage rejected, and why.")


database_checks = [databases_valid, databases_yield]
