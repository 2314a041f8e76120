"""Promotion of an imported AWM-1K task from `checked` to `proven`: a trajectory their verifier accepts (an
`awm eval` rollout, or a line of a trajectory file) becomes a candidate reference and is put through the proofs
our own tasks get, in the foreign runtime.

    candidates_from_file(path)          trajectories: awm eval's rollout files (header, messages, result) or
                                        lines {"env_id", "task_id", "calls": [{"tool", "arguments"}], "answer"}
    candidates_from_evals(store, env)   every `awm eval` rollout of the environment under AWM_HOME/evals
    promote(store, env_id, candidates)  each checked task with candidates: proven by the first that passes, else
                                        checked with the reason; awm1k.json rewritten, the import's record with it

The proofs of a candidate (each replay on a fresh copy of the initial database, in one ForeignHost):

    reference    replayed twice, their verifier judges it complete both times, and both replays change the same
                 rows (columns whose values differ between the two, a clock's, are left open)
    null         the unchanged database is not judged complete
    minimal      no call that changes rows can be left out with their verifier still accepting (else the
                 footprint would demand a change the task may not ask for)
    mutants      every mutant is rejected: half change (a call left out), wrong argument (one argument of a
                 call changed), collateral write (the last call of a writing method made again); for a question
                 (the reference changes no row), wrong answers (none, or its numbers changed). A mutant is
                 judged as a proven task's episode is: complete only if their verifier says so and the rows it
                 changes are the reference's (the outcome diff). A mutant that ends in the reference's own state
                 with its answer is no mutant and is skipped. At least one must be tried.

A promoted task keeps its reference, its footprint (the outcome diff's expectation) and its proofs in awm1k.json;
the catalog publishes it as `proven`, and `awm serve` scores its episodes with the outcome check too.
"""

from __future__ import annotations

import json
import logging
import re
import sqlite3
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.awm1k.importer import STAGE
from awm.awm1k.runtime import ForeignCodeError, ForeignHost, Route
from awm.contracts import ForeignTask
from awm.errors import AWMError
from awm.store import ArtifactStore

log = logging.getLogger(__name__)

EVALS_DIR = "evals"  # where awm eval writes its rollouts (awm/eval/rollouts.py)
WRITE_METHODS = ("POST", "PUT", "PATCH", "DELETE")
MAX_ARGUMENT_MUTANTS = 16
MAX_CANDIDATES = 5  # per task: the first that passes promotes it


class TrajectoryError(AWMError):
    """A trajectory file that is not in a format read here; the message names the file and line."""


@dataclass
class Candidate:
    """A trajectory offered as a reference: its calls and final answer, and where it came from."""

    env_id: str
    task_id: str
    calls: list[tuple[str, dict]]
    answer: str | None
    source: str


@dataclass
class Judged:
    verdict: str | None
    error: str | None
    diff: dict
    failed_calls: int = 0


@dataclass
class Proof:
    passed: bool
    reason: str
    footprint: dict | None = None
    proofs: dict = field(default_factory=dict)


# --- trajectories ------------------------------------------------------------------------------------------


def _calls_of_messages(messages: list[dict], where: str) -> list[tuple[str, dict]]:
    calls = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            try:
                arguments = json.loads(function.get("arguments") or "{}")
            except json.JSONDecodeError as exc:
                raise TrajectoryError(f"{where}: the arguments of {function.get('name')!r} are not JSON: {exc}") \
                    from exc
            calls.append((str(function.get("name")), arguments if isinstance(arguments, dict) else {}))
    return calls


def read_rollout(path: Path) -> Candidate | None:
    """An `awm eval` rollout file as a candidate (None if it did not complete: a failed rollout is no candidate)."""
    lines = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if not lines or lines[0].get("type") != "rollout":
        raise TrajectoryError(f"{path}: not a rollout file (its first line is no header of type 'rollout')")
    head, result = lines[0], lines[-1]
    if result.get("type") != "result" or result.get("status") != "completed":
        return None
    messages = [line for line in lines if line.get("type") == "message"]
    return Candidate(head["env_id"], head["task_id"], _calls_of_messages(messages, str(path)), result.get("answer"),
                     str(path))


