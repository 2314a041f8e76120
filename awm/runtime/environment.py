"""Environments and episodes: the Python API trainers use.

    env = open_environment("retail_banking__00")
    with env.reset("t01") as episode:
        episode.call("search_customers", {"query": "ann"})
        episode.score(answer=None)  # {"reward", "complete", "evidence"}

An episode's database is a private in-memory copy of the environment's initial
state, held by a sandbox worker process (awm/runtime/pool.py) where the
environment's generated tools and verifiers run; episodes never see each
other's writes. Resetting and the episode methods have async twins (`areset`,
`acall`, `ascore`, ...) for event loops. Trajectories known in advance need no
episode: `replay` and `judge_trajectories` run each in one request.
"""

from __future__ import annotations

import asyncio
import base64
import json
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from awm import artifacts
from awm.contracts import Task, TaskSet, ToolSet, VerifierSet
from awm.errors import MissingArtifactError, UnknownEnvironmentError, UnsafeCodeError
from awm.runtime.answers import SUBMIT_ANSWER, answer_tool, submit
from awm.runtime.pool import EpisodeRecord, WorkerPool, compiled_program, default_pool
from awm.runtime.sandbox import functions_of, load_module
from awm.runtime.tools import ArgumentCheck, is_error, is_evidence, is_not_permitted, tool_error
from awm.store import ArtifactStore, check_sqlite_file


@dataclass(frozen=True)
class RewardMapping:
    """Paper default: complete 1.0, partial 0.1 (some goals met), otherwise 0."""

    complete: float = 1.0
    partial: float = 0.1
    incomplete: float = 0.0

    def reward(self, verdict: dict) -> float:
        if verdict["complete"]:
            return self.complete
        return self.partial if verdict.get("partial") else self.incomplete


