"""Running verifiers (in a sandbox worker): sandboxed code that reads the initial and final state and the answer.

A verifier is `verify(initial, final, answer) -> {"complete": bool, "evidence": [str]}`.
Both databases are read-only, so a verifier can neither change the episode it judges nor
the template, and it runs under the call limits. Its module is run afresh for every
judgement and its handles die with the judgement: nothing it keeps reaches the next one.
"""

from __future__ import annotations

from collections.abc import Callable
from types import CodeType
from typing import Any

from awm.errors import UnsafeCodeError
from awm.runtime.db import DBHandle
from awm.runtime.sandbox import SandboxTimeout, call_limits, run_module, valid_text

VERIFY_SECONDS = 5.0
MAX_EVIDENCE = 20
MAX_EVIDENCE_CHARS = 1000


def load_verifier(code: CodeType, name: str) -> Callable[..., Any]:
    """The verify function of a new instance of a module compiled by `compile_checked` (one per judgement)."""
    namespace = run_module(code, name)
    fn = namespace.get("verify")
    if not callable(fn):
        raise UnsafeCodeError(f"{name}: defines no verify(initial, final, answer) function")
    return fn


def _normalise(result: Any) -> dict:
    if not isinstance(result, dict) or not isinstance(result.get("complete"), bool):
        return {"complete": False, "evidence": [f"verifier returned {result!r:.200}, not {{'complete': bool, ...}}"],
                "error": "bad_result"}
    evidence = result.get("evidence") or []
    if not isinstance(evidence, list):
        evidence = [evidence]
    return {"complete": result["complete"],
            "evidence": [valid_text(str(e)[:MAX_EVIDENCE_CHARS]) for e in evidence[:MAX_EVIDENCE]]}


def run_verifier(fn: Callable[..., Any], initial: DBHandle, final: DBHandle, answer: str | None,
                 seconds: float = VERIFY_SECONDS, memory_bytes: int | None = None) -> dict:
    """{"complete": bool, "evidence": [str]}; a verifier that crashes or misbehaves counts as incomplete.

    The verifier gets views of `initial` and `final` that die when the judgement ends."""
    initial_view, final_view = initial._view(), final._view()
    initial._set_deadline(seconds)
    final._set_deadline(seconds)
    try:
        with call_limits(seconds, memory_bytes):
            return _normalise(fn(initial_view, final_view, answer))
    except SandboxTimeout:
        return {"complete": False, "evidence": [f"verifier ran longer than {seconds:g} s"], "error": "timeout"}
    except MemoryError:
        return {"complete": False, "evidence": ["verifier exceeded its memory budget"], "error": "resource_limit"}
    except Exception as exc:  # noqa: BLE001 - untrusted code: any failure is a verdict, reported
        return {"complete": False, "evidence": [valid_text(f"verifier raised {type(exc).__name__}: {str(exc)[:500]}")],
                "error": "crash"}
    finally:
        initial_view._end()
        final_view._end()
        initial._set_deadline(None)
        final._set_deadline(None)
