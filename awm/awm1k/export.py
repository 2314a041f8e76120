"""Our corpus in AWM-1K's files (`awm export --layout awm1k --out DIR`), for people who train on their format.

Per published environment (its scenario name is the environment id as their code normalises it, e.g.
dental_clinic__00 -> dental_clinic_00):

    gen_scenario.jsonl            name, description
    gen_tasks.jsonl               the published tasks' instructions, in catalog order
    gen_db.jsonl                  each table's DDL and indexes, read from env.db (creation order)
    gen_sample.jsonl              one INSERT per row of env.db, table by table (literal values, no clock)
    gen_spec.jsonl                api_groups: one endpoint per tool (POST /tools/<name>, its arguments as body params)
    gen_envs.jsonl                full_code: a FastAPI app in their shape over our tools (tools.py embedded, each
                                  tool a route whose operation_id is its name; a call that returns an error is
                                  rolled back, as our runtime does); `create_engine(` and `uvicorn.run(app` lines
                                  where their server rewrites them
    gen_verifier.pure_code.jsonl  verify_task_completion(initial_db_path, final_db_path, final_answer): our verifier
                                  on read-only views of both databases, then the outcome check inlined (the
                                  footprint and awm/runtime/outcome.py): complete only when the goals are met and
                                  nothing the reference does not change was changed; with the task's `tier`
    awm_tiers.jsonl               scenario, task_idx, env_id, task_id, tier (proven for every task built here)

Only published tasks are exported (catalog.jsonl), imported AWM-1K environments excepted (their files are theirs).
"""

from __future__ import annotations

import inspect
import json
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.awm1k.dataset import FILES, normalize_scenario_name
from awm.errors import AWMError
from awm.runtime import outcome
from awm.store import ArtifactStore, atomic_write_text

TIERS_FILE = "awm_tiers.jsonl"


@dataclass
class LayoutSummary:
    path: Path
    environments: int
    tasks: int
    left_out: dict[str, str] = field(default_factory=dict)  # imported env_id -> why it is not re-exported


IMPORTED_WHY = ("the awm1k layout writes environments built here in AWM-1K's format; an imported environment "
                "already is in it (its own files, provenance in its awm1k.json), and re-exporting it is not supported")


def sql_literal(value: Any) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, bytes):
        return "X'" + value.hex() + "'"
    return "'" + str(value).replace("'", "''") + "'"


def database_files(db_path: Path) -> tuple[list[dict], list[dict]]:
    """(tables with DDL and indexes, sample data tables with insert statements) of a database."""
    conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        tables, samples = [], []
        for name, ddl in conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                      "'sqlite_%' ORDER BY rowid").fetchall():
            indexes = [r[0] + ";" for r in conn.execute("SELECT sql FROM sqlite_master WHERE type = 'index' AND "
                                                        "tbl_name = ? AND sql IS NOT NULL ORDER BY rowid", (name,))]
            tables.append({"name": name, "ddl": ddl + ";", "indexes": indexes})
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]
            head = f"INSERT INTO {name} ({', '.join(columns)}) VALUES ("
            quoted = ", ".join(f'"{c}"' for c in columns)
            statements = [head + ", ".join(sql_literal(v) for v in row) + ");"
                          for row in conn.execute(f'SELECT {quoted} FROM "{name}" ORDER BY rowid')]
            samples.append({"table_name": name, "insert_statements": statements})
        return tables, samples
    finally:
        conn.close()


_PY_TYPES = {"integer": "int", "number": "float", "string": "str", "boolean": "bool", "array": "List[Any]",
             "object": "Dict[str, Any]"}


def _py_type(schema: dict) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kinds = [k for k in kind if k != "null"]
        kind = kinds[0] if len(kinds) == 1 else None
    for option in schema.get("anyOf") or []:
        if option.get("type") not in (None, "null"):
            kind = option["type"]
    return _PY_TYPES.get(kind, "Any")


def _class_name(tool: str) -> str:
    return "".join(part.capitalize() for part in tool.split("_")) + "Body"