class Environment:
    """One environment: its tool specs, tasks and verifiers, and the initial database episodes copy.

    The tools' code is checked and loaded here, so unsafe code is rejected when the
    environment is built (UnsafeCodeError), before any episode exists.
    """

    def __init__(self, env_id: str, tools_source: str, toolset: ToolSet, tasks: TaskSet,
                 verifiers: VerifierSet | None, db_path: Path, reward: RewardMapping | None = None,
                 pool: WorkerPool | None = None):
        self.env_id = env_id
        self.toolset = toolset
        self.taskset = tasks
        self._tasks = {t.task_id: t for t in tasks.tasks}
        filename = f"{env_id}/tools.py"
        functions = functions_of(load_module(tools_source, filename))
        missing = sorted({spec.name for spec in toolset.tools} - set(functions))
        if missing:
            raise UnsafeCodeError(f"{filename}: tools specified but not implemented: {', '.join(missing)}")
        self.tools_source = tools_source
        self._program = compiled_program(tools_source, filename)[1]
        self.arguments = ArgumentCheck({spec.name: spec.input_schema for spec in toolset.tools})
        self._staff_only = frozenset(spec.name for spec in toolset.tools if spec.staff_only)
        self._verifier_code: dict[str, str] = {}
        self._footprints: dict[str, dict] = {}
        self._verifier_programs: dict[str, tuple[str, str]] = {}
        if verifiers is not None:
            self.with_verifiers(verifiers)
        self.db_path = Path(db_path)
        check_sqlite_file(self.db_path)
        self.reward = reward or RewardMapping()
        self._pool = pool
        self._key: str | None = None

    @classmethod
    def from_store(cls, store: ArtifactStore, env_id: str, reward: RewardMapping | None = None,
                   pool: WorkerPool | None = None, task_ids: list[str] | None = None) -> Environment:
        """Load an environment's artifacts; `task_ids` keeps only those tasks (the published ones)."""
        verifiers = None
        if artifacts.VERIFIERS.exists(store, env_id):
            verifiers = artifacts.VERIFIERS.read(store, env_id)
        tasks = artifacts.TASKS.read(store, env_id)
        if task_ids is not None:
            tasks = tasks.model_copy(update={"tasks": [t for t in tasks.tasks if t.task_id in set(task_ids)]})
        return cls(env_id, artifacts.TOOLS_PY.read(store, env_id), artifacts.TOOLS_JSON.read(store, env_id),
                   tasks, verifiers, store.database_path(env_id), reward, pool)

    # what the environment offers --------------------------------------------------------

    @property
    def tools(self) -> list[dict]:
        """MCP tool specs: name, description, inputSchema, annotations."""
        return [spec.mcp() for spec in self.toolset.tools]

    def tools_for(self, task_id: str | None) -> list[dict]:
        """The tools an episode of `task_id` offers: the environment's (for a request the party writes in their
        own words, only those the party may use: ToolSet.offered), and `submit_answer` when the task expects an
        answer (awm.runtime.answers)."""
        task = self.task(task_id) if task_id is not None else None
        extra = answer_tool(task) if task is not None else None
        return [spec.mcp() for spec in self.toolset.offered(task)] + ([extra] if extra else [])

    def checked(self, task: Task | None, tool: str, arguments: Any) -> tuple[Any, dict | None]:
        """(the arguments to run `tool` with, None), or (them, the structured error that refuses the call): a
        staff-only tool in an episode of a request the party writes (`not_permitted`, the runtime's refusal:
        the call never reaches the tools), or arguments that do not fit the tool's schema (ArgumentCheck)."""
        if task is not None and tool in self._staff_only and task.requester == "party":
            return arguments, tool_error("not_permitted", f"{tool} is for the staff of the business; this "
                                         "request is the customer's own, and their tools are the ones listed")
        return self.arguments.checked(tool, {} if arguments is None else arguments)

    @property
    def tasks(self) -> list[Task]:
        return list(self.taskset.tasks)

    def task(self, task_id: str) -> Task:
        try:
            return self._tasks[task_id]
        except KeyError:
            raise KeyError(f"{self.env_id} has no task {task_id!r}; tasks: {', '.join(self._tasks)}") from None

    def verifier_program(self, task_id: str) -> tuple[str, str]:
        """The task's verifier, checked against the sandbox policy and compiled (UnsafeCodeError if it breaks it)."""
        program = self._verifier_programs.get(task_id)
        if program is None:
            code = self._verifier_code.get(task_id)
            if code is None:
                raise MissingArtifactError(f"{self.env_id}: no verifier for task {task_id} (verifiers.json)")
            program = self._verifier_programs[task_id] = compiled_program(code, f"{self.env_id}/{task_id}")
        return program

    def with_verifiers(self, verifiers: VerifierSet) -> Environment:
        self._verifier_code = {v.task_id: v.code for v in verifiers.verifiers}
        self._footprints = {v.task_id: v.footprint.model_dump() for v in verifiers.verifiers if v.footprint}
        self._verifier_programs.clear()
        return self

    def footprint(self, task_id: str) -> dict:
        """What the task may change (awm.contracts.Footprint as a dict): as verifiers.json declares it, else
        what the task's reference solution changes, replayed once on a fresh copy and remembered."""
        footprint = self._footprints.get(task_id)
        if footprint is None:
            task = self.task(task_id)
            pending = self.send_trajectory([(c.tool, c.arguments) for c in task.reference_solution], task_id,
                                           footprint="reference")
            pending.result()
            footprint = self._footprints[task_id] = pending.footprint
        return footprint

    # episodes ----------------------------------------------------------------------------

    @property
    def pool(self) -> WorkerPool:
        if self._pool is None:
            self._pool = default_pool()
        return self._pool

    def _env_key(self) -> str:
        if self._key is None:
            names = [spec.name for spec in self.toolset.tools]
            self._key = self.pool.register(self.env_id, self._program, names, self.db_path, owned=self._owned(),
                                           representative=self.toolset.representative_sql())
        return self._key

    def _owned(self) -> dict[str, list[list[str]]]:
        """Per tool, the arguments naming rows a party owns and the query of each one's owner (ToolSpec.owned)."""
        return {spec.name: [[o.argument, o.owner_sql()] for o in spec.owned]
                for spec in self.toolset.tools if spec.owned}

    @staticmethod
    def acting(task: Task | None) -> int | None:
        """Who acts in an episode of `task`: the party's id when they write the request themselves (their writes
        may name only their own rows, ToolSpec.owned), else None (the staff, who act on anyone's)."""
        return task.party_id if task is not None and task.requester == "party" else None

    def _task_or_none(self, task_id: str | None) -> Task | None:
        return self.task(task_id) if task_id is not None else None

    def reset(self, task_id: str | None = None) -> Episode:
        """A fresh episode: a private copy of the initial database (use as a context manager, or close it)."""
        task = self._task_or_none(task_id)
        record, ready = self.pool.open_episode(self._env_key(), acting=self.acting(task))
        ready.result()
        return Episode(self, task, record)

    async def areset(self, task_id: str | None = None, unreserved: bool = False) -> Episode:
        """`reset` for an event loop; `unreserved`: an episode nobody reserved (the server's open sessions),
        whose database counts against the sandbox's quota for them (WorkerPool unreserved_memory_mb)."""
        task = self._task_or_none(task_id)
        record, ready = self.pool.open_episode(self._env_key(), asyncio.get_running_loop(), unreserved,
                                               self.acting(task))
        await ready
        return Episode(self, task, record)

    def send_trajectory(self, calls: list[tuple[str, dict | None]], task_id: str | None = None,
                        answers: list[str | None] = (), checkpoints: list[tuple[int, str | None]] = (),
                        footprint: dict | str | None = None,
                        branches: list[tuple] = ()
                        ) -> PendingTrajectory:
        """Start a trajectory without waiting: `calls` in order on a fresh copy of the initial state, then,
        with a task, its verdict on the final state for each of `answers`, and on the state once n of the
        calls were made for each (n, answer) of `checkpoints`; all in one request to a sandbox worker, and
        nothing of it outlives that request. Each call runs exactly as Episode.call() would run it (its
        arguments checked here; a failing call does not stop the ones after it). A verdict fails changes
        outside the task's footprint (`footprint`, default `self.footprint(task_id)`; "reference" when `calls`
        are the task's reference solution, whose changes become the footprint: `PendingTrajectory.footprint`).
        Each (n, other_calls, answer) of `branches` is another trajectory that shares the first n calls: from
        that state, its own calls, its verdict, then undone (`PendingTrajectory.branches`: results and
        verdict per branch; `changed`: whether its calls changed that state; `states`: fingerprints of the
        branches' final states, comparable with `state`, the trajectory's own once judged); a fourth
        item lists the other calls that must succeed, else the branch gets no verdict (None), which saves
        judging a trajectory that is not the one it was meant to be; a fifth, a group name, judges only the
        first branch of the group that changes something. Send several before waiting on any: they share
        one wait and spread over the workers."""
        task = self.task(task_id) if task_id is not None else None
        problems, sent, made = [], [], [0]  # made[n]: how many of the first n calls are sent
        for tool, arguments in calls:
            arguments, problem = self.checked(task, tool, arguments)
            problems.append(problem)
            if problem is None:
                sent.append((tool, arguments))
            made.append(len(sent))
        forks, fork_problems = [], []
        for after, more, answer, *rest in branches if task is not None else ():
            if not 0 <= after <= len(calls):
                raise ValueError(f"branch after {after} calls: the trajectory has {len(calls)}")
            prepared = [(tool, self.checked(task, tool, arguments)) for tool, arguments in more]
            checked = [(tool, arguments) for tool, (arguments, _) in prepared]
            problems_here = [problem for _, (_, problem) in prepared]
            position = [sum(p is None for p in problems_here[:i]) for i in range(len(checked))]
            require = [i for i in (rest[0] if rest else []) if i < len(checked)]
            refused = any(problems_here[i] is not None for i in require)  # here, so the worker never sees it
            sent_here = [] if refused else [c for c, p in zip(checked, problems_here) if p is None]
            forks.append((made[after], sent_here, answer, [position[i] for i in require], *rest[1:2]))
            fork_problems.append(None if refused else problems_here)
        judgements: list[tuple[int, str | None]] = []
        if task is not None:
            judgements = [(len(sent), answer) for answer in answers]
            for after, answer in checkpoints:
                if not 0 <= after <= len(calls):
                    raise ValueError(f"checkpoint after {after} calls: the trajectory has {len(calls)}")
                judgements.append((made[after], answer))
        if task is not None and (judgements or forks or footprint == "reference"):
            if footprint is None:
                footprint = self.footprint(task.task_id)
            verifier = self.verifier_program(task.task_id)
            name = f"{self.env_id}/{task.task_id}"
            future = self.pool.replay(self._env_key(), sent, verifier, name, judgements, footprint, forks,
                                      task.instruction if footprint == "reference" else None,
                                      acting=self.acting(task))
        else:
            future = self.pool.replay(self._env_key(), sent, acting=self.acting(task))
        return PendingTrajectory(task, problems, future, fork_problems, judgements,
                                 [(fork[0], fork[2]) for fork in forks])

    def replay(self, calls: list[tuple[str, dict | None]]) -> list[Any]:
        """The results of `calls` run in order on a fresh copy of the initial state (see send_trajectory)."""
        return self.send_trajectory(calls).result()[0]

    def judge_trajectories(self, task_id: str, trajectories: list[tuple[list[tuple[str, dict | None]], str | None]]
                           ) -> list[dict]:
        """Replay each (calls, answer) on its own fresh copy of the initial state; each final state's verdict.
        All are sent before the first is awaited (see send_trajectory)."""
        pending = [self.send_trajectory(calls, task_id, [answer]) for calls, answer in trajectories]
        return [trajectory.result()[1][0] for trajectory in pending]

    def judge_database(self, task_id: str, final_db: Path, answer: str | None = None) -> dict:
        """Judge a saved final state (for example from `awm serve --transport stdio --final-db`)."""
        task = self.task(task_id)
        future = self.pool.judge(self.verifier_program(task_id), f"{self.env_id}/{task_id}", answer_text(answer),
                                 self.footprint(task_id), env_key=self._env_key(), final=Path(final_db))
        return _with_partial(task, future.result())  # a saved state has no calls to ground an answer on

    def score_database(self, task_id: str, final_db: Path, answer: str | dict | None = None) -> dict:
        verdict = self.judge_database(task_id, final_db, answer)
        return {"reward": self.reward.reward(verdict), "complete": verdict["complete"], "evidence": verdict["evidence"],
                "diff": verdict.get("diff")}

    def close(self) -> None:
        """Forget the environment in the sandbox workers (open episodes stop working)."""
        if self._key is not None and self._pool is not None:
            self._pool.unregister(self._key)
        self._key = None

    def __enter__(self) -> Environment:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PendingTrajectory:
    """A trajectory sent by Environment.send_trajectory; `result()` waits for (results, verdicts): a result
    per call, and a verdict per answer, then per checkpoint. `footprint`, once the result is in: the
    footprint the verdicts were judged against (the reference's own changes, when it was "reference")."""

    def __init__(self, task: Task | None, problems: list[dict | None], future: Future,
                 branch_problems: list[list[dict | None] | None] = (), judged: list[tuple[int, Any]] = (),
                 branched: list[tuple[int, Any]] = ()):
        self._task, self._problems, self._future = task, problems, future
        self._branch_problems = branch_problems
        # per verdict and per branch: how many of the sent calls were made before it, and its answer (_grounded)
        self._judged, self._branched = judged, branched
        self.footprint: dict | None = None
        self.branches: list[tuple[list[Any], dict | None]] = []
        self.changed: list[bool] = []  # per branch: whether its calls changed the state it began from
        self.states: list[str | None] = []  # per branch: a fingerprint of its final state (None: not judged)
        self.state: str | None = None  # the fingerprint of the trajectory's final state, when it was judged

    def result(self) -> tuple[list[Any], list[dict]]:
        outcome = self._future.result()
        self.footprint = outcome.get("footprint")
        results = _merged(self._problems, outcome["results"])
        ran = outcome["results"]  # the calls sent, in order; a verdict after n of them counts those the world answered
        verdicts = [_with_partial(self._task, _grounded(self._task, v, _evidence(ran[:after]), answer is not None,
                                                        _overreach(self._problems, ran, after)))
                    for v, (after, answer) in zip(outcome["verdicts"], self._judged)] if self._task is not None else []
        self.branches = [
            ([], None) if problems is None  # a call it needed was refused before it was sent
            else ([], None) if branch["verdict"] is None and not branch["results"]  # not run: its group counted
            else (_merged(problems, branch["results"]),
                  _with_partial(self._task, _grounded(self._task, branch["verdict"],
                                                      _evidence(ran[:after]) + _evidence(branch["results"]),
                                                      answer is not None,
                                                      _overreach(self._problems, ran, after)
                                                      + _overreach(problems, branch["results"])))
                  if branch["verdict"] is not None else None)
            for problems, branch, (after, answer) in zip(self._branch_problems, outcome.get("branches", []),
                                                         self._branched)]
        self.changed = [problems is not None and bool(branch.get("changed"))
                        for problems, branch in zip(self._branch_problems, outcome.get("branches", []))]
        self.states = [branch.get("state") if problems is not None else None
                       for problems, branch in zip(self._branch_problems, outcome.get("branches", []))]
        self.state = outcome.get("state")
        return results, verdicts


