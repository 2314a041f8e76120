"""Deterministic sample data for a world plan.

Rows depend only on the scenario's seed: the clock is the fixed REFERENCE_NOW,
names and contacts come from a seeded Faker, and every foreign key points at a
row generated earlier. The result is plain Python (table -> list of row dicts),
written to SQLite by the databases stage and read by the task generator. The
row generator here holds the shared state and helpers; each concern's rows are
made by its module in awm.builder.modules.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from faker import Faker

from awm.builder.catalogue.model import ExtraColumn
from awm.builder.clock import REFERENCE_NOW, REFERENCE_NOW_ISO
from awm.builder.modules import FILL_ORDER, FILLERS
from awm.builder.texts import TextPools
from awm.builder.world import WorldPlan, stable_seed

__all__ = ["REFERENCE_NOW", "REFERENCE_NOW_ISO", "RowGen", "Rows", "generate_rows"]

_FAKER = Faker("en_US")
_MAIL_HOSTS = ("example.com", "example.org", "example.net", "mail.test")

Rows = dict[str, list[dict]]


class RowGen:
    """The state every filler shares: the seeded random sources and the rows made so far."""

    def __init__(self, plan: WorldPlan):
        self.plan = plan
        self.sc = plan.scenario
        self.rng = random.Random(self.sc.seed)
        self.fake = _FAKER
        self.fake.seed_instance(self.sc.seed)
        self.rows: Rows = {}
        self.emails: set[str] = set()
        self.texts = TextPools(self.sc, self.rng)

    def past(self, lo_days: int, hi_days: int) -> datetime:
        minutes = self.rng.randint(lo_days * 1440, hi_days * 1440)
        return (REFERENCE_NOW - timedelta(minutes=minutes)).replace(second=0)

    def between(self, start: datetime | str, end: datetime | str = REFERENCE_NOW) -> datetime:
        """A moment (whole minutes) from `start` to `end`; at `start` when `end` is not later."""
        start = datetime.fromisoformat(start) if isinstance(start, str) else start
        end = datetime.fromisoformat(end) if isinstance(end, str) else end
        minutes = max(0, int((end - start).total_seconds() // 60))
        return (start + timedelta(minutes=self.rng.randint(0, minutes))).replace(second=0, microsecond=0)

    def future(self, lo_days: int, hi_days: int) -> datetime:
        minutes = self.rng.randint(lo_days * 1440, hi_days * 1440)
        return (REFERENCE_NOW + timedelta(minutes=minutes)).replace(second=0, minute=(minutes % 4) * 15)

    def person(self) -> tuple[str, str]:
        """A first and a last name, never the same word ("Lucas Lucas here" reads as a slip)."""
        first, last = self.fake.first_name(), self.fake.last_name()
        while last == first:
            last = self.fake.last_name()
        return first, last

    def email(self, first: str, last: str) -> str:
        base = f"{first}.{last}".lower().replace("'", "").replace(" ", "")
        host = self.rng.choice(_MAIL_HOSTS)
        address, n = f"{base}@{host}", 1
        while address in self.emails:
            n += 1
            address = f"{base}{n}@{host}"
        self.emails.add(address)
        return address

    def phone(self) -> str:
        return f"555-{self.rng.randint(100, 999)}-{self.rng.randint(1000, 9999)}"

    def money(self, lo: float, hi: float) -> float:
        return round(self.rng.uniform(lo, hi), 2)

    def add(self, role: str, row: dict) -> dict:
        rows = self.rows.setdefault(role, [])
        row = {"id": len(rows) + 1, **row}
        rows.append(row)
        return row

    def ids(self, role: str) -> list[int]:
        return [r["id"] for r in self.rows.get(role, [])]

    def fk(self, role: str) -> str:
        return self.plan[role].fk

    def has(self, role: str) -> bool:
        return self.plan.has(role)

    def build(self) -> Rows:
        for role in FILL_ORDER:
            if self.has(role):
                FILLERS[role](self)
        self.fill_extra_columns()
        # column order follows the plan, so every row has exactly the table's columns
        out: Rows = {}
        for role, entity in self.plan.entities.items():
            names = [c.name for c in entity.columns]
            out[role] = [{n: row.get(n) for n in names} for row in self.rows.get(role, [])]
        return out


    def fill_extra_columns(self) -> None:
        """The category's own columns on core tables, from their own rng (the other rows do not move with them)."""
        rng = random.Random(stable_seed("columns", self.sc.seed))
        for role, columns in self.plan.extra_columns.items():
            for row in self.rows.get(role, []):
                for column in columns:
                    row[column.name] = _column_value(column, rng)


def _column_value(column: ExtraColumn, rng: random.Random) -> str | float | int:
    if column.values is not None:
        return rng.choice(column.values)
    if column.range is not None:
        low, high = column.range
        return rng.randint(int(low), int(high)) if column.integer else round(rng.uniform(low, high), 2)
    low, high = column.days
    return (REFERENCE_NOW + timedelta(days=rng.randint(low, high))).date().isoformat()


def generate_rows(plan: WorldPlan) -> Rows:
    """Rows for every table of the plan, keyed by role; identical for identical scenarios."""
    return RowGen(plan).build()