def app_code(scenario: str, title: str, tools_py: str, specs: list[dict]) -> str:
    """A FastAPI app in the shape of theirs, over our tools (see the module's docstring)."""
    out = [
        "from fastapi import FastAPI, Body",
        "from pydantic import BaseModel, Field, ConfigDict",
        "from typing import Any, Dict, List, Optional",
        "from sqlalchemy import create_engine",
        "import os",
        "import sqlite3",
        "",
        f'database_url = os.getenv("DATABASE_PATH", "sqlite:///outputs/databases/{scenario}.db")',
        'engine = create_engine(database_url, connect_args={"check_same_thread": False})',
        "DB_PATH = engine.url.database",
        "",
        "# The environment's tools as the AWM platform generated them (plain functions of a database handle).",
        f"TOOLS_SOURCE = {tools_py!r}",
        "TOOLS = {}",
        'exec(compile(TOOLS_SOURCE, "tools.py", "exec"), TOOLS)',
        "",
        "",
        "def _row(cursor, row):",
        "    return {d[0]: v for d, v in zip(cursor.description, row)}",
        "",
        "",
        "class Database:",
        "    def __init__(self, conn):",
        "        self.conn = conn",
        "",
        "    def query(self, sql, params=()):",
        "        return self.conn.execute(sql, tuple(params)).fetchall()",
        "",
        "    def one(self, sql, params=()):",
        "        return self.conn.execute(sql, tuple(params)).fetchone()",
        "",
        "    def execute(self, sql, params=()):",
        "        cursor = self.conn.execute(sql, tuple(params))",
        '        return {"rowcount": cursor.rowcount, "lastrowid": cursor.lastrowid}',
        "",
        "",
        "def call_tool(name, arguments):",
        "    conn = sqlite3.connect(DB_PATH, isolation_level=None)",
        "    conn.row_factory = _row",
        '    conn.execute("PRAGMA foreign_keys = ON")',
        '    conn.execute("BEGIN")',
        "    try:",
        "        result = TOOLS[name](Database(conn), **arguments)",
        "    except Exception as exc:",
        '        conn.execute("ROLLBACK")',
        "        conn.close()",
        '        return {"error": {"code": "tool_failed", "message": (type(exc).__name__ + ": " + str(exc))[:500]}}',
        '    is_error = isinstance(result, dict) and set(result) == {"error"}',
        '    conn.execute("ROLLBACK" if is_error else "COMMIT")',
        "    conn.close()",
        "    return result",
        "",
        "",
        f"app = FastAPI(title={title!r}, version=\"1.0.0\")",
    ]
    for spec in specs:
        name, schema = spec["name"], spec["inputSchema"]
        props, required = schema.get("properties") or {}, set(schema.get("required") or [])
        out += ["", "", f"class {_class_name(name)}(BaseModel):", "    model_config = ConfigDict(populate_by_name=True)"]
        if not props:
            out.append("    pass")
        for prop, sub in props.items():
            kind = _py_type(sub)
            description = str(sub.get("description") or prop)
            default = "..." if prop in required else "None"
            annotation = kind if prop in required else f"Optional[{kind}]"
            out.append(f"    f_{prop}: {annotation} = Field({default}, alias={prop!r}, description={description!r})")
        summary = spec["description"].split("\n")[0][:200]
        out += ["", "", f"@app.post('/tools/{name}', operation_id={name!r}, summary={summary!r},",
                f"          description={spec['description']!r})",
                f"def {name}(body: {_class_name(name)} = Body(...)):",
                f"    return call_tool({name!r}, body.model_dump(by_alias=True, exclude_unset=True))"]
    out += ["", "", 'if __name__ == "__main__":', "    import uvicorn", '    uvicorn.run(app, host="127.0.0.1", port=8001)',
            ""]
    return "\n".join(out)


def verifier_code(code: str, footprint: dict | None) -> str:
    """verify_task_completion around our verifier, with the outcome check inlined."""
    return "\n".join([
        "import json",
        "",
        "# The task's verifier as the AWM platform generated it: verify(initial, final, answer).",
        f"VERIFIER_SOURCE = {code!r}",
        "# What the task's reference solution changes, row by row (None: the goals alone are judged).",
        f"FOOTPRINT = json.loads({json.dumps(footprint)!r})",
        "# The outcome check of the AWM runtime (awm/runtime/outcome.py), verbatim.",
        f"OUTCOME_SOURCE = {inspect.getsource(outcome)!r}",
        "",
        "",
        "def verify_task_completion(initial_db_path: str, final_db_path: str, final_answer: str | None = None) -> dict:",
        "    import sqlite3",
        "    import sys",
        "    import types",
        "",
        "    def open_ro(path, rows):",
        '        conn = sqlite3.connect("file:" + path + "?mode=ro", uri=True)',
        "        if rows:",
        "            conn.row_factory = lambda c, r: {d[0]: v for d, v in zip(c.description, r)}",
        "        return conn",
        "",
        "    class View:",
        "        def __init__(self, conn):",
        "            self.conn = conn",
        "",
        "        def query(self, sql, params=()):",
        "            return self.conn.execute(sql, tuple(params)).fetchall()",
        "",
        "        def one(self, sql, params=()):",
        "            return self.conn.execute(sql, tuple(params)).fetchone()",
        "",
        "    initial, final = open_ro(initial_db_path, True), open_ro(final_db_path, True)",
        "    try:",
        "        namespace = {}",
        '        exec(compile(VERIFIER_SOURCE, "verifier.py", "exec"), namespace)',
        "        verdict = namespace['verify'](View(initial), View(final), final_answer)",
        "    except Exception as exc:",
        '        return {"result": "others", "evidence": ["verifier raised " + type(exc).__name__ + ": " + str(exc)]}',
        "    finally:",
        "        initial.close()",
        "        final.close()",
        '    if not isinstance(verdict, dict) or verdict.get("complete") is not True:',
        '        return {"result": "others", "evidence": list((verdict or {}).get("evidence") or [])}',
        "    if FOOTPRINT is None:",
        '        return {"result": "complete", "evidence": list(verdict.get("evidence") or [])}',
        '    name = "awm_outcome_" + str(id(verdict))',
        "    module = types.ModuleType(name)",
        "    sys.modules[name] = module",
        "    try:",
        '        exec(compile(OUTCOME_SOURCE, "outcome.py", "exec"), module.__dict__)',
        "        template, after = open_ro(initial_db_path, False), open_ro(final_db_path, False)",
        "        try:",
        "            layout = module.Layout.read(template)",
        "            changes = module.diff(layout, template, after, {module.ALL_TABLES})",
        "            summary, unexpected = module.account(layout, changes, FOOTPRINT)",
        "        finally:",
        "            template.close()",
        "            after.close()",
        "    finally:",
        "        sys.modules.pop(name, None)",
        "    judged = module.judged(verdict, summary, unexpected)",
        '    return {"result": "complete" if judged["complete"] else "others",',
        '            "evidence": list(judged.get("evidence") or [])}',
        "",
    ])


