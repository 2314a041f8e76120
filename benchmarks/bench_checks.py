"""What the quality checks cost per environment, against the time to generate it (offline builder).

Passes over the same environments in one process, each a forced rebuild through the core stages:
  generation   the six stages with their quality gates switched off, no mutation testing and no
               determinism proof (the verification stage still replays each reference solution and
               null trajectory: that is how report.json is made; their time is also reported apart,
               with the share they would give if counted as checks)
  in-stage     the same with the gates on (each gate timed), mutation testing and the determinism proof
  asset checks the functions the Dagster asset checks run, on the artifacts of the second pass
Checks per environment = gates + the verification stage's extra time (mutations, determinism)
+ asset checks. One-time costs (importing great-expectations, starting the sandbox worker pool) are
paid by a warm-up environment and reported apart. The three passes alternate domain by domain, for
--rounds rounds; each figure is the median over rounds, since a single pass on a 2-core machine
moves by 10-20%. Prints a table; writes benchmarks/results/checks.json.

    python benchmarks/bench_checks.py                  # 4 domains x 10 scenarios (the corpus's shape)
    python benchmarks/bench_checks.py --domains 10 --slots 2
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import awm.stages.databases as databases_stage  # noqa: E402
import awm.stages.scenarios as scenarios_stage  # noqa: E402
import awm.stages.tasks as tasks_stage  # noqa: E402
import awm.stages.tools as tools_stage  # noqa: E402
import awm.stages.verification_reports as verification_stage  # noqa: E402
from awm.backends import get_backend  # noqa: E402
from awm.builder.catalogue import DOMAIN_SEEDS  # noqa: E402
from awm.contracts import Scenario, SchemaSpec, TaskSet, VerificationReport, VerifierSet  # noqa: E402
from awm.domains import env_id_for  # noqa: E402
from awm.quality.databases import _gx, ddl_clock_findings, rebuild_findings, suites_pass_together  # noqa: E402
from awm.quality.scenarios import domain_duplicate_findings, scenario_identity_findings  # noqa: E402
from awm.quality.schemas import schema_findings  # noqa: E402
from awm.quality.tasks import task_findings  # noqa: E402
from awm.quality.tools import _schema_problem  # noqa: E402
from awm.quality.verification_reports import VerificationTotals, report_findings  # noqa: E402
from awm.runtime import pool, sandbox  # noqa: E402
from awm.runtime.environment import Environment  # noqa: E402
from awm.stages.pipeline import build_environment  # noqa: E402
from awm.store import ArtifactStore  # noqa: E402
from checks.tools import inspect_tools  # noqa: E402

GATES = {scenarios_stage: "gate_scenario", tasks_stage: "gate_tasks", databases_stage: "gate_database",
         tools_stage: "gate_tools"}


@contextmanager
def gates(mode: str, timings: dict[str, float]):
    """mode 'off': the stages' quality gates do nothing, no mutation is built and the reference's final
    state is judged once (no determinism proof); 'timed': everything runs, the gates timed."""
    saved = {module: getattr(module, name) for module, name in GATES.items()}
    saved_mutations = verification_stage.Mutator.mutations
    saved_after = verification_stage.Mutator.after_reference
    saved_send = Environment.send_trajectory

    def judged_once(self, calls, task_id=None, answers=(), checkpoints=(), footprint=None, branches=()):
        if len(answers) < 2:  # [answer, answer]: judged once
            return saved_send(self, calls, task_id, answers, checkpoints, footprint, branches)
        pending = saved_send(self, calls, task_id, answers[:1], checkpoints, footprint, branches)
        wait = pending.result
        pending.result = lambda: (lambda results, verdicts: (results, verdicts * len(answers)))(*wait())
        return pending
    try:
        for module, name in GATES.items():
            original = saved[module]
            if mode == "off":
                setattr(module, name, lambda *args, **kwargs: None)
            else:
                def timed(*args, _fn=original, _name=name, **kwargs):
                    started = time.perf_counter()
                    try:
                        return _fn(*args, **kwargs)
                    finally:
                        timings[_name] += (time.perf_counter() - started) * 1000
                setattr(module, name, timed)
        if mode == "off":
            verification_stage.Mutator.mutations = lambda *args: []
            verification_stage.Mutator.after_reference = lambda *args: []
            Environment.send_trajectory = judged_once
        yield
    finally:
        for module, name in GATES.items():
            setattr(module, name, saved[module])
        verification_stage.Mutator.mutations = saved_mutations
        verification_stage.Mutator.after_reference = saved_after
        Environment.send_trajectory = saved_send


def cold_start() -> None:
    """What a Dagster run of one domain starts with: nothing compiled yet, sandbox workers that have
    loaded no verifier. (A pass must not find what the pass before it compiled for the same sources.)
    The new workers are started here, outside the timings."""
    sandbox._compiled.clear()
    pool.compiled_program.cache_clear()
    _schema_problem.cache_clear()
    pool.default_pool().close()
    pool.default_pool().start()


def add(total: dict[str, float], more: dict[str, float]) -> None:
    for key, value in more.items():
        total[key] += value


def build_all(store: ArtifactStore, domains: list[str], slots: int) -> dict[str, float]:
    """Per stage, the milliseconds it took; under "proofs", the verification stage's replays alone."""
    per_stage: dict[str, float] = defaultdict(float)
    for domain in domains:
        for slot in range(slots):
            for outcome in build_environment(store, domain, slot, force=True):
                if not outcome.ok:
                    raise SystemExit(f"{outcome.env_id} {outcome.stage} failed: {outcome.error}")
                per_stage[outcome.stage] += outcome.duration_ms
                per_stage["proofs"] += outcome.metrics.get("proof_ms", 0.0)
    return per_stage


