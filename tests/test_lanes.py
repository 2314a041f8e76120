"""The lanes' scheduling (README, "Tests"): under `--dist loadgroup` (`make test`, `make test-fast`) a module's
tests keep to one pytest-xdist worker, and so do a lane folder's, with the groups holding the slowest tests first."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.lanes import group_of, heaviest_groups_first

ROOT = Path(__file__).resolve().parents[1]

TEST_OF_A_MODULE = '''
import json, os, pathlib
def record(name):
    with open(os.environ["LANES_RECORD"], "a") as out:
        out.write(json.dumps([pathlib.Path(__file__).parent.name, __name__, os.environ["PYTEST_XDIST_WORKER"]]) + "\\n")
'''


@pytest.mark.slow
def test_under_loadgroup_each_module_and_each_lane_folder_keeps_to_one_worker(tmp_path):
    """Two workers, three modules and a lane folder of two modules, four tests each: every group's tests are
    run by one worker (with pytest-xdist's own loadgroup under pytest 9, each test was a group of its own)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(
        "from tests.lanes import pytest_collection_modifyitems, pytest_xdist_make_scheduler  # noqa: F401\n")
    modules = ["tests/test_a.py", "tests/test_b.py", "tests/awm/test_c.py", "tests/e2e/test_d.py",
               "tests/e2e/test_e.py"]
    for module in modules:
        path = tmp_path / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(TEST_OF_A_MODULE + "".join(f"\ndef test_{n}():\n    record('{n}')\n" for n in range(4)))
    record = tmp_path / "record.jsonl"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadgroup", "--rootdir", str(tmp_path), *modules], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), "LANES_RECORD": str(record)})
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    ran = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(ran) == 20
    workers: dict[str, set[str]] = {}
    for folder, module, worker in ran:
        workers.setdefault("e2e" if folder == "e2e" else module, set()).add(worker)
    assert set(workers) == {"test_a", "test_b", "test_c", "e2e"}
    assert all(len(w) == 1 for w in workers.values()), workers
    assert len(set().union(*workers.values())) == 2  # both workers had work


def test_a_lane_folder_is_one_group_and_any_other_module_its_own():
    assert group_of("tests/e2e/test_ui.py::test_x") == group_of("tests/e2e/test_failed_environment.py::t") == "e2e"
    assert group_of("tests/ecosystem/test_trainers.py::t[a]") == "ecosystem"
    assert group_of("tests/ops/test_crash_safety.py::t") == "ops"
    assert group_of("tests/awm/builder/test_dialect.py::test_x[a/b]") == "tests/awm/builder/test_dialect.py"
    assert group_of("tests/test_cli.py::t") == "tests/test_cli.py"
    assert group_of("tests/awm/e2e_like/test_x.py::t") == "tests/awm/e2e_like/test_x.py"


class Item:
    """What heaviest_groups_first reads of a pytest item: its nodeid and its marks."""

    def __init__(self, nodeid: str, *lanes: str):
        self.nodeid = nodeid
        self.marks = [getattr(pytest.mark, lane).mark for lane in lanes]

    def iter_markers(self, name: str | None = None):
        return (m for m in self.marks if name is None or m.name == name)


def test_the_groups_holding_a_slow_e2e_or_ops_test_are_scheduled_first_each_kept_together():
    items = [Item("tests/a.py::one"), Item("tests/a.py::two"), Item("tests/b.py::one"),
             Item("tests/e2e/c.py::one", "e2e"), Item("tests/d.py::one"), Item("tests/d.py::two", "slow"),
             Item("tests/e2e/f.py::one", "e2e"), Item("tests/g.py::one"), Item("tests/g.py::two"),
             Item("tests/g.py::three"), Item("tests/ops/h.py::one", "ops")]
    order = [i.nodeid for i in heaviest_groups_first(items)]
    # the heavy groups (the larger first, ties in collection order), then the others (the larger first)
    assert order == ["tests/e2e/c.py::one", "tests/e2e/f.py::one", "tests/d.py::one", "tests/d.py::two",
                     "tests/ops/h.py::one", "tests/g.py::one", "tests/g.py::two", "tests/g.py::three",
                     "tests/a.py::one", "tests/a.py::two", "tests/b.py::one"]


# The fixed time limits left in the e2e tests, each on one attempt of a wait that is retried, or on a teardown (the
# browser's retried attempts take tests/e2e/browser.py's ATTEMPT_MS: `until_shown`)
PER_ATTEMPT = {"tests/e2e/conftest.py": ["with urllib.request.urlopen(url, timeout=10) as response:",  # one probe
                                         "proc.wait(timeout=30)"]}  # dagster dev's grace after SIGTERM, then SIGKILL


