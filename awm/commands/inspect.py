"""awm inspect <env_id>: an environment's summary."""

from __future__ import annotations

import sqlite3

from awm import artifacts
from awm.domains import split_env_id
from awm.errors import AWMError
from awm.store import ArtifactStore


def inspect_environment(store: ArtifactStore, env_id: str) -> str:
    split_env_id(env_id)
    folder = store.env_dir(env_id)
    if not folder.is_dir():
        raise AWMError(f"no environment {env_id} under {store.corpus_dir} (build it with make run)")
    out: list[str] = []
    scenario = artifacts.SCENARIO.read(store, env_id)
    out += [f"{env_id}: {scenario.name}  [{scenario.category} / {scenario.flavour}]", f"  {scenario.description}",
            f"  artifacts: {folder}"]
    failure = store.failure(env_id)
    if failure:
        out.append(f"  FAILED at stage {failure.stage}: {failure.reason}")
    if artifacts.SCHEMA_JSON.exists(store, env_id):
        spec = artifacts.SCHEMA_JSON.read(store, env_id)
        counts: dict[str, int] = {}
        if artifacts.DATABASE.exists(store, env_id):
            conn = sqlite3.connect(f"file:{store.database_path(env_id)}?mode=ro", uri=True)
            try:
                counts = {t.name: conn.execute(f'SELECT COUNT(*) FROM "{t.name}"').fetchone()[0] for t in spec.tables}
            finally:
                conn.close()
        out.append(f"\nTables ({len(spec.tables)}, {sum(counts.values())} rows):")
        out += [f"  {t.name:<28} {counts.get(t.name, '-'):>5} rows  {len(t.columns)} columns" for t in spec.tables]
    if artifacts.TOOLS_JSON.exists(store, env_id):
        toolset = artifacts.TOOLS_JSON.read(store, env_id)
        style = f"; API style {toolset.style_name}" if toolset.style_name else ""
        out.append(f"\nTools ({len(toolset.tools)}{style}):")
        out += [f"  {t.name:<36} {t.description[:90]}" for t in toolset.tools]
    if artifacts.TASKS.exists(store, env_id):
        taskset = artifacts.TASKS.read(store, env_id)
        verdicts = {}
        if artifacts.REPORT.exists(store, env_id):
            report = artifacts.REPORT.read(store, env_id)
            verdicts = {r.task_id: r for r in report.tasks}
        out.append(f"\nTasks ({len(taskset.tasks)}; acting user: {taskset.acting_user}):")
        for t in taskset.tasks:
            r = verdicts.get(t.task_id)
            status = "not verified" if r is None else ("verified" if r.publishable else
                                                       f"FAILED (reference {'ok' if r.reference_passed else 'fails'}, "
                                                       f"null {'passes' if r.null_passed else 'rejected'})")
            out.append(f"  {t.task_id} [{t.kind}, {t.steps} steps, {t.distinct_tools} tools, {status}] {t.instruction}")
    return "\n".join(out)


def register(sub) -> None:
    parser = sub.add_parser("inspect", help="summarise one environment: scenario, tables, tools, tasks")
    parser.add_argument("env_id", help="for example retail_banking__00")
    parser.set_defaults(handler=lambda args: print(inspect_environment(ArtifactStore(args.home), args.env_id)) or 0)
