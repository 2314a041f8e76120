"""The environment_catalog asset: the published manifest of the corpus."""

import dagster as dg

from awm.domains import env_id_for
from awm.stages.catalog import DEFAULT_MIN_TASKS, build_catalog
from awm_assets.constants import (
    CATALOG_GROUP,
    DOMAIN_PARTITIONS_NAME,
    ENVIRONMENT_CATALOG,
    OWNERS,
    VERIFICATION_REPORTS,
)
from resources import ArtifactStoreResource, GeneratorResource


class CatalogConfig(dg.Config):
    min_tasks: int = DEFAULT_MIN_TASKS


@dg.asset(
    name=ENVIRONMENT_CATALOG,
    deps=[VERIFICATION_REPORTS],
    group_name=CATALOG_GROUP,
    owners=OWNERS,
    kinds={"json"},
    code_version="catalog-1",
)
def environment_catalog(context: dg.AssetExecutionContext, config: CatalogConfig, store: ArtifactStoreResource,
                        generator: GeneratorResource) -> dg.MaterializeResult:
    """The published manifest: one line per task that passed verification (catalog.jsonl), for every
    registered domain. Failed and quarantined environments are listed in failures.jsonl and below,
    with the stage and the domain partition to open in the UI."""
    st = store.store()
    domains = context.instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
    env_ids = [env_id_for(d, slot) for d in domains for slot in range(generator.slots)]
    summary = build_catalog(st, env_ids, config.min_tasks)
    rows = ["| domain | published | quarantined | failed | not built |", "|---|---|---|---|---|"]
    for domain, counts in summary.by_domain().items():
        rows.append(f"| {domain} | {counts['published']} | {counts['quarantined']} | {counts['failed']} | "
                    f"{counts['missing']} |")
    problems = [s for s in summary.statuses if s.status in ("failed", "quarantined")]
    problem_md = "\n".join(f"- **{s.env_id}** {s.status} at `{s.stage}` (partition `{s.domain}`): {s.reason}"
                           for s in problems[:200]) or "none"
    return dg.MaterializeResult(metadata={
        "environments": len(env_ids),
        "published_environments": summary.count("published"),
        "quarantined_environments": summary.count("quarantined"),
        "failed_environments": summary.count("failed"),
        "not_built_environments": summary.count("missing"),
        "published_tasks": len(summary.entries),
        "catalog_path": dg.MetadataValue.path(str(st.catalog_path)),
        "dagster/row_count": len(summary.entries),
        "per_domain": dg.MetadataValue.md("\n".join(rows)),
        "failures": dg.MetadataValue.md(problem_md),
    })
