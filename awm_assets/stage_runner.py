"""How a stage asset runs: loop over the run's domains and their environments, call the core
stage for each, isolate failures, and describe the result as materialization metadata."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable

import dagster as dg

from awm.domains import env_id_for, validate_domain_slug
from awm.errors import InvalidDomainError
from awm.stages.base import StageOutcome
from awm.store import ArtifactStore
from awm_assets.partitions import MAX_ATTEMPTS
from resources import ArtifactStoreResource, GeneratorResource

StageFn = Callable[[ArtifactStore, str, int, object], StageOutcome]
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


def run_stage(
    context: dg.AssetExecutionContext,
    store_resource: ArtifactStoreResource,
    generator: GeneratorResource,
    stage: str,
    build: StageFn,
    preview: PreviewFn,
) -> dg.MaterializeResult:
    started = time.perf_counter()
    store = store_resource.store()
    backend = generator.get()
    domains = run_domains(context)
    outcomes: list[StageOutcome] = []
    for domain in domains:
        for slot in range(generator.slots):
            env_id = env_id_for(domain, slot)
            outcome = build(store, domain, slot, backend)
            outcomes.append(outcome)
            if outcome.status == "failed":
                context.log.warning(f"{stage}: {env_id} failed: {outcome.error}")
            store_resource.report_progress(stage, env_id, outcome.status)
    failed = [o for o in outcomes if o.status == "failed"]
    attempt = context.retry_number + 1
    if failed and not generator.deterministic and attempt < MAX_ATTEMPTS:
        listing = "; ".join(f"{o.env_id}: {o.error}" for o in failed[:10])
        raise StageRetry(f"attempt {attempt}/{MAX_ATTEMPTS}: {len(failed)} environment(s) failed: {listing}")
    return dg.MaterializeResult(metadata=stage_metadata(store, stage, outcomes, preview, backend, attempt,
                                                        time.perf_counter() - started, domains))


def _status_table(outcomes: list[StageOutcome]) -> str:
    lines = ["| environment | status | ms | detail |", "|---|---|---|---|"]
    for o in outcomes:
        detail = (o.error or ", ".join(f"{k}={v}" for k, v in o.metrics.items() if not isinstance(v, dict)))
        lines.append(f"| {o.env_id} | {o.status} | {o.duration_ms:.0f} | {detail.replace('|', '/')[:160]} |")
    return "\n".join(lines)


def stage_metadata(store: ArtifactStore, stage: str, outcomes: list[StageOutcome], preview: PreviewFn,
                   backend, attempt: int, seconds: float, domains: list[str]) -> dict:
    statuses = Counter(o.status for o in outcomes)
    numeric: Counter = Counter()
    for o in outcomes:
        for key, value in o.metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                numeric[key] += value
    ok = [o for o in outcomes if o.ok]
    metadata: dict = {
        "domains": ", ".join(domains),
        "environments": len(outcomes),
        "built": statuses["built"],
        "reused": statuses["cached"],
        "failed": statuses["failed"],
        "skipped (upstream failed)": statuses["skipped"],
        "attempt": attempt,
        "duration_s": round(seconds, 3),
        "backend": getattr(backend, "name", "?"),
        "backend_params": dg.MetadataValue.json(dict(getattr(backend, "params", {}))),
        "artifact_root": dg.MetadataValue.path(str(store.corpus_dir)),
        "environments_table": dg.MetadataValue.md(_status_table(outcomes)),
    }
    for key, total in sorted(numeric.items()):
        metadata[f"total_{key}"] = round(total, 2)
        if ok:
            metadata[f"mean_{key}_per_env"] = round(total / max(1, len(ok)), 2)
    if ok:
        metadata["preview"] = dg.MetadataValue.md(preview(store, ok))
    if statuses["failed"]:
        metadata["failures"] = dg.MetadataValue.md(
            "\n".join(f"- **{o.env_id}**: {o.error}" for o in outcomes if o.status == "failed"))
    return metadata
