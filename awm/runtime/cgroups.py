"""cgroup limits for sandbox workers under OS isolation: how many processes a worker may have, how much memory.

The pool's own limits (a call's memory budget, the worker's resident-memory ceiling, the kernel's CPU-time
limit) are set inside the worker; these are set from outside, by the kernel, and hold whatever the worker does:

  pids.max            processes and threads of the worker and of whatever it starts (a fork bomb stops there)
  memory limit        memory.limit_in_bytes (cgroup v1) or memory.max (v2): past it the kernel reclaims, then
                      kills the worker; the pool restarts it and rebuilds its episodes, as after any crash

Each worker slot of a pool gets one cgroup, `awm-<pool pid>-<pool serial>-<worker index>`, made under the cgroup this
process is in (so limits set above it still hold) in a hierarchy this process may write: cgroup v2 where that
cgroup delegates the memory and pids controllers (its cgroup.subtree_control lists them), else cgroup v1 with
both the memory and the pids hierarchies mounted. A worker (its real pid, inside bubblewrap) is moved in right
after it starts, and what it started with stays charged where it was; successors of the slot join the same
cgroup; it is removed when the pool closes (and, were the pool's process killed first, by the next pool that
finds it empty). Where no such hierarchy exists, or any step fails, workers start
as before and `describe()` says why the limits are not applied (`awm sandbox` shows it): a cgroup error never
keeps a worker from starting.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from awm.errors import AWMError

log = logging.getLogger(__name__)

DEFAULT_PIDS_MAX = 64  # a worker is one process with a few threads; generated code may start none
HEADROOM_BYTES = 128 * 2 ** 20  # above the pool's ceilings: interpreter, SQLite caches, a call in flight
REMOVE_SECONDS = 2.0  # how long a removal waits for the worker's last tasks to leave


@dataclass(frozen=True)
class Hierarchy:
    """Where worker cgroups are made: `version` 1 or 2 and the parent directory per controller."""

    version: int
    memory: Path  # the parent directory in the memory hierarchy (v2: the one directory)
    pids: Path

    @property
    def memory_file(self) -> str:
        return "memory.max" if self.version == 2 else "memory.limit_in_bytes"


def _own_paths() -> dict[str, str]:
    """This process's cgroup per controller ("" for the v2 unified hierarchy), from /proc/self/cgroup."""
    paths: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for name in controllers.split(",") if controllers else [""]:
            paths[name] = path
    return paths


def _mounts() -> list[tuple[str, str, set[str]]]:
    """(mount point, fs type, options) of every cgroup mount."""
    found = []
    for line in Path("/proc/self/mounts").read_text().splitlines():
        fields = line.split()
        if len(fields) >= 4 and fields[2] in ("cgroup", "cgroup2"):
            found.append((fields[1].replace("\\040", " "), fields[2], set(fields[3].split(","))))
    return found


def _writable(path: Path) -> bool:
    return path.is_dir() and os.access(path, os.W_OK | os.X_OK)


def find_hierarchy() -> Hierarchy | str:
    """A hierarchy this process can make worker cgroups in, or the reason there is none."""
    try:
        own, mounts = _own_paths(), _mounts()
    except (OSError, ValueError) as exc:
        return f"cannot read this process's cgroups: {exc}"
    reasons = []
    for point, fstype, _ in mounts:  # v2 first: the one the kernel develops
        if fstype != "cgroup2" or "" not in own:
            continue
        parent = Path(point) / own[""].lstrip("/")
        try:
            delegated = set((parent / "cgroup.subtree_control").read_text().split())
        except OSError as exc:
            reasons.append(f"cgroup v2 at {point}: {exc.strerror or exc}")
            continue
        if not {"memory", "pids"} <= delegated:
            reasons.append(f"cgroup v2 at {point} does not delegate the memory and pids controllers here "
                           f"(cgroup.subtree_control: {' '.join(sorted(delegated)) or 'empty'})")
        elif not _writable(parent):
            reasons.append(f"cgroup v2 at {point} is not writable here")
        else:
            return Hierarchy(2, parent, parent)
    parents: dict[str, Path] = {}
    for controller in ("memory", "pids"):
        point = next((p for p, fstype, options in mounts if fstype == "cgroup" and controller in options), None)
        if point is None:
            reasons.append(f"no cgroup v1 {controller} hierarchy is mounted")
            continue
        parent = Path(point) / own.get(controller, "/").lstrip("/")
        if not _writable(parent):
            reasons.append(f"cgroup v1 {controller} hierarchy at {parent} is not writable here")
            continue
        parents[controller] = parent
    if len(parents) == 2:
        return Hierarchy(1, parents["memory"], parents["pids"])
    return "; ".join(reasons) or "no cgroup hierarchy is mounted"


def memory_limit(worker_memory_mb: float, call_memory_bytes: int | None, scratch_bytes: int) -> int | None:
    """The memory limit of a worker's cgroup: its resident-memory ceiling, plus what one call may add above it,
    its scratch (a tmpfs: its pages count) and headroom; None where the pool sets no ceiling."""
    if not worker_memory_mb:
        return None
    return int(worker_memory_mb * 2 ** 20) + (call_memory_bytes or 0) + scratch_bytes + HEADROOM_BYTES


_POOLS = itertools.count()  # pools made in this process


