"""The production profile: Dagster storage on a real PostgreSQL server, a domain materialized end to end.

.ci/run starts the server (scripts/start_postgres.sh) and sets AWM_TEST_PG_URL. Outside CI, without a
server, the test is skipped; in CI a missing server is a failure, not a skip.
"""

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa

PG_URL = os.environ.get("AWM_TEST_PG_URL")

if not PG_URL and os.environ.get("CI"):
    raise RuntimeError("CI must start PostgreSQL and set AWM_TEST_PG_URL (scripts/start_postgres.sh)")
pytestmark = pytest.mark.skipif(not PG_URL, reason="no PostgreSQL server (run scripts/start_postgres.sh)")


@pytest.fixture
def fresh_database():
    """A new database on the server, so runs from earlier tests do not count."""
    base, _, _ = PG_URL.rpartition("/")
    name = f"awm_test_{os.getpid()}"
    admin = sa.create_engine(PG_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f"DROP DATABASE IF EXISTS {name}"))
        conn.execute(sa.text(f"CREATE DATABASE {name}"))
    admin.dispose()
    yield f"{base}/{name}"


def test_production_profile_materializes_a_domain_on_postgres(tmp_path, fresh_database):
    env = {**os.environ, "AWM_HOME": str(tmp_path / "home"), "AWM_DOMAINS": "airline", "AWM_SLOTS": "2",
           "AWM_DAGSTER_PROFILE": "production", "AWM_PG_URL": fresh_database}
    env.pop("DAGSTER_HOME", None)
    out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "environments built     2 of 2" in out.stdout
    config = (tmp_path / "home" / "dagster" / "dagster.yaml").read_text()
    assert "postgres_url" in config
    engine = sa.create_engine(fresh_database)
    with engine.connect() as conn:
        runs = conn.execute(sa.text("SELECT pipeline_name, status FROM runs")).fetchall()
        partitions = conn.execute(sa.text("SELECT partition FROM dynamic_partitions")).fetchall()
        materialized = conn.execute(sa.text(
            "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'")).scalar()
    engine.dispose()
    assert ("build_corpus", "SUCCESS") in [tuple(r) for r in runs]
    assert ("publish_catalog", "SUCCESS") in [tuple(r) for r in runs]
    assert ("airline",) in [tuple(p) for p in partitions]
    assert materialized >= 7  # six stage assets for the domain and the catalog


def test_production_profile_without_a_url_is_a_clear_error(tmp_path):
    env = {**os.environ, "AWM_HOME": str(tmp_path), "AWM_DAGSTER_PROFILE": "production"}
    env.pop("AWM_PG_URL", None)
    env.pop("DAGSTER_HOME", None)
    out = subprocess.run([sys.executable, "-m", "awm_assets.launch"], env=env, capture_output=True, text=True)
    assert out.returncode == 2
    assert "the production profile needs AWM_PG_URL" in out.stderr
