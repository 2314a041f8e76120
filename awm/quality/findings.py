"""What a quality check found: one Finding per problem, naming where it is.

A finding names the environment, the check and as much of the location as the
check knows (task, tool, table, column, row) plus the error, so a person reading
a red check in the UI learns why without opening a terminal. Stages turn
findings into a QualityError (the environment is marked failed with the check's
name in the reason); asset checks turn them into metadata tables.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from awm.errors import StageError

# The reason a stage records for a quality failure starts with the check name in brackets,
# e.g. "[tool_smoke_calls] get_order: tool_failed: ...", so the catalog can report the check.
_CHECK_IN_REASON = re.compile(r"\[([a-z][a-z0-9_]*)\]")
LOCATION_FIELDS = ("task", "tool", "table", "column", "row")


@dataclass(frozen=True)
class Finding:
    env_id: str
    check: str
    error: str
    task: str | None = None
    tool: str | None = None
    table: str | None = None
    column: str | None = None
    row: Any = None
    value: Any = None

    def where(self) -> str:
        parts = [f"{name} {getattr(self, name)}" for name in LOCATION_FIELDS if getattr(self, name) is not None]
        return ", ".join(parts)

    def describe(self) -> str:
        where = self.where()
        return f"{where}: {self.error}" if where else self.error

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}


class QualityError(StageError):
    """A stage's output failed one of its quality checks; the findings say where and why."""

    def __init__(self, stage: str, env_id: str, check: str, findings: list[Finding]):
        shown = "; ".join(f.describe() for f in findings[:5])
        more = f" (and {len(findings) - 5} more)" if len(findings) > 5 else ""
        super().__init__(stage, env_id, f"[{check}] {len(findings)} problem(s): {shown}{more}")
        self.check = check
        self.findings = findings


def require_no_findings(stage: str, env_id: str, findings: list[Finding]) -> None:
    """Raise QualityError for the first check that found something (stages call this)."""
    if findings:
        check = findings[0].check
        raise QualityError(stage, env_id, check, [f for f in findings if f.check == check])


def check_named_in(reason: str | None) -> str | None:
    """The check named in a recorded failure reason, if a quality check caused it."""
    match = _CHECK_IN_REASON.search(reason or "")
    return match.group(1) if match else None


def findings_table(findings: list[Finding], limit: int = 50) -> str:
    """A markdown table of findings: environment, check, location columns and the error."""
    lines = ["| environment | check | task | tool | table | column | row | error |",
             "|---|---|---|---|---|---|---|---|"]
    for f in findings[:limit]:
        cells = [f.env_id, f.check, *("" if getattr(f, n) is None else str(getattr(f, n)) for n in LOCATION_FIELDS),
                 f.error]
        lines.append("| " + " | ".join(c.replace("|", "/").replace("\n", " ")[:200] for c in cells) + " |")
    if len(findings) > limit:
        lines.append(f"\n{len(findings) - limit} more finding(s) not shown.")
    return "\n".join(lines)
