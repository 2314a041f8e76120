"""The model behind `awm llm-serve`: answers AWM stage prompts from the offline world builder.

It reads a prompt the way the prompts are written for a real model (the stage from the
system message's first line, the inputs from the tagged blocks of the user message) and
answers with what the offline world builder produces for those inputs, in the stage's
output format. Faults turn a good answer into a specific kind of bad one.
"""

from __future__ import annotations

import ast
import json
from functools import lru_cache
from typing import Any

from awm.backends.offline import OfflineBackend
from awm.builder.verifiergen import verifier_source
from awm.builder.world import make_scenario
from awm.contracts import Scenario, Task
from awm.llm.fit import part_of_tool
from awm.llm.prompts import identify, parse_blocks
from awm.llm.rephrase import stated_values

SCENARIO_DRAFT_FIELDS = ("name", "description", "category", "flavour", "sub_business", "labels", "modules",
                         "entity_groups", "item_categories", "items", "price_range")

# Faults that rewrite the answer, and the prompts (template stages) each applies to.
CONTENT_FAULTS: dict[str, tuple[str, ...]] = {
    "malformed_json": ("scenarios", "tasks", "schemas", "databases", "tools", "verifier"),
    "truncated": ("scenarios", "tasks", "schemas", "databases", "tools", "verifier"),
    "schema_violation": ("scenarios", "tasks", "schemas", "databases", "tools", "verifier"),
    "bad_sql": ("databases",),
    "unsafe_code": ("tools", "verifier"),
    "lying_verifier": ("verifier",),
    "lax_verifier": ("verifier",),
    "duplicate": ("scenarios",),
    "login_task": ("tasks",),
    "partial_tasks": ("tasks",),
    "wall_clock": ("databases",),
    "malformed_tool_call": ("agent",),
    "dropped_value": ("phrasing",),
}


# Appended to a proven verifier, these take the place of its strict answer and text checks: an answer passes
# when it contains the expected value anywhere (a hedge or a dump does), a text when it contains the quote. Case and
# underscores are ignored, as a lax verifier does (a status 'under_review' is "under review" in a right answer), so
# the reference passes and only the shortcut proofs can catch it.
LAX_CHECKS = '''

def _lax(value):
    return str(value).lower().replace("_", " ")


def check_answer(answer, spec, failures):
    if answer is None or _lax(spec["value"]) not in _lax(answer):
        failures.append("the answer does not mention " + repr(spec["value"]))


def text_key(text):
    return "x"
'''


class PromptNotUnderstood(ValueError):
    """The request is not an AWM stage prompt this simulator can answer."""


