"""The verification_reports asset."""

import dagster as dg

from awm.contracts import VerificationReport
from awm.domains import env_id_for
from awm.stages.verification import build_verification
from awm_assets.constants import TOOLS, VERIFICATION_REPORTS
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import run_stage
from resources import ArtifactStoreResource, GeneratorResource


def preview(store, outcomes) -> str:
    lines = ["| environment | tasks | reference passed | null passed | publishable |", "|---|---|---|---|---|"]
    for o in outcomes:
        report = store.read_model(o.env_id, "report.json", VerificationReport)
        ref = sum(t.reference_passed for t in report.tasks)
        null = sum(t.null_passed for t in report.tasks)
        lines.append(f"| {o.env_id} | {len(report.tasks)} | {ref} | {null} | {len(report.passed)} |")
    return "\n".join(lines)


@dg.asset(
    name=VERIFICATION_REPORTS,
    deps=[TOOLS],
    kinds={"python", "json"},
    code_version="verification-1",
    tags={"stage": "6"},
    **STAGE_ASSET_OPTIONS,
)
def verification_reports(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
                         generator: GeneratorResource) -> dg.MaterializeResult:
    """Per task, a verifier and proof: the reference solution replayed through the sandboxed tools on a
    fresh database must be judged complete, the null trajectory incomplete. Writes verifiers.json and
    report.json."""
    return run_stage(context, store, generator, VERIFICATION_REPORTS,
                     lambda st, domain, slot, backend: build_verification(st, env_id_for(domain, slot), backend),
                     preview)
