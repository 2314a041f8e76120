"""What every check module shares: the environments of the checked partitions, split by status, and
the two kinds of result (DESIGN 7).

  blocking "<stage>_valid"  re-checks every environment the stage passed on; a finding there means the
                            stage let something invalid through (a platform bug), so the line stops.
                            Environments the stage failed are not its concern: they went no further.
  WARN "<stage>_yield"      how many environments of the partition the stage failed, and why, with
                            the check that caught each one.
"""

# No `from __future__ import annotations`: Dagster reads yield_check's parameter annotations at runtime.
import time
from collections.abc import Callable
from dataclasses import dataclass

import dagster as dg

from awm.domains import env_id_for
from awm.quality.findings import Finding, check_named_in, findings_table
from awm.stages.base import STAGES
from awm.store import ArtifactStore
from awm_assets.catalog import partition_url
from awm_assets.partitions import domain_partitions
from resources import ArtifactStoreResource, GeneratorResource

MAX_FINDINGS_IN_METADATA = 200


@dataclass
class PartitionEnvironments:
    domains: list[str]
    valid: list[str]  # built by the stage and not failed at or before it
    failed_here: list[tuple[str, str]]  # (env_id, reason) failed by this stage
    upstream: list[str]  # failed before this stage, or not built yet

    @property
    def total(self) -> int:
        return len(self.valid) + len(self.failed_here) + len(self.upstream)


def partition_environments(context: dg.AssetCheckExecutionContext, store: ArtifactStore, stage: str,
                           slots: int, output: str) -> PartitionEnvironments:
    domains = list(context.partition_keys) if context.has_partition_key or context.has_partition_key_range else []
    valid, failed_here, upstream = [], [], []
    for domain in domains:
        for slot in range(slots):
            env_id = env_id_for(domain, slot)
            failure = store.failure(env_id)
            if failure and failure.stage == stage:
                failed_here.append((env_id, failure.reason))
            elif failure and STAGES.index(failure.stage) < STAGES.index(stage):
                upstream.append(env_id)
            elif store.exists(env_id, output):
                valid.append(env_id)
            else:
                upstream.append(env_id)
    return PartitionEnvironments(domains, valid, failed_here, upstream)


def validity_result(context: dg.AssetCheckExecutionContext, store_resource: ArtifactStoreResource,
                    generator: GeneratorResource, stage: str, output: str,
                    inspect: Callable[[ArtifactStore, list[str]], list[Finding]],
                    extra: Callable[[], dict] | None = None) -> dg.AssetCheckResult:
    """Run `inspect` over the partition's valid environments; pass iff it finds nothing."""
    started = time.perf_counter()
    store = store_resource.store()
    envs = partition_environments(context, store, stage, generator.slots, output)
    findings = inspect(store, envs.valid)
    failing = sorted({f.env_id for f in findings})
    metadata = {
        "domains": ", ".join(envs.domains),
        "environments_checked": len(envs.valid),
        "environments_failed_by_the_stage": len(envs.failed_here),
        "findings": len(findings),
        "environments_with_findings": ", ".join(failing) or "none",
        "checks_run": dg.MetadataValue.json(sorted({f.check for f in findings})),
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    if findings:
        metadata["why"] = dg.MetadataValue.md(
            f"{len(failing)} environment(s) that `{stage}` passed on violate its rules: the stage's own "
            "validation let them through (a platform bug). Each row names where.\n\n"
            + findings_table(findings, MAX_FINDINGS_IN_METADATA))
        metadata["findings_json"] = dg.MetadataValue.json([f.as_dict() for f in findings[:MAX_FINDINGS_IN_METADATA]])
    if extra:
        metadata.update(extra())
    description = (f"{len(envs.valid)} environment(s) checked, no findings" if not findings else
                   f"{len(findings)} finding(s) in {len(failing)} environment(s): {findings[0].describe()}")
    return dg.AssetCheckResult(passed=not findings, metadata=metadata, description=description[:1000])


def yield_result(context: dg.AssetCheckExecutionContext, store_resource: ArtifactStoreResource,
                 generator: GeneratorResource, stage: str, output: str) -> dg.AssetCheckResult:
    """WARN when the stage failed some environments of the partition: how many, which check, why."""
    store = store_resource.store()
    envs = partition_environments(context, store, stage, generator.slots, output)
    attempted = len(envs.valid) + len(envs.failed_here)
    rows = ["| environment | check | reason | partition |", "|---|---|---|---|"]
    for env_id, reason in envs.failed_here:
        domain = env_id.rsplit("__", 1)[0]
        check = check_named_in(reason) or stage
        rows.append(f"| {env_id} | {check} | {reason.replace('|', '/')[:300]} | "
                    f"[{domain}]({partition_url(stage, domain)}) |")
    by_check: dict[str, int] = {}
    for _, reason in envs.failed_here:
        key = check_named_in(reason) or stage
        by_check[key] = by_check.get(key, 0) + 1
    metadata = {
        "domains": ", ".join(envs.domains),
        "environments": envs.total,
        "attempted": attempted,
        "passed": len(envs.valid),
        "failed": len(envs.failed_here),
        "skipped_upstream_failed_or_not_built": len(envs.upstream),
        "yield": dg.MetadataValue.float(round(len(envs.valid) / attempted, 4) if attempted else 1.0),
        "failures_by_check": dg.MetadataValue.json(by_check),
    }
    if envs.failed_here:
        metadata["failed_environments"] = dg.MetadataValue.md("\n".join(rows))
    description = (f"{len(envs.valid)} of {attempted} environment(s) passed {stage}" if attempted
                   else "no environment of this partition reached this stage")
    return dg.AssetCheckResult(passed=not envs.failed_here, severity=dg.AssetCheckSeverity.WARN,
                               metadata=metadata, description=description)


def yield_check(asset: str, artifact: str, description: str) -> dg.AssetChecksDefinition:
    """The WARN "<asset>_yield" check of a stage asset (see `yield_result`); every stage has one alike."""

    @dg.asset_check(asset=asset, name=f"{asset}_yield", partitions_def=domain_partitions, description=description)
    def stage_yield(context: dg.AssetCheckExecutionContext, store: ArtifactStoreResource,
                    generator: GeneratorResource) -> dg.AssetCheckResult:
        return yield_result(context, store, generator, asset, artifact)

    return stage_yield
