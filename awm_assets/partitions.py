"""Partitioning: one dynamic partition per domain; each asset-partition builds that domain's K environments.

Measured (docs/architecture.md, "Partitions"): per-environment partitions cost 2-3 s of run start and ~20 ms of
bookkeeping per asset-partition against ~25 ms of real work per stage per environment,
so a domain (10 environments, ~1.5 s of work across the six stages) is the unit.
"""

import os
from urllib.parse import quote

import dagster as dg

from awm_assets.constants import AGENT_PARTITIONS_NAME, DOMAIN_PARTITIONS_NAME, LLM_POOL, OWNERS, PIPELINE_GROUP

domain_partitions = dg.DynamicPartitionsDefinition(name=DOMAIN_PARTITIONS_NAME)

UI_URL_ENV = "AWM_UI_URL"


def partition_url(asset: str, partition: str) -> str:
    """The Dagster UI page of one partition of an asset. Relative by default, so a link in metadata opens
    on whatever host and port the UI is served from; $AWM_UI_URL makes it absolute (a UI behind a path
    prefix, or links read outside the UI)."""
    base = os.environ.get(UI_URL_ENV, "").rstrip("/")
    return f"{base}/assets/{quote(asset)}?view=partitions&partition={quote(partition)}"


# A backfill launches runs of up to 25 domains each; within a run every asset loops over its domains.
backfill_policy = dg.BackfillPolicy.multi_run(max_partitions_per_run=25)

# Self-correction: a stage that got invalid output from a non-deterministic backend raises, and the
# next attempt (up to 5 in all) feeds the previous errors back. Valid environments are not rebuilt.
MAX_ATTEMPTS = 5
retry_policy = dg.RetryPolicy(max_retries=MAX_ATTEMPTS - 1, delay=1.0, backoff=dg.Backoff.EXPONENTIAL)

# What every stage asset shares: partitioned by domain, backfilled in multi-partition runs, retried as
# self-correction, in the `llm` pool (so LLM steps are capped across runs), in the pipeline group.
STAGE_ASSET_OPTIONS = {
    "partitions_def": domain_partitions,
    "backfill_policy": backfill_policy,
    "retry_policy": retry_policy,
    "pool": LLM_POOL,
    "group_name": PIPELINE_GROUP,
    "owners": OWNERS,
}

# Evaluations: a domain x agent grid (the agent key is the model name). Each cell is one run: an evaluation
# is seconds to minutes of model calls, so a run's start-up (~2-3 s) is small beside it, and a backfill
# over a row (one agent, many domains) or a column (one domain, many agents) needs no range runs.
agent_partitions = dg.DynamicPartitionsDefinition(name=AGENT_PARTITIONS_NAME)
evaluation_partitions = dg.MultiPartitionsDefinition({"domain": domain_partitions, "agent": agent_partitions})