class WorkerCgroups:
    """The cgroups of one pool's workers: made on first use, one per worker slot, removed by `close`."""

    def __init__(self, pool_pid: int, memory_bytes: int | None, pids_max: int = DEFAULT_PIDS_MAX):
        self.pool_pid = pool_pid
        # a process may hold several pools (a server and a build, a test session's pools): each has its own
        # cgroups, so one pool's limits and removal never reach another's workers
        self.serial = next(_POOLS)
        self.memory_bytes = memory_bytes
        self.pids_max = pids_max
        self._hierarchy: Hierarchy | str | None = None
        self._made: dict[int, list[Path]] = {}  # worker index -> its directories (one per hierarchy)
        self.failures: dict[int, str] = {}  # worker index -> the error that kept its process out of its cgroup
        self._lock = threading.Lock()  # workers start on threads of their own
        self._closed = False

    def hierarchy(self) -> Hierarchy | str:
        with self._lock:
            if self._hierarchy is None:
                self._hierarchy = find_hierarchy()
                if isinstance(self._hierarchy, str):
                    log.warning("sandbox workers get no cgroup limits (processes, memory): %s", self._hierarchy)
                else:
                    _sweep(self._hierarchy)
            return self._hierarchy

    def name(self, index: int) -> str:
        return f"awm-{self.pool_pid}-{self.serial}-{index}"

    def paths(self, index: int) -> list[Path]:
        """The directories of worker `index`'s cgroup (memory first), made or not."""
        found = self.hierarchy()
        if isinstance(found, str):
            return []
        return list(dict.fromkeys((found.memory / self.name(index), found.pids / self.name(index))))

    def attach(self, index: int, pid: int) -> bool:
        """Move process `pid` (worker `index`) into its cgroup, made with its limits on first use. False, with
        the reason logged and kept in `failure`, where that is not possible: the worker runs without them."""
        found = self.hierarchy()
        if isinstance(found, str):
            return False
        with self._lock:
            if self._closed:  # a successor started while the pool closed: it is about to be stopped
                return False
            try:
                if index not in self._made:
                    self._make(index, found)
                for directory in self._made[index]:
                    (directory / "cgroup.procs").write_text(str(pid))
            except OSError as exc:
                self.failures[index] = f"sandbox worker {index} (pid {pid}) could not be moved into its cgroup: {exc}"
                log.warning("%s; it runs without cgroup limits", self.failures[index])
                return False
            self.failures.pop(index, None)
            return True

    def refuse(self, index: int, why: str) -> None:
        """Record that worker `index` runs without its cgroup, and why."""
        with self._lock:
            self.failures[index] = f"sandbox worker {index}: {why}"
        log.warning("%s; it runs without cgroup limits", self.failures[index])

    def _make(self, index: int, found: Hierarchy) -> None:
        made: list[Path] = []
        try:
            for directory in dict.fromkeys((found.memory / self.name(index), found.pids / self.name(index))):
                directory.mkdir(exist_ok=True)
                made.append(directory)
            memory_dir, pids_dir = found.memory / self.name(index), found.pids / self.name(index)
            (pids_dir / "pids.max").write_text(str(self.pids_max))
            if self.memory_bytes is not None:
                (memory_dir / found.memory_file).write_text(str(self.memory_bytes))
                if found.version == 2 and (memory_dir / "memory.swap.max").exists():
                    (memory_dir / "memory.swap.max").write_text("0")  # the limit is not evaded into swap
        except OSError:
            for directory in made:
                _remove(directory)
            raise
        self._made[index] = made

    def read(self, index: int, pid: int) -> dict:
        """What the kernel holds for worker `index`: its cgroup's name and limits read back from the files, after
        checking that `pid` is in it (AWMError if not: the limits would not hold that process)."""
        found = self.hierarchy()
        if isinstance(found, str):
            raise AWMError(f"no cgroup hierarchy: {found}")
        for directory in self.paths(index):
            if str(pid) not in (directory / "cgroup.procs").read_text().split():
                raise AWMError(f"process {pid} is not in its cgroup {directory}")
        memory = (found.memory / self.name(index) / found.memory_file).read_text().strip()
        pids = (found.pids / self.name(index) / "pids.max").read_text().strip()
        unlimited = memory == "max" or int(memory) >= 2 ** 62
        return {"name": self.name(index), "pids_max": None if pids == "max" else int(pids),
                "memory_bytes": None if unlimited else int(memory)}

    def describe(self) -> dict:
        """Whether workers are held by cgroup limits, which ones, or why not (what `awm sandbox` shows)."""
        found = self.hierarchy()
        if isinstance(found, str):
            return {"applied": False, "reason": found}
        if self.failures:
            return {"applied": False, "reason": next(iter(self.failures.values()))}
        return {"applied": True, "version": found.version, "pids_max": self.pids_max,
                "memory_bytes": self.memory_bytes}

    def close(self) -> None:
        """Remove every worker cgroup made (their processes have exited): best effort, a failure is logged."""
        with self._lock:
            made, self._made, self._closed = self._made, {}, True
        for directories in made.values():
            for directory in directories:
                _remove(directory)


def _sweep(found: Hierarchy) -> None:
    """Remove the empty worker cgroups of pools whose process is gone (killed before it could remove them)."""
    for parent in {found.memory, found.pids}:
        try:
            names = [p for p in parent.iterdir() if p.name.startswith("awm-") and p.is_dir()]
        except OSError:
            continue
        for directory in names:
            owner = directory.name.split("-")[1]
            if not owner.isdigit() or Path(f"/proc/{owner}").exists():
                continue
            try:
                directory.rmdir()  # refused while any process is in it
                log.info("removed the stale sandbox worker cgroup %s", directory)
            except OSError:
                pass


def _remove(directory: Path) -> None:
    """rmdir a cgroup, waiting a moment for tasks that are still exiting (a killed worker's last threads)."""
    deadline = time.monotonic() + REMOVE_SECONDS
    while True:
        try:
            directory.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError as exc:
            if time.monotonic() >= deadline:
                log.warning("could not remove the sandbox worker cgroup %s: %s", directory, exc)
                return
            time.sleep(0.02)
