"""The schemas asset."""

from awm import artifacts
from awm_assets.constants import SCHEMAS
from awm_assets.stage_asset import stage_asset


def preview(store, outcomes) -> str:
    first = outcomes[0].env_id
    spec = artifacts.SCHEMA_JSON.read(store, first)
    lines = [f"Schema of **{first}** ({len(spec.tables)} tables)", "", "| table | columns | references |",
             "|---|---|---|"]
    for t in spec.tables:
        refs = ", ".join(sorted({c.references.split('.')[0] for c in t.columns if c.references}))
        lines.append(f"| {t.name} | {', '.join(c.name for c in t.columns)} | {refs} |")
    return "\n".join(lines)


schemas = stage_asset(
    SCHEMAS, kinds={"sqlite", "sqlalchemy"}, preview=preview,
    description="A SQLite schema per scenario, designed to support its tasks: schema.json (tables, columns, keys, "
                "enums, ranges) and schema.sql (DDL emitted through SQLAlchemy, proven to execute).")