class SimulatedModel:
    def __init__(self, base_seed: int = 0):
        self.base_seed = base_seed

    def understand(self, messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any], dict[str, str]]:
        """(template stage, request block, all blocks) of a prompt."""
        found = identify(messages)
        if found is None:
            raise PromptNotUnderstood("llm-serve answers AWM stage prompts only (no 'AWM stage prompt:' header in the "
                                      "system message)")
        stage, _ = found
        user = "\n".join(m.get("content") or "" for m in messages if m.get("role") == "user")
        blocks = parse_blocks(user)
        try:
            request = json.loads(blocks.get("request", ""))
        except json.JSONDecodeError as exc:
            raise PromptNotUnderstood(f"the {stage} prompt has no readable <request> block: {exc}") from exc
        return stage, request, blocks

    def answer(self, stage: str, request: dict[str, Any], blocks: dict[str, str]) -> dict[str, Any]:
        key = json.dumps({"request": request, "scenario": blocks.get("scenario"), "task": blocks.get("task"),
                          "part": blocks.get("part")}, sort_keys=True)
        return json.loads(_answer(stage, key, self.base_seed))

    def spoil(self, fault: str, stage: str, request: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
        """A good answer turned into the fault's kind of bad one (before it is serialised)."""
        if fault == "schema_violation":
            spoiled = dict(answer)
            spoiled.pop(next(iter(spoiled)))  # every output model's first field is required
            return spoiled
        if fault == "bad_sql":
            return _break_foreign_key(answer)
        if fault == "wall_clock":
            return _use_wall_clock(answer)
        if fault == "unsafe_code":
            field = "source" if stage == "tools" else "code"
            return {**answer, field: "import os\n" + answer[field]}
        if fault == "lying_verifier":
            return {"code": 'def verify(initial, final, answer):\n    return {"complete": True, "evidence": ["ok"]}\n'}
        if fault == "lax_verifier":  # the right goals, judged the lax way: substrings, as many verifiers do
            return {"code": answer["code"] + LAX_CHECKS}
        if fault == "duplicate":
            other = 1 if request["slot"] == 0 else 0
            return _scenario_draft(make_scenario(request["domain"], other, self.base_seed))
        if fault == "dropped_value":  # a rewrite that loses the first value the instruction states
            value = sorted(stated_values(answer["instruction"]), key=answer["instruction"].find)[:1]
            return {"instruction": answer["instruction"].replace(value[0], "it", 1) if value else "Do it."}
        if fault == "partial_tasks":  # the first task without goals, the last one missing: the others valid
            tasks = [dict(t) for t in answer["tasks"]]
            tasks[0]["goals"] = []
            return {**answer, "tasks": tasks[:-1] if len(tasks) > 2 else tasks}
        if fault == "login_task":
            tasks = [dict(t) for t in answer["tasks"]]
            tasks[0]["instruction"] = "Reset the password of the staff member Dana Fox and tell me the new one."
            return {**answer, "tasks": tasks}
        return answer


def _scenario_draft(scenario: Scenario) -> dict[str, Any]:
    data = scenario.model_dump(mode="json")
    return {k: data[k] for k in SCENARIO_DRAFT_FIELDS}


@lru_cache(maxsize=512)
def _answer(stage: str, key: str, base_seed: int) -> str:
    inputs = json.loads(key)
    request = inputs["request"]
    if stage == "phrasing":
        if inputs["task"] is None:
            raise PromptNotUnderstood("the phrasing prompt has no <task> block")
        return json.dumps({"instruction": _rephrased(json.loads(inputs["task"])["instruction"])})
    if stage == "scenarios":
        return json.dumps(_scenario_draft(make_scenario(request["domain"], int(request["slot"]), base_seed)))
    if inputs["scenario"] is None:
        raise PromptNotUnderstood(f"the {stage} prompt has no <scenario> block")
    scenario = Scenario.model_validate_json(inputs["scenario"])
    # "of": the rest of an answer whose other tasks were kept (the tasks of those ids, of that many)
    builder = OfflineBackend(base_seed=base_seed, tasks_per_env=int(request.get("of", request.get("count", 10))))
    if stage == "tasks":
        taskset = builder.tasks(scenario)
        wanted = request.get("task_ids")
        return json.dumps({"acting_user": taskset.acting_user,
                           "tasks": [t.model_dump(mode="json") for t in taskset.tasks
                                     if wanted is None or t.task_id in wanted]})
    if stage == "schemas":
        spec = builder.schema(scenario, None)
        return json.dumps({"tables": [t.model_dump(mode="json") for t in spec.tables]})
    part = json.loads(inputs["part"]) if inputs.get("part") else {}
    if stage == "databases":
        tables = []
        for table, rows in builder.database_rows(scenario, None).items():
            if part.get("tables") is not None and table not in part["tables"]:
                continue  # another part's
            columns = list(dict.fromkeys(c for row in rows for c in row))
            tables.append({"table": table, "columns": columns, "rows": [[row.get(c) for c in columns] for row in rows]})
        return json.dumps({"tables": tables})
    if stage == "tools":
        source, toolset = builder.tools(scenario, None, None)
        if part.get("parts", 1) > 1:
            source, toolset = _tools_part(source, toolset, part)
        # the specs as the answer's schema (ToolsDraft) asks for them: MCP's fields and who may use the tool
        return json.dumps({"source": source, "tools": [t.model_dump(by_alias=True) for t in toolset.tools]})
    if stage == "verifier":
        if inputs["task"] is None:
            raise PromptNotUnderstood("the verifier prompt has no <task> block")
        task = Task.model_validate_json(inputs["task"])
        return json.dumps({"code": verifier_source(scenario.env_id, task)})
    raise PromptNotUnderstood(f"no stage {stage!r}")


def _tools_part(source: str, toolset, part: dict[str, Any]):
    """The tools of one part (awm/llm/fit.py decides which part writes a tool), with the module's helpers and
    settings, which every part repeats word for word."""
    parts, mine = [], None
    tables = list(part["tables"])
    others = list(part.get("other_tables", []))
    # the parts as the request lays them out: this part's tables and, as one other part, the rest
    n = int(part["part"]) - 1
    parts = [others, tables] if n else [tables, others]
    mine = 1 if n else 0
    chosen = [t for t in toolset.tools if t.name in part.get("tools", []) or
              (t.name not in part.get("written", []) and part_of_tool(t.name, parts) == mine)]
    names = {t.name for t in toolset.tools}
    keep = {t.name for t in chosen}
    tree = ast.parse(source)
    lines = source.splitlines()
    kept = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in names and node.name not in keep:
            continue
        kept.append("\n".join(lines[node.lineno - 1:node.end_lineno]))
    return "\n\n\n".join(kept) + "\n", toolset.model_copy(update={"tools": chosen})


# How the simulated model opens a rewritten request: every stated value kept, the wording changed.
OPENINGS = ("Hello!", "Hi there.", "Good morning.", "Quick one.")


def _rephrased(instruction: str) -> str:
    """A faithful rewrite of a request: an opening of its own, then the request word for word (every value kept)."""
    opening = OPENINGS[sum(map(ord, instruction)) % len(OPENINGS)]
    return f"{opening} {instruction}"


def _break_foreign_key(answer: dict[str, Any]) -> dict[str, Any]:
    tables = [dict(t) for t in answer["tables"]]
    for table in tables:
        fk = next((i for i, c in enumerate(table["columns"]) if c.endswith("_id")), None)
        if fk is not None and table["rows"]:
            rows = [list(r) for r in table["rows"]]
            rows[0][fk] = 987654321  # points at no row
            table["rows"] = rows
            return {"tables": tables}
    raise PromptNotUnderstood("bad_sql: no table with a foreign key column has rows")


def _use_wall_clock(answer: dict[str, Any]) -> dict[str, Any]:
    tables = [dict(t) for t in answer["tables"]]
    for table in tables:
        col = next((i for i, c in enumerate(table["columns"]) if c.endswith("_at") or c.endswith("_on")), None)
        if col is not None and table["rows"]:
            rows = [list(r) for r in table["rows"]]
            rows[0][col] = "now"
            table["rows"] = rows
            return {"tables": tables}
    raise PromptNotUnderstood("wall_clock: no table has a date column with rows")
