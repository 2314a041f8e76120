"""How a stage asset runs: loop over the run's domains and their environments, call the core
stage for each, isolate failures, and describe the result as materialization metadata.

Self-correction: with a non-deterministic backend, environments whose output a stage
rejected are tried again by a Dagster retry (dg.RetryRequested, exponential backoff from the
generator resource's retry_delay_s), up to MAX_ATTEMPTS; valid environments are reused, and each
new attempt's prompt carries the environment's earlier errors (the attempt log, awm.stages.base).
Only failures of the output ask for a retry: an endpoint failure (refused request, 5xx, timeout, no
connection) was already retried by the LLM client, so a step whose failures are all of that kind is not
retried by Dagster (the requests would multiply) and its message says what to change.
After the last attempt the failed environments stay failed with their reason; a partition where every
environment failed is still materialized (its metadata says why, its yield check is an ERROR), so a failed
domain never stops a run's others and its checks run; only a platform fault fails the step. Model-backed
steps build environments concurrently (the generator's llm.concurrency) and report calls, cache hits,
tokens and cost.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import dagster as dg

from awm.concurrency import STAGE_WORK
from awm.domains import env_id_for, split_env_id, validate_domain_slug
from awm.errors import InvalidDomainError
from awm.registry import Stage
from awm.runtime.pool import default_pool_report
from awm.stages.base import StageOutcome, code_version, read_attempts
from awm.store import ArtifactStore
from awm_assets.partitions import MAX_ATTEMPTS
from resources import ArtifactStoreResource, GeneratorResource

PreviewFn = Callable[[ArtifactStore, list[StageOutcome]], str]


class StageRetry(Exception):
    """Some environments got invalid output this attempt; the retry policy will try them again."""


def run_domains(context: dg.AssetExecutionContext) -> list[str]:
    domains = list(context.partition_keys)
    for domain in domains:
        try:
            validate_domain_slug(domain)
        except InvalidDomainError as exc:
            raise dg.Failure(
                description=f"partition key {domain!r} is not a valid domain: {exc}. Delete this partition "
                "(Partitions tab) and add a valid slug to the seeds file.",
                allow_retries=False,
            ) from exc
    return domains


def build_environments(context: dg.AssetExecutionContext, store_resource: ArtifactStoreResource, spec: Stage,
                       store: ArtifactStore, backend, domains: list[str], slots: int,
                       concurrency: int) -> list[StageOutcome]:
    """Every environment of the run's domains, in order; up to `concurrency` at once. A stage declared
    in_slot_order (scenarios: each prompt lists the domain's earlier scenarios to avoid) builds a domain's
    environments one after the other, domains in parallel; other stages build every environment in parallel."""
    stage = spec.name
    build = spec.build

    def one(domain: str, slot: int) -> StageOutcome:
        if concurrency <= 1:
            return build(store, env_id_for(domain, slot), backend)
        with STAGE_WORK.held():  # stage work in turns; model calls overlap (the client lets go meanwhile)
            return build(store, env_id_for(domain, slot), backend)

    def finished(outcome: StageOutcome) -> StageOutcome:
        if outcome.status == "failed":
            context.log.warning(f"{stage}: {outcome.env_id} failed (attempt {outcome.attempt}): {outcome.error}")
        store_resource.report_progress(stage, outcome.env_id, outcome.status)
        return outcome

    if concurrency <= 1:
        return [finished(one(domain, slot)) for domain in domains for slot in range(slots)]
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"awm-{stage}") as pool:
        if spec.in_slot_order:
            jobs = [pool.submit(lambda d=domain: [one(d, slot) for slot in range(slots)]) for domain in domains]
            return [finished(o) for job in jobs for o in job.result()]
        jobs = [pool.submit(one, domain, slot) for domain in domains for slot in range(slots)]
        return [finished(job.result()) for job in jobs]


def run_stage(
    context: dg.AssetExecutionContext,
    store_resource: ArtifactStoreResource,
    generator: GeneratorResource,
    spec: Stage,
    preview: PreviewFn,
) -> dg.MaterializeResult:
    stage = spec.name
    started = time.perf_counter()
    store = store_resource.store()
    domains = run_domains(context)
    backend = generator.get(store=store, run_id=context.run_id)
    try:
        outcomes = build_environments(context, store_resource, spec, store, backend, domains,
                                      generator.slots, generator.concurrency)
    finally:
        close = getattr(backend, "close", None)
        if callable(close):
            close()
    attempt = context.retry_number + 1
    if attempt > 1:
        outcomes = credit_earlier_attempts(store, stage, outcomes, backend)
    failed = [o for o in outcomes if o.status == "failed"]
    if failed and not generator.deterministic:
        listing = "; ".join(f"{o.env_id}: {o.error}" for o in failed[:10])
        correctable = [o for o in failed if output_failure(store, stage, o)]
        if not correctable:
            context.log.warning(f"{stage} attempt {attempt}: {len(failed)} environment(s) failed at the endpoint, "
                                f"not in their output; no retry: {listing}")
        elif attempt < MAX_ATTEMPTS:
            wait = generator.retry_delay(attempt)
            message = (f"{stage} attempt {attempt}/{MAX_ATTEMPTS}: {len(failed)} environment(s) failed; retrying "
                       f"them in {wait:g} s with these errors in their prompts: {listing}")
            context.log.warning(message)
            raise dg.RetryRequested(max_retries=MAX_ATTEMPTS - 1, seconds_to_wait=wait) from StageRetry(message)
    seconds = time.perf_counter() - started
    if failed and not any(o.ok for o in outcomes):
        # Still materialized, as any partition with failures: its metadata says why and its yield check is an
        # ERROR; failing the step would hide both (and a run of many domains must go on for the others).
        context.log.error(f"{stage}: every environment failed (attempt {attempt}), nothing was built: "
                          f"{'; '.join(f'{o.env_id}: {o.error}' for o in failed[:10])}")
    # Each domain partition's materialization describes that domain alone; the step's totals go to the run.
    by_domain: dict[str, list[StageOutcome]] = {domain: [] for domain in domains}
    for outcome in outcomes:
        by_domain[split_env_id(outcome.env_id)[0]].append(outcome)
    for domain, mine in by_domain.items():
        context.add_asset_metadata(stage_metadata(store, stage, mine, preview, backend, attempt, domain),
                                   partition_key=domain)
    context.log.info(run_summary(stage, outcomes, domains, attempt, seconds))
    return dg.MaterializeResult()


def credit_earlier_attempts(store: ArtifactStore, stage: str, outcomes: list[StageOutcome],
                            backend) -> list[StageOutcome]:
    """A retried step reuses what its earlier attempts in this run built: count those as built (at the
    attempt that built them), not as reused from an earlier run."""
    asked = getattr(backend, "env_ids_asked", None)
    if not callable(asked):
        return outcomes
    earlier = asked(stage)
    credited = []
    for o in outcomes:
        record = store.provenance(o.env_id).get(stage) if o.status == "cached" and o.env_id in earlier else None
        if record is not None:
            o = replace(o, status="built", attempt=record.attempts, duration_ms=record.duration_ms)
        credited.append(o)
    return credited


def _range_label(domains: list[str]) -> str:
    return domains[0] if len(domains) == 1 else f"{domains[0]} .. {domains[-1]} ({len(domains)} domains)"


def run_summary(stage: str, outcomes: list[StageOutcome], domains: list[str], attempt: int, seconds: float) -> str:
    """The step's totals over every domain of the run: the run's own record, not any partition's."""
    statuses = Counter(o.status for o in outcomes)
    failed = [o.env_id for o in outcomes if o.status == "failed"]
    return (f"{stage}: {_range_label(domains)}, {len(outcomes)} environments: {statuses['built']} built, "
            f"{statuses['cached']} reused, {statuses['failed']} failed, {statuses['skipped']} skipped (upstream "
            f"failed); attempt {attempt}; {seconds:.2f} s"
            + (f"; failed: {', '.join(failed[:20])}" + (" ..." if len(failed) > 20 else "") if failed else ""))


def llm_metadata(stage: str, backend, domain: str) -> dict:
    """Calls, cache hits, tokens and cost of this step for one domain (every attempt, this run), and the
    domain's totals over every stage and run so far."""
    usage = getattr(backend, "usage", None)
    if not callable(usage):
        return {}
    metadata: dict = dict(usage(stage, domains=[domain]))
    metadata["llm_model"] = backend.model
    metadata["llm_structured_output"] = backend.client.structured_output
    metadata["llm_endpoint"] = dg.MetadataValue.json(backend.client.describe())
    rows = ["| domain | calls | cache hits | prompt tokens | completion tokens | cost USD | unpriced calls |",
            "|---|---|---|---|---|---|---|"]
    for name, total in backend.cost_by_domain([domain]).items():
        rows.append(f"| {name} | {total['llm_calls']} | {total['llm_cache_hits']} | {total['llm_prompt_tokens']} | "
                    f"{total['llm_completion_tokens']} | {total['llm_cost_usd']:.4f} | {total['llm_unpriced_calls']} |")
    metadata["llm_cost_by_domain"] = dg.MetadataValue.md(
        "All stages and runs so far, from the ledger:\n\n" + "\n".join(rows))
    return metadata


def _status_table(outcomes: list[StageOutcome]) -> str:
    lines = ["| environment | status | attempt | ms | detail |", "|---|---|---|---|---|"]
    for o in outcomes:
        detail = (o.error or ", ".join(f"{k}={v}" for k, v in o.metrics.items() if not isinstance(v, dict)))
        attempt = o.attempt if o.status in ("built", "failed") else ""
        lines.append(f"| {o.env_id} | {o.status} | {attempt} | {o.duration_ms:.0f} | {detail.replace('|', '/')[:160]} |")
    return "\n".join(lines)


def output_failure(store: ArtifactStore, stage: str, outcome: StageOutcome) -> bool:
    """Whether an environment failed because of its output (a retry with the error in the prompt may fix it),
    not because the endpoint failed (the attempt log's `feedback`)."""
    records = read_attempts(store, outcome.env_id, stage)
    mine = [r for r in records if r.attempt == outcome.attempt]
    return mine[-1].feedback if mine else True


def attempt_errors(store: ArtifactStore, stage: str, failed: list[StageOutcome]) -> str:
    """Every attempt's error of each failed environment, oldest first: what each retry was told."""
    lines = []
    for o in failed:
        lines.append(f"**{o.env_id}**")
        records = read_attempts(store, o.env_id, stage)
        for record in records:
            if record is records[-1]:
                note = "the last"
            elif record.feedback:
                note = f"fed back to attempt {record.attempt + 1}"
            else:
                note = "not fed back (not the output's fault)"
            lines.append(f"- attempt {record.attempt}, {note}: {record.error[:600]}")
        if not records:
            lines.append(f"- {o.error}")
        lines.append("")
    return "\n".join(lines)


def stage_metadata(store: ArtifactStore, stage: str, outcomes: list[StageOutcome], preview: PreviewFn,
                   backend, attempt: int, domain: str) -> dict:
    """What one domain partition's materialization shows: its environments and their status, counts,
    failures with every attempt's error, a preview, and where the artifacts came from."""
    statuses = Counter(o.status for o in outcomes)
    numeric: Counter = Counter()
    for o in outcomes:
        for key, value in o.metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numeric[key] += value
    ok = [o for o in outcomes if o.ok]
    failed = [o for o in outcomes if o.status == "failed"]
    params = dict(getattr(backend, "params", {}))
    metadata: dict = {
        "domain": domain,
        "environments": len(outcomes),
        "built": statuses["built"],
        "reused": statuses["cached"],
        "failed": statuses["failed"],
        "skipped (upstream failed)": statuses["skipped"],
        "failed_environment_ids": ", ".join(o.env_id for o in failed) or "none",
        "attempt": attempt,
        "build_s": round(sum(o.duration_ms for o in outcomes) / 1000, 3),
        "backend": getattr(backend, "name", "?"),
        "backend_params": dg.MetadataValue.json(params),
        "code_version": code_version(stage, params, backend),
        "artifact_root": dg.MetadataValue.path(str(store.corpus_dir / domain)),
        "environments_table": dg.MetadataValue.md(_status_table(outcomes)),
    }
    prompt_hash = getattr(backend, "prompt_hash", None)
    if callable(prompt_hash):
        metadata["prompt_hash"] = prompt_hash(stage)
    for key, total in sorted(numeric.items()):
        metadata[f"total_{key}"] = round(total, 2)
        if ok:
            metadata[f"mean_{key}_per_env"] = round(total / max(1, len(ok)), 2)
    if ok:
        metadata["preview"] = dg.MetadataValue.md(preview(store, ok))
    if failed:
        metadata["failures"] = dg.MetadataValue.md(
            "\n".join(f"- **{o.env_id}** (attempt {o.attempt}): {o.error}" for o in failed))
        metadata["attempt_errors"] = dg.MetadataValue.md(attempt_errors(store, stage, failed))
    corrected = [o for o in outcomes if o.status == "built" and o.attempt > 1]
    if corrected:
        metadata["self_corrected"] = dg.MetadataValue.md("\n".join(
            f"- **{o.env_id}** built at attempt {o.attempt}; earlier errors: "
            + "; ".join(e[:200] for e in store.provenance(o.env_id)[stage].errors) for o in corrected))
    sandbox = default_pool_report()
    if sandbox is not None:  # this process ran generated code (tools, verifiers): how it was walled off
        metadata["sandbox_isolation"] = f"{sandbox['isolation']['mode']}: {sandbox['isolation']['detail']}"
        cgroups = sandbox["isolation"].get("cgroups") or {}
        metadata["sandbox_cgroups"] = (
            f"applied (cgroup v{cgroups['version']}): at most {cgroups['pids_max']} processes, memory "
            + ("unlimited" if cgroups["memory_bytes"] is None else f"{cgroups['memory_bytes'] / 2 ** 20:.0f} MiB")
            if cgroups.get("applied") else f"not applied: {cgroups.get('reason', 'unknown')}")
        metadata["sandbox_workers_down"] = sandbox["down"]
        metadata["sandbox_worker_restarts"] = sandbox["restarts"]
    metadata.update(llm_metadata(stage, backend, domain))
    return metadata
