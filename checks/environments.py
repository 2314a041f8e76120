"""What every check module shares: the environments of the checked partitions, split by status, the
two kinds of result, and how a result reaches the domain partition it judges.

  blocking "<stage>_valid"  re-checks every environment the stage passed on; a finding there means the
                            stage let something invalid through (a platform bug), so the line stops.
                            Environments the stage failed are not its concern: they went no further.
  WARN "<stage>_yield"      how many environments of the partition the stage failed, and why, with
                            the check that caught each one; ERROR (still not blocking) when the stage
                            failed every environment of the domain, which then has nothing at this stage.

One result per domain partition, whatever the shape of the run. A check step of a run over a range of
domains (`make run`, a backfill) works over all of them at once (one batch is cheaper), then records one
evaluation per domain with that domain's own findings and metadata. Dagster 1.13's AssetCheckResult has
no partition of its own: returned from a range run, it is recorded without a partition, and every domain
of the range shows the check as Skipped. So the checks yield dg.AssetCheckEvaluation, which carries the
partition and the domain's latest materialization (the one the check judged), and the check's own output.
"""

# No `from __future__ import annotations`: Dagster reads yield_check's parameter annotations at runtime.
import time
from collections.abc import Callable, Iterator, Mapping

import dagster as dg

from awm.domains import split_env_id
from awm.quality.findings import Finding, check_named_in, findings_table
from awm.quality.partitions import PartitionEnvironments, partition_environments
from awm.registry import stage
from awm.store import ArtifactStore
from awm_assets.partitions import domain_partitions, partition_url
from checks.dagster_private import TargetMaterialization, target_materialization
from resources import ArtifactStoreResource, GeneratorResource

MAX_FINDINGS_IN_METADATA = 200


def checked_domains(context: dg.AssetCheckExecutionContext) -> list[str]:
    """The domain partitions of this check step: one, or every domain of the run's range."""
    return list(context.partition_keys) if context.has_partition_key or context.has_partition_key_range else []


def domain_of(env_id: str) -> str:
    return split_env_id(env_id)[0]


def judged_materializations(instance: dg.DagsterInstance, asset_key: dg.AssetKey,
                            domains: list[str]) -> dict[str, TargetMaterialization]:
    """Each domain's latest materialization of the checked asset, in two queries for the whole range: an
    evaluation must name the one it judged, or the UI treats the result as stale and shows no status."""
    latest = instance.event_log_storage.get_latest_storage_id_by_partition(
        asset_key, dg.DagsterEventType.ASSET_MATERIALIZATION, set(domains))
    if not latest:
        return {}
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=asset_key, storage_ids=list(latest.values())), limit=len(latest)).records
    return {r.partition_key: target_materialization(r.storage_id, r.run_id, r.timestamp) for r in records}


def per_domain(context: dg.AssetCheckExecutionContext,
               results: Mapping[str, dg.AssetCheckResult]) -> Iterator[dg.AssetCheckEvaluation | dg.Output]:
    """Record each domain's result on its own partition, then the check's output (its completion)."""
    spec = context.check_specs[0]
    judged = judged_materializations(context.instance, spec.asset_key, list(results))
    for domain, result in results.items():
        yield dg.AssetCheckEvaluation(
            asset_key=spec.asset_key, check_name=spec.name, passed=result.passed, metadata=result.metadata,
            severity=result.severity, description=result.description, blocking=spec.blocking,
            partition=domain, target_materialization_data=judged.get(domain))
    yield dg.Output(None, output_name=context.op_def.output_defs[0].name)  # the check op's one output


def validity_results(context: dg.AssetCheckExecutionContext, store_resource: ArtifactStoreResource,
                     generator: GeneratorResource, stage: str,
                     inspect: Callable[[ArtifactStore, list[str]], list[Finding]],
                     extra: Callable[[str], dict] | None = None) -> Iterator[dg.AssetCheckEvaluation | dg.Output]:
    """Run `inspect` once over the valid environments of every domain of the step; each domain passes iff
    nothing was found in its own environments. `extra(domain)` adds a domain's check-specific metadata."""
    started = time.perf_counter()
    store = store_resource.store()
    domains = checked_domains(context)
    envs = {d: partition_environments(store, stage, generator.slots, d) for d in domains}
    findings = inspect(store, [env_id for e in envs.values() for env_id in e.valid])
    by_domain: dict[str, list[Finding]] = {d: [] for d in domains}
    for finding in findings:
        by_domain[domain_of(finding.env_id)].append(finding)
    share_ms = (time.perf_counter() - started) * 1000 / max(1, len(domains))
    results = {d: validity_result(envs[d], by_domain[d], stage, share_ms, len(domains),
                                  extra(d) if extra else {}) for d in domains}
    yield from per_domain(context, results)


