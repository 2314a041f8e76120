"""The LLM backend: every stage's output written by a model behind an OpenAI-compatible endpoint.

It asks (prompts.py), the client parses and validates (client.py), and the stage checks the
result like any backend's. What this backend adds is what only it can know:

- scenarios: the domain's earlier scenarios go into the prompt as an avoid list, and a
  scenario whose name duplicates another of its domain is rejected;
- tasks: exactly the number asked for, no login or password tasks, and each task's kind agrees with its goals
  (a question only reads, an action changes the database);
- databases: rows only for tables and columns of the schema, never the wall clock;
- verifiers: one call per task, then each verifier is proven before it is returned (the
  reference solution replayed on a fresh database must make it say complete, the untouched
  database must make it say incomplete); a verifier that fails its proof is an error naming
  the task, and the next attempt's prompt for that task carries it.

The errors of earlier attempts come from the stage's AttemptContext (awm.attempts); the
calls made go back into it, so their usage reaches provenance and the asset's metadata.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from pydantic import ValidationError

from awm import artifacts
from awm.attempts import AttemptContext, current_attempt
from awm.concurrency import STAGE_WORK
from awm.contracts import Scenario, SchemaSpec, Task, TaskSet, ToolSet, Verifier, VerifierSet
from awm.domains import env_id_for, split_env_id
from awm.errors import AWMError, StageError
from awm.llm.client import CallTags, LLMClient, estimate_tokens
from awm.llm.errors import LLMOutputError
from awm.llm.fit import (
    ANSWER_TOKENS,
    MIN_ANSWER_TOKENS,
    SHARED_TOOL_TOKENS,
    TASK_ANSWER_TOKENS,
    WRITTEN_IDS_PER_TABLE,
    SourceMergeError,
    merge_sources,
    part_answer_tokens,
    part_of_tool,
    plan_parts,
    rows_answer_tokens,
    tools_answer_tokens,
    top_level_functions,
)
from awm.llm.ledger import summarize
from awm.llm.prompts import (
    DATABASES,
    SCENARIOS,
    SCHEMAS,
    TASKS,
    TOOLS,
    VERIFIERS,
    PromptTemplate,
    RowsDraft,
    block,
    json_block,
    stage_prompt_hash,
)
from awm.llm.repair import strip_wrapping
from awm.registry import stage as stage_spec
from awm.schema_sql import to_ddl
from awm.sources import source_digest
from awm.store import ArtifactStore

BUILDER = "llm-1"
# Where answers are kept and counted: which answer a stage gets is fixed by the prompt, the model, its sampling and
# the client's code (modes, clamping, repairs), so a change here alone rebuilds nothing (awm/sources.py).
BOOKKEEPING = ("awm.llm.cache", "awm.llm.ledger")
DEFAULT_TASKS = 10
REST_ROUNDS = 2  # requests for the rest of a partly valid tasks answer, within one attempt
SIMILAR_NAME_RATIO = 0.9
_LOGIN_WORDS = re.compile(r"\b(log ?in|logins?|log out|sign ?in|sign ?out|passwords?|passcodes?|credentials?|"
                          r"two[- ]factor|2fa|mfa)\b", re.IGNORECASE)
_TEMPLATE_STAGE = {"verification_reports": VERIFIERS.stage}  # ledger rows name the template's stage
_WALL_CLOCK = {"now", "current_timestamp", "current_date", "current_time", "datetime('now')", "date('now')"}


class ScenarioDuplicateError(AWMError):
    """A scenario repeats another one of its domain."""


class TaskPolicyError(AWMError):
    """Tasks that break the rules given to the model (count, login tasks, a kind its goals contradict)."""


class RowsError(AWMError):
    """Sample data that does not fit the schema or uses the wall clock."""


class ToolPartsError(AWMError):
    """Parts of the tools answer that do not fit together (a tool written twice, a helper defined differently)."""


class VerifierProofError(StageError):
    """Verifiers that failed their proof; `details` maps each task id to what went wrong."""

    def __init__(self, env_id: str, details: dict[str, str]):
        listing = "; ".join(f"{task}: {reason}" for task, reason in sorted(details.items()))
        super().__init__("verification_reports", env_id, f"{len(details)} verifier(s) failed their proof: {listing}")
        self.details = details


def _normal_name(name: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", name.lower()))


def _stable_seed(env_id: str) -> int:
    return int.from_bytes(hashlib.sha256(f"llm:{env_id}".encode()).digest()[:6], "big")


class LLMBackend:
    name = "openai"

    def __init__(self, client: LLMClient, store: ArtifactStore | None = None, tasks_per_env: int = DEFAULT_TASKS,
                 run_id: str | None = None):
        if tasks_per_env < 1:
            raise ValueError(f"tasks_per_env must be at least 1, got {tasks_per_env}")
        self.client = client
        self.store = store or ArtifactStore()
        self.tasks_per_env = tasks_per_env
        self.run_id = run_id
        self.model = client.settings.model
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()

    # --- identity: what provenance records and what decides reuse -------------------------
    @property
    def params(self) -> dict:
        s = self.client.settings
        return {"builder": BUILDER, "model": s.model, "base_url": s.shown_url, "profile": s.profile,
                "temperature": s.temperature, "max_tokens": s.limits().max_tokens, "seed": s.seed,
                "request_tokens": s.request_tokens, "tasks_per_env": self.tasks_per_env}

    def prompt_hash(self, stage: str) -> str:
        return stage_prompt_hash(stage)

    def fingerprint(self, stage: str) -> str:
        """Changes when anything that shapes the stage's answer changes (so the stage re-runs): the prompt,
        the model and its sampling, and the source of this backend, the stage and what they import."""
        s = self.client.settings
        code = source_digest((stage_spec(stage).module, "awm.backends.llm"), ("python",), BOOKKEEPING)
        payload = json.dumps([stage_prompt_hash(stage), s.model, s.temperature, s.limits().max_tokens, s.seed,
                              self.tasks_per_env, code] + ([s.request_tokens] if s.request_tokens else []))
        return hashlib.sha256(payload.encode()).hexdigest()[:12]

    def usage(self, stage: str, domains: list[str] | None = None) -> dict:
        """Calls, cache hits, tokens and cost of one stage in this run (every attempt), from the ledger;
        only those about `domains` when given."""
        ledger = self.client.ledger
        if ledger is None or self.run_id is None:
            return summarize([])
        return summarize(ledger.records(run_id=self.run_id, stage=_TEMPLATE_STAGE.get(stage, stage), domains=domains))

    def env_ids_asked(self, stage: str) -> set[str]:
        """The environments this run asked the model about for `stage`, at any attempt."""
        ledger = self.client.ledger
        if ledger is None or self.run_id is None:
            return set()
        return {r.env_id for r in ledger.records(run_id=self.run_id, stage=_TEMPLATE_STAGE.get(stage, stage))
                if r.env_id}

    def cost_by_domain(self, domains: list[str] | None = None) -> dict[str, dict]:
        ledger = self.client.ledger
        return ledger.cost_by_domain(domains) if ledger is not None else {}

    def reject(self, attempt: AttemptContext) -> None:
        """The stage rejected this attempt's output: forget the responses it was built from."""
        if self.client.cache is not None:
            self.client.cache.evict([c.cache_key for c in attempt.calls if not c.keep])

    # --- asking -------------------------------------------------------------------------------
    def _ask(self, template: PromptTemplate, env_id: str, subject: str | None = None,
             attempt: AttemptContext | None = None, show_answer: bool = True, keep_invalid: bool = False,
             answer_tokens: int | None = None, **values: str):
        """`show_answer` False: the newest rejected answer is not shown again (a stage asked in parts: it may be
        another part's)."""
        attempt = attempt or current_attempt()
        feedback = attempt.errors_for(subject) if attempt else []
        answer = attempt.last_answer(subject) if attempt and show_answer else None
        messages = template.render(feedback=feedback, answer=answer, **values)
        domain, _ = split_env_id(env_id)
        tags = CallTags(run_id=self.run_id, domain=domain, env_id=env_id, subject=subject,
                        attempt=attempt.attempt if attempt else None)
        return self.client.complete(template.stage, messages, template.output, template.schema_name, tags,
                                    on_record=attempt.calls.append if attempt else None, keep_invalid=keep_invalid,
                                    answer_tokens=answer_tokens or ANSWER_TOKENS.get(template.stage))

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self.client.resolve()
                self._pool = ThreadPoolExecutor(max_workers=self.client.concurrency,
                                                thread_name_prefix="awm-llm")
            return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    @staticmethod
    def _scenario_block(scenario: Scenario) -> str:
        return json_block("scenario", scenario.model_dump(mode="json"))

    @staticmethod
    def _tasks_block(tasks: TaskSet) -> str:
        return json_block("tasks", tasks.model_dump(mode="json", exclude={"contract_version"}))

    # --- stages ---------------------------------------------------------------------------------
    def scenario(self, domain: str, slot: int) -> Scenario:
        env_id = env_id_for(domain, slot)
        siblings = self._sibling_scenarios(domain, env_id)
        earlier = [s for s in siblings if s.slot < slot]
        draft = self._ask(
            SCENARIOS, env_id,
            request=json_block("request", {"stage": "scenarios", "domain": domain, "slot": slot, "env_id": env_id}),
            avoid=json_block("avoid", [{"name": s.name, "sub_business": s.sub_business} for s in earlier]),
            number=str(slot + 1), domain=domain)
        scenario = Scenario(env_id=env_id, domain=domain, slot=slot, seed=_stable_seed(env_id), builtin=False, origin="llm",
                            **draft.model_dump())
        for other in siblings:
            a, b = _normal_name(scenario.name), _normal_name(other.name)
            if a == b or difflib.SequenceMatcher(None, a, b).ratio() >= SIMILAR_NAME_RATIO:
                raise ScenarioDuplicateError(
                    f"scenario name {scenario.name!r} repeats {other.env_id} ({other.name!r}); write a different "
                    "sub-business of the domain")
        return scenario

    def _sibling_scenarios(self, domain: str, env_id: str) -> list[Scenario]:
        siblings = []
        for other in self.store.env_ids(domain):
            if other != env_id and artifacts.SCENARIO.exists(self.store, other):
                try:
                    siblings.append(artifacts.SCENARIO.read(self.store, other))
                except AWMError:
                    continue  # a damaged sibling is its own stage's problem
        return sorted(siblings, key=lambda s: s.slot)

    def tasks(self, scenario: Scenario) -> TaskSet:
        """Exactly `tasks_per_env` tasks. An answer of which only some tasks are valid (a task that breaks its
        schema or a rule, or tasks missing) keeps the valid ones and asks only for the rest, with the kept tasks
        and why the others were rejected, up to REST_ROUNDS times in the attempt; then the attempt fails."""
        count = self.tasks_per_env
        expected = [f"t{n:02d}" for n in range(1, count + 1)]
        kept: dict[str, Task] = {}
        acting_user: str | None = None
        problems: dict[str, str] = {}
        for round_ in range(REST_ROUNDS + 1):
            wanted = [t for t in expected if t not in kept]
            request = {"stage": "tasks", "env_id": scenario.env_id, "count": len(wanted)}
            rest = ""
            if kept:
                request.update({"of": count, "task_ids": wanted})
                rest = "\n" + json_block("kept_tasks", {"acting_user": acting_user, "tasks": [
                    kept[t].model_dump(mode="json") for t in expected if t in kept]}) + "\n\n" + block(
                    "rejected_tasks", "These tasks of the answer were rejected; write them again:\n" + "\n".join(
                        f"- {task}: {why}" for task, why in sorted(problems.items()))) + "\n"
            try:
                draft = self._ask(TASKS, scenario.env_id, request=json_block("request", request), keep_invalid=True,
                                  answer_tokens=MIN_ANSWER_TOKENS + TASK_ANSWER_TOKENS * len(wanted),
                                  scenario=self._scenario_block(scenario), count=str(len(wanted)), rest=rest)
                data = draft.model_dump(mode="json")
                error: Exception | None = None
            except LLMOutputError as exc:
                data, error = _json_object(exc.answer), exc
            if data is None:  # nothing to keep: the error as it is
                raise error
            user, good, bad = _sort_tasks(data, wanted, acting_user)
            if user is None:
                raise error or TaskPolicyError("acting_user is missing: the staff member every task is performed for")
            acting_user = user
            kept.update(good)
            problems = bad
            attempt = current_attempt()
            if problems and error is None and attempt is not None and attempt.calls and self.client.cache is not None:
                self.client.cache.evict([attempt.calls[-1].cache_key])  # a rejected answer: never replayed
            if not problems:
                break
            if not good and round_ == 0:  # no task of the answer was usable: nothing kept, the error as it is
                raise error or TaskPolicyError("; ".join(f"{t}: {why}" for t, why in sorted(problems.items())))
        if problems:
            raise TaskPolicyError(f"{len(kept)} of {count} tasks were valid after {REST_ROUNDS} requests for the "
                                  "rest; still rejected: " + "; ".join(f"{t}: {why}" for t, why in
                                                                       sorted(problems.items())))
        return TaskSet(env_id=scenario.env_id, acting_user=acting_user, tasks=[kept[t] for t in expected])

    def schema(self, scenario: Scenario, tasks: TaskSet) -> SchemaSpec:
        draft = self._ask(
            SCHEMAS, scenario.env_id,
            request=json_block("request", {"stage": "schemas", "env_id": scenario.env_id}),
            scenario=self._scenario_block(scenario), tasks=self._tasks_block(tasks))
        return SchemaSpec(env_id=scenario.env_id, tables=draft.tables)

    def _part_plan(self, template: PromptTemplate, env_id: str, tables, answer_tokens, each: int = 0,
                   **values: str):
        """The schema's tables in parts that each fit one request (awm/llm/fit.py): planned from the prompt as it
        will be sent (the earlier attempts' errors included) with an empty part."""
        attempt = current_attempt()
        feedback = attempt.errors_for(None) if attempt else []
        messages = template.render(feedback=feedback, answer=attempt.last_answer(None) if attempt else None,
                                   part=json_block("part", {}), **values)
        budget, budget_from = self.client.request_budget()
        return plan_parts(template.stage, tables, answer_tokens, estimate_tokens(messages), budget, budget_from,
                          each)

    def database_rows(self, scenario: Scenario, schema: SchemaSpec) -> dict[str, list[dict]]:
        tasks = artifacts.TASKS.read(self.store, scenario.env_id)
        values = dict(request=json_block("request", {"stage": "databases", "env_id": scenario.env_id}),
                      scenario=self._scenario_block(scenario), schema_sql=block("schema_sql", to_ddl(schema)),
                      tasks=self._tasks_block(tasks))
        parts = self._part_plan(DATABASES, scenario.env_id, schema.tables, rows_answer_tokens, **values)
        written: list = []
        ids: dict[str, list] = {}
        for n, names in enumerate(parts, 1):
            part = {"part": n, "parts": len(parts), "tables": names,
                    "other_tables": [t.name for t in schema.tables if t.name not in names]}
            if n > 1:
                part["written_ids"] = {table: values_ for table, values_ in ids.items() if _referenced(
                    schema, names, table)}
            draft = self._ask(DATABASES, scenario.env_id, show_answer=len(parts) == 1, part=json_block("part", part),
                              answer_tokens=part_answer_tokens([schema.table(t) for t in names], rows_answer_tokens),
                              **values)
            extra = [t.table for t in draft.tables if t.table not in names]
            if extra and len(parts) > 1:
                raise RowsError(f"part {n} of {len(parts)} gave rows for {', '.join(extra)}, which other parts "
                                f"write; give rows only for {', '.join(names)}")
            for table_rows in draft.tables:
                if "id" in table_rows.columns:
                    at = table_rows.columns.index("id")
                    ids[table_rows.table] = [row[at] for row in table_rows.rows][:WRITTEN_IDS_PER_TABLE]
            written.extend(draft.tables)
        return rows_by_table(RowsDraft(tables=written), schema)

    def tools(self, scenario: Scenario, schema: SchemaSpec, tasks: TaskSet) -> tuple[str, ToolSet]:
        """The tools in parts, as the model writes them; the rule of whom a party may act for (ToolSet.representative)
        is the schema's, not the model's: without it, a party's own episode could act for no one it represents, and
        every request made as someone's representative would fail its proof."""
        values = dict(request=json_block("request", {"stage": "tools", "env_id": scenario.env_id}),
                      scenario=self._scenario_block(scenario), schema_sql=block("schema_sql", to_ddl(schema)),
                      tasks=self._tasks_block(tasks))
        parts = self._part_plan(TOOLS, scenario.env_id, schema.tables, tools_answer_tokens, SHARED_TOOL_TOKENS,
                                **values)
        called = list(dict.fromkeys(call.tool for task in tasks.tasks for call in task.reference_solution))
        sources: list[str] = []
        specs: list = []
        helpers: list[str] = []
        for n, names in enumerate(parts):
            written = [t.name for t in specs]
            part = {"part": n + 1, "parts": len(parts), "tables": names,
                    "other_tables": [t.name for t in schema.tables if t.name not in names],
                    "tools": [tool for tool in called if part_of_tool(tool, parts) == n and tool not in written],
                    "written": written, "helpers": helpers}
            draft = self._ask(TOOLS, scenario.env_id, show_answer=len(parts) == 1, part=json_block("part", part),
                              answer_tokens=part_answer_tokens([schema.table(t) for t in names], tools_answer_tokens)
                              + SHARED_TOOL_TOKENS,
                              **values)
            again = sorted({t.name for t in draft.tools} & set(written))
            if again:
                raise ToolPartsError(f"part {n + 1} of {len(parts)} wrote {', '.join(again)} again, which an earlier "
                                     "part wrote; write only the tools of this part")
            sources.append(draft.source)
            specs.extend(draft.tools)
            names_written = {t.name for t in draft.tools}
            helpers = list(dict.fromkeys(helpers + [f for f in top_level_functions(draft.source)
                                                    if f not in names_written]))
        try:
            source = merge_sources(sources)
        except SourceMergeError as exc:
            raise ToolPartsError(str(exc)) from None
        return source, ToolSet(env_id=scenario.env_id, tools=specs, representative=representative_of(schema))

    def verifiers(self, scenario: Scenario, tasks: TaskSet, tools: ToolSet) -> VerifierSet:
        env_id = scenario.env_id
        attempt = current_attempt()
        schema_sql = block("schema_sql", artifacts.SCHEMA_SQL.read(self.store, env_id))
        scenario_block = self._scenario_block(scenario)

        def write(task) -> Verifier:
            draft = self._ask(
                VERIFIERS, env_id, subject=task.task_id, attempt=attempt,
                request=json_block("request", {"stage": "verifier", "env_id": env_id, "task_id": task.task_id}),
                scenario=scenario_block, schema_sql=schema_sql,
                task=json_block("task", task.model_dump(mode="json")))
            return Verifier(task_id=task.task_id, code=draft.code)

        futures = [self._executor().submit(write, task) for task in tasks.tasks]
        with STAGE_WORK.released():
            written = [f.result() for f in futures]
        verifiers = VerifierSet(env_id=env_id, verifiers=written)
        failures = prove_verifiers(self.store, env_id, tasks, tools, verifiers)
        if attempt is not None:
            proven = {v.task_id for v in verifiers.verifiers} - set(failures)
            for call in attempt.calls:
                call.keep = call.stage == VERIFIERS.stage and call.subject in proven
        if failures:
            raise VerifierProofError(env_id, failures)
        return verifiers


