"""Adapters to agent-training frameworks: `awm.adapters.openenv` (OpenEnv, extra `openenv`) and
`awm.adapters.verifiers` (a `verifiers` environment over the export and a running `awm serve`; it imports nothing
of the awm core and runs beside verifiers, which pins mcp<2: see docs/runtime.md)."""
