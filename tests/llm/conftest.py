"""`awm llm-serve` started on a free loopback port, and a small client for its admin endpoints."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from awm.llm.settings import LLMSettings

API_KEY = "test-key"


class LLMServe:
    """The running server: its URL, and its fault switches and request log."""

    def __init__(self, proc: subprocess.Popen, url: str):
        self.proc = proc
        self.url = url
        self.root = url.removesuffix("/v1")

    def _call(self, method: str, path: str, body=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.root + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def faults(self, *rules: dict) -> None:
        self._call("PUT", "/_awm/faults", list(rules))

    def fault_state(self) -> list[dict]:
        return self._call("GET", "/_awm/faults")

    def latency(self, ms: float, slow_s: float = 1.0) -> None:
        self._call("PUT", "/_awm/latency", {"latency_ms": ms, "slow_s": slow_s})

    def requests(self, messages: bool = False) -> list[dict]:
        return self._call("GET", f"/_awm/requests?messages={int(messages)}")

    def stats(self) -> dict:
        return self._call("GET", "/_awm/stats")

    def reset(self) -> None:
        """No faults, no latency, and an empty log, once requests left by earlier tests are answered."""
        self.faults()
        self.latency(0)
        deadline = time.monotonic() + 10
        while self.stats()["in_flight"] and time.monotonic() < deadline:
            time.sleep(0.05)
        self._call("DELETE", "/_awm/requests")

    def ready(self, monkeypatch) -> LLMServe:
        """Reset (no faults, no latency, an empty log), with OPENAI_API_KEY set for the test."""
        self.reset()
        monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
        return self

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # still answering a long request on a loaded machine: end it
            self.proc.kill()
            self.proc.wait(timeout=10)

    def settings(self, **overrides) -> LLMSettings:
        values = {"base_url": self.url, "api_key": API_KEY, "model": "awm-offline", "backoff_s": 0.01,
                  "timeout_s": 30, **overrides}
        return LLMSettings(**values)


def start_llm_serve(*args: str, home: Path | None = None) -> LLMServe:
    before = ["--home", str(home)] if home is not None else []
    proc = subprocess.Popen([sys.executable, "-m", "awm.cli", *before, "llm-serve", "--port", "0", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.search(r"on (http://127\.0\.0\.1:\d+/v1)", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"awm llm-serve did not start: {line!r} {proc.stderr.read()[-2000:]}")
    return LLMServe(proc, match.group(1))


@pytest.fixture(scope="session")
def llm_serve():
    server = start_llm_serve()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def llama_serve():
    """`awm llm-serve --emulate llama-cpp-python`: owned_by "me", json_schema refused with its HTTP 500."""
    server = start_llm_serve("--emulate", "llama-cpp-python")
    yield server
    server.stop()


@pytest.fixture
def serve(llm_serve: LLMServe, monkeypatch) -> LLMServe:
    """The session's server with no faults, no latency and an empty request log; OPENAI_API_KEY set."""
    return llm_serve.ready(monkeypatch)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"
