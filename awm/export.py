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

Every row says its `tier` and its `origin`: our tasks are `proven` (origin: where the domain came from,
catalogue, composed, llm ...); an imported AWM-1K task (origin `awm1k`, docs/awm1k.md) is `checked` (its
verifier ran, deterministic, read-only, rejecting the unchanged database; no reference solution) or `proven`
(a candidate reference passed the proofs: `awm promote-awm1k`). `tiers` keeps only the tiers named (`awm export
--tier proven`). An imported task's row is served the same way (`awm serve` over HTTP, the same URLs and
reservations; over stdio `awm serve-awm1k`); it has no typed answer (their verifier reads the final message).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from awm import artifacts
from awm.contracts import Scenario, Task, TaskSet
from awm.domains import split_env_id, validate_domain_slug
from awm.errors import AWMError
from awm.runtime.agent_format import AWM_SYSTEM_PROMPT, META_TOOLS
from awm.runtime.answers import answer_tool
from awm.store import ArtifactStore, atomic_directory, atomic_open
from awm.toolspecs import foreign_spec, published_spec
from awm.trainers import verl as trainers_verl

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
EXPORT_VERSION = "2"
LAYOUTS = ("awm", "hf", "verl", "awm1k")  # awm1k: a folder of AWM-1K's files (awm/awm1k/export.py)
SPLITS = ("train", "validation", "test")
TIERS = ("proven", "checked")  # what a published task's catalog line says (CatalogEntry.tier)
IMPORTED = "awm1k"  # the origin of an imported environment's catalog lines
DEFAULT_FRACTIONS = (0.8, 0.1, 0.1)


@dataclass
class ExportSummary:
    path: Path
    tasks: int
    environments: int
    splits: dict[str, int] | None = None
    empty: list[str] = field(default_factory=list)  # non-zero splits the corpus is too small to fill
    tiers: dict[str, int] = field(default_factory=dict)  # tasks per tier
    left_out: dict[str, str] = field(default_factory=dict)  # env_id -> why this export could not carry it


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


def _point(env_id: str) -> float:
    return int.from_bytes(hashlib.sha256(env_id.encode()).digest()[:8], "big") / 2**64


def assign_splits(env_ids: list[str], fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                  held_out: set[str] | frozenset[str] = frozenset(), empty: list[str] | None = None) -> dict[str, str]:
    """The split of every environment of the corpus: `split_of`, then, when a split with a non-zero fraction
    got no environment (a small corpus), the environment nearest to that split's share of the hash range is
    moved into it from the split with the most environments (never one of a held-out domain, never the last
    one of its split). With fewer environments than non-zero splits, they fill train, then validation, then
    test, in hash order. Stable for one corpus. The non-zero splits left empty are added to `empty`."""
    needed = [name for name, f in zip(SPLITS, fractions) if f > 0]
    splits = {env: split_of(env, fractions, held_out) for env in env_ids}
    free = sorted((env for env in env_ids if split_env_id(env)[0] not in held_out), key=_point)
    if len(env_ids) < len(needed):
        splits.update({env: needed[i] for i, env in enumerate(free)})
    bounds = dict(zip(SPLITS, ((0.0, fractions[0]), (fractions[0], fractions[0] + fractions[1]),
                               (fractions[0] + fractions[1], 1.0))))
    for wanted in ("validation", "test", "train"):
        if wanted not in needed or wanted in splits.values():
            continue
        counts = {name: sum(1 for v in splits.values() if v == name) for name in SPLITS}
        movable = [env for env, name in splits.items() if counts[name] > 1
                   and not (name == "test" and split_env_id(env)[0] in held_out)]
        if not movable:
            continue
        low, high = bounds[wanted]
        env = min(movable, key=lambda e: (min(abs(_point(e) - low), abs(_point(e) - high)), e))
        splits[env] = wanted
    if empty is not None:
        empty.extend(name for name in needed if name not in splits.values())
    return splits


ANSWER_MODES = ("typed", "prose")