def validity_result(envs: PartitionEnvironments, findings: list[Finding], stage: str, share_ms: float,
                    checked_together: int, extra: dict) -> dg.AssetCheckResult:
    """One domain's blocking result: pass iff the stage let nothing invalid through in this domain."""
    failing = sorted({f.env_id for f in findings})
    metadata = {
        "domain": envs.domain,
        "environments_checked": len(envs.valid),
        "environments_failed_by_the_stage": len(envs.failed_here),
        "findings": len(findings),
        "environments_with_findings": ", ".join(failing) or "none",
        "checks_with_findings": dg.MetadataValue.json(sorted({f.check for f in findings})),
        # the step checks its domains in one batch; each domain's share of its time
        "duration_ms": round(share_ms, 1),
        "domains_checked_together": checked_together,
    }
    if findings:
        metadata["why"] = dg.MetadataValue.md(
            f"{len(failing)} environment(s) that `{stage}` passed on violate its rules: the stage's own "
            "validation let them through (a platform bug). Each row names where.\n\n"
            + findings_table(findings, MAX_FINDINGS_IN_METADATA))
        metadata["findings_json"] = dg.MetadataValue.json([f.as_dict() for f in findings[:MAX_FINDINGS_IN_METADATA]])
    metadata.update(extra)
    description = (f"{len(envs.valid)} environment(s) checked, no findings" if not findings else
                   f"{len(findings)} finding(s) in {len(failing)} environment(s): {findings[0].describe()}")
    return dg.AssetCheckResult(passed=not findings, metadata=metadata, description=description[:1000])


def yield_result(envs: PartitionEnvironments, stage: str) -> dg.AssetCheckResult:
    """WARN when the stage failed some environments of the domain: how many, which check, why."""
    attempted = len(envs.valid) + len(envs.failed_here)
    rows = ["| environment | check | partition | reason |", "|---|---|---|---|"]
    by_check: dict[str, int] = {}
    for env_id, reason in envs.failed_here:
        check = check_named_in(reason) or stage
        by_check[check] = by_check.get(check, 0) + 1
        rows.append(f"| {env_id} | {check} | [{envs.domain}]({partition_url(stage, envs.domain)}) | "
                    f"{reason.replace('|', '/')[:300]} |")
    metadata = {
        "domain": envs.domain,
        "environments": envs.total,
        "attempted": attempted,
        "passed": len(envs.valid),
        "failed": len(envs.failed_here),
        "failed_environment_ids": ", ".join(env_id for env_id, _ in envs.failed_here) or "none",
        "skipped_upstream_failed_or_not_built": len(envs.upstream),
        "yield": dg.MetadataValue.float(round(len(envs.valid) / attempted, 4) if attempted else 1.0),
        "failures_by_check": dg.MetadataValue.json(by_check),
    }
    if envs.failed_here:
        metadata["failed_environments"] = dg.MetadataValue.md("\n".join(rows))
    if not attempted:
        description = "no environment of this domain reached this stage"
    elif envs.failed_here:
        description = (f"{len(envs.valid)} of {attempted} environment(s) passed {stage}; failed: "
                       + ", ".join(env_id for env_id, _ in envs.failed_here))
    else:
        description = f"{len(envs.valid)} of {attempted} environment(s) passed {stage}"
    # A domain the stage failed whole has nothing at this stage, although its partition shows as
    # materialized (a range run materializes every domain it covers): ERROR, still not blocking.
    severity = dg.AssetCheckSeverity.ERROR if attempted and not envs.valid else dg.AssetCheckSeverity.WARN
    return dg.AssetCheckResult(passed=not envs.failed_here, severity=severity, metadata=metadata,
                               description=description[:1000])


def yield_check(asset: str, description: str) -> dg.AssetChecksDefinition:
    """The WARN "<asset>_yield" check of a stage asset (see `yield_result`); every stage has one alike."""

    @dg.asset_check(asset=asset, name=stage(asset).yield_check, partitions_def=domain_partitions,
                    description=f"{description} A warning when some environments of the domain failed; an error "
                                "(not blocking) when all of them did.")
    def stage_yield(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                    generator: GeneratorResource):
        st = store.store()
        yield from per_domain(context, {
            d: yield_result(partition_environments(st, asset, generator.slots, d), asset)
            for d in checked_domains(context)})

    return stage_yield