def candidates_from_file(path: Path) -> list[Candidate]:
    """A rollout file of `awm eval`, or a JSONL file of trajectories, one a line:
    {"env_id", "task_id", "calls": [{"tool", "arguments"}], "answer"} (or "messages" in the chat format)."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    first = text.lstrip().split("\n", 1)[0] if text.strip() else ""
    if first and json.loads(first).get("type") == "rollout":
        found = read_rollout(path)
        return [found] if found else []
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        where = f"{path} line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TrajectoryError(f"{where}: not JSON: {exc}") from exc
        if not isinstance(item, dict) or not isinstance(item.get("env_id"), str) or \
                not isinstance(item.get("task_id"), str):
            raise TrajectoryError(f"{where}: a trajectory needs env_id and task_id (strings)")
        if isinstance(item.get("calls"), list):
            calls = []
            for call in item["calls"]:
                if not isinstance(call, dict) or not isinstance(call.get("tool"), str) or \
                        not isinstance(call.get("arguments", {}), dict):
                    raise TrajectoryError(f"{where}: each call is {{\"tool\": str, \"arguments\": object}}, not "
                                          f"{json.dumps(call)[:200]}")
                calls.append((call["tool"], call.get("arguments") or {}))
        elif isinstance(item.get("messages"), list):
            calls = _calls_of_messages(item["messages"], where)
        else:
            raise TrajectoryError(f"{where}: a trajectory needs \"calls\" (a list) or \"messages\" (a list)")
        answer = item.get("answer")
        if answer is not None and not isinstance(answer, str):
            answer = json.dumps(answer, ensure_ascii=False)
        found.append(Candidate(item["env_id"], item["task_id"], calls, answer, where))
    return found


def candidates_from_evals(store: ArtifactStore, env_id: str) -> list[Candidate]:
    """Every completed `awm eval` rollout of `env_id` (any agent), in path order."""
    root = store.home / EVALS_DIR
    found = []
    for path in sorted(root.glob(f"*/*/{env_id}/*/*.jsonl")) if root.is_dir() else ():
        try:
            candidate = read_rollout(path)
        except (TrajectoryError, ValueError, KeyError) as exc:
            log.warning("%s: not read as a candidate: %s", path, exc)
            continue
        if candidate is not None:
            candidate.source = str(path.relative_to(store.home))
            found.append(candidate)
    return found


# --- the outcome diff --------------------------------------------------------------------------------------


def _value(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value


def table_rows(conn: sqlite3.Connection) -> dict[str, dict[str, dict]]:
    """Every row of every table, keyed by its primary key (else its rowid), as JSON-able dicts."""
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                                         "'sqlite_%' ORDER BY name")]
    rows: dict[str, dict[str, dict]] = {}
    for table in tables:
        info = conn.execute(f'PRAGMA table_info("{table}")').fetchall()
        columns = [c[1] for c in info]
        keys = [c[1] for c in sorted((c for c in info if c[5]), key=lambda c: c[5])]
        select = ", ".join(f'"{c}"' for c in columns)
        try:
            if keys:
                cursor = conn.execute(f'SELECT {select} FROM "{table}"')
            else:
                cursor = conn.execute(f'SELECT rowid, {select} FROM "{table}"')
        except sqlite3.OperationalError:  # WITHOUT ROWID and no key: cannot happen; a view-like table: skip
            continue
        found = {}
        for row in cursor:
            if keys:
                record = dict(zip(columns, map(_value, row)))
                key = json.dumps([record[k] for k in keys], default=str)
            else:
                record = dict(zip(columns, map(_value, row[1:])))
                key = json.dumps([row[0]])
            found[key] = record
        rows[table] = found
    return rows


def row_diff(initial: Path, final: Path) -> dict[str, dict]:
    """{table: {"added": {key: row}, "removed": {key: row}, "changed": {key: {column: [before, after]}}}}, tables
    without a change left out."""
    def read(path: Path) -> dict:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            return table_rows(conn)
        finally:
            conn.close()

    before, after = read(initial), read(final)
    diff: dict[str, dict] = {}
    for table in sorted(set(before) | set(after)):
        old, new = before.get(table, {}), after.get(table, {})
        added = {k: new[k] for k in new.keys() - old.keys()}
        removed = {k: old[k] for k in old.keys() - new.keys()}
        changed = {}
        for key in old.keys() & new.keys():
            columns = {c: [old[key].get(c), new[key].get(c)] for c in set(old[key]) | set(new[key])
                       if old[key].get(c) != new[key].get(c)}
            if columns:
                changed[key] = columns
        if added or removed or changed:
            diff[table] = {"added": added, "removed": removed, "changed": changed}
    return diff


def open_columns(first: dict, second: dict) -> dict[str, list[str]]:
    """Columns whose values differ between two diffs of the same trajectory (a clock's, a random token's)."""
    found: dict[str, set[str]] = {}
    for table in set(first) | set(second):
        a, b = first.get(table, {}), second.get(table, {})
        for part in ("added", "removed"):
            for key in set(a.get(part, {})) & set(b.get(part, {})):
                ra, rb = a[part][key], b[part][key]
                found.setdefault(table, set()).update(c for c in set(ra) | set(rb) if ra.get(c) != rb.get(c))
        for key in set(a.get("changed", {})) | set(b.get("changed", {})):
            ca, cb = a.get("changed", {}).get(key, {}), b.get("changed", {}).get(key, {})
            found.setdefault(table, set()).update(c for c in set(ca) | set(cb) if ca.get(c) != cb.get(c))
    return {t: sorted(c) for t, c in sorted(found.items()) if c}


def normalized(diff: dict, open_: dict[str, list[str]]) -> dict:
    """`diff` without its open columns (a change only to open columns is no change)."""
    out: dict[str, dict] = {}
    for table, parts in sorted(diff.items()):
        skip = set(open_.get(table, ()))
        added = {k: {c: v for c, v in r.items() if c not in skip} for k, r in parts.get("added", {}).items()}
        removed = {k: {c: v for c, v in r.items() if c not in skip} for k, r in parts.get("removed", {}).items()}
        changed = {k: {c: v for c, v in cols.items() if c not in skip} for k, cols in parts.get("changed", {}).items()}
        changed = {k: v for k, v in changed.items() if v}
        if added or removed or changed:
            out[table] = {"added": added, "removed": removed, "changed": changed}
    return out


def outcome(diff: dict, footprint: dict) -> dict:
    """How an episode's diff stands against a proven task's footprint: {"matches", "changed", "unexpected",
    "missing"} (rows changed; rows changed the reference does not change, or differently; the reference's
    changes it lacks)."""
    got, want = normalized(diff, footprint.get("open", {})), footprint.get("tables", {})
    unexpected = missing = changed = 0
    for table in set(got) | set(want):
        g, w = got.get(table, {}), want.get(table, {})
        for part in ("added", "removed", "changed"):
            gp, wp = g.get(part, {}), w.get(part, {})
            changed += len(gp)
            unexpected += sum(1 for k, v in gp.items() if wp.get(k) != v)
            missing += sum(1 for k in wp if k not in gp)
    return {"matches": unexpected == 0 and missing == 0, "changed": changed, "unexpected": unexpected,
            "missing": missing}


# --- replaying in the foreign runtime ----------------------------------------------------------------------


class Replayer:
    """Trajectories of one environment replayed in a ForeignHost, each on a fresh copy of the initial database,
    and judged by a task's verifier."""

    def __init__(self, host: ForeignHost, initial_db: Path, scratch: Path):
        self.host, self.initial_db, self.scratch = host, Path(initial_db), Path(scratch)
        self._n = 0

    def run(self, calls: list[tuple[str, dict]], verifier: str, answer: str | None) -> Judged:
        self._n += 1
        name = f"proof{self._n}"
        self.host.open_episode(name)
        failed = 0
        try:
            for tool, arguments in calls:
                try:
                    if self.host.call_tool(tool, arguments, episode=name)["status"] >= 400:
                        failed += 1
                except ForeignCodeError:  # an unknown tool or argument: the call fails, as it would served
                    failed += 1
            judged = self.host.verify(verifier, answer=answer, episode=name)
            final = self.scratch / f"{name}.db"
            final.write_bytes(self.host.snapshot(episode=name))
        finally:
            self.host.close_episode(name)
        try:
            diff = row_diff(self.initial_db, final)
        finally:
            final.unlink(missing_ok=True)
        return Judged(judged.get("verdict"), judged.get("error"), diff, failed)


