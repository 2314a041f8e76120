"""Export the published corpus for trainers: one JSON line per published task, and trainer layouts of it.

Each line is self-contained: the environment and the task; the prompt a policy starts from (a system text
with the scenario and the answer contract, then the instruction, in chat format); the MCP tool specs the
agent will see (strict form by default, see awm.toolspecs); how to reach the environment (streamable HTTP,
as a template with `{base_url}` and `{episode}` slots and the reservation a trainer makes, and a stdio
entry that runs as given: absolute command, `--home` and environment); a split label (train, validation,
test: whole environments, and whole domains held out of train on request); and, with `with_reference`, the
reference solution and answer (for supervised warm starts and replay tests; never show them to the agent
being trained). A task evaluated by `awm eval` carries its `difficulty` per agent (pass rate, rollouts and
level: trivial, easy, medium, hard, unsolved), so a trainer can split or filter by it.

Layouts (`awm export --layout`): `awm` (the lines above), `hf` (a Hugging Face datasets table: a `prompt`
column of chat messages, the tools as JSON text, one row per task; Parquet or JSONL by the file's suffix)
and `verl` (verl's multi-turn rows for the awm.trainers.verl agent loop: data_source, agent_name, prompt,
ability, reward_model, and a small fixed extra_info naming the environment and the task).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from awm import artifacts
from awm.contracts import Scenario, Task, TaskSet
from awm.domains import split_env_id, validate_domain_slug
from awm.errors import AWMError
from awm.runtime.agent_format import AWM_SYSTEM_PROMPT, META_TOOLS
from awm.runtime.answers import answer_tool
from awm.store import ArtifactStore, atomic_open, atomic_write_bytes
from awm.toolspecs import published_spec
from awm.trainers import verl as trainers_verl

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
EXPORT_VERSION = "2"
LAYOUTS = ("awm", "hf", "verl", "awm1k")  # awm1k: a folder of AWM-1K's files (awm/awm1k/export.py)
SPLITS = ("train", "validation", "test")
DEFAULT_FRACTIONS = (0.8, 0.1, 0.1)


@dataclass
class ExportSummary:
    path: Path
    tasks: int
    environments: int
    splits: dict[str, int] | None = None


def mcp_url(base_url: str, env_id: str, task_id: str | None = None) -> str:
    url = f"{base_url.rstrip('/')}/envs/{quote(env_id)}/mcp"
    return f"{url}?task={quote(task_id)}" if task_id else url


def split_of(env_id: str, fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
             held_out: set[str] | frozenset[str] = frozenset()) -> str:
    """The split of every task of `env_id`: test for a held-out domain, else by a stable hash of the
    environment (so an environment's tasks never straddle two splits, and reruns agree)."""
    if split_env_id(env_id)[0] in held_out:
        return "test"
    point = int.from_bytes(hashlib.sha256(env_id.encode()).digest()[:8], "big") / 2**64
    train, validation, _ = fractions
    return "train" if point < train else "validation" if point < train + validation else "test"


ANSWER_MODES = ("typed", "prose")


def system_prompt(scenario: Scenario, acting_user: str, task: Task, answer_mode: str = "typed") -> str:
    """What a policy is told before the instruction: where it is, for whom it acts, and how it answers: with
    the submit_answer tool (typed, the default), or in a final message read strictly (prose)."""
    lines = [f"You are an assistant working in the systems of {scenario.name}: {scenario.description}",
             f"You act on behalf of {acting_user}, who gives you one request. Use the tools to look up what you "
             "need and to make the changes the request asks for, and nothing else: every change you make is "
             "checked, and changes the request does not ask for count against you."]
    slots = ", ".join(f'"{slot}"' for slot in task.answer_slots)
    if task.answer_slots and answer_mode == "typed":
        lines.append(f"The request needs an answer. Call the submit_answer tool once, with one value for each of "
                     f"{slots} in the order the request asks for them; an accepted answer is final. If a rule "
                     "forbids what is asked, change nothing and submit the fact that blocks it.")
    elif task.answer_slots:
        lines.append("The request needs an answer. End with a final message that states it plainly: each value "
                     "asked for once, in digits or words, with no alternatives, guesses, hedges or lists of "
                     f"candidates, and nothing you are unsure of. You may instead answer with a JSON object keyed by "
                     f"{slots}, one value per key, in the order the request asks for them.")
    else:
        lines.append("When the request is done, end with a short final message saying what you did.")
    return "\n\n".join(lines)


def stdio_entry(home: Path, env_id: str, task_id: str, tool_format: str) -> dict:
    """A stdio server entry that runs as given (the official client starts it with a bare environment)."""
    script = Path(sys.executable).with_name("awm")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "awm.cli"]
    args = [*command[1:], "--home", str(home), "serve", "--transport", "stdio", "--env", env_id, "--task", task_id]
    if tool_format != "strict":
        args += ["--tool-format", tool_format]
    return {"command": command[0], "args": args, "env": {"AWM_HOME": str(home)}}