def _json_object(answer: str | None) -> dict | None:
    """The JSON object of an answer the client rejected (safe repairs only), or None."""
    if not answer:
        return None
    text, _ = strip_wrapping(answer)
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _sort_tasks(data: dict, wanted: list[str], acting_user: str | None) -> tuple[str | None, dict, dict]:
    """(acting user, the valid tasks of `wanted` by id, why each other task of `wanted` was rejected)."""
    user = data.get("acting_user")
    if not isinstance(user, str) or len(user.strip()) < 3:
        user = acting_user
    good: dict[str, Task] = {}
    bad: dict[str, str] = {}
    items = data.get("tasks") if isinstance(data.get("tasks"), list) else []
    by_id: dict[str, object] = {}
    for item in items:
        task_id = item.get("task_id") if isinstance(item, dict) else None
        if isinstance(task_id, str) and task_id not in by_id:
            by_id[task_id] = item
    for task_id in wanted:
        item = by_id.get(task_id)
        if item is None:
            bad[task_id] = "missing from the answer"
            continue
        try:
            task = Task.model_validate(item)
        except ValidationError as exc:
            bad[task_id] = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '<task>'}: {e['msg']}"
                                     for e in exc.errors()[:4])[:600]
            continue
        found = _LOGIN_WORDS.search(task.instruction)
        if found:
            bad[task_id] = (f"it is about {found.group(0)!r}: tasks about logging in, passwords or credentials are "
                            "not allowed (the acting user is already signed in)")
            continue
        reads_only = all(g.kind == "answer" for g in task.goals)
        if task.kind == "action" and reads_only:  # "Calculate the total number of orders", kind action: a real model
            bad[task_id] = ("its kind is action but every goal is an answer: a task that only reads the database is "
                            "a question, with a reference_answer")
            continue
        if task.kind == "question" and not reads_only:
            bad[task_id] = ("its kind is question but some of its goals change the database: a task that changes "
                            "it is an action")
            continue
        good[task_id] = task
    return user, good, bad