def system_prompt(scenario: Scenario, acting_user: str, task: Task, answer_mode: str = "typed") -> str:
    """What a policy is told before the instruction: where it is, for whom it acts (the acting staff member, or
    the customer who writes the request: `Task.requester`), and how it answers: with the submit_answer tool
    (typed, the default), or in a final message read strictly (prose)."""
    if task.requester == "party":  # the person the request is about writes it (a customer, a patient, a member)
        party = scenario.labels.get("party", "customer")
        who = (f"You act for a {party} of {scenario.name}, who writes to you with one request in their own words "
               f"and says in it who they are. Act for them alone: a request for another {party} is carried out "
               f"only where the records name the writer as that person's representative. You have the tools a "
               f"{party} may use; what only the staff may do is not among them.")
    else:
        who = f"You act on behalf of {acting_user}, who gives you one request."
    lines = [f"You are an assistant working in the systems of {scenario.name}: {scenario.description}",
             f"{who} Use the tools to look up what you need and to make the changes the request asks for, and "
             "nothing else: every change you make is checked, and changes the request does not ask for count "
             "against you."]
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


def imported_system_prompt(scenario: Scenario) -> str:
    """What a policy is told before the instruction of an imported AWM-1K task (no acting user, no typed answer:
    their verifier reads the final message as its final_answer)."""
    return (f"You are an assistant working in the systems of {scenario.name}"
            + (f": {scenario.description}" if scenario.description else ".")
            + " Use the tools to look up what you need and to make the changes the request asks for, and "
              "nothing else. When you are done, answer without calling a tool.")


def stdio_entry(home: Path, env_id: str, task_id: str, tool_format: str, imported: bool = False) -> dict:
    """A stdio server entry that runs as given (the official client starts it with a bare environment); an
    imported environment's is `awm serve-awm1k` (one episode in the foreign runtime; tools as their app
    describes them)."""
    script = Path(sys.executable).with_name("awm")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "awm.cli"]
    if imported:
        args = [*command[1:], "--home", str(home), "serve-awm1k", "--env", env_id, "--task", task_id]
        return {"command": command[0], "args": args, "env": {"AWM_HOME": str(home)}}
    args = [*command[1:], "--home", str(home), "serve", "--transport", "stdio", "--env", env_id, "--task", task_id]
    if tool_format != "strict":
        args += ["--tool-format", tool_format]
    return {"command": command[0], "args": args, "env": {"AWM_HOME": str(home)}}


