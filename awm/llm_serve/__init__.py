"""`awm llm-serve`: a local OpenAI-compatible endpoint that answers AWM prompts with no key and no network.

    simulator.py  the offline "model": reads a stage prompt, answers from the offline world builder
    server.py     that model over HTTP, with latency and fault injection

A separate package from awm.llm (the client side) because it stands above the backends: it answers
through the offline backend, which the LLM client never needs.
"""
