"""cgroup limits on sandbox workers under OS isolation (awm/runtime/cgroups.py), through the real pool.

Generated code cannot start a process (the AST policy refuses `os`, `subprocess` and `__import__`), so the
process limit is checked as the kernel holds it (the worker inside its cgroup, pids.max written); the memory
limit is proven: a call that allocates past it is ended by the kernel, and the pool carries on.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from awm.cli import main as awm_main
from awm.contracts import TaskSet, ToolSet
from awm.runtime import cgroups, isolation
from awm.runtime.environment import Environment
from awm.runtime.isolation import SCRATCH_BYTES, Isolation
from awm.runtime.pool import WorkerPool

MiB = 2 ** 20

TOOLS = '''
def add_item(db, name):
    new = db.execute("INSERT INTO items(name) VALUES (?)", [name])
    return {"id": new["lastrowid"], "name": name}


def count_items(db):
    return db.one("SELECT COUNT(*) AS n FROM items")


def hog(db, mib):
    return len("x" * (mib * 1048576))
'''


@pytest.fixture(scope="module")
def hierarchy() -> cgroups.Hierarchy:
    found = isolation.os_isolation()
    if not isinstance(found, Isolation):
        pytest.skip(f"cgroup limits are set under OS isolation, unavailable on this machine: {found}")
    where = cgroups.find_hierarchy()
    if isinstance(where, str):
        pytest.skip(f"no writable cgroup hierarchy with the memory and pids controllers here: {where}")
    return where


def environment(database: Path, pool: WorkerPool) -> Environment:
    tools = ToolSet.model_validate({"env_id": "cgroup_test__00", "tools": [
        {"name": "add_item", "description": "add an item", "inputSchema": {
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        {"name": "count_items", "description": "count the items", "inputSchema": {"type": "object"}},
        {"name": "hog", "description": "hold memory", "inputSchema": {
            "type": "object", "properties": {"mib": {"type": "integer"}}, "required": ["mib"]}}]})
    tasks = TaskSet.model_validate({"env_id": "cgroup_test__00", "acting_user": "clerk", "tasks": [{
        "task_id": "t01", "instruction": "Add an item named z to the list.", "kind": "action", "template": "add",
        "reference_solution": [{"tool": "add_item", "arguments": {"name": "z"}}],
        "goals": [{"kind": "rows_created", "table": "items", "count": 1, "expect": {"name": "z"}}]}]})
    return Environment("cgroup_test__00", TOOLS, tools, tasks, None, database, pool=pool)


def cgroup_of(pid: int, controller: str) -> str:
    """The kernel's own record of a process's cgroup in one hierarchy ("" for cgroup v2)."""
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    raise AssertionError(f"process {pid} has no {controller!r} cgroup")


def worker_dirs(hierarchy: cgroups.Hierarchy, pool: WorkerPool, index: int) -> tuple[Path, Path]:
    name = pool.cgroups.name(index)
    return hierarchy.memory / name, hierarchy.pids / name


def test_each_worker_runs_in_a_cgroup_of_its_own_with_its_limits(hierarchy):
    pool = WorkerPool(workers=2, isolation="os", worker_memory_mb=300, memory_mb=100)
    expected_memory = (300 + 100) * MiB + SCRATCH_BYTES + cgroups.HEADROOM_BYTES
    with pool:
        for index, worker in enumerate(pool.stats()["workers"]):
            memory_dir, pids_dir = worker_dirs(hierarchy, pool, index)
            for controller in ("memory", "pids") if hierarchy.version == 1 else ("",):
                assert cgroup_of(worker["pid"], controller).endswith(f"/{pool.cgroups.name(index)}")
            assert str(worker["pid"]) in (pids_dir / "cgroup.procs").read_text().split()
            assert (pids_dir / "pids.max").read_text().strip() == str(cgroups.DEFAULT_PIDS_MAX)
            assert 1 <= int((pids_dir / "pids.current").read_text()) <= cgroups.DEFAULT_PIDS_MAX
            assert int((memory_dir / hierarchy.memory_file).read_text()) == expected_memory
        assert pool.stats()["isolation"]["cgroups"] == {"applied": True, "version": hierarchy.version,
                                                        "pids_max": cgroups.DEFAULT_PIDS_MAX,
                                                        "memory_bytes": expected_memory}
        made = [d for i in range(2) for d in worker_dirs(hierarchy, pool, i)]
        assert all(d.is_dir() for d in made)
    assert not any(d.exists() for d in made)  # removed with the pool


def test_a_call_past_the_memory_limit_is_ended_by_the_kernel_and_the_episode_carries_on(hierarchy, database):
    """No per-call budget (memory_mb=0): without the cgroup the call would hold 768 MiB and succeed."""
    pool = WorkerPool(workers=1, isolation="os", worker_memory_mb=64, memory_mb=0, call_seconds=20)
    limit = 64 * MiB + SCRATCH_BYTES + cgroups.HEADROOM_BYTES
    assert limit < 768 * MiB
    with pool:
        env = environment(database, pool)
        memory_dir, _ = worker_dirs(hierarchy, pool, 0)
        first = pool.stats()["workers"][0]["pid"]
        with env.reset() as episode:
            episode.call("add_item", {"name": "kept"})
            assert episode.call("hog", {"mib": 8}) == 8 * MiB  # under the limit: as before
            result = episode.call("hog", {"mib": 768})
            assert result["error"]["code"] == "sandbox_crashed", result
            assert episode.call("count_items")["n"] == 3  # rebuilt on the successor, without the call
            if hierarchy.version == 1:
                assert int((memory_dir / "memory.failcnt").read_text()) > 0
                oom = dict(line.split() for line in (memory_dir / "memory.oom_control").read_text().splitlines())
            else:
                oom = dict(line.split() for line in (memory_dir / "memory.events").read_text().splitlines())
            assert int(oom["oom_kill"]) >= 1
            successor = pool.stats()["workers"][0]["pid"]
            assert successor != first and str(successor) in (memory_dir / "cgroup.procs").read_text().split()
        env.close()
    assert not memory_dir.exists()


def test_a_cgroup_that_cannot_be_set_leaves_workers_running_and_says_why(hierarchy, database, caplog):
    pool = WorkerPool(workers=1, isolation="os")
    pool.cgroups.pids_max = -5  # the kernel refuses the value: making the cgroup fails
    with caplog.at_level(logging.WARNING, logger="awm.runtime.cgroups"), pool:
        env = environment(database, pool)
        with env.reset() as episode:
            assert episode.call("add_item", {"name": "z"})["name"] == "z"
        env.close()
        report = pool.stats()["isolation"]["cgroups"]
        assert report["applied"] is False and "could not be moved into its cgroup" in report["reason"]
        assert not any(d.exists() for d in worker_dirs(hierarchy, pool, 0))  # nothing half-made left behind
    assert any("runs without cgroup limits" in r.message for r in caplog.records)


def test_without_a_writable_hierarchy_workers_start_and_the_reason_is_reported(hierarchy, database, monkeypatch):
    mounts = cgroups._mounts()
    monkeypatch.setattr(cgroups, "_mounts", lambda: [m for m in mounts if "pids" not in m[2] and m[1] == "cgroup"])
    with WorkerPool(workers=1, isolation="os") as pool:
        env = environment(database, pool)
        with env.reset() as episode:
            assert episode.call("count_items")["n"] == 2
        env.close()
        assert pool.stats()["isolation"]["cgroups"] == {"applied": False,
                                                        "reason": "no cgroup v1 pids hierarchy is mounted"}


def test_process_isolation_reports_no_cgroup_limits(monkeypatch):
    monkeypatch.setenv(isolation.ALLOW_ROOT_ENV, "1")
    pool = WorkerPool(workers=1, isolation="process")
    assert pool.stats()["isolation"]["cgroups"] == {"applied": False,
                                                    "reason": "cgroup limits are set under OS isolation only"}


def test_awm_sandbox_reports_the_cgroup_limits_of_a_started_worker(hierarchy, capsys):
    assert awm_main(["sandbox", "--isolation", "os"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("cgroup limits:"))
    assert line.startswith(f"cgroup limits: applied (cgroup v{hierarchy.version}, awm-")
    assert f"at most {cgroups.DEFAULT_PIDS_MAX} processes" in line and "memory " in line and "MiB" in line


def test_a_pool_removes_the_empty_cgroups_a_killed_pool_left(hierarchy):
    dead = max(int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()) + 100000  # no such process
    assert not Path(f"/proc/{dead}").exists()
    left = [hierarchy.memory / f"awm-{dead}-0-0", hierarchy.pids / f"awm-{dead}-0-0"]
    for directory in left:
        directory.mkdir(exist_ok=True)
    try:
        with WorkerPool(workers=1, isolation="os") as pool:
            assert pool.stats()["isolation"]["cgroups"]["applied"]
            assert not any(d.exists() for d in left)
    finally:
        for directory in left:
            if directory.exists():
                directory.rmdir()


def test_two_pools_of_one_process_keep_their_own_cgroups(hierarchy):
    """A process may hold several pools (a test session's, a server's and a build's): one pool's limits and its
    removal never reach the other's workers."""
    first = WorkerPool(workers=1, isolation="os", worker_memory_mb=300)
    with first:
        with WorkerPool(workers=1, isolation="os", worker_memory_mb=64) as second:
            assert first.cgroups.name(0) != second.cgroups.name(0)
            second_dirs = worker_dirs(hierarchy, second, 0)
        assert not any(d.exists() for d in second_dirs)
        memory_dir, pids_dir = worker_dirs(hierarchy, first, 0)
        assert memory_dir.exists() and pids_dir.exists()
        assert str(first.stats()["workers"][0]["pid"]) in (pids_dir / "cgroup.procs").read_text().split()
