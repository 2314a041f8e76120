"""Agent evaluation in the generation lineage: agent_rollouts and evaluation_report, per domain x agent.

Both are partitioned by the `domain` x `agent` grid (awm_assets/partitions.py): the domain dimension is the
stage assets' own, so Dagster maps each cell to its domain's verification_reports, and a regenerated domain
shows its evaluations as stale; the agent dimension is the model name, one dynamic partition per model
(added by `awm eval` or in the Materialize dialog). Limits and k are run config (the launchpad), the
endpoint is the `agent` resource. The logic is in awm/eval; these functions only call it and describe it.
"""

import base64
import json
from collections import Counter

import dagster as dg
from pydantic import Field

from awm.domains import validate_domain_slug
from awm.errors import AWMError
from awm.eval.report import EvaluationSummary, charts_png, failed_rollouts_table, markdown_table, write_difficulty
from awm.eval.rollouts import EvalLimits, agent_dir, evaluate_domain, read_index, validate_agent_key
from awm.store import atomic_write_bytes, atomic_write_text
from awm_assets.constants import (
    AGENT_ROLLOUTS,
    EVALUATION_GROUP,
    EVALUATION_JOB,
    EVALUATION_REPORT,
    OWNERS,
    VERIFICATION_REPORTS,
)
from awm_assets.partitions import evaluation_partitions
from resources import ArtifactStoreResource
from resources.agent import AgentResource


class RolloutConfig(dg.Config):
    """Per run, in the launchpad: rollouts per task and the limits of each."""

    k: int = Field(default=1, ge=1, le=1000, description="rollouts per task")
    max_steps: int = Field(default=30, ge=1, le=1000, description="model turns per rollout")
    max_tokens: int = Field(default=200_000, ge=1, description="tokens over a rollout's model calls")
    wall_clock_s: float = Field(default=300.0, gt=0, description="seconds per rollout")
    seed: int = Field(default=0, description="seed of the first rollout of each task (then seed+1, ...)")

    def limits(self) -> EvalLimits:
        return EvalLimits(k=self.k, max_steps=self.max_steps, max_tokens=self.max_tokens,
                          wall_clock_s=self.wall_clock_s, seed=self.seed)


def partition_of(context: dg.AssetExecutionContext) -> tuple[str, str]:
    """(domain, agent) of the run's one partition, validated."""
    keys = context.partition_key.keys_by_dimension
    try:
        return validate_domain_slug(keys["domain"]), validate_agent_key(keys["agent"])
    except AWMError as exc:
        raise dg.Failure(description=f"partition {context.partition_key}: {exc}", allow_retries=False) from exc


@dg.asset(
    name=AGENT_ROLLOUTS,
    deps=[VERIFICATION_REPORTS],
    partitions_def=evaluation_partitions,
    group_name=EVALUATION_GROUP,
    owners=OWNERS,
    kinds={"python", "openai"},
    code_version="rollouts-1",
)
def agent_rollouts(context: dg.AssetExecutionContext, config: RolloutConfig, store: ArtifactStoreResource,
                   agent: AgentResource) -> dg.MaterializeResult:
    """k rollouts of the agent (the partition's model, behind the `agent` endpoint) on every published task
    of the domain, through the runtime's sandbox and scoring; each a JSONL trajectory under
    $AWM_HOME/evals/<agent>/<domain>/. Finished rollouts are reused (no model call); faults are failed
    rollouts with their reason."""
    domain, model = partition_of(context)
    st = store.store()

    def progress(result) -> None:
        store.report_progress(AGENT_ROLLOUTS, f"{result.env_id}/{result.task_id}/{result.sample}",
                              "passed" if result.passed else result.status)

    try:
        run = evaluate_domain(st, agent.settings(model), config.limits(), model, domain, on_result=progress)
    except AWMError as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from exc
    results = run.results
    reasons = Counter(r.reason.split(":", 1)[0] for r in results if r.reason)
    calls = sum(r.tool_calls for r in results)
    sample = [{"environment": r.env_id, "task": r.task_id, "sample": r.sample, "status": r.status,
               "reward": r.reward, "steps": r.steps, "tool calls": r.tool_calls, "reused": r.reused,
               "trajectory": r.path} for r in results[:20]]
    context.log.info(f"{domain} x {model}: {len(results)} rollouts, {sum(r.passed for r in results)} passed, "
                     f"{sum(r.model_calls for r in results)} model calls in {run.seconds:.1f}s")
    return dg.MaterializeResult(metadata={
        "rollouts": len(results),
        "tasks": len({(r.env_id, r.task_id) for r in results}),
        "k": config.k,
        "model": model,
        "endpoint": agent.base_url,
        "passed": sum(r.passed for r in results),
        "failed_rollouts": sum(r.status == "failed" for r in results),
        "failure_reasons": dg.MetadataValue.json(dict(reasons)),
        "model_calls": sum(r.model_calls for r in results),
        "cached_model_responses": sum(r.cache_hits for r in results),
        "reused_rollouts": sum(r.reused for r in results),
        "tool_calls": calls,
        "tokens": sum(r.prompt_tokens + r.completion_tokens for r in results),
        "seconds": round(run.seconds, 2),
        "skipped_environments": dg.MetadataValue.json(run.skipped_environments),
        "trajectories": dg.MetadataValue.path(str(agent_dir(st.home, model) / domain)),
        "sample": dg.MetadataValue.md(markdown_table(sample)),
        "dagster/row_count": len(results),
    })


