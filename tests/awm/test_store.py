import os
import signal
import subprocess
import sys
import textwrap

import pytest

from awm.contracts import Scenario, TaskSet
from awm.errors import CorruptArtifactError, MissingArtifactError
from awm.store import ArtifactStore, atomic_write_text


def test_atomic_write_leaves_no_temp_files(tmp_path):
    target = tmp_path / "a" / "b.json"
    atomic_write_text(target, "{}")
    atomic_write_text(target, '{"x": 1}')
    assert target.read_text() == '{"x": 1}'
    assert [p.name for p in target.parent.iterdir()] == ["b.json"]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_artifacts_are_written_with_the_mode_the_umask_gives(tmp_path, umask, mode):
    """A trainer running as another user reads the corpus when the umask lets it (mkstemp alone makes 0600)."""
    old = os.umask(umask)
    try:
        store = ArtifactStore(tmp_path)
        written = [store.write_text("banking__00", "scenario.json", "{}"), tmp_path / "export" / "tasks.jsonl"]
        atomic_write_text(written[1], "{}\n")
        atomic_write_text(written[1], "{}\n")  # replacing keeps the mode the umask gives
    finally:
        os.umask(old)
    assert [oct(p.stat().st_mode & 0o777) for p in written] == [oct(mode)] * 2


def test_truncated_json_names_the_file(corpus, tmp_path):
    store = ArtifactStore(tmp_path)
    env = "retail_banking__00"
    src = corpus.path(env, "tasks.json").read_text()
    store.write_text(env, "tasks.json", src[: len(src) // 2])
    with pytest.raises(CorruptArtifactError, match=r"retail_banking__00/tasks.json is not valid JSON"):
        store.read_model(env, "tasks.json", TaskSet)


def test_contract_violation_names_file_and_field(tmp_path):
    store = ArtifactStore(tmp_path)
    store.write_text("banking__00", "scenario.json", '{"env_id": "banking__00"}')
    with pytest.raises(CorruptArtifactError, match=r"scenario.json does not match the Scenario contract at domain"):
        store.read_model("banking__00", "scenario.json", Scenario)


def test_not_sqlite_is_named(tmp_path):
    store = ArtifactStore(tmp_path)
    store.write_text("banking__00", "env.db", "hello, I am not a database")
    with pytest.raises(CorruptArtifactError, match=r"banking__00/env.db is not a SQLite database"):
        store.database_path("banking__00")


def test_missing_artifact(tmp_path):
    with pytest.raises(MissingArtifactError, match="does not exist"):
        ArtifactStore(tmp_path).read_model("banking__00", "scenario.json", Scenario)


@pytest.mark.slow
def test_killed_build_leaves_no_half_written_artifact_and_resumes(tmp_path):
    """SIGKILL a process building environments, then check every artifact on disk parses and a re-run completes."""
    home = tmp_path / "home"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {os.getcwd()!r})
        from tests.conftest import build_environment
        from awm.store import ArtifactStore
        store = ArtifactStore({str(home)!r})
        print("ready", flush=True)
        for slot in range(6):
            build_environment(store, "retail_banking", slot)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    store = ArtifactStore(home)
    # wait until the build is under way, then kill it mid-environment
    import time

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and len(list(home.rglob("tools.json"))) < 2:
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert list(home.rglob("scenario.json")), "the build never started"
    from tests.conftest import build_environment

    for env_dir in sorted((home / "corpus" / "retail_banking").iterdir()):
        if (env_dir / "tasks.json").exists():
            store.read_model(env_dir.name, "tasks.json", TaskSet)  # parses: never half-written
        if (env_dir / "env.db").exists():
            store.database_path(env_dir.name)
    for slot in range(6):
        outcomes = build_environment(store, "retail_banking", slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    assert not list(home.rglob("*.tmp")), "a re-run sweeps temporary files left by the killed process"
