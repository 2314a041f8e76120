"""Server profiles: what each kind of OpenAI-compatible server accepts, and defaults it can serve.

A profile is chosen by name (AWM_LLM_PROFILE) or, with `auto` (the default), recognised once per endpoint from
its `GET /models` answer (vLLM names itself `owned_by: vllm`, llama-cpp-python `me`, the llama.cpp server
`llamacpp`, Ollama `library`). It gives:

- the structured-output modes to try, best first. A server that refuses a mode in words (HTTP 400, 422 or 500
  whose body names the response format) makes the client step down to the next mode once and remember the mode
  for that endpoint (awm/llm/capabilities.py);
- the defaults of the settings the user did not set: seconds per request, calls in flight, completion tokens
  per call, and the context window when the server does not report it.

The modes, as sent:

    json_schema         response_format {"type": "json_schema", "json_schema": {"name", "schema", "strict"}}
    guided_json         no response_format; the body field guided_json = the schema (vLLM guided decoding)
    json_object_schema  response_format {"type": "json_object", "schema": schema} (llama.cpp and
                        llama-cpp-python turn the schema into a grammar)
    json_object         response_format {"type": "json_object"} (valid JSON, any shape)
    none                no constraint: the schema is in the prompt, the answer is parsed and repaired only
                        where the repair cannot change its meaning (awm/llm/repair.py)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MODES = ("json_schema", "guided_json", "json_object_schema", "json_object", "none")


@dataclass(frozen=True)
class Profile:
    name: str
    modes: tuple[str, ...]  # tried in this order; a refusal steps down to the next
    timeout_s: float  # seconds per HTTP request
    concurrency: int  # calls in flight at once
    max_tokens: int  # completion tokens per call, clamped per call to what the context leaves after the prompt
    context_tokens: int | None  # the context window when the server does not say (None: unknown, no clamping)
    about: str


PROFILES: dict[str, Profile] = {p.name: p for p in (
    Profile("openai", ("json_schema", "json_object", "none"), 300.0, 8, 32768, 128_000,
            "a hosted OpenAI-compatible API: json_schema structured output, many requests at once"),
    Profile("vllm", ("json_schema", "guided_json", "json_object", "none"), 600.0, 8, 32768, None,
            "vLLM: json_schema or guided_json decoding, batches requests; the context is read from GET /models"),
    Profile("llama.cpp", ("json_object_schema", "json_object", "none"), 1800.0, 1, 32768, 32768,
            "llama.cpp's server or llama-cpp-python on a CPU: the schema as a grammar inside json_object, "
            "one request at a time, slow answers"),
    Profile("ollama", ("json_schema", "json_object", "none"), 1800.0, 1, 32768, 32768,
            "Ollama: json_schema (0.5 and later), one request at a time by default"),
    Profile("auto", ("json_schema", "json_object_schema", "json_object", "none"), 600.0, 4, 32768, None,
            "recognised from GET /models; an unrecognised server starts at json_schema and steps down"),
)}

# What each server writes in owned_by of GET /models, and the profile it gets.
_OWNED_BY = {"vllm": "vllm", "me": "llama.cpp", "llamacpp": "llama.cpp", "library": "ollama", "ollama": "ollama",
             "openai": "openai", "system": "openai", "openai-internal": "openai", "awm": "openai"}


def profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown LLM profile {name!r}; profiles: {', '.join(PROFILES)}") from None


def recognise(models: list[dict[str, Any]]) -> tuple[str | None, int | None]:
    """(profile name, context window) from the entries of a GET /models answer; None where it does not say."""
    name = context = None
    for entry in models:
        owner = str(entry.get("owned_by") or "").lower()
        if name is None and owner in _OWNED_BY:
            name = _OWNED_BY[owner]
        for key in ("max_model_len", "context_length", "context_window"):
            value = entry.get(key)
            if isinstance(value, int) and value > 0 and context is None:
                context = value
    return name, context


def next_mode(chain: tuple[str, ...], mode: str) -> str | None:
    """The mode after `mode` in a profile's chain (None at its end)."""
    if mode not in chain:
        return None
    at = chain.index(mode)
    return chain[at + 1] if at + 1 < len(chain) else None
