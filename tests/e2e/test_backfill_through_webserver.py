"""A per-domain backfill launched through the real webserver's GraphQL API, run by the real daemon."""

import subprocess
import sys

from awm.store import ArtifactStore
from tests.e2e.graphql import check_partition_statuses
from tests.lanes import PATIENCE_S


def test_awm_backfill_builds_a_domain_through_the_daemon(dagster_dev):
    url, awm_home = dagster_dev
    out = subprocess.run(
        [sys.executable, "-m", "awm.cli", "backfill", "--domain", "airline", "--url", url, "--poll", "1",
         "--timeout", str(int(PATIENCE_S))],  # it returns when the backfill finished; the limit is a last resort
        capture_output=True, text=True, timeout=PATIENCE_S + 60)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "registered domain partition airline" in out.stdout
    assert "verification_reports 1/1" in out.stdout
    store = ArtifactStore(awm_home)
    assert store.exists("airline__00", "report.json")
    assert not store.exists("airline__01", "scenario.json")  # AWM_SLOTS=1 in the code location
    # the daemon's backfill run recorded every check on the domain's partition, none Skipped
    for asset, check in (("scenarios", "scenarios_valid"), ("databases", "databases_yield"),
                         ("verification_reports", "verification_reports_solvability")):
        statuses = check_partition_statuses(url, asset, check, until=lambda s: "airline" in s["succeeded"])
        assert "airline" in statuses["succeeded"] and "airline" not in statuses["skipped"], (check, statuses)


def test_backfill_against_no_server_is_a_clear_error():
    out = subprocess.run([sys.executable, "-m", "awm.cli", "backfill", "--domain", "airline", "--url",
                          "http://127.0.0.1:9"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "cannot reach the Dagster webserver at http://127.0.0.1:9" in out.stderr


def test_backfill_refuses_an_invalid_domain():
    out = subprocess.run([sys.executable, "-m", "awm.cli", "backfill", "--domain", "Bad|Domain"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "invalid domain slug 'Bad|Domain'" in out.stderr
