"""Running verifiers: sandboxed code that reads the initial and final state and the answer."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from awm.errors import UnsafeCodeError
from awm.runtime.db import DBHandle
from awm.runtime.sandbox import SandboxTimeout, load_module, run_with_deadline

VERIFY_SECONDS = 5.0


def load_verifier(code: str, name: str) -> Callable[..., Any]:
    namespace = load_module(code, name)
    fn = namespace.get("verify")
    if not callable(fn):
        raise UnsafeCodeError(f"{name}: defines no verify(initial, final, answer) function")
    return fn


def run_verifier(fn: Callable[..., Any], initial: DBHandle, final: DBHandle, answer: str | None) -> dict:
    """{"complete": bool, "evidence": [str]}; a verifier that crashes or misbehaves counts as incomplete."""
    initial.set_deadline(VERIFY_SECONDS)
    final.set_deadline(VERIFY_SECONDS)
    try:
        result = run_with_deadline(lambda: fn(initial, final, answer), VERIFY_SECONDS)
    except SandboxTimeout:
        return {"complete": False, "evidence": [f"verifier ran longer than {VERIFY_SECONDS:g} s"], "error": "timeout"}
    except Exception as exc:  # noqa: BLE001 - untrusted code: any failure is a verdict, reported
        return {"complete": False, "evidence": [f"verifier raised {type(exc).__name__}: {exc}"], "error": "crash"}
    finally:
        initial.set_deadline(None)
        final.set_deadline(None)
    if not isinstance(result, dict) or not isinstance(result.get("complete"), bool):
        return {"complete": False, "evidence": [f"verifier returned {result!r}, not {{'complete': bool, ...}}"],
                "error": "bad_result"}
    evidence = result.get("evidence") or []
    if not isinstance(evidence, list):
        evidence = [str(evidence)]
    return {"complete": result["complete"], "evidence": [str(e) for e in evidence][:20]}
