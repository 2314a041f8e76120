"""The verification_reports asset."""

from awm import artifacts
from awm.quality.verification_reports import VerificationTotals
from awm_assets.constants import VERIFICATION_REPORTS
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    lines = ["| environment | tasks | reference passed | null passed | publishable |", "|---|---|---|---|---|"]
    for o in outcomes:
        totals = VerificationTotals.of(artifacts.REPORT.read(store, o.env_id).tasks)
        lines.append(f"| {o.env_id} | {totals.tasks} | {totals.reference_passed} | {totals.null_passed} | "
                     f"{totals.publishable} |")
    return "\n".join(lines)


verification_reports = stage_asset(
    VERIFICATION_REPORTS, kinds={"python", "json"}, preview=preview,
    description="Per task, a verifier and proof: the reference solution replayed through the sandboxed tools on a "
                "fresh database must be judged complete, the null trajectory incomplete. Writes verifiers.json and "
                "report.json.")
