"""What can be checked of an AWM-1K environment without a reference solution, and the tier a task earns.

Environment checks (each recorded in awm1k.json `checks`; any failing one quarantines the environment):
  schema_executes   every table's DDL and index runs on an empty SQLite database
  inserts_ok        every sample insert succeeds with foreign keys on (a failing table is recorded with its
                    statement and SQLite's error, and rolled back: awm/awm1k/database.py)
  routes_answer     every route of their app answers a smoke call (arguments from its schema's examples, else of
                    its types, on a fresh copy of the database) with a status below 500; a route that raises fails
Task checks (a task failing one is `failed` with the reason, never published):
  runs              their verify_task_completion runs and returns {"result": ...}
  deterministic     the same verdict twice on the same databases
  read_only         neither database copy changed (they are read-only files; their digests are compared)
  null_rejected     the unchanged database (initial = final, the null trajectory) is not judged complete
  clock_free        reported, not required: the verifier reads the clock (datetime.now, date('now'), ...) and may
                    judge the same databases differently tomorrow; so do inserts stating datetime('now')

A task whose checks pass is `checked`. `proven` needs a reference solution that passes it and the proofs our
own tasks get (mutants, outcome diff): their tasks carry none, so an import makes a task at most `checked`; a
candidate reference (an agent's trajectory their verifier accepts) can promote it later
(awm/awm1k/promotion.py). A task without a pure-code verifier is `unverified`.
"""

from __future__ import annotations

import re
from typing import Any

from awm.awm1k.runtime import ForeignCodeError, ForeignHost, Route, smoke_arguments
from awm.contracts import ForeignRoute, ForeignTask

OPTIONAL = ("description",)  # recorded when missing; the environment runs without it
VERIFIER_CLOCK = re.compile(r"\b(datetime\.(now|utcnow|today)|date\.today|time\.time|time\.localtime)\s*\(|"
                            r"'now'|CURRENT_(TIMESTAMP|DATE|TIME)\b", re.IGNORECASE)


def smoke_routes(host: ForeignHost, routes: list[Route]) -> list[ForeignRoute]:
    """One call per route, each on a fresh copy of the initial database."""
    results = []
    for route in routes:
        host.reset()
        try:
            answer = host.call_tool(route.tool, smoke_arguments(route))
        except ForeignCodeError as exc:
            results.append(ForeignRoute(tool=route.tool, method=route.method, path=route.path, answered=False,
                                        error=str(exc)[:500]))
            continue
        status = int(answer["status"])
        error = None
        if status >= 500:
            body = answer.get("body")
            error = (body.get("error") if isinstance(body, dict) else None) or str(body)[:500] or f"HTTP {status}"
        results.append(ForeignRoute(tool=route.tool, method=route.method, path=route.path, status=status,
                                    answered=status < 500, error=error))
    host.reset()
    return results


def check_task(host: ForeignHost, task_id: str, index: int, instruction: str, code: str | None) -> ForeignTask:
    """The task's verifier on the unchanged database, twice (the host's initial database is the environment's)."""
    task = ForeignTask(task_id=task_id, index=index, instruction=instruction, verifier=code, tier="unverified")
    if not code:
        task.reason = "no pure-code verifier in gen_verifier.pure_code.jsonl"
        return task
    first = host.verify(code, final="initial")
    second = host.verify(code, final="initial")
    checks: dict[str, bool] = {
        "runs": first["error"] is None and second["error"] is None,
        "deterministic": (first["verdict"], first["error"]) == (second["verdict"], second["error"]),
        "read_only": not first["wrote"] and not second["wrote"],
        "null_rejected": first["verdict"] != "complete" and second["verdict"] != "complete",
        "clock_free": VERIFIER_CLOCK.search(code) is None,
    }
    task.checks = checks
    failed = [name for name in ("runs", "deterministic", "read_only", "null_rejected") if not checks[name]]
    if failed:
        task.tier = "failed"
        detail = {"runs": first["error"] or second["error"],
                  "deterministic": f"verdicts {first['verdict']!r} then {second['verdict']!r}",
                  "read_only": "the verifier changed a database copy",
                  "null_rejected": "the unchanged database is judged complete (the null trajectory passes)"}
        task.reason = "; ".join(f"{name}: {detail[name]}" for name in failed)[:1000]
    else:
        task.tier = "checked"
        task.reason = "no reference solution: checked, not proven" + (
            "" if checks["clock_free"] else "; the verifier reads the clock")
    return task


def environment_checks(schema_errors: list[dict], insert_failures: list[dict], routes: list[ForeignRoute],
                       missing: list[str]) -> tuple[dict[str, Any], str | None]:
    """The environment's checks, and the reason it is quarantined (None when it is not)."""
    checks = {"schema_executes": not schema_errors, "schema_errors": schema_errors,
              "inserts_ok": not insert_failures, "insert_failures": insert_failures,
              "routes_answer": bool(routes) and all(r.answered for r in routes), "missing": missing}
    reasons = []
    needed = [m for m in missing if m not in OPTIONAL]
    if needed:
        reasons.append(f"missing from the dataset: {', '.join(needed)}")
    if schema_errors:
        e = schema_errors[0]
        reasons.append(f"schema_executes: {len(schema_errors)} DDL statement(s) failed, first of table {e['table']}: "
                       f"{e['error']}")
    if insert_failures:
        f = insert_failures[0]
        reasons.append(f"inserts_ok: {len(insert_failures)} table(s) failed their sample inserts ("
                       f"{', '.join(x['table'] for x in insert_failures)}), first {f['table']}: {f['error']} in "
                       f"{f['statement'][:300]}")
    broken = [r for r in routes if not r.answered]
    if broken:
        reasons.append(f"routes_answer: {len(broken)} route(s) failed a smoke call, first {broken[0].tool} "
                       f"({broken[0].method} {broken[0].path}): {broken[0].error}")
    return checks, ("; ".join(reasons)[:2000] or None)