def _changed_value(value: Any) -> Any | None:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, str):
        return value + " (changed)" if value else "changed"
    return None


def mutants(candidate: Candidate, routes: dict[str, Route], footprint: dict) -> list[
        tuple[str, str, list[tuple[str, dict]], str | None]]:
    """(kind, description, calls, answer) of every mutant of the candidate. Which calls write is not known from
    their routes (an app may POST a search): any call may be left out or changed; a mutant that ends in the
    reference's state is skipped where it is judged."""
    calls, answer = candidate.calls, candidate.answer
    writes = [i for i, (tool, _) in enumerate(calls) if tool in routes and routes[tool].method in WRITE_METHODS]
    found = []
    for i, (tool, _) in enumerate(calls):
        found.append(("half_change", f"without call {i + 1} ({tool})", calls[:i] + calls[i + 1:], answer))
    made = 0
    for i in writes + [i for i in range(len(calls)) if i not in writes]:  # the writing methods' calls first
        tool, arguments = calls[i]
        for name, value in sorted(arguments.items()):
            other = _changed_value(value)
            if other is None or made >= MAX_ARGUMENT_MUTANTS:
                continue
            made += 1
            changed = calls[:i] + [(tool, {**arguments, name: other})] + calls[i + 1:]
            found.append(("wrong_argument", f"call {i + 1} ({tool}) with {name}={json.dumps(other)}", changed,
                          answer))
    if footprint.get("tables") and writes:
        found.append(("collateral_write", f"call {writes[-1] + 1} ({calls[writes[-1]][0]}) made twice",
                      calls + [calls[writes[-1]]], answer))
    elif not footprint.get("tables") and answer:  # a question: the answer is its whole outcome
        found.append(("wrong_answer", "no final answer", calls, None))
        shifted = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), answer)
        if shifted != answer:
            found.append(("wrong_answer", "the answer with each of its numbers one more", calls, shifted))
    return found


