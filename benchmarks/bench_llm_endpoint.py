"""One domain through the LLM path against an endpoint, as a user runs it: what each stage asked and got.

Materializes the scenarios and tasks assets through Dagster (one domain, one scenario, the LLM backend), then
builds the same domain with the offline builder and model phrasing (AWM_TASK_PHRASING=model), and reports per
stage: HTTP requests and their statuses and structured-output modes (from the server's request log when the
server is `awm llm-serve`, else from the ledger), Dagster retries, tokens, wall time, and what was built.

With no --base-url it starts `awm llm-serve` on 127.0.0.1 (`--emulate llama-cpp-python` to answer as that
server does, `--fault` to inject faults), so the numbers of a real server's behaviour can be reproduced:

    python benchmarks/bench_llm_endpoint.py --emulate llama-cpp-python --profile openai
    python benchmarks/bench_llm_endpoint.py --emulate llama-cpp-python --fault http_500:tasks:always
    python benchmarks/bench_llm_endpoint.py --base-url http://127.0.0.1:8080/v1 --model qwen --tasks-per-env 3

Writes benchmarks/results/llm_endpoint.json (or --out).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def start_server(args) -> tuple[subprocess.Popen, str]:
    command = [sys.executable, "-m", "awm.cli", "llm-serve", "--port", "0"]
    if args.emulate:
        command += ["--emulate", args.emulate]
    for fault in args.fault:
        command += ["--fault", fault]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    match = re.search(r"on (http://127\.0\.0\.1:\d+/v1)", proc.stdout.readline())
    if not match:
        proc.kill()
        raise SystemExit(f"awm llm-serve did not start: {proc.stderr.read()[-2000:]}")
    return proc, match.group(1)


def served(url: str) -> list[dict] | None:
    """The request log of `awm llm-serve` (None for another server)."""
    try:
        with urllib.request.urlopen(url.removesuffix("/v1") + "/_awm/requests", timeout=5) as response:
            return json.loads(response.read())
    except (OSError, ValueError):
        return None


def requests_by_stage(log: list[dict] | None, since: int) -> dict:
    if log is None:
        return {}
    table: dict[str, dict] = {}
    for entry in log[since:]:
        row = table.setdefault(entry["stage"], {"requests": 0, "statuses": Counter(), "modes": Counter()})
        row["requests"] += 1
        row["statuses"][str(entry["status"])] += 1
        row["modes"][entry.get("mode") or entry.get("response_format") or "none"] += 1
    return {stage: {"requests": r["requests"], "statuses": dict(r["statuses"]), "modes": dict(r["modes"])}
            for stage, r in table.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base-url", default=None, help="an OpenAI-compatible endpoint (default: start llm-serve)")
    parser.add_argument("--model", default="awm-offline")
    parser.add_argument("--profile", default=None, help="AWM_LLM_PROFILE (default: the environment's, else auto)")
    parser.add_argument("--emulate", default=None, help="llm-serve --emulate (with no --base-url)")
    parser.add_argument("--fault", action="append", default=[], help="llm-serve --fault (with no --base-url)")
    parser.add_argument("--domain", default="bakery")
    parser.add_argument("--tasks-per-env", type=int, default=10)
    parser.add_argument("--no-phrasing", action="store_true", help="skip the phrasing part")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "llm_endpoint.json"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.environ.setdefault("OPENAI_API_KEY", "bench")
    os.environ["AWM_LLM_BACKOFF"] = os.environ.get("AWM_LLM_BACKOFF", "0.05")

    import dagster as dg

    from awm.backends import get_backend
    from awm.stages.pipeline import build_environment
    from awm.store import ArtifactStore
    from awm_assets.scenarios import scenarios
    from awm_assets.tasks import tasks
    from resources import ArtifactStoreResource, GeneratorResource, LLMResource

    proc = None
    url = args.base_url
    if url is None:
        proc, url = start_server(args)
    report: dict = {"endpoint": "llm-serve" if proc else url, "emulate": args.emulate, "faults": args.fault,
                    "model": args.model, "profile": args.profile, "domain": args.domain,
                    "tasks_per_env": args.tasks_per_env}
    try:
        with tempfile.TemporaryDirectory(prefix="awm-bench-endpoint-") as tmp:
            home = Path(tmp) / "home"
            llm = {"base_url": url, "model": args.model, "backoff_s": 0.05}
            if args.profile:
                llm["profile"] = args.profile
            resources = {"store": ArtifactStoreResource(home=str(home)), "generator": GeneratorResource(
                backend="openai", slots=1, retry_delay_s=0.01, tasks_per_env=args.tasks_per_env,
                llm=LLMResource(**llm))}
            started = time.perf_counter()
            with dg.instance_for_test() as instance:
                instance.add_dynamic_partitions("domains", [args.domain])
                run = dg.materialize([scenarios, tasks], partition_key=args.domain, instance=instance,
                                     resources=resources, raise_on_error=False,
                                     run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}})
            seconds = time.perf_counter() - started
            retries = Counter(e.step_key for e in run.all_events if e.event_type_value == "STEP_UP_FOR_RETRY")
            failure = next((e.step_failure_data.user_failure_data.description for e in run.all_events
                            if e.event_type_value == "STEP_FAILURE" and e.step_failure_data.user_failure_data),
                           None)
            store = ArtifactStore(home)
            env_id = f"{args.domain}__00"
            stages = {}
            for asset in ("scenarios", "tasks"):
                mats = run.asset_materializations_for_node(asset)
                meta = {k: v.value for k, v in mats[-1].metadata.items()} if mats else {}
                stages[asset] = {"materialized": bool(mats), "dagster_retries": retries.get(asset, 0),
                                 **{k: meta[k] for k in ("built", "failed", "attempt", "llm_api_calls",
                                                         "llm_prompt_tokens", "llm_completion_tokens",
                                                         "llm_requests", "llm_structured_output_modes")
                                    if k in meta}}
            log = served(url)
            report["dagster"] = {"success": run.success, "seconds": round(seconds, 2), "failure": failure,
                                 "stages": stages, "requests": requests_by_stage(log, 0),
                                 "tasks_built": len(json.loads(store.path(env_id, "tasks.json").read_text())["tasks"])
                                 if store.exists(env_id, "tasks.json") else 0}
            if not args.no_phrasing:
                since = len(log) if log is not None else 0
                os.environ.update({"AWM_TASK_PHRASING": "model", "OPENAI_BASE_URL": url, "AWM_LLM_MODEL": args.model,
                                   "AWM_HOME": str(home)})
                if args.profile:
                    os.environ["AWM_LLM_PROFILE"] = args.profile
                phrased = ArtifactStore(Path(tmp) / "phrased")
                started = time.perf_counter()
                try:
                    backend = get_backend("offline", tasks_per_env=args.tasks_per_env)
                    outcomes = build_environment(phrased, args.domain, 0, backend=backend)
                    error = None
                except Exception as exc:  # noqa: BLE001 - what a user would see, reported
                    outcomes, error = [], f"{type(exc).__name__}: {exc}"
                built = {o.stage: o.status for o in outcomes}
                metrics = phrased.provenance(env_id)["tasks"].metrics if built.get("tasks") == "built" else {}
                report["phrasing"] = {
                    "seconds": round(time.perf_counter() - started, 2), "error": error, "stages": built,
                    "kept_original": metrics.get("phrasing_kept_original"),
                    "kept_why": metrics.get("phrasing_kept_why"),
                    "requests": requests_by_stage(served(url), since).get("phrasing")}
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp_out = out.with_suffix(".tmp")
    tmp_out.write_text(json.dumps(report, indent=2, default=str) + "\n")
    tmp_out.replace(out)
    print(json.dumps(report, indent=2, default=str))


if __name__ == "__main__":
    main()
