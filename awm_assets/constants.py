"""Names used across the Dagster layer, defined once. The stage asset keys are the core's stage names
(awm/registry.py), in pipeline order."""

from awm.registry import CATALOG, STAGE_NAMES

STAGE_ASSETS = STAGE_NAMES
SCENARIOS, TASKS, SCHEMAS, DATABASES, TOOLS, VERIFICATION_REPORTS = STAGE_ASSETS
ENVIRONMENT_CATALOG = CATALOG

PIPELINE_GROUP = "awm_pipeline"
CATALOG_GROUP = "awm_catalog"
LLM_POOL = "llm"
OWNERS = ["team:awm-platform"]

CORPUS_JOB = "build_corpus"
CATALOG_JOB = "publish_catalog"
DOMAIN_PARTITIONS_NAME = "domains"

# Agent evaluation (awm_assets/evaluation.py)
AGENT_ROLLOUTS = "agent_rollouts"
EVALUATION_REPORT = "evaluation_report"
EVALUATION_GROUP = "awm_evaluation"
EVALUATION_JOB = "evaluate_agent"
AGENT_PARTITIONS_NAME = "agents"

# Environments imported from AWM-1K's files (awm_assets/awm1k.py): one partition per scenario of theirs
AWM1K_ENVIRONMENTS = "awm1k_environments"
AWM1K_PARTITIONS_NAME = "awm1k_scenarios"
IMPORT_GROUP = "awm_imports"
AWM1K_JOB = "import_awm1k"
