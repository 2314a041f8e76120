"""The environment_catalog asset: the published manifest of the corpus, its chart, and the failure report."""

import base64

import dagster as dg
from pydantic import Field

from awm.awm1k.importer import env_id_of
from awm.domains import env_id_for
from awm.registry import CATALOG_CODE_VERSION
from awm.stages.catalog import (
    DEFAULT_MIN_TASKS,
    CatalogSummary,
    build_catalog,
    corpus_chart_png,
    diversity_table,
    proof_table,
)
from awm.store import atomic_write_bytes
from awm_assets.constants import (
    AWM1K_ENVIRONMENTS,
    AWM1K_PARTITIONS_NAME,
    CATALOG_GROUP,
    DOMAIN_PARTITIONS_NAME,
    ENVIRONMENT_CATALOG,
    OWNERS,
    VERIFICATION_REPORTS,
)
from awm_assets.partitions import partition_url
from resources import ArtifactStoreResource, GeneratorResource

MAX_FAILURES_SHOWN = 200


class CatalogConfig(dg.Config):
    min_tasks: int = Field(default=DEFAULT_MIN_TASKS, ge=1,
                           description="an environment with fewer tasks that passed every proof is left out whole")


def per_domain_table(summary: CatalogSummary) -> str:
    rows = ["| domain | published | quarantined | failed | not built | published tasks |", "|---|---|---|---|---|---|"]
    tasks_by_domain: dict[str, int] = {}
    for entry in summary.entries:
        tasks_by_domain[entry.domain] = tasks_by_domain.get(entry.domain, 0) + 1
    for domain, counts in summary.by_domain().items():
        rows.append(f"| {domain} | {counts['published']} | {counts['quarantined']} | {counts['failed']} | "
                    f"{counts['missing']} | {tasks_by_domain.get(domain, 0)} |")
    return "\n".join(rows)


def failure_report(summary: CatalogSummary) -> str:
    """Every failed or quarantined environment: stage, check, reason, and a link to the failing partition."""
    problems = summary.problems
    if not problems:
        return "No environment failed or was quarantined."
    rows = ["| environment | status | stage | check | open | reason |", "|---|---|---|---|---|---|"]
    for s in problems[:MAX_FAILURES_SHOWN]:
        asset = s.stage if s.stage and s.stage != "catalog" else VERIFICATION_REPORTS
        reason = (s.reason or "").replace("|", "/").replace("\n", " ")[:300]
        rows.append(f"| {s.env_id} | {s.status} | {s.stage} | {s.check} | "
                    f"[{asset} / {s.domain}]({partition_url(asset, s.domain)}) | {reason} |")
    if len(problems) > MAX_FAILURES_SHOWN:
        rows.append(f"\n{len(problems) - MAX_FAILURES_SHOWN} more in failures.jsonl.")
    return "\n".join(rows)


@dg.asset(
    name=ENVIRONMENT_CATALOG,
    deps=[VERIFICATION_REPORTS, AWM1K_ENVIRONMENTS],
    group_name=CATALOG_GROUP,
    owners=OWNERS,
    kinds={"json"},
    code_version=CATALOG_CODE_VERSION,
)
def environment_catalog(context: dg.AssetExecutionContext, config: CatalogConfig, store: ArtifactStoreResource,
                        generator: GeneratorResource) -> dg.MaterializeResult:
    """The published manifest: one line per task that passed every proof (catalog.jsonl), for every
    registered domain. Failed and quarantined environments are listed in failures.jsonl and in the
    failure report below, each with its stage, check, reason and a link to the partition to open."""
    st = store.store()
    domains = context.instance.get_dynamic_partitions(DOMAIN_PARTITIONS_NAME)
    env_ids = [env_id_for(d, slot) for d in domains for slot in range(generator.slots)]
    env_ids += [env_id_of(name) for name in context.instance.get_dynamic_partitions(AWM1K_PARTITIONS_NAME)]
    summary = build_catalog(st, env_ids, config.min_tasks)
    chart = corpus_chart_png(summary)
    chart_path = st.home / "catalog_chart.png"
    atomic_write_bytes(chart_path, chart)
    table = per_domain_table(summary)
    overview = (f"![corpus](data:image/png;base64,{base64.b64encode(chart).decode('ascii')})\n\n{table}")
    distributions = {name: {"n": len(v), "min": min(v), "max": max(v), "mean": round(sum(v) / len(v), 2)}
                     for name, v in summary.distributions().items() if v}
    return dg.MaterializeResult(metadata={
        "environments": len(env_ids),
        "published_environments": summary.count("published"),
        "quarantined_environments": summary.count("quarantined"),
        "failed_environments": summary.count("failed"),
        "not_built_environments": summary.count("missing"),
        "published_tasks": len(summary.entries),
        "min_tasks": config.min_tasks,
        "catalog_path": dg.MetadataValue.path(str(st.catalog_path)),
        "failures_path": dg.MetadataValue.path(str(st.home / "failures.jsonl")),
        "chart_path": dg.MetadataValue.path(str(chart_path)),
        "dagster/row_count": len(summary.entries),
        "corpus": dg.MetadataValue.md(overview),
        "per_domain": dg.MetadataValue.md(table),
        "distributions": dg.MetadataValue.json(distributions),
        "api_styles": dg.MetadataValue.json(summary.api_styles()),
        "failure_report": dg.MetadataValue.md(failure_report(summary)),
        "proofs_by_class": dg.MetadataValue.md(proof_table(summary.proofs())),
        "proof_rates": dg.MetadataValue.json({name: round(c["right"] / c["tried"], 4) if c["tried"] else None
                                              for name, c in summary.proofs().items()}),
        "task_diversity": dg.MetadataValue.md(diversity_table(summary.diversity)),
        "task_diversity_json": dg.MetadataValue.json(summary.diversity),
        **{name: summary.diversity.get(key, 0) for name, key in (
            ("distinct_intents", "distinct_intents"), ("distinct_phrasing_skeletons", "distinct_skeletons"),
            ("instruction_vocabulary", "vocabulary"),
            ("top_phrasing_skeleton_share", "top_skeleton_share"),
            ("top_request_sentence_share", "top_request_sentence_share"),
            ("cross_domain_near_duplicate_share", "cross_domain_near_duplicate_share"))},
        **{name: summary.diversity.get("realism", {}).get(key, 0) for name, key in (
            ("multi_request_share", "multi_request_share"), ("top_context_sentence_share", "top_sentence_share"),
            ("user_goal_share", "user_goal_share"), ("voice_violations", "voice_violations"))},
    })
