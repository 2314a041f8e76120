"""Shared fixtures: a small corpus built once per session through the core stages."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from awm.builder.dialect import Dialect
from awm.builder.toolgen import dialect_for
from awm.builder.world import make_scenario, plan_world
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.lanes import pytest_collection_modifyitems, pytest_xdist_make_scheduler  # noqa: F401 - the lanes' hooks

os.environ.setdefault("DAGSTER_DISABLE_TELEMETRY", "1")
# Where the tests run as root on a machine without bubblewrap, their sandbox workers (hand-written hostile code
# included) run as root without OS isolation: what the runtime refuses unless told (awm/runtime/isolation.py).
os.environ.setdefault("AWM_SANDBOX_ALLOW_ROOT", "1")

__all__ = ["build_environment", "dialect_of"]

ROOT = Path(__file__).resolve().parents[1]
# `make test` installs the side virtualenvs (the clients', the trainers', AWM's agent's) in the background while the
# suite runs (Makefile, `test`): this file holds the installing process's id until it ends.
SIDE_VENVS_PENDING = ROOT / ".side-venvs.pending"


def _installing(pending: Path) -> bool:
    try:
        os.kill(int(pending.read_text().strip()), 0)
    except (OSError, ValueError):  # no such file, no such process (a stale file of a killed run), or garbage
        return False
    return True


def await_venv(python: str | Path, pending: Path = SIDE_VENVS_PENDING) -> None:
    """Wait while `make test` is still installing the virtualenv of `python` in the background: until its stamp
    (`<venv>/.installed`, written when its install has finished) exists or the installing process has ended. Where
    nothing installs in the background (pytest run by hand, or every venv already made), it returns at once."""
    from tests.lanes import PATIENCE_S

    stamp = Path(python).parent.parent / ".installed"
    deadline = time.monotonic() + PATIENCE_S
    while not stamp.exists() and _installing(pending) and time.monotonic() < deadline:
        time.sleep(1)


def missing_venv(why: str) -> None:
    """A client venv `make test` builds is missing: a skip on a contributor's machine, a failure under CI (where
    `.ci/run` builds every venv, so a missing one means the integration was never tested)."""
    rc = ROOT / ".side-venvs.rc"
    if rc.exists() and rc.read_text().strip() != "0":
        why += f" (installing the side virtualenvs failed: {ROOT / '.side-venvs.log'} says why)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def needs_os_isolation():
    """The machine's OS isolation (bubblewrap), or a skip naming why there is none (`make test` warns then)."""
    from awm.runtime import isolation

    found = isolation.os_isolation()
    if not isinstance(found, isolation.Isolation):
        pytest.skip(f"OS-level isolation is unavailable on this machine: {found}")
    return found


@pytest.fixture(scope="module")
def os_isolated():
    return needs_os_isolation()


def copied_store(store: ArtifactStore, where: Path) -> ArtifactStore:
    """A copy of a module's built store for one test to change."""
    shutil.copytree(store.home, where / "home")
    return ArtifactStore(where / "home")


def dialect_of(env_id: str) -> Dialect:
    """The API dialect of a built-in environment (default base seed): a test names its tools with
    `dialect_of(env_id).name("get_customer")`, whichever style the environment drew."""
    domain, slot = env_id.rsplit("__", 1)
    return dialect_for(plan_world(make_scenario(domain, int(slot))))


def built_once_per_run(tmp_path_factory, name: str, build: Callable[[ArtifactStore], None]) -> ArtifactStore:
    """A store of this process's own, filled as `build` fills one. Under pytest-xdist the first worker to ask builds
    it once, in the run's temporary folder (the workers' folders are beneath it), and every worker copies that: a
    session's corpus built once per run rather than once per worker."""
    home = tmp_path_factory.mktemp(name)
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        build(ArtifactStore(home))
        return ArtifactStore(home)
    run = tmp_path_factory.getbasetemp().parent
    with open(run / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other worker waits here while the first builds; released on close
        if not (run / f"{name}.built").exists():
            build(ArtifactStore(run / name))
            (run / f"{name}.built").touch()
    shutil.copytree(run / name, home, dirs_exist_ok=True)
    return ArtifactStore(home)


def build_corpus(store: ArtifactStore) -> None:
    for domain in ("retail_banking", "dental_clinic", "pet_grooming"):
        for slot in (0, 1):
            outcomes = build_environment(store, domain, slot)
            assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]


@pytest.fixture(scope="session")
def corpus(tmp_path_factory) -> ArtifactStore:
    """Two environments of two built-in domains and one unseen domain."""
    return built_once_per_run(tmp_path_factory, "corpus", build_corpus)


@pytest.fixture
def store(tmp_path: Path) -> ArtifactStore:
    return ArtifactStore(tmp_path / "home")