def prove(replayer: Replayer, task: ForeignTask, candidate: Candidate, routes: dict[str, Route]) -> Proof:
    """The proofs of `candidate` as `task`'s reference (see the module's docstring)."""
    code = task.verifier or ""
    first = replayer.run(candidate.calls, code, candidate.answer)
    if first.verdict != "complete":
        return Proof(False, f"their verifier does not accept it ({first.verdict or first.error})")
    second = replayer.run(candidate.calls, code, candidate.answer)
    if second.verdict != "complete":
        return Proof(False, f"their verifier accepted it once, then not ({second.verdict or second.error})")
    open_ = open_columns(first.diff, second.diff)
    tables = normalized(first.diff, open_)
    if tables != normalized(second.diff, open_):
        return Proof(False, "two replays of it change different rows: its outcome is not reproducible")
    footprint = {"tables": tables, "open": open_}
    proofs: dict[str, Any] = {"reference": {"replays": 2, "verdict": "complete", "failed_calls": first.failed_calls,
                                            "changed_rows": outcome(first.diff, footprint)["changed"]}}
    null = replayer.run([], code, None)
    proofs["null"] = {"verdict": null.verdict, "error": null.error}
    if null.verdict == "complete":
        return Proof(False, "the unchanged database is judged complete (the null trajectory passes)", footprint,
                     proofs)
    kinds: dict[str, dict] = {}
    for kind, description, calls, answer in mutants(candidate, routes, footprint):
        judged = replayer.run(calls, code, answer)
        result = outcome(judged.diff, footprint)
        if result["matches"] and answer == candidate.answer:
            continue  # it ends in the reference's own state: no mutant
        if kind == "half_change" and judged.verdict == "complete":
            # a write the verifier does not need: the footprint would demand a change the task may not ask for
            return Proof(False, f"not minimal: their verifier accepts it {description}; a reference makes only the "
                                "changes the task asks for", footprint, proofs)
        record = kinds.setdefault(kind, {"tried": 0, "rejected_by_verifier": 0, "rejected_by_outcome": 0,
                                         "accepted": []})
        record["tried"] += 1
        if judged.verdict != "complete":
            record["rejected_by_verifier"] += 1
        elif not result["matches"]:
            record["rejected_by_outcome"] += 1
        else:
            record["accepted"].append(description)
    proofs["mutants"] = kinds
    proofs["outcome"] = {"open_columns": open_}
    tried = sum(k["tried"] for k in kinds.values())
    accepted = [f"{kind}: {d}" for kind, k in kinds.items() for d in k["accepted"]]
    if not tried:
        return Proof(False, "no mutant of it could be made (no write call, no answer to change)", footprint, proofs)
    if accepted:
        return Proof(False, f"mutants judged complete: {'; '.join(accepted)}"[:1000], footprint, proofs)
    return Proof(True, f"proven by {candidate.source}: reference replayed twice, null rejected, {tried} mutants "
                       "rejected", footprint, proofs)