def export_lines(store: ArtifactStore, base_url: str = DEFAULT_BASE_URL, domains: list[str] | None = None,
                 with_reference: bool = False, tool_format: str = "strict",
                 fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                 held_out: list[str] | None = None, answer_mode: str = "typed",
                 reward: tuple[float, float, float] = (1.0, 0.1, 0.0), env_ids: list[str] | None = None,
                 splits: list[str] | None = None, tiers: list[str] | None = None,
                 selection: Selection | None = None) -> Iterator[dict]:
    """The export records, in catalog order. `answer_mode`: typed (the agent answers with the submit_answer
    tool, listed with the task's tools) or prose (a final message, read strictly). `domains`, `env_ids`,
    `splits` and `tiers` select; the splits are assigned over the whole corpus first (`assign_splits`), so a
    filtered export puts every environment in the split the whole export does. Imported environments'
    tasks come with the rest (`imported_record`)."""
    if selection is None:
        selection = select(store, domains, env_ids, splits, fractions, held_out, tiers)
    if answer_mode not in ANSWER_MODES:
        raise AWMError(f"answer mode must be one of {', '.join(ANSWER_MODES)}, not {answer_mode!r}")
    home = store.home.resolve()
    evaluated = evaluated_difficulty(store.home)
    current: tuple[str, list[dict], TaskSet, Scenario] | None = None
    for entry in store.iter_catalog():
        env_id = entry["env_id"]
        if env_id not in selection or not selection.keeps(entry):
            continue
        if entry.get("origin") == IMPORTED:
            record = imported_record(store, entry, selection[env_id], base_url, home, tool_format, reward)
            difficulty = {**(entry.get("difficulty") or {}), **evaluated.get((env_id, entry["task_id"]), {})}
            if difficulty:
                record["difficulty"] = difficulty
            if with_reference:
                record["reference"] = imported_reference(store, env_id, entry["task_id"])
            yield record
            continue
        if current is None or current[0] != env_id:
            current = (env_id, artifacts.TOOLS_JSON.read(store, env_id), artifacts.TASKS.read(store, env_id),
                       artifacts.SCENARIO.read(store, env_id))
        _, toolset, taskset, scenario = current
        task = next((t for t in taskset.tasks if t.task_id == entry["task_id"]), None)
        if task is None:
            raise AWMError(f"{store.catalog_path} publishes {env_id} {entry['task_id']}, which its tasks.json lacks; "
                           "rebuild the catalog")
        # the tools an episode of the task offers (a customer's own request: not the staff-only ones)
        tools = (META_TOOLS if tool_format == "awm"
                 else [published_spec(spec.mcp(), tool_format) for spec in toolset.offered(task)])
        submit = answer_tool(task) if answer_mode == "typed" and tool_format != "awm" else None
        task_tools = tools + [published_spec(submit, tool_format)] if submit else tools
        record = {
            "export_version": EXPORT_VERSION,
            "env_id": env_id,
            "domain": entry["domain"],
            "task_id": task.task_id,
            "split": selection[env_id],
            "instruction": task.instruction,
            "kind": task.kind,
            "answer_slots": task.answer_slots,
            "answer_schema": [slot.model_dump(exclude_none=True) for slot in task.answer_schema],
            "answer_mode": answer_mode,
            "reward_mapping": dict(zip(("complete", "partial", "incomplete"), reward)),
            "scenario": entry["scenario"],
            "acting_user": taskset.acting_user,
            "requester": task.requester,
            "prompt": [{"role": "system", "content": AWM_SYSTEM_PROMPT if tool_format == "awm"
                        else system_prompt(scenario, taskset.acting_user, task, answer_mode)},
                       {"role": "user", "content": task.instruction}],
            "tool_format": tool_format,
            "tools": task_tools,
            "mcp": _connection(base_url, env_id, task.task_id, tool_format),
            "stdio": stdio_entry(home, env_id, task.task_id, tool_format),
            "tier": entry.get("tier", "proven"),
            "origin": entry.get("origin", "unknown"),
        }
        difficulty = {**(entry.get("difficulty") or {}), **evaluated.get((env_id, task.task_id), {})}
        if difficulty:  # written by evaluations: per agent, pass rate and level
            record["difficulty"] = difficulty
        if with_reference:
            record["reference"] = {"solution": [c.model_dump() for c in task.reference_solution],
                                   "answer": task.reference_answer}
        yield record


def _connection(base_url: str, env_id: str, task_id: str, tool_format: str) -> dict:
    template = mcp_url("{base_url}", env_id, task_id) + "&episode={episode}"
    return {"transport": "streamable-http", "url": mcp_url(base_url, env_id, task_id), "url_template": template,
            "reserve": {"method": "POST", "url": "{base_url}/admin/sessions",
                        "body": {"env_id": env_id, "task_id": task_id, "key": "{episode}",
                                 "tool_format": tool_format}}}


def environment_tools(store: ArtifactStore, env_id: str, tool_format: str) -> list[dict]:
    """All of an environment's tools as the export lists them. A task of ours is offered these but the staff-only
    ones when the customer writes it (ToolSet.offered), and submit_answer when it expects an answer; an
    imported AWM-1K task, these."""
    if tool_format == "awm":
        return META_TOOLS
    specs = artifacts.TOOLS_JSON.read(store, env_id).tools
    if artifacts.AWM1K.exists(store, env_id):
        return [_as_listed(foreign_spec(spec.mcp(), tool_format)) for spec in specs]
    return [published_spec(spec.mcp(), tool_format) for spec in specs]


