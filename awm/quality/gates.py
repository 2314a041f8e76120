"""The quality gate of each stage: one call in the stage, raising QualityError on the first failing check.

A stage calls its gate on what it just produced, before writing it, so a bad environment is failed
(failed.json names the stage and the check) where it is made and goes no further, while the other
environments of its domain carry on. The asset checks re-run the same rules on what was published
(and, for databases, a second engine) to prove that nothing invalid went downstream.
"""

from __future__ import annotations

from pathlib import Path

from awm import artifacts
from awm.contracts import Scenario, SchemaSpec, TaskSet, ToolSet
from awm.domains import split_env_id
from awm.quality.databases import database_findings
from awm.quality.findings import require_no_findings
from awm.quality.scenarios import near_duplicate_findings, scenario_identity_findings
from awm.quality.tasks import task_findings
from awm.store import ArtifactStore


def earlier_scenarios(store: ArtifactStore, env_id: str) -> list[Scenario]:
    """The valid scenarios of the same domain with a lower slot (the ones this one must not repeat)."""
    domain, slot = split_env_id(env_id)
    found = []
    for other in store.env_ids(domain):
        if split_env_id(other)[1] >= slot or store.failure(other) or not artifacts.SCENARIO.exists(store, other):
            continue
        found.append(artifacts.SCENARIO.read(store, other))
    return found


def gate_scenario(store: ArtifactStore, env_id: str, scenario: Scenario) -> None:
    findings = scenario_identity_findings(scenario, env_id)
    findings += near_duplicate_findings(scenario, earlier_scenarios(store, env_id))
    require_no_findings("scenarios", env_id, findings)


def expected_task_count(backend) -> int | None:
    """How many tasks the backend was asked for, when it says (the offline builder and the LLM both do)."""
    params = getattr(backend, "params", None) or {}
    count = params.get("tasks_per_env")
    return int(count) if isinstance(count, int) else None


def gate_tasks(env_id: str, taskset: TaskSet, backend) -> None:
    require_no_findings("tasks", env_id, task_findings(taskset, env_id, expected_task_count(backend)))


def gate_database(env_id: str, db_path: Path, spec: SchemaSpec) -> None:
    require_no_findings("databases", env_id, database_findings(db_path, spec))


def gate_tools(env_id: str, source: str, toolset: ToolSet, spec: SchemaSpec, tasks: TaskSet, db_path: Path) -> None:
    from awm.quality.tools import tool_findings  # the runtime (a worker pool) only where tools are checked

    require_no_findings("tools", env_id, tool_findings(env_id, source, toolset, spec, tasks, db_path))
