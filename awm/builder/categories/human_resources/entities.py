"""What only an HR or staffing business keeps: leave requests and weekly timesheets of its staff, and background
checks on candidates; with the rules its tools enforce (leave may not overlap, a timesheet is at most 60 hours)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING

from awm.builder.categories.group import Group
from awm.builder.clock import REFERENCE_NOW, day
from awm.builder.entities import Col, Entity, fk_col, pk_col
from awm.builder.naming import plural, snake

if TYPE_CHECKING:
    from awm.builder.data import RowGen
    from awm.builder.flavours import Flavour

CATEGORY = "human_resources"
LABELS = {"leave_request": "leave request", "timesheet": "timesheet", "background_check": "background check"}
ALT_LABELS = {"leave_request": "absence request", "timesheet": "time card", "background_check": "screening check"}
GROUPS = {
    "leave": Group(("leave_request",)),
    "timesheets": Group(("timesheet",)),
    "screening": Group(("background_check",), not_for=("workplace_training",)),
}
CODED = ()

LEAVE_KINDS = ("annual", "sick", "parental", "unpaid")
MAX_WEEK_HOURS = 60


def entities(L: dict[str, str], has: Callable[[str], bool], flavour: Flavour) -> dict[str, Entity]:
    """The chosen ones of the leave_request, timesheet and background_check tables."""
    staff_fk = f"{snake(L['staff'])}_id"
    ents: dict[str, Entity] = {}
    if has("leave_request"):
        ents["leave_request"] = Entity("leave_request", L["leave_request"], [
            pk_col(), fk_col(L, "staff"), Col("kind", "TEXT", enum=LEAVE_KINDS), Col("starts_on", "TEXT"),
            Col("ends_on", "TEXT"), Col("status", "TEXT", enum=("pending", "approved", "rejected", "cancelled")),
        ], f"Time off asked for by {plural(L['staff'])}; approved leave of one person may not overlap.",
            filters=(staff_fk, "kind", "status"))
    if has("timesheet"):
        ents["timesheet"] = Entity("timesheet", L["timesheet"], [
            pk_col(), fk_col(L, "staff"), Col("week_starting", "TEXT"),
            Col("hours", "REAL", minimum=0, maximum=MAX_WEEK_HOURS),
            Col("status", "TEXT", enum=("submitted", "approved", "rejected")),
        ], f"Hours each {L['staff']} worked per week (at most {MAX_WEEK_HOURS}).", filters=(staff_fk, "week_starting", "status"))
    if has("background_check"):
        ents["background_check"] = Entity("background_check", L["background_check"], [
            pk_col(), fk_col(L, "party"), Col("check_type", "TEXT", enum=("criminal", "employment", "education", "credit")),
            Col("status", "TEXT", enum=("ordered", "clear", "consider", "cancelled")), Col("ordered_on", "TEXT"),
        ], f"Screening ordered for {plural(L['party'])}.", filters=(f"{snake(L['party'])}_id", "status", "check_type"))
    return ents


# How many days after its first a leave of each kind ends: a sick day or a week, parental leave of two to six weeks.
LEAVE_DAYS = {"annual": (0, 13), "sick": (0, 4), "parental": (13, 41), "unpaid": (0, 9)}


def fill_leave(gen: RowGen) -> None:
    for member in gen.rows["staff"]:
        for k in range(gen.rng.choice((0, 1, 2))):
            start = REFERENCE_NOW + timedelta(days=gen.rng.randint(-40, 60) + 35 * k)
            status = gen.rng.choices(("pending", "approved", "rejected", "cancelled"), (4, 4, 1, 1))[0]
            kind = gen.rng.choice(LEAVE_KINDS)
            end = start + timedelta(days=gen.rng.randint(*LEAVE_DAYS[kind]))
            gen.add("leave_request", {gen.fk("staff"): member["id"], "kind": kind, "starts_on": day(start),
                                      "ends_on": day(end), "status": status})


def fill_timesheets(gen: RowGen) -> None:
    monday = REFERENCE_NOW - timedelta(days=REFERENCE_NOW.weekday())
    for member in gen.rows["staff"]:
        for week in range(1, 4):
            gen.add("timesheet", {gen.fk("staff"): member["id"], "week_starting": day(monday - timedelta(weeks=week)),
                                  "hours": float(gen.rng.choice((16, 24, 32, 37.5, 40, 42, 45, 50))),
                                  "status": "submitted" if week == 1 else gen.rng.choices(("approved", "rejected"), (9, 1))[0]})


def fill_checks(gen: RowGen) -> None:
    for party in gen.rng.sample(gen.rows["party"], min(len(gen.rows["party"]), 15)):
        gen.add("background_check", {gen.fk("party"): party["id"],
                                     "check_type": gen.rng.choice(("criminal", "employment", "education", "credit")),
                                     "status": gen.rng.choices(("ordered", "clear", "consider", "cancelled"), (4, 5, 1, 1))[0],
                                     "ordered_on": day(gen.past(1, 40))})


FILL = {"leave_request": fill_leave, "timesheet": fill_timesheets, "background_check": fill_checks}

