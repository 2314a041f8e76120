"""Exceptions the platform raises. Each message says what was wrong and where."""

from __future__ import annotations


class AWMError(Exception):
    """Base class for every error the platform raises on purpose."""


class InvalidDomainError(AWMError, ValueError):
    """A domain key is not a valid slug."""


class SeedsFileError(AWMError):
    """The editable seeds file is missing or malformed."""


class CatalogueError(AWMError, ValueError):
    """A catalogue data file or a seeds-file domain entry is malformed."""


class CorruptArtifactError(AWMError):
    """An artifact on disk cannot be read back (truncated JSON, not SQLite, ...)."""


class MissingArtifactError(AWMError):
    """An upstream artifact a stage needs has not been produced."""


class StageError(AWMError):
    """A stage produced output that fails its own validation."""

    def __init__(self, stage: str, env_id: str, reason: str):
        super().__init__(f"{stage} failed for {env_id}: {reason}")
        self.stage = stage
        self.env_id = env_id
        self.reason = reason


class UnsafeCodeError(AWMError):
    """Generated code breaks the sandbox policy."""


class UnknownEnvironmentError(AWMError, KeyError):
    """An environment id is not in the corpus."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown environment"


class UnprovenArtifactError(AWMError):
    """An environment's files are not the ones its proofs were run on (edited or replaced since)."""
