"""AWM-1K's published files, read as they are (the format of the reference code, `agent-world-model` 0.1.0):

    gen_scenario.jsonl            {"name", "description"}
    gen_tasks.jsonl               {"scenario", "tasks": [10 strings]}
    gen_db.jsonl                  {"scenario", "db_schema": {"tables": [{"name", "ddl", "indexes": [...]}]}, "db_path"}
    gen_sample.jsonl              {"scenario", "sample_data": {"tables": [{"table_name", "insert_statements": [...]}]}}
    gen_spec.jsonl                {"scenario", "api_spec": {"api_groups": [...]}}
    gen_envs.jsonl                {"scenario", "db_path", "full_code": a FastAPI + SQLAlchemy app}
    gen_verifier.pure_code.jsonl  {"scenario", "task_idx", "task", "verification": {"code": verify_task_completion}}
    gen_verifier.jsonl            the same for the SQL mode of an LLM judge (kept, not run)

Scenario names are normalised as theirs are (lowercase, runs of anything but [a-z0-9_] to one underscore). Every
piece remembers where it came from: the file, its line number and the sha256 of the line.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm.errors import AWMError

FILES = {
    "scenario": "gen_scenario.jsonl",
    "tasks": "gen_tasks.jsonl",
    "db": "gen_db.jsonl",
    "sample": "gen_sample.jsonl",
    "spec": "gen_spec.jsonl",
    "envs": "gen_envs.jsonl",
    "verifier": "gen_verifier.pure_code.jsonl",
    "verifier_sql": "gen_verifier.jsonl",
}


class DatasetError(AWMError):
    """A file of the dataset is missing or not in its format."""


def normalize_scenario_name(name: str) -> str:
    """As the reference code's awm.tools.normalize_scenario_name."""
    s = re.sub(r"[^a-z0-9_]", "_", name.lower())
    return re.sub(r"_+", "_", s).strip("_").strip()


@dataclass(frozen=True)
class Source:
    """Where one piece came from."""

    file: str
    line: int
    sha256: str

    def record(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "sha256": self.sha256}


@dataclass
class ForeignScenario:
    """Everything the dataset holds for one scenario; a piece it lacks is None (or empty)."""

    name: str
    description: str | None = None
    tasks: list[str] = field(default_factory=list)
    tables: list[dict[str, Any]] = field(default_factory=list)  # {"name", "ddl", "indexes"}
    samples: list[dict[str, Any]] = field(default_factory=list)  # {"table_name", "insert_statements"}
    api_spec: dict[str, Any] | None = None
    code: str | None = None
    verifiers: dict[int, str] = field(default_factory=dict)  # task index -> code
    sql_verifiers: dict[int, str] = field(default_factory=dict)
    sources: dict[str, list[Source]] = field(default_factory=dict)  # piece -> the lines it came from

    def add_source(self, piece: str, source: Source) -> None:
        self.sources.setdefault(piece, []).append(source)

    def missing(self) -> list[str]:
        """The pieces an environment needs that the dataset lacks for this scenario."""
        need = {"description": self.description is not None, "tasks": bool(self.tasks), "schema": bool(self.tables),
                "sample data": bool(self.samples), "environment code": self.code is not None}
        return [name for name, present in need.items() if not present]


def _lines(path: Path):
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path.name} line {number} is not JSON: {exc}") from exc
            if not isinstance(record, dict):
                raise DatasetError(f"{path.name} line {number} is not a JSON object")
            digest = hashlib.sha256(line.rstrip("\n").encode("utf-8")).hexdigest()
            yield Source(path.name, number, digest), record


def _field(record: dict, key: str, kind: type, source: Source) -> Any:
    value = record.get(key)
    if not isinstance(value, kind):
        raise DatasetError(f"{source.file} line {source.line}: {key!r} must be {kind.__name__}, "
                           f"not {type(value).__name__}")
    return value


def read_dataset(folder: Path) -> dict[str, ForeignScenario]:
    """Every scenario any file of `folder` names, by normalised name. A folder with none of the files, or a line
    not in its file's format, raises DatasetError naming the file and the line."""
    folder = Path(folder)
    if not folder.is_dir():
        raise DatasetError(f"{folder} is not a directory")
    present = {piece: folder / name for piece, name in FILES.items() if (folder / name).is_file()}
    if not present:
        raise DatasetError(f"{folder} holds none of the AWM-1K files ({', '.join(FILES.values())})")
    scenarios: dict[str, ForeignScenario] = {}

    def entry(raw: str, source: Source) -> ForeignScenario:
        name = normalize_scenario_name(raw)
        if not name:
            raise DatasetError(f"{source.file} line {source.line}: empty scenario name")
        return scenarios.setdefault(name, ForeignScenario(name))

    for piece, path in present.items():
        for source, record in _lines(path):
            if piece == "scenario":
                item = entry(_field(record, "name", str, source), source)
                item.description = _field(record, "description", str, source)
            else:
                item = entry(_field(record, "scenario", str, source), source)
            if piece == "tasks":
                tasks = _field(record, "tasks", list, source)
                if not all(isinstance(t, str) for t in tasks):
                    raise DatasetError(f"{source.file} line {source.line}: tasks must be strings")
                item.tasks = tasks
            elif piece == "db":
                tables = _field(_field(record, "db_schema", dict, source), "tables", list, source)
                for table in tables:
                    if not (isinstance(table, dict) and isinstance(table.get("name"), str)
                            and isinstance(table.get("ddl"), str)):
                        raise DatasetError(f"{source.file} line {source.line}: a table needs a name and a ddl")
                item.tables = tables
            elif piece == "sample":
                tables = _field(_field(record, "sample_data", dict, source), "tables", list, source)
                for table in tables:
                    if not (isinstance(table, dict) and isinstance(table.get("insert_statements", []), list)):
                        raise DatasetError(f"{source.file} line {source.line}: insert_statements must be a list")
                item.samples = tables
            elif piece == "spec":
                item.api_spec = _field(record, "api_spec", dict, source)
            elif piece == "envs":
                item.code = _field(record, "full_code", str, source)
            elif piece in ("verifier", "verifier_sql"):
                index = _field(record, "task_idx", int, source)
                code = (_field(record, "verification", dict, source)).get("code")
                if code is not None and not isinstance(code, str):
                    raise DatasetError(f"{source.file} line {source.line}: verification.code must be text")
                if code:
                    (item.verifiers if piece == "verifier" else item.sql_verifiers)[index] = code
            item.add_source(piece, source)
    return scenarios


def scenario_names(folder: Path) -> list[str]:
    """The scenarios of `folder` that have tasks or a schema (reading only gen_tasks.jsonl and gen_db.jsonl, the
    small files, by their names alone): what a Dagster sensor registers as partitions."""
    names: set[str] = set()
    for piece in ("tasks", "db"):
        path = Path(folder) / FILES[piece]
        if path.is_file():
            names.update(normalize_scenario_name(_field(record, "scenario", str, source))
                         for source, record in _lines(path))
    return sorted(n for n in names if n)