def _merged(problems: list[dict | None], results: list[Any]) -> list[Any]:
    """A result per call: the worker's for the calls it ran, the argument problem for the ones not sent."""
    ran = iter(results)
    return [next(ran) if problem is None else problem for problem in problems]


UNGROUNDED = ("the answer was given without a tool call that answered: an answer must come from what the "
              "tools showed, not a guess")
OVERREACH = ("the episode tried what the customer it acts for may not do (a staff tool, or another customer's "
             "record: not_permitted); the runtime refused it, and an episode that tries is not complete")


def _overreach(problems: list[dict | None], ran: list[Any], after: int | None = None) -> int:
    """How many calls of a trajectory were refused as not_permitted (by the runtime before sending, `problems`,
    or by the worker's ownership rule, `ran`) before its verdict after `after` sent calls (None: all of them)."""
    refused, sent, results = 0, 0, iter(ran)
    for problem in problems:
        if problem is None:
            if after is not None and sent == after:
                break
            result, sent = next(results), sent + 1
        else:
            result = problem
        refused += is_not_permitted(result)
    return refused


def _grounded(task: Task | None, verdict: dict, evidence_calls: int, answered: bool = True,
              overreach: int = 0) -> dict:
    """A task that expects an answer is complete only if the episode made at least one call the world answered
    (a result, or the tool's own business error such as a refusal; not `submit_answer`, not an unknown tool or
    bad arguments: awm.runtime.tools.is_evidence): a fixed answer with no call earns nothing, however often it
    happens to be right (a count of 0, the first status of a closed set, the corpus's most frequent answer). A
    trajectory that calls tools and then guesses earns at most the base rate of a right guess
    (benchmarks/bench_blind_policies.py measures both). With no answer there is nothing to ground: the verifier
    alone judges (and must reject a task's missing answer, which the null proof checks of the verifier itself)."""
    if (task is not None and answered and evidence_calls == 0 and verdict.get("complete")
            and any(goal.kind == "answer" for goal in task.goals)):
        verdict = _incomplete(verdict, UNGROUNDED)
    if overreach:  # what a customer may not do, tried: the runtime stopped it, the reward does not follow it
        verdict = {**_incomplete(verdict, OVERREACH), "overreach": overreach}
    return verdict