def test_the_e2e_waits_end_on_their_signal_with_only_the_patience_as_a_time_limit():
    """tests/e2e and tests/ecosystem wait for a readiness signal (a server answers, a run ends, a client process
    exits) with PATIENCE_S (tests/lanes.py) as the only limit: a fixed limit fails a test on a loaded machine."""
    found = {}
    for folder in ("e2e", "ecosystem"):
        for path in sorted((ROOT / "tests" / folder).glob("*.py")):
            for line in path.read_text(encoding="utf-8").splitlines():
                if re.search(r"\btimeout=\d", line):
                    found.setdefault(str(path.relative_to(ROOT)), []).append(line.split("#")[0].strip())
    assert found == PER_ATTEMPT


def test_a_sampled_check_runs_its_sample_in_the_fast_lane_and_its_whole_set_only_in_the_full_one(tmp_path):
    """`sample_or_whole`: under the fast lane's marker expression only the sample runs; without it (`make test`)
    the whole set alone (it holds the sample), and the sample alone where it is the one chosen (`-k sample`).
    `sample_in_fast_lane`: the sample in the fast lane, the whole set alone in the full one."""
    (tmp_path / "pytest.ini").write_text("[pytest]\nmarkers =\n    slow: slow\n")
    (tmp_path / "conftest.py").write_text("from tests.lanes import pytest_collection_modifyitems  # noqa: F401\n")
    (tmp_path / "test_drawn.py").write_text(
        "import pytest\nfrom tests.lanes import sample_in_fast_lane, sample_or_whole\n\n"
        "@pytest.fixture(scope='module', params=sample_or_whole((1, 2), (1, 2, 3, 4)))\n"
        "def worlds(request):\n    return request.param\n\n"
        "def test_sum(worlds):\n    print('RAN', len(worlds))\n\n"
        "def test_proven(request):\n    print('PROVEN', sample_in_fast_lane(request.config, 1, 3))\n")

    def ran(*args: str) -> list[str]:
        done = subprocess.run([sys.executable, "-m", "pytest", "-s", "-q", "-p", "no:cacheprovider", "--rootdir",
                               str(tmp_path), *args, "test_drawn.py"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return re.findall(r"(?:RAN|PROVEN) \d", done.stdout)

    assert ran("-m", "not slow and not e2e and not ops and not real_model") == ["RAN 2", "PROVEN 1"]
    assert ran() == ["RAN 4", "PROVEN 3"]
    assert ran("-k", "sample") == ["RAN 2"]
    assert ran("-k", "whole") == ["RAN 4"]


def test_a_session_corpus_is_built_by_one_pytest_xdist_worker_and_copied_by_each(tmp_path, monkeypatch):
    """`built_once_per_run`: the second worker copies what the first built (each then has a store of its own);
    without pytest-xdist a session builds its own."""
    from tests.conftest import built_once_per_run

    class Workers:  # pytest's tmp_path_factory in a worker: a folder of its own beneath the run's
        def __init__(self, worker: str):
            self.base = tmp_path / f"popen-{worker}"
            self.base.mkdir()

        def getbasetemp(self) -> Path:
            return self.base

        def mktemp(self, name: str) -> Path:
            (self.base / name).mkdir()
            return self.base / name

    builds = []

    def build(store) -> None:
        builds.append(store.home)
        store.write_text("shop__00", "tasks.json", f'{{"build": {len(builds)}}}')

    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    first = built_once_per_run(Workers("gw0"), "corpus", build)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    second = built_once_per_run(Workers("gw1"), "corpus", build)
    assert len(builds) == 1 and first.home != second.home != builds[0]
    assert first.read_text("shop__00", "tasks.json") == second.read_text("shop__00", "tasks.json") == '{"build": 1}'
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    alone = built_once_per_run(Workers("alone"), "corpus", build)
    assert builds[1] == alone.home and alone.read_text("shop__00", "tasks.json") == '{"build": 2}'


def test_a_test_needing_a_side_venv_waits_for_its_background_install_and_no_longer(tmp_path):
    """`make test` installs the side virtualenvs in the background (Makefile): a test needing one waits until its
    stamp appears, and not at all where the installing process has ended (a stale id of a killed run) or none runs."""
    import threading
    import time

    from tests.conftest import await_venv

    python = tmp_path / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    pending = tmp_path / "pending"
    installer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        pending.write_text(str(installer.pid))
        threading.Timer(1.0, (python.parent.parent / ".installed").touch).start()
        started = time.monotonic()
        await_venv(python, pending)
        waited = time.monotonic() - started
        assert (python.parent.parent / ".installed").exists() and waited >= 0.9
    finally:
        installer.kill()
        installer.wait()
    (python.parent.parent / ".installed").unlink()
    started = time.monotonic()
    await_venv(python, pending)  # the installer's id names no live process
    await_venv(python, tmp_path / "none")  # nothing installs
    assert time.monotonic() - started < 1