class ReportConfig(dg.Config):
    k: int | None = Field(default=None, ge=1, description="pass@k's k (default: the k the rollouts were run with)")
    write_catalog: bool = Field(default=False, description="also set each task's difficulty on the corpus's own "
                                "catalog line (`awm eval --difficulty-to-catalog`); by default it is written only "
                                "to the evaluation's report.json, which `awm export` reads")


@dg.asset(
    name=EVALUATION_REPORT,
    deps=[AGENT_ROLLOUTS],
    partitions_def=evaluation_partitions,
    group_name=EVALUATION_GROUP,
    owners=OWNERS,
    kinds={"python", "json"},
    code_version="evaluation-report-1",
)
def evaluation_report(context: dg.AssetExecutionContext, config: ReportConfig,
                      store: ArtifactStoreResource) -> dg.MaterializeResult:
    """pass@1 and unbiased pass@k per domain, category, intent, kind and difficulty; averages of steps, tool
    errors and tokens; reward-hacking flags (rollouts with unexpected database changes); charts; each failed
    rollout with its trajectory. Writes report.json beside the trajectories, with each task's difficulty; onto
    the corpus's catalog only when asked (config write_catalog)."""
    domain, model = partition_of(context)
    st = store.store()
    try:
        limits, results, _ = read_index(st.home, model, domain)
    except AWMError as exc:
        raise dg.Failure(description=str(exc), allow_retries=False) from exc
    k = config.k or limits.k
    summary = EvaluationSummary.of(results, k)
    headline = summary.headline()
    breakdowns = {name: summary.breakdown(name) for name in ("category", "intent", "kind", "difficulty")}
    folder = agent_dir(st.home, model) / domain
    report = {"agent": model, "domain": domain, "limits": limits.model_dump(), **headline,
              "breakdowns": breakdowns,
              "tasks": [{"env_id": t.env_id, "task_id": t.task_id, "n": t.n, "c": t.c, "pass_rate": round(t.pass_rate, 4),
                         "difficulty": t.difficulty} for t in summary.tasks],
              "hacking": [{"env_id": r.env_id, "task_id": r.task_id, "sample": r.sample, "reward": r.reward,
                           "unexpected_changes": r.unexpected_changes, "trajectory": r.path} for r in summary.hacking]}
    atomic_write_text(folder / "report.json", json.dumps(report, indent=1))
    updated = write_difficulty(st, model, summary.tasks) if config.write_catalog else 0
    metadata = {key: value for key, value in headline.items() if isinstance(value, (int, float)) and value is not None}
    metadata.update({
        "outcomes": dg.MetadataValue.json(headline["outcomes"]),
        "by_category": dg.MetadataValue.md(markdown_table(breakdowns["category"])),
        "by_intent": dg.MetadataValue.md(markdown_table(breakdowns["intent"])),
        "by_kind": dg.MetadataValue.md(markdown_table(breakdowns["kind"])),
        "by_difficulty": dg.MetadataValue.md(markdown_table(breakdowns["difficulty"])),
        "hacking_table": dg.MetadataValue.md(markdown_table(report["hacking"][:200]) if report["hacking"]
                                                else "No rollout changed rows its task does not account for."),
        "failed_rollout_table": dg.MetadataValue.md(failed_rollouts_table(summary, str(st.home))),
        "difficulty_written": updated,
        "report_path": dg.MetadataValue.path(str(folder / "report.json")),
    })
    if results:
        chart = charts_png(summary)
        atomic_write_bytes(folder / "charts.png", chart)
        metadata["charts"] = dg.MetadataValue.md(
            f"![evaluation](data:image/png;base64,{base64.b64encode(chart).decode('ascii')})")
    return dg.MaterializeResult(metadata=metadata)


evaluation_job = dg.define_asset_job(
    EVALUATION_JOB,
    selection=dg.AssetSelection.assets(AGENT_ROLLOUTS, EVALUATION_REPORT),
    partitions_def=evaluation_partitions,
    executor_def=dg.in_process_executor,
    description="Rollouts of one agent on one domain's published tasks, then its evaluation report.",
)
