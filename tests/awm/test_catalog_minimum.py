"""The catalog's minimum of proven tasks against environments built with fewer tasks (AWM_TASKS_PER_ENV)."""


def test_an_environment_built_with_fewer_tasks_than_the_catalog_minimum_publishes_when_all_pass(tmp_path):
    from awm.backends import get_backend
    from awm.stages.catalog import DEFAULT_MIN_TASKS, environment_status
    from awm.stages.pipeline import build_environment
    from awm.store import ArtifactStore

    store = ArtifactStore(tmp_path / "home")
    outcomes = build_environment(store, "bakery", 0, backend=get_backend("offline", tasks_per_env=2))
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    status, entries = environment_status(store, "bakery__00", DEFAULT_MIN_TASKS)
    assert DEFAULT_MIN_TASKS > 2 and (status.status, status.tasks, len(entries)) == ("published", 2, 2), status.reason