def write_layout(store: ArtifactStore, out: Path, domains: list[str] | None = None) -> LayoutSummary:
    """Write AWM-1K's files for the published tasks into the folder `out` (each file atomically)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise AWMError(f"--layout awm1k writes a folder of files; {out} is a file")
    published: dict[str, list[dict]] = defaultdict(list)
    left_out: dict[str, str] = {}
    for entry in store.iter_catalog():
        if domains and entry.get("domain") not in domains:
            continue
        if entry.get("origin") == "awm1k":
            left_out[entry["env_id"]] = IMPORTED_WHY
            continue
        published[entry["env_id"]].append(entry)
    if left_out and not published:
        raise AWMError(f"every published environment{' of ' + ', '.join(domains) if domains else ''} is imported "
                       f"({', '.join(sorted(left_out))}): {IMPORTED_WHY}")
    rows: dict[str, list[dict]] = {piece: [] for piece in ("scenario", "tasks", "db", "sample", "spec", "envs",
                                                           "verifier")}
    tiers, count = [], 0
    for env_id in sorted(published):
        scenario = artifacts.SCENARIO.read(store, env_id)
        taskset = {t.task_id: t for t in artifacts.TASKS.read(store, env_id).tasks}
        verifiers = {v.task_id: v for v in artifacts.VERIFIERS.read(store, env_id).verifiers}
        specs = [t.mcp() for t in artifacts.TOOLS_JSON.read(store, env_id).tools]
        name = normalize_scenario_name(env_id)
        db_path = artifacts.DATABASE.read(store, env_id)
        tables, samples = database_files(db_path)
        entries = published[env_id]
        rows["scenario"].append({"name": name, "description": scenario.description})
        rows["tasks"].append({"scenario": name, "tasks": [e["instruction"] for e in entries]})
        rows["db"].append({"scenario": name, "db_schema": {"tables": tables},
                           "db_path": f"./outputs/databases/{name}.db"})
        rows["sample"].append({"scenario": name, "tables_count": len(tables),
                               "inserts_count": sum(len(s["insert_statements"]) for s in samples),
                               "sample_data": {"tables": samples}})
        rows["spec"].append({"scenario": name, "api_spec": {"api_groups": [{"group_name": "Tools", "endpoints": [
            {"path": f"/tools/{s['name']}", "method": "POST", "summary": s["description"].split("\n")[0][:200],
             "description": s["description"], "operation_id": s["name"], "tags": ["tools"],
             "request_params": {p: {"type": sub.get("type", "string"), "param_type": "body",
                                    "required": p in (s["inputSchema"].get("required") or []),
                                    "description": sub.get("description", p)}
                                for p, sub in (s["inputSchema"].get("properties") or {}).items()},
             "response": {}} for s in specs]}]}})
        rows["envs"].append({"scenario": name, "db_path": f"./outputs/databases/{name}.db",
                             "full_code": app_code(name, scenario.name, artifacts.TOOLS_PY.read(store, env_id), specs)})
        for index, entry in enumerate(entries):
            verifier = verifiers[entry["task_id"]]
            footprint = verifier.footprint.model_dump(mode="json") if verifier.footprint else None
            rows["verifier"].append({"scenario": name, "task_idx": index, "task": entry["instruction"],
                                     "tier": entry.get("tier", "proven"),
                                     "verification": {"code": verifier_code(verifier.code, footprint),
                                                      "raw_response": ""}})
            tiers.append({"scenario": name, "task_idx": index, "env_id": env_id, "task_id": entry["task_id"],
                          "tier": entry.get("tier", "proven"),
                          "reference_steps": taskset[entry["task_id"]].steps})
            count += 1
    out.mkdir(parents=True, exist_ok=True)
    for piece, records in rows.items():
        atomic_write_text(out / FILES[piece], "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    atomic_write_text(out / TIERS_FILE, "".join(json.dumps(t) + "\n" for t in tiers))
    return LayoutSummary(out, len(published), count, left_out)
