"""Running environments: the sandbox for generated code, tool calls, episodes and scoring."""
