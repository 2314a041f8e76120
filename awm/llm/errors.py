"""What can go wrong talking to a model, each with a message that says what and what to do."""

from __future__ import annotations

from awm.errors import AWMError


class LLMError(AWMError):
    """Base class of the LLM client's errors."""


class LLMConfigError(LLMError):
    """The LLM backend is not usable as configured (no key, unreachable endpoint, bad price table)."""

    feedback = False  # not the model's fault: never shown to it as an error to fix


class LLMTransportError(LLMError):
    """The endpoint kept failing (429, 5xx, timeouts, connection errors) after the client's own retries."""

    feedback = False

    def __init__(self, message: str, requests: int | None = None):
        super().__init__(message)
        self.requests = requests  # HTTP requests the failed call made


class LLMOutputError(LLMError):
    """The model answered, but the answer is not usable output for the stage."""

    def __init__(self, message: str, answer: str | None = None):
        super().__init__(message)
        self.answer = answer  # what the model wrote, shown to it (trimmed) beside the errors on the next attempt


class MalformedOutputError(LLMOutputError):
    """The response is not valid JSON."""


class TruncatedOutputError(LLMOutputError):
    """The response stopped at the token limit (finish_reason length); it is never repaired."""


class SchemaViolationError(LLMOutputError):
    """The response is valid JSON but does not match the stage's output schema."""


class RejectedOutputError(LLMOutputError):
    """The answer parsed and matched the schema, but the caller's own check rejected it (e.g. a rewrite that
    lost a value); `output` is the parsed answer."""

    def __init__(self, message: str, answer: str | None = None, output=None):
        super().__init__(message, answer)
        self.output = output
