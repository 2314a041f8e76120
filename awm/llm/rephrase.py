"""Optional model phrasing of the offline builder's tasks (off by default).

With `AWM_TASK_PHRASING=model` and an OpenAI-compatible endpoint configured (awm/llm/settings.py), the offline
backend asks the model to rewrite each task's instruction as a person would write it. Only the words change: the
reference solution, the goals and the answer stay the builder's, so the verifiers stay proven by the same proofs.
A rewrite is rejected, and asked for again with the reason, when it drops or changes a value the instruction
states (a name, an email, a code, a quoted text, a number, a date) or states a value the original does not; after
`attempts` rejected rewrites the builder's own wording stands. Calls go through the LLM client, so they are cached
(re-running an unchanged environment makes no call) and recorded in the ledger like every model call.

A model error never costs a task: an answer that is not a usable rewrite (not JSON, wrong shape, cut off) is asked
for again with the reason like a rejected rewrite, and an endpoint error (refused request, 5xx, timeout, no
connection) keeps the builder's wording of that task and of every later one of this Rephraser (the endpoint is
not asked again in the run). Each kept wording is recorded with why (`kept`, and the tasks stage's metrics).
"""

from __future__ import annotations

import re
from collections import Counter

from pydantic import Field

from awm.contracts import Contract, Task, TaskSet
from awm.llm.client import CallTags
from awm.llm.errors import LLMError, LLMOutputError, RejectedOutputError
from awm.llm.fit import ANSWER_TOKENS
from awm.llm.prompts import PromptTemplate, json_block
from awm.quality.diversity import CODE, EMAIL, QUOTED

DEFAULT_ATTEMPTS = 3
MAX_GROWTH = 2.5  # a rewrite more than this many times longer than the original is padding, not phrasing


class PhrasingDraft(Contract):
    instruction: str = Field(min_length=10, description="the request, rewritten")


PHRASING = PromptTemplate(
    stage="phrasing",
    version="v1",
    output=PhrasingDraft,
    system="""
You rewrite requests that people send to the assistant of a business, so that they read as a real customer or
staff member would write them: natural, varied, correct English, first person where the request is in the first
person. Rules:
- Keep every value exactly as written: names, email addresses, codes (such as ORD-1042), quoted texts (keep them
  in single quotes, word for word), amounts, quantities, percentages, dates and times.
- Ask for exactly the same things: add no request, drop none, keep every condition ("if ..., otherwise ...").
- Add no new facts, numbers, names or values.
Answer with one JSON object that matches the JSON Schema given in the request, and nothing else.
""",
    user="""
$request

$task

Rewrite the instruction.

JSON Schema of the answer:
$schema
""",
)

_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b|\b(?:January|February|March|April|May|June|July|August|September|"
                   r"October|November|December) \d{1,2}, \d{4}\b")
_NUMBER = re.compile(r"(?<![\w.-])\d[\d,]*(?:\.\d+)?%?")
_NAME = re.compile(r"\b[A-Z][a-z]+(?: [A-Z][a-z]+)+\b")


def stated_counts(text: str) -> Counter[str]:
    """The values an instruction states, as written (quoted texts, emails, codes, dates, numbers), and how many
    times it states each."""
    values = Counter(f"'{q}'" for q in QUOTED.findall(text))
    rest = QUOTED.sub(" ", text)
    for pattern in (EMAIL, CODE, _DATE):
        values.update(pattern.findall(rest))
        rest = pattern.sub(" ", rest)
    values.update(n.rstrip(".,") for n in _NUMBER.findall(rest))
    return values


def stated_values(text: str) -> set[str]:
    """The values an instruction states, as written: quoted texts, emails, codes, dates, numbers."""
    return set(stated_counts(text))


def _names(text: str) -> set[str]:
    """Runs of capitalised words outside quotes and after the first word of a sentence (people, places)."""
    rest = QUOTED.sub(" ", text)
    return {m.group(0) for m in _NAME.finditer(rest)
            if m.start() > 0 and rest[max(0, m.start() - 2):m.start()].strip() not in (".", "?", "!", ":")}


def rewrite_problems(original: str, rewrite: str) -> list[str]:
    """Why a rewrite cannot replace the original (empty when it can)."""
    problems = []
    kept, new = stated_counts(original), stated_counts(rewrite)
    missing = sorted(set(kept) - set(new))
    if missing:
        problems.append(f"it drops or changes {', '.join(missing[:8])}")
    # a value stated twice is two references ("add one 'Kettle' to it, or order one 'Kettle' on a new order"):
    # a rewrite that keeps one of them ("add one it to it") has lost what the other one said
    fewer = sorted(v for v in kept if 0 < new[v] < kept[v])
    if fewer:
        problems.append("it states values fewer times than the original: " + ", ".join(
            f"{v} {kept[v]} -> {new[v]}" for v in fewer[:8]))
    added = sorted(set(new) - set(kept))
    if added:
        problems.append(f"it states values the original does not: {', '.join(added[:8])}")
    lost_names = sorted(n for n in _names(original) if n not in rewrite)
    if lost_names:
        problems.append(f"it drops the names {', '.join(lost_names[:5])}")
    if len(rewrite) > MAX_GROWTH * len(original):
        problems.append("it is much longer than the original")
    return problems