def _referenced(schema: SchemaSpec, names: list[str], parent: str) -> bool:
    """Whether a table of `names` has a foreign key to `parent`."""
    return any((c.references or "").split(".")[0] == parent for t in schema.tables if t.name in names
               for c in t.columns)


def rows_by_table(draft: RowsDraft, schema: SchemaSpec) -> dict[str, list[dict]]:
    """The model's tables of rows as the databases stage wants them, checked against the schema."""
    rows: dict[str, list[dict]] = {}
    for table_rows in draft.tables:
        try:
            table = schema.table(table_rows.table)
        except KeyError:
            raise RowsError(f"rows for table {table_rows.table!r}, which the schema does not have; tables: "
                            f"{', '.join(t.name for t in schema.tables)}") from None
        if table.name in rows:
            raise RowsError(f"table {table.name} is given twice; give each table once with all its rows")
        known = {c.name for c in table.columns}
        unknown = [c for c in table_rows.columns if c not in known]
        if unknown:
            raise RowsError(f"rows for {table.name} have columns {unknown} that it does not have; columns: "
                            f"{', '.join(sorted(known))}")
        for n, values in enumerate(table_rows.rows):
            for column, value in zip(table_rows.columns, values):
                if isinstance(value, str) and value.strip().lower() in _WALL_CLOCK:
                    raise RowsError(f"{table.name} row {n} sets {column} to {value!r}, which depends on the wall "
                                    "clock; use a fixed ISO 8601 date near the reference time instead")
        rows[table.name] = [dict(zip(table_rows.columns, values)) for values in table_rows.rows]
    return rows


