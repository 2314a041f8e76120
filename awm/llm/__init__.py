"""The LLM generation path: client, prompts, cache, ledger, and a local OpenAI-compatible server.

    settings.py   how to reach a model (OPENAI_BASE_URL, OPENAI_API_KEY, AWM_LLM_*)
    client.py     the openai client with strict output handling, transport retries, a semaphore
    prompts.py    versioned prompt templates per stage and the output each must get back
    cache.py      content-addressed response cache (SQLite under AWM_HOME)
    ledger.py     tokens, latency and cost of every call (SQLite under AWM_HOME)
    simulator.py  the offline "model" that answers AWM prompts from the world builder
    server.py     `awm llm-serve`: that model over HTTP, with latency and fault injection

The backend that uses them is awm/backends/llm.py; docs/llm.md is the user's guide.
"""