def imported_record(store: ArtifactStore, entry: dict, split: str, base_url: str, home: Path, tool_format: str,
                    reward: tuple[float, float, float]) -> dict:
    """The export record of an imported AWM-1K task (awm1k.json, scenario.json and the tools its import read
    from the app's OpenAPI), in the shape of ours: served by `awm serve` at the same URLs, its tools as the
    server lists them (awm/awm1k/serving.py), answered with a final message (answer mode prose)."""
    env_id, task_id = entry["env_id"], entry["task_id"]
    manifest = artifacts.AWM1K.read(store, env_id)
    task = next((t for t in manifest.tasks if t.task_id == task_id), None)
    if task is None:
        raise AWMError(f"{store.catalog_path} publishes {env_id} {task_id}, which its awm1k.json lacks; "
                       "rebuild the catalog")
    scenario = artifacts.SCENARIO.read(store, env_id)
    tools = environment_tools(store, env_id, tool_format)  # the server lists the same for every imported task
    return {
        "export_version": EXPORT_VERSION,
        "env_id": env_id,
        "domain": entry["domain"],
        "task_id": task_id,
        "split": split,
        "instruction": task.instruction,
        "kind": entry.get("kind", "action"),
        "answer_slots": [],
        "answer_schema": [],
        "answer_mode": "prose",  # their verifier's final_answer is the agent's final message
        "reward_mapping": dict(zip(("complete", "partial", "incomplete"), reward)),
        "scenario": entry["scenario"],
        "acting_user": "",
        "requester": "",
        "prompt": [{"role": "system", "content": AWM_SYSTEM_PROMPT if tool_format == "awm"
                    else imported_system_prompt(scenario)},
                   {"role": "user", "content": task.instruction}],
        "tool_format": tool_format,
        "tools": tools,
        "mcp": _connection(base_url, env_id, task_id, tool_format),
        "stdio": stdio_entry(home, env_id, task_id, tool_format, imported=True),
        "tier": entry.get("tier", task.tier),
        "origin": IMPORTED,
    }


