"""Policies that do not do the task, scored on every published task of a built corpus: what reward can a
policy earn without the work? Run after `make run` (or any build) against its AWM_HOME.

Policies (each judged with the task's own verifier and the runtime's outcome check):
  nothing            no call, no answer: the baseline
  dump               no call, every count and amount up to 400 as the answer
  refusal            no call, one refusal naming every common blocking word, for every request
  dump+refusal       no call, the refusal followed by the dump
  typed_guess        no call, a fixed typed submission: 0 for a count, 0.00 for an amount, the reference
                     date for a date, the first value of a status's or a rule's closed set, "none" for a name
  typed_prior        no call, per slot the value most often expected for its type and role (refusal or not)
                     over the whole corpus: the best a policy that learnt the corpus's answers, not the
                     worlds, can do
  call_guess         the reference's first call (a lookup, made so the answer is not given with no call),
                     then the typed guess: the base rate of a guess once a call is made
  call_prior         the reference's first call, then the typed prior
  work_no_answer     the reference solution's calls, no answer (what the real work alone earns)
  work_dump          the reference solution's calls, the dump in place of the answer
  work_fixed_rule    on a refusal with a rule slot: the reference solution's calls and the right blocking fact,
                     with the rule most often expected over the corpus (a policy that finds the fact and refuses
                     every request for the same rule): the base rate of one rule
Per policy: tasks at reward 1 (complete), partial verdicts, and mean reward under the paper's mapping
(complete 1, partial 0.1) and with partial credit off (RewardMapping(partial=0)). A task that expects an answer
is complete only after a successful tool call, so every no-call policy earns 0; a policy that makes one call
and guesses earns nothing beyond the tasks whose guess happens to be right (the base rate of a guess).
Prints a table; writes benchmarks/results/blind_policies.json.

    python benchmarks/bench_blind_policies.py --home .awm            # every published task
    python benchmarks/bench_blind_policies.py --home .awm --envs 50  # the first 50 environments
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm import artifacts  # noqa: E402
from awm.builder.clock import REFERENCE_NOW  # noqa: E402
from awm.contracts import Task  # noqa: E402
from awm.quality.mutations import BLIND_DUMP, UNIVERSAL_REFUSAL  # noqa: E402
from awm.runtime import Environment, WorkerPool  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402

POLICIES = ("nothing", "dump", "refusal", "dump+refusal", "typed_guess", "typed_prior", "call_guess", "call_prior",
            "work_no_answer", "work_dump", "work_fixed_rule")


def typed_guess(task: Task) -> dict | None:
    guesses = {"count": 0, "amount": 0.0, "date": REFERENCE_NOW.date().isoformat(), "name": "none",
               "boolean": False}
    schema = task.answer_schema
    if not schema:
        return None
    return {s.name: (s.values or ["none"])[0] if s.type in ("status", "rule") else guesses[s.type] for s in schema}


def priors(tasks: list[Task]) -> dict[tuple[str, bool], object]:
    """The value most often expected per (slot type, refusal) over `tasks`."""
    seen: dict[tuple[str, bool], Counter] = defaultdict(Counter)
    for task in tasks:
        answers = [g for g in task.goals if g.kind == "answer"]
        for slot, goal in zip(task.answer_schema, answers):
            seen[(slot.type, slot.refusal)][json.dumps(goal.expect["value"])] += 1
    return {key: json.loads(counts.most_common(1)[0][0]) for key, counts in seen.items()}


def trajectories(task: Task, prior: dict) -> dict[str, tuple[list, object]]:
    work = [(c.tool, c.arguments) for c in task.reference_solution]
    guess = typed_guess(task)
    chosen = {"nothing": ([], None), "dump": ([], BLIND_DUMP), "refusal": ([], UNIVERSAL_REFUSAL),
              "dump+refusal": ([], f"{UNIVERSAL_REFUSAL} {BLIND_DUMP}"), "work_no_answer": (work, None),
              "work_dump": (work, BLIND_DUMP)}
    if guess is not None:
        chosen["typed_guess"] = ([], json.dumps(guess))
        prior_answer = json.dumps({s.name: prior[(s.type, s.refusal)] for s in task.answer_schema})
        chosen["typed_prior"] = ([], prior_answer)
        chosen["call_guess"] = (work[:1], json.dumps(guess))
        chosen["call_prior"] = (work[:1], prior_answer)
    rules = [s.name for s in task.answer_schema if s.type == "rule"]
    if rules:
        answers = [g for g in task.goals if g.kind == "answer"]
        right = {s.name: g.expect["value"] for s, g in zip(task.answer_schema, answers)}
        chosen["work_fixed_rule"] = (work, json.dumps({**right, **{r: prior[("rule", False)] for r in rules}}))
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", type=Path, default=Path(".awm"), help="AWM_HOME of a built corpus")
    parser.add_argument("--envs", type=int, default=0, help="only the first N published environments (0: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "blind_policies.json")
    args = parser.parse_args()
    store = ArtifactStore(args.home)
    published: dict[str, list[str]] = defaultdict(list)
    for entry in store.iter_catalog():
        published[entry["env_id"]].append(entry["task_id"])
    env_ids = sorted(published)[:args.envs or None]
    complete, partial, tried = Counter(), Counter(), Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    answer_tasks = rule_tasks = 0
    started = time.perf_counter()
    everything = [t for env_id in env_ids for t in artifacts.TASKS.read(store, env_id).tasks
                  if t.task_id in published[env_id]]
    prior = priors(everything)
    with WorkerPool() as pool:
        for n, env_id in enumerate(env_ids, 1):
            env = Environment.from_store(store, env_id, pool=pool, task_ids=published[env_id])
            pending = []
            for task in env.tasks:
                answer_tasks += bool(task.answer_schema)
                rule_tasks += any(s.type == "rule" for s in task.answer_schema)
                for policy, (calls, answer) in trajectories(task, prior).items():
                    pending.append((task, policy, env.send_trajectory(calls, task.task_id, [answer])))
            for task, policy, trajectory in pending:
                verdict = trajectory.result()[1][0]
                tried[policy] += 1
                complete[policy] += verdict["complete"]
                partial[policy] += bool(verdict.get("partial"))
                if verdict["complete"] and task.answer_schema and len(examples[policy]) < 5:
                    examples[policy].append(f"{env_id}/{task.task_id}: {task.instruction[:120]}")
            env.close()
            if n % 50 == 0 or n == len(env_ids):
                print(f"  {n}/{len(env_ids)} environments, {time.perf_counter() - started:.0f} s", flush=True)
    rows = {}
    print(f"\n{sum(len(published[e]) for e in env_ids)} tasks of {len(env_ids)} environments "
          f"({answer_tasks} expect an answer, {rule_tasks} of them a refusal naming its rule)\n")
    print(f"{'policy':16s} {'tasks':>7s} {'reward 1':>9s} {'partial':>8s} {'mean (0.1)':>11s} {'mean (0)':>9s}")
    for policy in POLICIES:
        if not tried[policy]:
            continue
        mean = (complete[policy] + 0.1 * partial[policy]) / tried[policy]
        rows[policy] = {"tasks": tried[policy], "complete": complete[policy], "partial": partial[policy],
                        "mean_reward_partial_0.1": round(mean, 5),
                        "mean_reward_partial_0": round(complete[policy] / tried[policy], 5),
                        "examples": examples.get(policy, [])}
        print(f"{policy:16s} {tried[policy]:7d} {complete[policy]:9d} {partial[policy]:8d} {mean:11.4f} "
              f"{complete[policy] / tried[policy]:9.4f}")
    result = {"home": str(args.home), "environments": len(env_ids), "answer_tasks": answer_tasks, "rule_tasks": rule_tasks,
              "priors": {f"{kind}{' (refusal)' if refusal else ''}": value for (kind, refusal), value in prior.items()},
              "seconds": round(time.perf_counter() - started, 1), "policies": rows}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
