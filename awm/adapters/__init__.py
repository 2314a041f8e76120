"""Adapters to agent-training frameworks, each an optional extra: `awm.adapters.openenv` (OpenEnv, extra
`openenv`) and `awm.adapters.verifiers` (Prime Intellect's verifiers, installed on the agent's side)."""
