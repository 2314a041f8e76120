"""The LLM generation backend: client, prompts, cache, ledger, and a local OpenAI-compatible server."""