# --- promotion ---------------------------------------------------------------------------------------------


@dataclass
class Promotion:
    env_id: str
    promoted: list[str] = field(default_factory=list)
    kept: dict[str, str] = field(default_factory=dict)  # task_id -> why it stays checked
    seconds: float = 0.0


def promote(store: ArtifactStore, env_id: str, candidates: list[Candidate], isolation: str | None = None) -> Promotion:
    """Try the candidates of each checked task of `env_id`; rewrite awm1k.json with what they showed (and the
    import's provenance record of it). Proven tasks stay proven; a task without candidates is left as it is."""
    started = time.perf_counter()
    manifest = artifacts.AWM1K.read(store, env_id)
    if manifest.status != "checked":
        raise AWMError(f"{env_id} is quarantined ({manifest.reason[:300]}); nothing of it can be promoted")
    by_task: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        if candidate.env_id == env_id:
            by_task.setdefault(candidate.task_id, []).append(candidate)
    unknown = sorted(set(by_task) - {t.task_id for t in manifest.tasks})
    if unknown:
        raise AWMError(f"{env_id} has no task {', '.join(unknown)}; its tasks: "
                       f"{', '.join(t.task_id for t in manifest.tasks)}")
    result = Promotion(env_id)
    todo = [t for t in manifest.tasks if t.tier == "checked" and by_task.get(t.task_id)]
    if todo:
        with ForeignHost.start(isolation) as host, tempfile.TemporaryDirectory(prefix="awm1k-proofs-") as scratch:
            routes = {r.tool: r for r in host.load(artifacts.AWM1K_APP.read(store, env_id),
                                                   artifacts.DATABASE.path(store, env_id))}
            replayer = Replayer(host, artifacts.DATABASE.path(store, env_id), Path(scratch))
            for task in todo:
                _promote_task(replayer, task, by_task[task.task_id][:MAX_CANDIDATES], routes, result)
    for task in manifest.tasks:
        if task.tier != "checked" and by_task.get(task.task_id) and task.tier != "proven":
            result.kept[task.task_id] = f"not promoted: the task is {task.tier} ({task.reason[:200]})"
    store.write_model(env_id, artifacts.AWM1K.name, manifest)
    record = store.provenance(env_id).get(STAGE)
    if record is not None:  # the served files are checked against this record (awm/awm1k/serving.py)
        record.outputs[artifacts.AWM1K.name] = store.hash(env_id, artifacts.AWM1K.name)
        record.metrics["tasks_proven"] = sum(t.tier == "proven" for t in manifest.tasks)
        store.record_provenance(env_id, record)
    result.seconds = time.perf_counter() - started
    return result


def _promote_task(replayer: Replayer, task: ForeignTask, candidates: list[Candidate], routes: dict[str, Route],
                  result: Promotion) -> None:
    for candidate in candidates:
        try:
            proof = prove(replayer, task, candidate, routes)
        except ForeignCodeError as exc:
            proof = Proof(False, f"the foreign runtime failed its replay: {exc}"[:1000])
        task.candidates.append({"source": candidate.source, "calls": len(candidate.calls),
                                "result": "proven" if proof.passed else "rejected", "reason": proof.reason})
        if proof.passed:
            task.tier, task.reason = "proven", proof.reason
            task.reference = [{"tool": tool, "arguments": arguments} for tool, arguments in candidate.calls]
            task.reference_answer, task.footprint, task.proofs = candidate.answer, proof.footprint, proof.proofs
            result.promoted.append(task.task_id)
            return
    task.reason = ("checked, not proven: no candidate reference passed the proofs; last: "
                   f"{task.candidates[-1]['reason']}")[:1000]
    result.kept[task.task_id] = task.reason
