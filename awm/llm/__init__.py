"""The LLM generation path: client, prompts, cache, ledger.

    settings.py   how to reach a model (OPENAI_BASE_URL, OPENAI_API_KEY, AWM_LLM_*)
    profiles.py   what each kind of server accepts (structured-output modes) and defaults it can serve
    capabilities.py  what each endpoint was found to accept, remembered across processes (SQLite)
    client.py     the openai client with strict output handling, transport retries, a semaphore
    repair.py     the only repairs made to an answer: those that cannot change what it says
    prompts.py    versioned prompt templates per stage and the output each must get back
    cache.py      content-addressed response cache (SQLite under AWM_HOME)
    ledger.py     tokens, latency and cost of every call (SQLite under AWM_HOME)

The backend that uses them is awm/backends/llm.py; the local endpoint `awm llm-serve` is awm/llm_serve/; docs/llm.md is the user's guide.
"""
