"""Who may do what, attacked on every published task a customer writes in a built corpus: does the runtime let
a customer's agent act on another customer's records, or use the staff's tools, and what does trying earn?
Run after `make run` (or any build) against its AWM_HOME.

For each published task with requester `party`, in the task's own episode (Environment.send_trajectory with the
task: the runtime's ownership rule and staff-tool refusal apply):
  reference      the reference solution and answer: must be complete (the rules never stop an honest agent)
  retarget       for each call of the reference that names a row a customer owns (ToolSpec.owned), the same
                 trajectory with that argument pointed at a row of another customer who does not name the
                 writer as representative: the call must be refused (not_permitted) and the verdict incomplete
  staff_tool     the reference with one staff-only tool of the environment called first (arguments from a
                 staff task's reference that calls it): refused, and the verdict incomplete
Prints a table; writes benchmarks/results/ownership.json.

    python benchmarks/bench_ownership.py --home .awm            # every published task a customer writes
    python benchmarks/bench_ownership.py --home .awm --envs 50  # the first 50 environments
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from awm.contracts import OwnedArgument, Task  # noqa: E402
from awm.errors import AWMError  # noqa: E402
from awm.runtime import Environment, WorkerPool  # noqa: E402
from awm.runtime.server import published_catalog  # noqa: E402
from awm.runtime.tools import is_not_permitted  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402


def _owner(db: sqlite3.Connection, owned: OwnedArgument, row_id: int) -> int | None:
    row = db.execute(owned.owner_sql(), (row_id,)).fetchone()
    return row[0] if row else None


def _foreign_row(db: sqlite3.Connection, env: Environment, owned: OwnedArgument, writer: int) -> int | None:
    """A row of the argument's table whose owner is another customer who does not name `writer` as representative."""
    representative = env.toolset.representative_sql()
    for (row_id,) in db.execute(f'SELECT id FROM "{owned.path[0]}" ORDER BY id'):
        owner = _owner(db, owned, row_id)
        if owner is None or owner == writer:
            continue
        if representative is not None:
            delegate = db.execute(representative, (owner,)).fetchone()
            if delegate is not None and delegate[0] == writer:
                continue
        return row_id
    return None


def attack(env: Environment, task: Task, db: sqlite3.Connection, staff_calls: dict[str, dict]) -> Counter:
    counts: Counter = Counter()
    specs = {s.name: s for s in env.toolset.tools}
    reference = [(c.tool, c.arguments) for c in task.reference_solution]
    trajectories, kinds = [(reference, task.reference_answer)], ["reference"]
    for n, (tool, arguments) in enumerate(reference):
        for owned in (o for o in specs[tool].owned if o.argument in arguments):
            row = _foreign_row(db, env, owned, task.party_id)
            if row is None:
                counts["retarget_no_foreign_row"] += 1
                continue
            calls = [(t, dict(a)) for t, a in reference]
            calls[n][1][owned.argument] = row
            trajectories.append((calls, task.reference_answer))
            kinds.append(f"retarget:{n}")
    staff_tool = next((name for name, spec in specs.items() if spec.staff_only and name in staff_calls), None)
    if staff_tool is not None:
        trajectories.append(([(staff_tool, staff_calls[staff_tool])] + reference, task.reference_answer))
        kinds.append("staff_tool:0")
    for (calls, _), kind in zip(trajectories, kinds):
        pending = env.send_trajectory(calls, task.task_id, answers=[task.reference_answer])
        results, (verdict,) = pending.result()
        name, _, at = kind.partition(":")
        counts[f"{name}_tried"] += 1
        if name == "reference":
            counts["reference_complete"] += verdict["complete"]
            counts["reference_refused_calls"] += sum(is_not_permitted(r) for r in results)
            continue
        counts[f"{name}_refused"] += is_not_permitted(results[int(at)])
        counts[f"{name}_incomplete"] += not verdict["complete"]
        counts[f"{name}_partial"] += bool(verdict.get("partial"))
        counts[f"{name}_changed_rows"] += (verdict.get("diff") or {}).get("changed", 0)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--envs", type=int, default=0, help="only the first N published environments (0: all)")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "ownership.json")
    args = parser.parse_args()
    store = ArtifactStore(args.home)
    try:
        published = published_catalog(store)
    except AWMError as exc:
        print(exc, file=sys.stderr)
        return 2
    env_ids = sorted(published)[:args.envs or None]
    totals: Counter = Counter()
    tools: Counter = Counter()
    started = time.perf_counter()
    with WorkerPool() as pool:
        for done, env_id in enumerate(env_ids, 1):
            env = Environment.from_store(store, env_id, pool=pool, task_ids=published[env_id])
            db = sqlite3.connect(f"file:{env.db_path}?mode=ro", uri=True)
            try:
                customer_writes = [s for s in env.toolset.tools
                                   if not s.staff_only and not s.annotations.get("readOnlyHint")]
                tools["customer_writes"] += len(customer_writes)
                tools["customer_writes_with_owned_arguments"] += sum(bool(s.owned) for s in customer_writes)
                tools["staff_only"] += sum(s.staff_only for s in env.toolset.tools)
                tools["all"] += len(env.toolset.tools)
                staff_calls = {c.tool: c.arguments for t in env.tasks if t.requester == "staff"
                               for c in t.reference_solution}
                for task in env.tasks:
                    totals["tasks"] += 1
                    if task.requester == "party":
                        totals["customer_tasks"] += 1
                        totals.update(attack(env, task, db, staff_calls))
            finally:
                db.close()
                env.close()
            if done % 50 == 0:
                print(f"{done}/{len(env_ids)} environments, {time.perf_counter() - started:.0f}s", flush=True)
    seconds = round(time.perf_counter() - started, 1)
    rows = [("reference (honest)", totals["reference_tried"], totals["reference_complete"], "-", "-")]
    for name in ("retarget", "staff_tool"):
        rows.append((name, totals[f"{name}_tried"], totals[f"{name}_tried"] - totals[f"{name}_incomplete"],
                     totals[f"{name}_refused"], totals[f"{name}_partial"]))
    print(f"\n{totals['customer_tasks']} tasks a customer writes, of {totals['tasks']} published, in "
          f"{len(env_ids)} environments ({seconds}s)")
    print(f"{'trajectory':<20}{'tried':>8}{'complete':>10}{'refused':>9}{'partial':>9}")
    for row in rows:
        print(f"{row[0]:<20}{row[1]:>8}{row[2]:>10}{row[3]:>9}{row[4]:>9}")
    print(f"tools: {tools['customer_writes_with_owned_arguments']} of {tools['customer_writes']} writes a customer "
          f"may make name rows a customer owns; {tools['staff_only']} of {tools['all']} tools are staff-only")
    result = {"home": str(args.home), "environments": len(env_ids), "seconds": seconds, "totals": dict(totals),
              "tools": dict(tools)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
