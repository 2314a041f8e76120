"""The LLM generation path: client, prompts, cache, ledger.

    settings.py   how to reach a model (OPENAI_BASE_URL, OPENAI_API_KEY, AWM_LLM_*)
    client.py     the openai client with strict output handling, transport retries, a semaphore
    prompts.py    versioned prompt templates per stage and the output each must get back
    cache.py      content-addressed response cache (SQLite under AWM_HOME)
    ledger.py     tokens, latency and cost of every call (SQLite under AWM_HOME)

The backend that uses them is awm/backends/llm.py; the local endpoint `awm llm-serve` is awm/llm_serve/; docs/llm.md is the user's guide.
"""
