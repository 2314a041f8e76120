"""The test lanes (README, "Tests") and how pytest-xdist schedules them: pytest and the standard library only,
so that a test can run pytest with these hooks alone (tests/test_lanes.py)."""

from __future__ import annotations

import os

import pytest

# Every test of these folders carries the folder's marker, so the fast lane (`make test-fast`: -m "not slow and
# not e2e and not ops") leaves them out and `make test` runs them. The agent-side clients (tests/ecosystem) run
# in their own virtualenv against real servers: end to end.
LANE_OF_FOLDER = {"e2e": "e2e", "ops": "ops", "ecosystem": "e2e"}
# The tests whose groups are scheduled first
HEAVY = ("slow", "e2e", "ops")
# The e2e waits (tests/e2e, tests/ecosystem) end when their readiness signal holds (a server answers, a run has a
# final status, an element shows, a client process exits), so a loaded machine makes a test slower, not failed:
# this is only the last resort against a hang, never an expected duration.
PATIENCE_S = float(os.environ.get("AWM_E2E_PATIENCE_S", "900"))
# how often a wait asks again whether its signal holds
POLL_S = 0.2


def sample_or_whole(sample, whole) -> list:
    """The parameters of a check too slow to run on its whole set in the fast lane: `sample` there (id `sample`),
    `whole` marked slow (id `whole`), so `make test` runs both and `make test-fast` the sample alone."""
    return [pytest.param(sample, id="sample"), pytest.param(whole, id="whole", marks=pytest.mark.slow)]


def sample_in_fast_lane(config, sample, whole):
    """`sample` where the run leaves the slow tests out (the fast lane's -m expression), else `whole`: for a module
    fixture too costly to build whole in the fast lane whose tests would otherwise all run twice in `make test`
    (once on the sample, once on the whole, as `sample_or_whole` makes them)."""
    return sample if "not slow" in (config.getoption("markexpr") or "") else whole


def lane_folder(nodeid: str) -> str | None:
    """The lane folder (tests/e2e, tests/ecosystem, tests/ops) a test's module is in, if any."""
    parts = nodeid.split("::")[0].split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" and parts[1] in LANE_OF_FOLDER else None


def group_of(nodeid: str) -> str:
    """The group a test is scheduled with under `--dist loadgroup` (`make test`, `make test-fast`): a lane folder's
    tests keep to one worker and its session's servers; any other module's tests keep to one worker and its module
    fixtures (a built corpus, a proven world), which are then built once rather than once per worker."""
    return lane_folder(nodeid) or nodeid.split("::")[0]


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        folder = lane_folder(item.nodeid)
        if folder:
            item.add_marker(LANE_OF_FOLDER[folder])
    yield  # pytest's own selection (-m, -k) runs here, on the lane markers just added
    covered = samples_covered(items)
    if covered:
        config.hook.pytest_deselected(items=covered)
        dropped = {id(item) for item in covered}
        items[:] = [item for item in items if id(item) not in dropped]
    items[:] = heaviest_groups_first(items)


def samples_covered(items: list) -> list:
    """The `[sample]` tests of `sample_or_whole` whose `[whole]` test is selected too (`make test`): the whole set
    holds the sample, so running both only repeats it. Where the whole is left out (the fast lane, `-k sample`)
    the sample stays."""
    ids = {item.nodeid for item in items}
    return [item for item in items if item.nodeid.endswith("[sample]")
            and item.nodeid.removesuffix("[sample]") + "[whole]" in ids]


def heaviest_groups_first(items: list) -> list:
    """The items, each group's together (group_of), the groups holding a test of the slow, e2e or ops lanes first
    (a lane folder's group runs its tests one after another for minutes: begun last, it would leave the other
    worker idle at the end), then the larger groups first."""
    members: dict[str, list] = {}
    for item in items:
        members.setdefault(group_of(item.nodeid), []).append(item)
    heavy = {g for g, its in members.items() if any(m.name in HEAVY for it in its for m in it.iter_markers())}
    order = sorted(members, key=lambda g: (g not in heavy, -len(members[g])))  # stable: ties keep collection order
    return [item for g in order for item in members[g]]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadgroup` by group_of, in the order of collection (heaviest_groups_first). pytest-xdist's own
    loadgroup reads the `@group` suffix its workers write into `item._nodeid`, which pytest 9 no longer reads
    (a nodeid is `item._id`): there every test was a group of its own, so a module's fixtures and a lane's
    session servers were built on both workers."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # xdist would order the groups by their number of tests
    return GroupScheduling(config, log)