def scenario_check(scenarios: list[Scenario], env_ids: list[str]) -> list:
    return [f for s, e in zip(scenarios, env_ids) for f in scenario_identity_findings(s, e)] + \
        domain_duplicate_findings(scenarios)


def asset_checks(store: ArtifactStore, domains: list[str], slots: int) -> dict[str, float]:
    """Time what each asset check runs, per environment (the domain-wide duplicate scan per domain)."""
    backend = get_backend()
    spent: dict[str, float] = defaultdict(float)

    def timed(name, fn, *args):
        started = time.perf_counter()
        result = fn(*args)
        spent[name] += (time.perf_counter() - started) * 1000
        return result

    for domain in domains:
        env_ids = [env_id_for(domain, slot) for slot in range(slots)]
        scenarios = [store.read_model(e, "scenario.json", Scenario) for e in env_ids]
        timed("scenarios_valid", scenario_check, scenarios, env_ids)
        # as databases_valid does: the partition's databases in one great-expectations validation
        batch = [(e, store.database_path(e), store.read_model(e, "schema.json", SchemaSpec)) for e in env_ids]
        assert timed("databases_valid (great-expectations)", suites_pass_together, batch)[0]
        for env_id in env_ids:
            tasks = store.read_model(env_id, "tasks.json", TaskSet)
            spec = store.read_model(env_id, "schema.json", SchemaSpec)
            assert not timed("tasks_valid", task_findings, tasks, env_id, 10)
            assert not timed("schemas_valid", schema_findings, spec, store.read_text(env_id, "schema.sql"))
            if env_id == env_ids[0]:  # as the check does: one rebuild per domain, a DDL scan for every one
                assert not timed("databases_valid (clock)", rebuild_findings, store, env_id, backend)
            else:
                assert not timed("databases_valid (clock)", ddl_clock_findings, env_id,
                                 store.read_text(env_id, "schema.sql"))
            # as tools_valid does: static rules always, smoke calls unless the gate's provenance vouches
            assert not timed("tools_valid", inspect_tools, store, [env_id])
            assert not timed("verification_reports_valid", report_findings, env_id,
                             store.read_model(env_id, "report.json", VerificationReport), tasks,
                             store.read_model(env_id, "verifiers.json", VerifierSet))
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--domains", type=int, default=4)
    parser.add_argument("--slots", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=5, help="passes of each kind, alternating; medians reported")
    args = parser.parse_args(argv)
    domains = list(DOMAIN_SEEDS)[1:args.domains + 1]
    n = len(domains) * args.slots
    with tempfile.TemporaryDirectory() as home:
        store = ArtifactStore(home)
        started = time.perf_counter()
        _gx()  # importing great-expectations: once per process
        ge_import_s = time.perf_counter() - started
        started = time.perf_counter()
        build_environment(store, list(DOMAIN_SEEDS)[0], 0)  # warm-up: the sandbox worker pool starts
        asset_checks(store, [list(DOMAIN_SEEDS)[0]], 1)
        warmup_s = time.perf_counter() - started

        rounds = []
        for number in range(1, args.rounds + 1):
            gate_ms: dict[str, float] = defaultdict(float)
            generation, with_checks, checks = defaultdict(float), defaultdict(float), defaultdict(float)
            for domain in domains:  # the passes alternate per domain (~2 s), so a slow spell hits both alike
                cold_start()
                with gates("off", gate_ms):
                    add(generation, build_all(store, [domain], args.slots))
                cold_start()
                with gates("timed", gate_ms):
                    add(with_checks, build_all(store, [domain], args.slots))
                add(checks, asset_checks(store, [domain], args.slots))
            proofs = generation.pop("proofs")
            with_checks.pop("proofs")
            rounds.append(measured := {
                "generation_ms": sum(generation.values()) / n,
                "proofs_ms": proofs / n,
                "by_stage": {k: v / n for k, v in generation.items()},
                "gates": {k: v / n for k, v in gate_ms.items()},
                "proof_extra_ms": (with_checks["verification_reports"] - generation["verification_reports"]) / n,
                "checks": {k: v / n for k, v in checks.items()}})
            measured["total_ms"] = (sum(measured["gates"].values()) + measured["proof_extra_ms"]
                                    + sum(measured["checks"].values()))
            print(f"  round {number}: generation {measured['generation_ms']:.1f} ms/env, checks "
                  f"{measured['total_ms']:.1f} ms/env = {measured['total_ms'] / measured['generation_ms']:.0%}",
                  flush=True)
        reports = [store.read_model(env_id_for(d, s), "report.json", VerificationReport)
                   for d in domains for s in range(args.slots)]

    def middle(pick) -> float:
        return statistics.median(pick(r) for r in rounds)

    generation_ms = middle(lambda r: r["generation_ms"])
    generation = {k: middle(lambda r, k=k: r["by_stage"][k]) for k in rounds[0]["by_stage"]}
    gates_ms = {k: middle(lambda r, k=k: r["gates"][k]) for k in rounds[0]["gates"]}
    proof_extra_ms = middle(lambda r: r["proof_extra_ms"])
    checks_ms = {k: middle(lambda r, k=k: r["checks"][k]) for k in rounds[0]["checks"]}
    total_ms = sum(gates_ms.values()) + proof_extra_ms + sum(checks_ms.values())
    shares = [r["total_ms"] / r["generation_ms"] for r in rounds]
    # The stricter accounting: the verification stage's replays of every reference solution and null
    # trajectory (how report.json is made) counted as checks too, and taken out of generation.
    proofs_ms = middle(lambda r: r["proofs_ms"])
    strict_share = (total_ms + proofs_ms) / (generation_ms - proofs_ms)
    totals = VerificationTotals.of(t for r in reports for t in r.tasks)
    result = {
        "environments": n,
        "domains": domains,
        "generation_ms_per_env": round(generation_ms, 1),
        "rounds": len(rounds),
        "generation_ms_per_env_by_stage": {k: round(v, 1) for k, v in generation.items()},
        "checks_ms_per_env": round(total_ms, 1),
        "checks_share_of_generation": round(total_ms / generation_ms, 3),
        "checks_share_per_round": [round(x, 3) for x in shares],
        "reference_and_null_replays_ms_per_env": round(proofs_ms, 1),
        "share_if_those_replays_counted_as_checks": round(strict_share, 3),
        "target_share": 0.5,
        "in_stage_gates_ms_per_env": {k: round(v, 1) for k, v in gates_ms.items()},
        "verification_extra_ms_per_env (mutations, determinism)": round(proof_extra_ms, 1),
        "asset_checks_ms_per_env": {k: round(v, 1) for k, v in checks_ms.items()},
        "one_time": {"great_expectations_import_s": round(ge_import_s, 2), "warmup_env_s": round(warmup_s, 2)},
        "tasks": totals.tasks,
        "publishable_tasks": totals.publishable,
        "mutations_tried": totals.mutations_tried,
        "mutations_killed": totals.mutations_killed,
        "mutation_kill_rate": round(totals.kill_rate, 4) if totals.mutations_tried else None,
        "proofs_by_class": totals.proofs,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform(),
                    "load_average_1m_at_end": round(os.getloadavg()[0], 2)},
    }
    print(f"{n} environments ({len(domains)} domains x {args.slots}), offline builder, one process; "
          f"medians of {len(rounds)} rounds")
    print(f"  generation (six stages, gates off, no mutations) {generation_ms:8.1f} ms/env")
    for name, ms in gates_ms.items():
        print(f"  in-stage {name:<38} {ms:8.1f} ms/env")
    print(f"  verification extra (mutations, determinism)      {proof_extra_ms:8.1f} ms/env")
    for name, ms in checks_ms.items():
        print(f"  asset check {name:<35} {ms:8.1f} ms/env")
    print(f"  all checks                                        {total_ms:8.1f} ms/env = "
          f"{total_ms / generation_ms:.0%} of generation (target <= 50%)")
    print(f"  (the verification stage's reference and null replays, {proofs_ms:.1f} ms/env, are generation here: "
          f"counted as checks instead, {total_ms + proofs_ms:.0f} ms/env = {strict_share:.0%} of the rest)")
    print(f"  one-time: great-expectations import {ge_import_s:.1f} s, warm-up environment {warmup_s:.1f} s")
    print(f"  tasks {totals.tasks}, publishable {totals.publishable}, mutations killed {totals.mutations_killed}/"
          f"{totals.mutations_tried}")
    out = ROOT / "benchmarks" / "results" / "checks.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    from awm.store import atomic_write_text

    atomic_write_text(out, json.dumps(result, indent=2) + "\n")
    print(f"wrote {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