def _incomplete(verdict: dict, reason: str) -> dict:
    """The verdict made incomplete for `reason`, which takes the place of "every goal is met" in its evidence."""
    kept = [e for e in verdict["evidence"] if e != "every goal is met"]
    return {**verdict, "complete": False, "evidence": [*kept, reason]}


def _evidence(results: list[Any]) -> int:
    return sum(is_evidence(result) for result in results)


def _with_partial(task: Task, verdict: dict) -> dict:
    """Partial means some, not all, goals are met, at least one of them a change to the database (and the
    verifier itself did not fail); an episode that changed what the task does not allow is never partial. An
    answer alone earns no partial credit: a guessed slot is no work done (a task that only asks questions is
    all or nothing), so no policy that skips the work earns more than the base rate of a right guess."""
    failed = len([e for e in verdict["evidence"] if e != "every goal is met"])
    changes = len([g for g in task.goals if g.kind != "answer"])
    verdict["partial"] = (not verdict["complete"] and "error" not in verdict and not verdict.get("collateral")
                          and not verdict.get("overreach") and failed < changes)
    return verdict


def answer_text(answer: str | dict | None) -> str | None:
    """The answer as the verifier reads it: the agent's final message, or a structured answer (a dict keyed
    by the task's answer slots) as JSON."""
    if answer is None or isinstance(answer, str):
        return answer
    if isinstance(answer, dict):
        return json.dumps(answer, ensure_ascii=False)
    raise TypeError(f"an answer is a string or a dict keyed by answer slots, not {type(answer).__name__}")


