"""Names used across the Dagster layer, defined once."""

SCENARIOS = "scenarios"
TASKS = "tasks"
SCHEMAS = "schemas"
DATABASES = "databases"
TOOLS = "tools"
VERIFICATION_REPORTS = "verification_reports"
ENVIRONMENT_CATALOG = "environment_catalog"

STAGE_ASSETS = (SCENARIOS, TASKS, SCHEMAS, DATABASES, TOOLS, VERIFICATION_REPORTS)

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
