"""The fixed clock of every world: rows are dated relative to REFERENCE_NOW, never to the wall clock."""

from __future__ import annotations

from datetime import datetime

REFERENCE_NOW = datetime(2025, 6, 1, 9, 0, 0)
REFERENCE_NOW_ISO = REFERENCE_NOW.isoformat()
TODAY = REFERENCE_NOW.date().isoformat()  # the reference day, "2025-06-01"


def iso(dt: datetime) -> str:
    return dt.replace(microsecond=0).isoformat()


def day(dt: datetime) -> str:
    return dt.date().isoformat()
