"""Import AWM-1K scenarios into the artifact store (`awm import-awm DIR`, or the `awm1k_environments` asset).

One scenario becomes the environment `<scenario>__00` (its domain is the scenario's name) with:

    scenario.json   origin "awm1k": their name and description
    schema.sql      their DDL and indexes; schema.json read back from the database where it fits our contract
    env.db          their sample inserts; only when every table's inserts succeeded (awm/awm1k/database.py)
    app.py          their environment code, as published (run only by the foreign runtime)
    api_spec.json   their API spec, as published
    tools.json      each route of their app as an MCP tool (schemas from the app's OpenAPI, read in the sandbox)
    awm1k.json      provenance of each file (their file, line, sha256), the checks (awm/awm1k/checks.py), the
                    routes' smoke calls, each task with its verifier, checks and tier
    provenance.json the import's record: their lines' hashes in, our files' hashes out, metrics, duration
    failed.json     when the environment is quarantined: the first failing check, with its statement or route

Every file is written atomically; a database is built beside its target and moved in whole.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

import awm
from awm import artifacts
from awm.awm1k.checks import check_task, environment_checks, smoke_routes
from awm.awm1k.database import build_database, schema_spec
from awm.awm1k.dataset import ForeignScenario, read_dataset
from awm.awm1k.runtime import ForeignCodeError, ForeignHost
from awm.contracts import ForeignManifest, ForeignRoute, ForeignTask, Provenance, Scenario, ToolSet, ToolSpec
from awm.domains import env_id_for
from awm.errors import AWMError
from awm.store import ArtifactStore, dump_json

log = logging.getLogger(__name__)

STAGE = "awm1k_environments"  # the asset that imports them; provenance and failed.json name it
CODE_VERSION = f"{STAGE}:{awm.__version__}"
REWRITTEN = (artifacts.SCHEMA_SQL, artifacts.SCHEMA_JSON, artifacts.DATABASE, artifacts.TOOLS_JSON, artifacts.AWM1K_APP,
             artifacts.AWM1K_SPEC)


@dataclass
class ImportResult:
    env_id: str
    scenario: str
    status: str  # checked | quarantined | skipped
    reason: str
    tasks: dict[str, int]  # tier -> count
    seconds: float


def env_id_of(name: str) -> str:
    return env_id_for(name, 0)


def _sources(scenario: ForeignScenario, *pieces: str) -> list[dict]:
    return [s.record() for piece in pieces for s in scenario.sources.get(piece, [])]


def import_scenario(store: ArtifactStore, scenario: ForeignScenario, dataset: str = "",
                    isolation: str | None = None) -> ImportResult:
    """Import one scenario: write its files, run its checks, record its tier (see the module's docstring)."""
    started = time.perf_counter()
    try:
        env_id = env_id_of(scenario.name)
    except (AWMError, ValueError) as exc:
        return ImportResult("", scenario.name, "skipped", f"not a domain key: {exc}", {}, 0.0)
    if artifacts.TASKS.exists(store, env_id) and not artifacts.AWM1K.exists(store, env_id):
        return ImportResult(env_id, scenario.name, "skipped", f"{env_id} is an environment built here; an import "
                            "never overwrites one", {}, 0.0)
    store.sweep_temp(env_id)
    for stale in REWRITTEN:  # an earlier import's files: this one writes what it can make anew
        stale.path(store, env_id).unlink(missing_ok=True)
    missing = scenario.missing()
    provenance = {
        artifacts.SCENARIO.name: _sources(scenario, "scenario", "tasks"),
        artifacts.SCHEMA_SQL.name: _sources(scenario, "db"),
        artifacts.SCHEMA_JSON.name: _sources(scenario, "db"),
        artifacts.DATABASE.name: _sources(scenario, "db", "sample"),
        artifacts.AWM1K_APP.name: _sources(scenario, "envs"),
        artifacts.TOOLS_JSON.name: _sources(scenario, "envs"),
        artifacts.AWM1K_SPEC.name: _sources(scenario, "spec"),
        artifacts.AWM1K.name: _sources(scenario, "tasks", "verifier", "verifier_sql"),
    }
    store.write_model(env_id, artifacts.SCENARIO.name, Scenario(
        env_id=env_id, domain=scenario.name, slot=0, seed=0, name=scenario.name,
        description=scenario.description or "", category="awm1k", flavour="", sub_business=scenario.name,
        labels={}, modules=[], item_categories=[], items=[], price_range=(0.0, 0.0), builtin=False, origin="awm1k",
        origin_reason=f"imported from AWM-1K files{f' in {dataset}' if dataset else ''}"))
    written = [artifacts.SCENARIO.name]
    if scenario.api_spec is not None:
        store.write_text(env_id, artifacts.AWM1K_SPEC.name, dump_json(scenario.api_spec))
        written.append(artifacts.AWM1K_SPEC.name)
    if scenario.code is not None:
        store.write_text(env_id, artifacts.AWM1K_APP.name, scenario.code)
        written.append(artifacts.AWM1K_APP.name)

    schema_errors: list[dict] = []
    insert_failures: list[dict] = []
    insert_tables: dict = {}
    clock_inserts = 0
    routes: list[ForeignRoute] = []
    tasks = []
    db_ready = False
    if scenario.tables:
        temp = store.temp_path(env_id, artifacts.DATABASE.name)
        try:
            schema, inserts = build_database(temp, scenario.tables, scenario.samples)
            store.write_text(env_id, artifacts.SCHEMA_SQL.name, schema.ddl)
            written.append(artifacts.SCHEMA_SQL.name)
            conn = sqlite3.connect(temp)
            try:
                spec, why = schema_spec(conn, env_id)
            finally:
                conn.close()
            if spec is not None:
                store.write_model(env_id, artifacts.SCHEMA_JSON.name, spec)
                written.append(artifacts.SCHEMA_JSON.name)
            else:
                log.info("%s: schema.json left out: %s", env_id, why)
            schema_errors, insert_failures = schema.errors, inserts.failures
            insert_tables, clock_inserts = inserts.tables, inserts.clock_statements
            if not schema_errors and not insert_failures:
                store.write_file_from(env_id, artifacts.DATABASE.name, temp)
                written.append(artifacts.DATABASE.name)
                db_ready = True
        finally:
            temp.unlink(missing_ok=True)

    host_error = None
    if db_ready and scenario.code is not None:
        try:
            with ForeignHost.start(isolation) as host:
                found = host.load(scenario.code, artifacts.DATABASE.path(store, env_id))
                routes = smoke_routes(host, found)
                if found:
                    toolset = ToolSet(env_id=env_id, tools=[ToolSpec.model_validate(r.spec()) for r in found])
                    store.write_model(env_id, artifacts.TOOLS_JSON.name, toolset)
                    written.append(artifacts.TOOLS_JSON.name)
                for index, instruction in enumerate(scenario.tasks):
                    tasks.append(check_task(host, f"t{index + 1:02d}", index, instruction,
                                            scenario.verifiers.get(index)))
        except ForeignCodeError as exc:
            host_error = f"the environment code failed to load in the foreign runtime: {exc}"[:2000]
    if not tasks:
        reason = ("environment not runnable" if not db_ready or host_error else "")
        tasks = [ForeignTask(task_id=f"t{i + 1:02d}", index=i, instruction=text,
                             verifier=scenario.verifiers.get(i), tier="unverified", reason=reason)
                 for i, text in enumerate(scenario.tasks)]
    checks, reason = environment_checks(schema_errors, insert_failures, routes, missing)
    checks.update(insert_tables=insert_tables, clock_dependent_inserts=clock_inserts)
    if host_error:
        checks["routes_answer"] = False
        reason = "; ".join(r for r in (reason, f"routes_answer: {host_error}") if r)
    if reason is None and not any(t.tier == "checked" for t in tasks):
        reason = "no task passed its verifier checks: " + "; ".join(f"{t.task_id} {t.reason}" for t in tasks)[:1500]
    manifest = ForeignManifest(env_id=env_id, scenario=scenario.name, status="quarantined" if reason else "checked",
                               reason=reason or "", provenance=provenance, checks=checks, routes=routes, tasks=tasks)
    if reason:
        store.mark_failed(env_id, STAGE, reason)
    else:
        store.clear_failure(env_id, STAGE)
    store.write_model(env_id, artifacts.AWM1K.name, manifest)
    written.append(artifacts.AWM1K.name)
    seconds = time.perf_counter() - started
    tiers: dict[str, int] = {}
    for t in tasks:
        tiers[t.tier] = tiers.get(t.tier, 0) + 1
    inputs = {f"{s['file']}:{s['line']}": s["sha256"] for sources in provenance.values() for s in sources}
    store.record_provenance(env_id, Provenance(
        stage=STAGE, backend="awm1k", params={"dataset": dataset, "scenario": scenario.name}, code_version=CODE_VERSION,
        inputs=inputs, outputs={name: store.hash(env_id, name) for name in written},
        metrics={"tasks": len(tasks), **{f"tasks_{k}": v for k, v in tiers.items()}, "routes": len(routes),
                 "insert_failures": len(insert_failures)}, duration_ms=seconds * 1000))
    return ImportResult(env_id, scenario.name, manifest.status, manifest.reason, tiers, seconds)


def import_dataset(store: ArtifactStore, folder: Path, scenarios: list[str] | None = None,
                   isolation: str | None = None) -> list[ImportResult]:
    """Every scenario of `folder` (or those named), in name order."""
    found = read_dataset(folder)
    names = sorted(found) if not scenarios else scenarios
    unknown = [n for n in names if n not in found]
    if unknown:
        raise AWMError(f"{folder}: no scenario named {', '.join(unknown)} (found: {', '.join(sorted(found))})")
    return [import_scenario(store, found[name], Path(folder).name, isolation) for name in names]