def export_lines(store: ArtifactStore, base_url: str = DEFAULT_BASE_URL, domains: list[str] | None = None,
                 with_reference: bool = False, tool_format: str = "strict",
                 fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                 held_out: list[str] | None = None, answer_mode: str = "typed",
                 reward: tuple[float, float, float] = (1.0, 0.1, 0.0)) -> Iterator[dict]:
    """The export records, in catalog order. `answer_mode`: typed (the agent answers with the submit_answer
    tool, listed with the task's tools) or prose (a final message, read strictly)."""
    if answer_mode not in ANSWER_MODES:
        raise AWMError(f"answer mode must be one of {', '.join(ANSWER_MODES)}, not {answer_mode!r}")
    wanted = {validate_domain_slug(d) for d in domains} if domains else None
    held = {validate_domain_slug(d) for d in held_out or ()}
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise AWMError(f"split fractions must be three non-negative numbers adding up to 1, not {list(fractions)}")
    if not store.catalog_path.exists():
        raise AWMError(f"no catalog at {store.catalog_path}; build the corpus first (make run)")
    home = store.home.resolve()
    current: tuple[str, list[dict], TaskSet, Scenario] | None = None
    for entry in store.iter_catalog():
        env_id = entry["env_id"]
        if entry.get("origin") == "awm1k":  # imported: exported by the awm1k layout, not from our artifacts
            continue
        if wanted is not None and split_env_id(env_id)[0] not in wanted:
            continue
        if current is None or current[0] != env_id:
            toolset = artifacts.TOOLS_JSON.read(store, env_id)
            tools = (META_TOOLS if tool_format == "awm"
                     else [published_spec(spec.mcp(), tool_format) for spec in toolset.tools])
            current = (env_id, tools, artifacts.TASKS.read(store, env_id),
                       artifacts.SCENARIO.read(store, env_id))
        _, tools, taskset, scenario = current
        task = next((t for t in taskset.tasks if t.task_id == entry["task_id"]), None)
        if task is None:
            raise AWMError(f"{store.catalog_path} publishes {env_id} {entry['task_id']}, which its tasks.json lacks; "
                           "rebuild the catalog")
        submit = answer_tool(task) if answer_mode == "typed" and tool_format != "awm" else None
        task_tools = tools + [published_spec(submit, tool_format)] if submit else tools
        template = mcp_url("{base_url}", env_id, task.task_id) + "&episode={episode}"
        record = {
            "export_version": EXPORT_VERSION,
            "env_id": env_id,
            "domain": entry["domain"],
            "task_id": task.task_id,
            "split": split_of(env_id, fractions, held),
            "instruction": task.instruction,
            "kind": task.kind,
            "answer_slots": task.answer_slots,
            "answer_schema": [slot.model_dump(exclude_none=True) for slot in task.answer_schema],
            "answer_mode": answer_mode,
            "reward_mapping": dict(zip(("complete", "partial", "incomplete"), reward)),
            "scenario": entry["scenario"],
            "acting_user": taskset.acting_user,
            "prompt": [{"role": "system", "content": AWM_SYSTEM_PROMPT if tool_format == "awm"
                        else system_prompt(scenario, taskset.acting_user, task, answer_mode)},
                       {"role": "user", "content": task.instruction}],
            "tool_format": tool_format,
            "tools": task_tools,
            "mcp": {"transport": "streamable-http", "url": mcp_url(base_url, env_id, task.task_id),
                    "url_template": template,
                    "reserve": {"method": "POST", "url": "{base_url}/admin/sessions",
                                "body": {"env_id": env_id, "task_id": task.task_id, "key": "{episode}",
                                         "tool_format": tool_format}}},
            "stdio": stdio_entry(home, env_id, task.task_id, tool_format),
        }
        if entry.get("difficulty"):  # written by evaluations: per agent, pass rate and level
            record["difficulty"] = entry["difficulty"]
        if with_reference:
            record["reference"] = {"solution": [c.model_dump() for c in task.reference_solution],
                                   "answer": task.reference_answer}
        yield record