class Episode:
    """One run of one task: call tools, then score the final state."""

    def __init__(self, env: Environment, task: Task | None, record: EpisodeRecord):
        self.env = env
        self.task = task
        self.record = record
        self.calls = 0
        self.tool_errors = 0
        self.evidence_calls = 0  # calls the world answered (see _grounded)
        self.overreach = 0  # calls refused as not_permitted: the episode is then never complete (see _grounded)
        self.submission: dict | None = None  # the typed answer submitted with submit_answer, once

    @property
    def id(self) -> int:
        return self.record.id

    @property
    def closed(self) -> bool:
        return self.record.closed

    def _checked(self, tool: str, arguments: Any) -> tuple[dict, dict | None]:
        self.calls += 1
        return self.env.checked(self.task, tool, arguments)

    def _counted(self, result: Any, tool: bool = False) -> Any:
        if is_error(result):
            self.tool_errors += 1
            self.overreach += is_not_permitted(result)
        if tool and is_evidence(result):
            self.evidence_calls += 1
        return result

    @property
    def tools(self) -> list[dict]:
        """The tools this episode offers (MCP specs): the environment's, and `submit_answer` when its task
        expects an answer."""
        return self.env.tools_for(self.task.task_id if self.task is not None else None)

    def _answered(self, tool: str, arguments: Any) -> Any:
        """The result of a `submit_answer` call when this episode's task takes one (in this process: nothing of
        it reaches the sandbox), else None."""
        if tool != SUBMIT_ANSWER or answer_tool(self.task) is None:
            return None
        self.calls += 1
        self.submission, result = submit(self.task, {} if arguments is None else arguments, self.submission)
        return self._counted(result)

    def call(self, tool: str, arguments: dict | None = None) -> Any:
        """Run one tool; its JSON-able result, or a structured error (see awm.runtime.tools)."""
        answered = self._answered(tool, arguments)
        if answered is not None:
            return answered
        arguments, problem = self._checked(tool, arguments)
        if problem is not None:
            return self._counted(problem)
        return self._counted(self.env.pool.call(self.record, tool, arguments).result(), tool=True)

    async def acall(self, tool: str, arguments: dict | None = None) -> Any:
        answered = self._answered(tool, arguments)
        if answered is not None:
            return answered
        arguments, problem = self._checked(tool, arguments)
        if problem is not None:
            return self._counted(problem)
        return self._counted(await self.env.pool.call(self.record, tool, arguments, asyncio.get_running_loop()),
                             tool=True)

    def _judge_task(self, task_id: str | None) -> Task:
        task = self.env.task(task_id) if task_id is not None else self.task
        if task is None:
            raise ValueError("this episode was reset without a task; name the task to judge against")
        return task

    def _answer(self, task: Task, answer: str | dict | None) -> str | dict | None:
        if self.submission is not None and task is self.task:
            return self.submission  # the typed answer the agent submitted is judged, not prose
        return answer

    def _judge_future(self, task: Task, answer: str | dict | None, loop: asyncio.AbstractEventLoop | None = None):
        answer = self._answer(task, answer)
        program = self.env.verifier_program(task.task_id)
        return self.env.pool.judge(program, f"{self.env.env_id}/{task.task_id}", answer_text(answer),
                                   self.env.footprint(task.task_id), episode=self.record, loop=loop)

    def judge(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        """The task's verifier on (initial DB, this episode's DB, answer), joined with the outcome (every changed
        row accounted for by the task's footprint): {"complete", "evidence", "partial", "diff"}."""
        task = self._judge_task(task_id)
        verdict = self._judge_future(task, answer).result()
        return _with_partial(task, _grounded(task, verdict, self.evidence_calls, self._answer(task, answer) is not None,
                                             self.overreach))

    async def ajudge(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        task = self._judge_task(task_id)
        verdict = await self._judge_future(task, answer, asyncio.get_running_loop())
        return _with_partial(task, _grounded(task, verdict, self.evidence_calls, self._answer(task, answer) is not None,
                                             self.overreach))

    def _score(self, verdict: dict) -> dict:
        return {"reward": self.env.reward.reward(verdict), "complete": verdict["complete"],
                "evidence": verdict["evidence"], "diff": verdict.get("diff"), "calls": self.calls,
                "tool_errors": self.tool_errors, "overreach": verdict.get("overreach", 0)}

    def score(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        """{"reward", "complete", "evidence", "diff", "calls", "tool_errors", "overreach"}: the verdict (see
        `judge`), the rows changed per table (expected and unexpected), this episode's tool calls and tool errors,
        and how many of them tried what the customer it acts for may not do (not_permitted; never complete).
        `answer` is the agent's final message (prose, read strictly), or a dict keyed by the task's answer
        slots; once the agent has submitted an answer with `submit_answer` (typed), that submission is judged
        instead, whatever `answer` says. The episode stays usable."""
        return self._score(self.judge(answer, task_id))

    async def ascore(self, answer: str | dict | None = None, task_id: str | None = None) -> dict:
        return self._score(await self.ajudge(answer, task_id))

    def snapshot(self) -> bytes:
        """The episode's database as SQLite file bytes."""
        return base64.b64decode(self.env.pool.snapshot(self.record).result())

    async def asnapshot(self) -> bytes:
        return base64.b64decode(await self.env.pool.snapshot(self.record, asyncio.get_running_loop()))

    def close(self) -> None:
        self.env.pool.close_episode(self.record)

    def __enter__(self) -> Episode:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def published_task_ids(store: ArtifactStore, env_id: str) -> list[str]:
    """The tasks of `env_id` in the catalog; UnknownEnvironmentError if it publishes none."""
    if not store.catalog_path.exists():
        raise UnknownEnvironmentError(f"no catalog at {store.catalog_path}; build the corpus first (make run)")
    entries = [entry for entry in store.iter_catalog() if entry.get("env_id") == env_id]
    tasks = [entry["task_id"] for entry in entries if entry.get("origin") != "awm1k"]
    if not tasks and entries:  # their code runs only in the foreign runtime (docs/awm1k.md), never in this process
        raise UnknownEnvironmentError(f"{env_id} is an imported AWM-1K environment: it is not opened in-process; "
                                      f"serve it with `awm serve` (HTTP, through awm.client) or `awm serve-awm1k "
                                      f"--env {env_id}` (stdio)")
    if not tasks:
        raise UnknownEnvironmentError(f"{env_id} publishes no task in {store.catalog_path} "
                                      "(see failures.jsonl for environments that failed or were quarantined)")
    return tasks


def open_environment(env_id: str, home: str | Path | None = None, reward: RewardMapping | None = None,
                     pool: WorkerPool | None = None) -> Environment:
    """A published environment, with its published tasks only."""
    store = ArtifactStore(home)
    return Environment.from_store(store, env_id, reward, pool, task_ids=published_task_ids(store, env_id))