class Rephraser:
    """Rewrites the instructions of a task set through a model, keeping every stated value (see module doc)."""

    def __init__(self, client, attempts: int = DEFAULT_ATTEMPTS, run_id: str | None = None):
        self.client = client
        self.attempts = attempts
        self.run_id = run_id
        self.rejected: list[tuple[str, str, str]] = []  # (env_id/task_id, rewrite, why)
        self.kept: list[tuple[str, str]] = []  # (env_id/task_id, why the builder's wording stands)
        self.unavailable: str | None = None  # the endpoint error that stopped the asking

    @property
    def model(self) -> str:
        return self.client.settings.model

    def preflight(self) -> list[str]:
        """Fail now, with the reason, if the endpoint is unreachable or the key refused (awm.llm.client.ping)."""
        return self.client.ping()

    def rephrase(self, taskset: TaskSet) -> TaskSet:
        tasks = [task.model_copy(update={"instruction": self.instruction(taskset.env_id, task)})
                 for task in taskset.tasks]
        return taskset.model_copy(update={"tasks": tasks})

    def report(self, env_id: str) -> dict[str, object]:
        """What phrasing did to one environment's tasks: how many kept the builder's wording and why."""
        kept = [(key, why) for key, why in self.kept if key.startswith(f"{env_id}/")]
        report: dict[str, object] = {"phrasing_kept_original": len(kept)}
        if kept:
            report["phrasing_kept_why"] = "; ".join(f"{key.split('/', 1)[1]}: {why}" for key, why in kept)[:1000]
        return report

    def _keep(self, env_id: str, task: Task, why: str) -> str:
        self.kept.append((f"{env_id}/{task.task_id}", why))
        return task.instruction

    def instruction(self, env_id: str, task: Task) -> str:
        """The model's rewrite of one instruction, or the original after `attempts` rejected rewrites or an
        endpoint error."""
        if self.unavailable is not None:
            return self._keep(env_id, task, f"the endpoint failed earlier in this run: {self.unavailable}")
        feedback: list[str] = []
        domain = env_id.rsplit("__", 1)[0]
        for attempt in range(1, self.attempts + 1):
            messages = PHRASING.render(
                feedback=feedback,
                request=json_block("request", {"stage": "phrasing", "env_id": env_id, "task_id": task.task_id}),
                task=json_block("task", {"instruction": task.instruction, "kind": task.kind}))
            try:
                draft = self.client.complete(PHRASING.stage, messages, PhrasingDraft, PHRASING.schema_name,
                                             CallTags(run_id=self.run_id, domain=domain, env_id=env_id,
                                                      subject=task.task_id, attempt=attempt),
                                             check=lambda d: "; ".join(rewrite_problems(
                                                 task.instruction, " ".join(d.instruction.split()))) or None,
                                             answer_tokens=ANSWER_TOKENS["phrasing"])
            except RejectedOutputError as exc:  # a rewrite that lost or added a value (recorded as rejected)
                rewrite = " ".join(exc.output.instruction.split())
                self.rejected.append((f"{env_id}/{task.task_id}", rewrite, str(exc)))
                feedback.append(f"Your rewrite {rewrite!r} was rejected: {exc}. Keep every value exactly as written.")
                continue
            except LLMOutputError as exc:  # the model's answer: ask again with the reason
                self.rejected.append((f"{env_id}/{task.task_id}", "", str(exc)))
                feedback.append(f"Your answer could not be used: {exc}")
                continue
            except LLMError as exc:  # the endpoint's failure: keep the builder's wording, stop asking
                self.unavailable = " ".join(str(exc).split())[:300]
                return self._keep(env_id, task, f"{type(exc).__name__}: {self.unavailable}")
            rewrite = " ".join(draft.instruction.split())
            problems = rewrite_problems(task.instruction, rewrite)
            if not problems:
                return rewrite
            why = "; ".join(problems)
            self.rejected.append((f"{env_id}/{task.task_id}", rewrite, why))
            feedback.append(f"Your rewrite {rewrite!r} was rejected: {why}. Keep every value exactly as written.")
        return self._keep(env_id, task, f"{self.attempts} rewrites rejected, the last: "
                                        f"{self.rejected[-1][2][:200] if self.rejected else '?'}")
