"""Export the published corpus for trainers: one JSON line per published task.

Each line is self-contained: the environment, the task, its instruction, the MCP
tool specs the agent will see, and how to reach the environment (the streamable
HTTP URL of `awm serve`, or the stdio command). With `with_reference`, the
task's reference solution and answer are included too (for supervised warm
starts and for replay tests; never show them to the agent being trained).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from awm.contracts import TaskSet, ToolSet
from awm.domains import split_env_id, validate_domain_slug
from awm.errors import AWMError
from awm.store import ArtifactStore, atomic_open

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
EXPORT_VERSION = "1"


@dataclass
class ExportSummary:
    path: Path
    tasks: int
    environments: int


def mcp_url(base_url: str, env_id: str, task_id: str | None = None) -> str:
    url = f"{base_url.rstrip('/')}/envs/{quote(env_id)}/mcp"
    return f"{url}?task={quote(task_id)}" if task_id else url


def export_lines(store: ArtifactStore, base_url: str = DEFAULT_BASE_URL, domains: list[str] | None = None,
                 with_reference: bool = False) -> Iterator[dict]:
    """The export records, in catalog order."""
    wanted = {validate_domain_slug(d) for d in domains} if domains else None
    if not store.catalog_path.exists():
        raise AWMError(f"no catalog at {store.catalog_path}; build the corpus first (make run)")
    current: tuple[str, list[dict], TaskSet] | None = None
    for entry in store.iter_catalog():
        env_id = entry["env_id"]
        if wanted is not None and split_env_id(env_id)[0] not in wanted:
            continue
        if current is None or current[0] != env_id:
            toolset = store.read_model(env_id, "tools.json", ToolSet)
            taskset = store.read_model(env_id, "tasks.json", TaskSet)
            current = (env_id, [spec.mcp() for spec in toolset.tools], taskset)
        _, tools, taskset = current
        task = next((t for t in taskset.tasks if t.task_id == entry["task_id"]), None)
        if task is None:
            raise AWMError(f"{store.catalog_path} publishes {env_id} {entry['task_id']}, which its tasks.json lacks; "
                           "rebuild the catalog")
        record = {
            "export_version": EXPORT_VERSION,
            "env_id": env_id,
            "domain": entry["domain"],
            "task_id": task.task_id,
            "instruction": task.instruction,
            "kind": task.kind,
            "answer_slots": task.answer_slots,
            "scenario": entry["scenario"],
            "acting_user": taskset.acting_user,
            "tools": tools,
            "mcp": {"transport": "streamable-http", "url": mcp_url(base_url, env_id, task.task_id)},
            "stdio": {"command": "awm", "args": ["serve", "--transport", "stdio", "--env", env_id,
                                                 "--task", task.task_id]},
        }
        if with_reference:
            record["reference"] = {"solution": [c.model_dump() for c in task.reference_solution],
                                   "answer": task.reference_answer}
        yield record


def write_export(store: ArtifactStore, out: Path, base_url: str = DEFAULT_BASE_URL,
                 domains: list[str] | None = None, with_reference: bool = False) -> ExportSummary:
    """Write the export atomically: streamed to a temporary file beside `out`, then renamed over it."""
    out = Path(out)
    tasks, environments = 0, set()
    with atomic_open(out, "w", encoding="utf-8") as fh:  # streamed: the whole export never sits in memory
        for record in export_lines(store, base_url, domains, with_reference):
            fh.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")
            tasks += 1
            environments.add(record["env_id"])
    return ExportSummary(out, tasks, len(environments))