MCP_ANNOTATIONS = ("title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


def _as_listed(spec: dict) -> dict:
    """An imported tool as an MCP client lists it: annotations MCP does not define (their `route`) stay out."""
    annotations = {k: v for k, v in (spec.get("annotations") or {}).items() if k in MCP_ANNOTATIONS}
    spec = {k: v for k, v in spec.items() if k != "annotations"}
    return {**spec, "annotations": annotations} if annotations else spec


def imported_reference(store: ArtifactStore, env_id: str, task_id: str) -> dict | None:
    """A promoted imported task's reference (its calls and answer, as ours: solution, answer); None for a
    checked one, which has none."""
    task = next((t for t in artifacts.AWM1K.read(store, env_id).tasks if t.task_id == task_id), None)
    if task is None or task.tier != "proven" or task.reference is None:
        return None
    return {"solution": [{"tool": c["tool"], "arguments": c.get("arguments") or {}} for c in task.reference],
            "answer": task.reference_answer}


def evaluated_difficulty(home: Path) -> dict[tuple[str, str], dict[str, dict]]:
    """Each evaluated task's difficulty per agent, from the evaluations' own reports
    (AWM_HOME/evals/<agent>/<domain>/report.json, written by `awm eval`): {(env_id, task_id): {agent: {pass_rate,
    rollouts, level}}}."""
    found: dict[tuple[str, str], dict[str, dict]] = {}
    for path in sorted(Path(home).glob("evals/*/*/report.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
            for task in report["tasks"]:
                found.setdefault((task["env_id"], task["task_id"]), {})[report["agent"]] = {
                    "pass_rate": task["pass_rate"], "rollouts": task["n"], "level": task["difficulty"]}
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise AWMError(f"{path} is not an evaluation report awm export can read ({exc}); rerun the "
                           "evaluation or remove it") from exc
    return found


@dataclass
class Selection:
    """The environments an export takes, each with its split (in catalog order), and what was asked for."""

    splits: dict[str, str]
    tasks: int
    empty: list[str] = field(default_factory=list)  # non-zero splits the corpus is too small to fill
    tiers: frozenset[str] = frozenset(TIERS)  # the tiers kept
    left_out: dict[str, str] = field(default_factory=dict)  # imported env_id -> why this export leaves it out

    def __contains__(self, env_id: str) -> bool:
        return env_id in self.splits

    def keeps(self, entry: dict) -> bool:
        """Whether a catalog line of a chosen environment is exported (its tier is one kept)."""
        return entry.get("tier", "proven") in self.tiers

    def __getitem__(self, env_id: str) -> str:
        return self.splits[env_id]


def select(store: ArtifactStore, domains: list[str] | None = None, env_ids: list[str] | None = None,
           splits: list[str] | None = None, fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
           held_out: list[str] | None = None, tiers: list[str] | None = None,
           imported: bool | None = True, why_not: str = "") -> Selection:
    """Which published environments an export takes, and their splits; a filter naming nothing the catalog
    publishes is an error, not an empty export. The splits are assigned over every published environment,
    ours and imported (origin awm1k) alike. `tiers`: keep only tasks of these tiers (proven, checked).
    `imported`: True, imported environments are exported; otherwise (a layout that cannot carry them) they
    are left out, each named in `left_out` with `why_not`, and an export of nothing else is an error saying
    why."""
    if len(fractions) != 3 or any(f < 0 for f in fractions) or abs(sum(fractions) - 1) > 1e-9:
        raise AWMError(f"split fractions must be three non-negative numbers adding up to 1, not {list(fractions)}")
    wanted = {validate_domain_slug(d) for d in domains} if domains else None
    held = {validate_domain_slug(d) for d in held_out or ()}
    bad = sorted(set(splits or ()) - set(SPLITS))
    if bad:
        raise AWMError(f"unknown split {', '.join(map(repr, bad))}: the splits are {', '.join(SPLITS)}")
    if not store.catalog_path.exists():
        raise AWMError(f"no catalog at {store.catalog_path}; build the corpus first (make run)")
    kept = frozenset(tiers or TIERS)
    unknown_tiers = sorted(kept - set(TIERS))
    if unknown_tiers:
        raise AWMError(f"unknown tier {', '.join(map(repr, unknown_tiers))}: the tiers are {', '.join(TIERS)}")
    tasks: dict[str, int] = {}
    of_tier: dict[str, int] = {}
    foreign: set[str] = set()
    for entry in store.iter_catalog():
        env = entry["env_id"]
        tasks[env] = tasks.get(env, 0) + 1
        if entry.get("tier", "proven") in kept:
            of_tier[env] = of_tier.get(env, 0) + 1
        if entry.get("origin") == IMPORTED:
            foreign.add(env)
    empty: list[str] = []
    assigned = assign_splits(list(tasks), fractions, held, empty)
    missing = sorted(wanted - {split_env_id(env)[0] for env in tasks}) if wanted else []
    if missing:
        raise AWMError(f"the catalog publishes no environment of the domain {', '.join(missing)}")
    unknown = sorted(set(env_ids or ()) - set(tasks))
    if unknown:
        raise AWMError(f"the catalog publishes no environment {', '.join(unknown)} (`awm inspect` lists them)")
    chosen = {env: split for env, split in assigned.items()
              if (wanted is None or split_env_id(env)[0] in wanted) and (not env_ids or env in env_ids)
              and (not splits or split in splits) and of_tier.get(env)}
    left_out = {env: why_not for env in chosen if env in foreign and not imported}
    if not chosen or len(left_out) == len(chosen):
        asked = "; ".join(f"{name} {', '.join(values)}" for name, values in
                          (("domain", domains), ("environment", env_ids), ("split", splits),
                           ("tier", sorted(tiers or ()))) if values)
        if left_out:
            raise AWMError(f"every environment matching {asked or 'the export'} is imported "
                           f"({', '.join(sorted(left_out))}), and {why_not}")
        raise AWMError(f"no published task matches {asked or 'the export'}")
    chosen = {env: split for env, split in chosen.items() if env not in left_out}
    return Selection(chosen, sum(of_tier[env] for env in chosen), empty, kept, left_out)


def hf_row(record: dict) -> dict:
    """A Hugging Face datasets row: `prompt` in chat format; nested values of varying shape (tool schemas,
    connection, reference) as JSON text, so every row has one Arrow type."""
    row = {key: record[key] for key in ("env_id", "domain", "task_id", "split", "kind", "instruction", "prompt",
                                        "tier", "origin")}
    row["answer_slots"] = record["answer_slots"]
    row["tools"] = json.dumps(record["tools"], ensure_ascii=False)
    row["mcp"] = json.dumps(record["mcp"], ensure_ascii=False)
    row["reference"] = json.dumps(record.get("reference"), ensure_ascii=False) if "reference" in record else None
    return row


def verl_row(record: dict, index: int) -> dict:
    """A verl row (awm.trainers.verl.verl_row): for the awm.trainers.verl agent loop, which reserves the rollout's
    episode from the small fixed extra_info and is rewarded by the server."""
    return trainers_verl.verl_row(record, index)


FILE_SUFFIXES = (".jsonl", ".parquet")
FORMATS = ("jsonl", "parquet")
TOOLS_TABLE = "tools.jsonl"


def is_single_file(out: Path) -> bool:
    """An --out ending in .jsonl or .parquet is one file (every split in it, a `split` column); anything else
    is a directory with one file per split and a dataset card (what `datasets.load_dataset` reads as a
    DatasetDict)."""
    return Path(out).suffix in FILE_SUFFIXES and not Path(out).is_dir()


class ToolsTable:
    """tools.jsonl of a directory export (layout awm), written as the environments come: one line per
    environment with all its tools (`tools_of(env_id)`: environment_tools); only the names of the current
    environment's tools stay in memory."""

    def __init__(self, path: Path, tool_format: str, tools_of: Callable[[str], list[dict]]):
        self.path, self.tool_format, self.tools_of = path, tool_format, tools_of
        self.shared: dict[str, int] = {}
        self.names: tuple[str, list[str]] | None = None
        self.fh = None

    def add(self, env_id: str) -> list[str]:
        """The names of the environment's tools, in order; writes them the first time."""
        if self.names is None or self.names[0] != env_id:
            tools = self.tools_of(env_id)
            if env_id not in self.shared:
                self.fh = self.fh or open(self.path, "w", encoding="utf-8")
                self.fh.write(_json_line({"env_id": env_id, "tool_format": self.tool_format,
                                          "tools": json.dumps(tools, ensure_ascii=False)}))
                self.shared[env_id] = len(tools)
            self.names = (env_id, [t["name"] for t in tools])
        return self.names[1]

    def close(self) -> None:
        if self.fh is not None:
            self.fh.close()


def slim_row(record: dict, table: ToolsTable) -> dict:
    """An awm-layout row of a directory export: the environment's tools go to the tools table once (they are
    96% of a record, the same for every task of an environment); the row keeps the tools only this task has
    (submit_answer, in typed mode) as `task_tools`, and the names of the table's tools this task is not
    offered (the staff-only ones, when the customer writes the request) as `withheld_tools`. The task's tools
    are the table's less `withheld_tools`, then `task_tools` (`task_tools_of`)."""
    row = dict(record)
    tools = row.pop("tools")
    names = table.add(record["env_id"])
    offered = {t["name"] for t in tools}
    row["task_tools"] = json.dumps([t for t in tools if t["name"] not in set(names)], ensure_ascii=False)
    row["withheld_tools"] = json.dumps([name for name in names if name not in offered])
    row["tools_table"] = TOOLS_TABLE
    return row


def task_tools_of(row: dict, tools_table: dict[str, list[dict]]) -> list[dict]:
    """The tools a task of a directory export (layout awm) sees, in the order the server lists them.
    `tools_table`: env_id to tools, from the export's tools.jsonl (`read_tools_table`)."""
    withheld = set(json.loads(row.get("withheld_tools") or "[]"))
    return [t for t in tools_table[row["env_id"]] if t["name"] not in withheld] + json.loads(row["task_tools"])


def read_tools_table(path: Path) -> dict[str, list[dict]]:
    """tools.jsonl of a directory export: env_id to its tools."""
    with open(path, encoding="utf-8") as fh:
        return {line["env_id"]: json.loads(line["tools"]) for line in map(json.loads, fh)}


class Progress:
    """Counts rows and reports every `every` of them (and at the end) to `report`."""

    def __init__(self, total: int | None, report=None, every: int = 1000, noun: str = "tasks"):
        self.total, self.report, self.every, self.done, self.noun = total, report, every, 0, noun
        self.started = time.monotonic()

    def tick(self) -> None:
        self.done += 1
        if self.report and (self.done % self.every == 0 or self.done == self.total):
            elapsed = time.monotonic() - self.started
            of = f" of {self.total:,}" if self.total is not None else ""
            self.report(f"exported {self.done:,}{of} {self.noun} ({elapsed:.0f} s)")


def write_export(store: ArtifactStore, out: Path, base_url: str = DEFAULT_BASE_URL,
                 domains: list[str] | None = None, with_reference: bool = False, tool_format: str = "strict",
                 layout: str = "awm", fractions: tuple[float, float, float] = DEFAULT_FRACTIONS,
                 held_out: list[str] | None = None, answer_mode: str = "typed",
                 reward: tuple[float, float, float] = (1.0, 0.1, 0.0), env_ids: list[str] | None = None,
                 splits: list[str] | None = None, file_format: str | None = None, license: str | None = None,
                 progress=None, tiers: list[str] | None = None) -> ExportSummary:
    """Write the export atomically, streamed (memory does not grow with the corpus), reporting progress to
    `progress` (a callable taking a line) every 1,000 tasks.

    One file when `out` ends in .jsonl or .parquet (every split, with a `split` column); else a directory
    with one file per split (`train.jsonl` ..., or .parquet with `file_format="parquet"`, the default of the
    hf and verl layouts), `tools.jsonl` (layout awm: each environment's tools once) and a dataset card
    (README.md: counts, splits, proof rates, reward mapping, licence), which `datasets.load_dataset(out)`
    reads as a DatasetDict. Parquet needs pyarrow. A directory is built beside `out` and renamed over it.
    `tiers`: only tasks of these tiers (proven, checked); every row says its own."""
    if layout not in LAYOUTS:
        raise AWMError(f"layout must be one of {', '.join(LAYOUTS)}, not {layout!r}")
    out = Path(out)
    single = is_single_file(out)
    fmt = (("parquet" if out.suffix == ".parquet" and layout != "awm" else "jsonl") if single
           else file_format or ("jsonl" if layout == "awm" else "parquet"))
    if fmt not in FORMATS:
        raise AWMError(f"file format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    if fmt == "parquet" and layout == "awm":
        raise AWMError("the awm layout is JSONL (its records nest values of every shape); write Parquet with "
                       "--layout hf or verl")
    selection = select(store, domains, env_ids, splits, fractions, held_out, tiers)
    records = export_lines(store, base_url, domains, with_reference, tool_format, fractions, held_out, answer_mode,
                           reward, env_ids, splits, tiers, selection)
    counter = Progress(selection.tasks, progress)
    tasks, environments, split_counts = 0, set(), dict.fromkeys(SPLITS, 0)
    tier_counts: dict[str, int] = {}
    tier_envs: dict[str, set[str]] = {}
    origins: set[str] = set()
    per_split_envs: dict[str, set[str]] = {name: set() for name in SPLITS}
    domains_seen: set[str] = set()
    table: ToolsTable | None = None

    def rows() -> Iterator[tuple[str, dict]]:
        nonlocal tasks
        for index, record in enumerate(records):
            if layout == "awm":
                row = record if single else slim_row(record, table)
            else:
                row = hf_row(record) if layout == "hf" else verl_row(record, index)
            tasks += 1
            environments.add(record["env_id"])
            domains_seen.add(record["domain"])
            split_counts[record["split"]] += 1
            tier_counts[record["tier"]] = tier_counts.get(record["tier"], 0) + 1
            tier_envs.setdefault(record["tier"], set()).add(record["env_id"])
            origins.add(record["origin"])
            per_split_envs[record["split"]].add(record["env_id"])
            counter.tick()
            yield record["split"], row

    if single:
        with atomic_open(out, "wb") as fh:
            write_rows(fh, fmt, (row for _, row in rows()), out.parent)
    else:
        with atomic_directory(out) as folder:
            sinks = SplitSinks(folder, fmt)
            table = (ToolsTable(folder / TOOLS_TABLE, tool_format, lambda env: environment_tools(store, env, tool_format))
                     if layout == "awm" else None)
            try:
                for split, row in rows():
                    sinks.write(split, row)
                files = sinks.close()
            finally:
                sinks.discard()
                if table is not None:
                    table.close()
            from awm.export_card import dataset_card

            card = dataset_card(store, files, split_counts, {k: len(v) for k, v in per_split_envs.items()},
                                sorted(environments), sorted(domains_seen), layout=layout, tool_format=tool_format,
                                answer_mode=answer_mode, reward=reward, fractions=fractions, held_out=held_out,
                                with_reference=with_reference, tools_table=TOOLS_TABLE if table and table.shared else None,
                                license=license, tiers={t: (tier_counts[t], len(tier_envs[t])) for t in TIERS
                                                        if t in tier_counts},
                                imported=IMPORTED in origins, tier_filter=sorted(tiers) if tiers else None)
            (folder / "README.md").write_text(card, encoding="utf-8")
    return ExportSummary(out, tasks, len(environments), split_counts, selection.empty,
                         {t: tier_counts[t] for t in TIERS if t in tier_counts}, selection.left_out)


def _json_line(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_rows(fh, fmt: str, rows: Iterator[dict], spool_dir: Path) -> None:
    """Write `rows` to the open binary file `fh` as JSONL or Parquet, streamed."""
    if fmt == "jsonl":
        for row in rows:
            fh.write(_json_line(row).encode("utf-8"))
        return
    sink = ParquetSink(spool_dir)
    try:
        for row in rows:
            sink.add(row)
        sink.finish(fh)
    finally:
        sink.discard()


class SplitSinks:
    """One streamed file per split in `folder` (only the splits that get rows)."""

    def __init__(self, folder: Path, fmt: str):
        self.folder, self.fmt = folder, fmt
        self.sinks: dict[str, object] = {}

    def write(self, split: str, row: dict) -> None:
        sink = self.sinks.get(split)
        if sink is None:
            sink = self.sinks[split] = (open(self.folder / f"{split}.jsonl", "w", encoding="utf-8")
                                        if self.fmt == "jsonl" else ParquetSink(self.folder))
        if self.fmt == "jsonl":
            sink.write(_json_line(row))
        else:
            sink.add(row)

    def close(self) -> dict[str, str]:
        """Finish every file (Parquet: all with one schema, the union of every split's, so the splits load as
        one DatasetDict); the split names to their file names, in split order."""
        if self.fmt == "parquet" and self.sinks:
            sinks = list(self.sinks.values())
            for sink in sinks:
                sink._unify()
            shared = sinks[0].pa.unify_schemas([sink.schema for sink in sinks], promote_options="permissive")
            for sink in sinks:
                sink.schema = shared
        files = {}
        for split in SPLITS:
            sink = self.sinks.get(split)
            if sink is None:
                continue
            name = f"{split}.{self.fmt}"
            if self.fmt == "jsonl":
                sink.close()
            else:
                with open(self.folder / name, "wb") as fh:
                    sink.finish(fh)
            files[split] = name
        return files

    def discard(self) -> None:
        for sink in self.sinks.values():
            if self.fmt == "jsonl":
                sink.close()
            else:
                sink.discard()


class ParquetSink:
    """Rows to one Parquet file with bounded memory: they are spooled as JSONL (the Arrow schema unified batch
    by batch, so a value missing from the first rows still gets its type), then written in row groups."""

    BATCH = 512

    def __init__(self, folder: Path):
        try:
            import pyarrow as pa
        except ImportError as exc:
            raise AWMError("writing Parquet needs pyarrow (pip install 'awm-platform[export]'), or write JSONL "
                           f"(an --out ending in .jsonl, or --format jsonl): {exc}") from exc
        self.pa = pa
        fd, name = tempfile.mkstemp(prefix=".rows.", suffix=".tmp", dir=folder)
        self.spool_path = Path(name)
        self.spool = os.fdopen(fd, "w", encoding="utf-8")
        self.batch: list[dict] = []
        self.schema = None

    def add(self, row: dict) -> None:
        self.spool.write(_json_line(row))
        self.batch.append(row)
        if len(self.batch) >= self.BATCH:
            self._unify()

    def _unify(self) -> None:
        if self.batch:
            schema = self.pa.Table.from_pylist(self.batch).schema
            self.schema = schema if self.schema is None else self.pa.unify_schemas(
                [self.schema, schema], promote_options="permissive")
            self.batch = []

    def finish(self, fh) -> None:
        import pyarrow.parquet as pq

        self._unify()
        self.spool.close()
        writer = None
        with open(self.spool_path, encoding="utf-8") as spool:
            while True:
                batch = [json.loads(line) for _, line in zip(range(self.BATCH), spool)]
                if not batch:
                    break
                table = self.pa.Table.from_pylist(batch, schema=self.schema)
                writer = writer or pq.ParquetWriter(fh, self.schema)
                writer.write_table(table)
        if writer is None:
            raise AWMError("no rows to write")
        writer.close()

    def discard(self) -> None:
        self.spool.close()
        self.spool_path.unlink(missing_ok=True)