def hf_row(record: dict) -> dict:
    """A Hugging Face datasets row: `prompt` in chat format; nested values of varying shape (tool schemas,
    connection, reference) as JSON text, so every row has one Arrow type."""
    row = {key: record[key] for key in ("env_id", "domain", "task_id", "split", "kind", "instruction", "prompt")}
    row["answer_slots"] = record["answer_slots"]
    row["tools"] = json.dumps(record["tools"], ensure_ascii=False)
    row["mcp"] = json.dumps(record["mcp"], ensure_ascii=False)
    row["reference"] = json.dumps(record.get("reference"), ensure_ascii=False) if "reference" in record else None
    return row


def verl_row(record: dict, index: int) -> dict:
    """A verl row (awm.trainers.verl.verl_row): for the awm.trainers.verl agent loop, which reserves the rollout's
    episode from the small fixed extra_info and is rewarded by the server."""
    return trainers_verl.verl_row(record, index)


def write_export(store: ArtifactStore, out: Path, base_url: str = DEFAULT_BASE_URL,
                 domains: list[str] | None = None, with_reference: bool = False, tool_format: str = "strict",
                 layout: str = "awm", fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                 held_out: list[str] | None = None, answer_mode: str = "typed",
                 reward: tuple[float, float, float] = (1.0, 0.1, 0.0)) -> ExportSummary:
    """Write the export atomically (streamed to a temporary file beside `out`, then renamed over it); in the
    hf and verl layouts, Parquet when `out` ends in .parquet (needs pyarrow), else JSONL."""
    if layout not in LAYOUTS:
        raise AWMError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    out = Path(out)
    records = export_lines(store, base_url, domains, with_reference, tool_format, fractions, held_out, answer_mode,
                           reward)
    rows = (r if layout == "awm" else hf_row(r) if layout == "hf" else verl_row(r, i) for i, r in enumerate(records))
    tasks, environments, splits = 0, set(), dict.fromkeys(SPLITS, 0)

    def counted(rows):
        nonlocal tasks
        for row in rows:
            tasks += 1
            environments.add(row.get("env_id") or row["extra_info"]["env_id"])
            splits[row.get("split") or row["extra_info"]["split"]] += 1
            yield row

    if out.suffix == ".parquet" and layout != "awm":
        _write_parquet(out, list(counted(rows)))
    else:
        with atomic_open(out, "w", encoding="utf-8") as fh:  # streamed: the whole export never sits in memory
            for row in counted(rows):
                fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    return ExportSummary(out, tasks, len(environments), splits)


def _write_parquet(out: Path, rows: list[dict]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise AWMError("writing Parquet needs pyarrow (pip install 'awm-platform[export]'), or write JSONL "
                       f"(an --out not ending in .parquet): {exc}") from exc
    table = pa.Table.from_pylist(rows)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    atomic_write_bytes(out, sink.getvalue().to_pybytes())