def prove_verifiers(store: ArtifactStore, env_id: str, tasks: TaskSet, tools: ToolSet,
                    verifiers: VerifierSet) -> dict[str, str]:
    """Every proof of the verification stage (awm/quality/proofs.py: reference, null, mutants and
    shortcuts, valid alternatives) for each verifier; task id -> why it failed, for the next attempt's prompt.

    A reference solution whose tool calls fail is not the verifier's fault and is left for the
    verification report to record."""
    from awm.quality.mutations import Mutator
    from awm.quality.proofs import prove_task
    from awm.runtime.environment import Environment

    db_path = Path(store.database_path(env_id))
    env = Environment(env_id, artifacts.TOOLS_PY.read(store, env_id), tools, tasks, verifiers, db_path)
    mutator = Mutator(tools, artifacts.SCHEMA_JSON.read(store, env_id), db_path, tasks.tasks)
    failures: dict[str, str] = {}
    try:
        for task in tasks.tasks:
            report, _ = prove_task(env, task, mutator)
            why = _proof_failure(report)
            if why is not None:
                failures[task.task_id] = why
    finally:
        env.close()
    return failures


def _proof_failure(report) -> str | None:
    """What the model must fix in a verifier, from its task's report (None: nothing the verifier caused)."""
    check = report.failure_check()
    if check is None or (check == "reference_solution" and report.error and report.error.startswith("step ")):
        return None
    if report.error:
        return f"the verifier cannot be loaded: {report.error}"
    if check == "reference_solution":
        return "after the reference solution the verifier said incomplete: " + "; ".join(report.evidence)
    if check == "null_trajectory":
        return ("on the untouched database with no answer the verifier said complete; it must check that the "
                "task's goals were actually met")
    if check == "verifier_deterministic":
        return "the verifier gave different verdicts on the same final state: " + "; ".join(report.evidence)
    if check == "verifier_read_only":
        return "the verifier tried to write to a database it may only read"
    if check == "mutation_testing":
        return ("the verifier accepted wrong trajectories (it must check every stated detail exactly, and an "
                "answer must state the expected value and no other candidate): " + "; ".join(report.survivors[:5]))
    return ("the verifier rejected valid trajectories (equivalent answer forms, extra reads, reordered "
            "independent steps must pass): " + "; ".join(report.rejected_alternatives[:5]))


def representative_of(schema: SchemaSpec) -> list[str] | None:
    """[party table, column] where a table names, in its `representative_id`, another of its own rows as the
    person's authorised representative (the ownership rule the runtime enforces: awm.runtime.worker), else None."""
    for table in schema.tables:
        for column in table.columns:
            if column.name == "representative_id" and column.references == f"{table.name}.id":
                return [table.name, column.name]
    return None
