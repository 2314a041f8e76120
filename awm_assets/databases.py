"""The databases asset."""

from awm_assets.constants import DATABASES
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    first = outcomes[0]
    counts = first.metrics.get("rows_per_table") or {}
    lines = [f"Initial state of **{first.env_id}** ({sum(counts.values())} rows)", "", "| table | rows |", "|---|---|"]
    lines += [f"| {table} | {n} |" for table, n in counts.items()]
    return "\n".join(lines)


databases = stage_asset(
    DATABASES, kinds={"sqlite"}, preview=preview,
    description="The initial state env.db: realistic, foreign-key-consistent rows on a fixed reference date, "
                "byte-identical for the same seed.")
