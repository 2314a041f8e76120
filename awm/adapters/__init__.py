"""Adapters to agent-training frameworks, each behind an optional extra: `awm.adapters.openenv` (OpenEnv,
extra `openenv`)."""
