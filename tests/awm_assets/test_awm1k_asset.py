"""The Dagster path of an AWM-1K import: the sensor registers their scenarios as partitions, a partition's
materialization imports the scenario, and the catalog publishes its checked tasks with their tier."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import pytest

from awm.runtime import isolation
from awm.runtime.isolation import Isolation
from awm.store import ArtifactStore
from awm_assets.awm1k import awm1k_environments, awm1k_scenarios_sensor
from awm_assets.catalog import environment_catalog
from awm_assets.constants import AWM1K_PARTITIONS_NAME
from resources import ArtifactStoreResource, GeneratorResource

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "awm1k" / "sample"


def test_scenarios_become_partitions_and_a_partition_imports_its_scenario(tmp_path, monkeypatch):
    if not isinstance(isolation.os_isolation(), Isolation):
        pytest.skip("OS-level isolation is unavailable on this machine")
    monkeypatch.setenv("AWM1K_DIR", str(SAMPLE))
    resources = {"store": ArtifactStoreResource(home=str(tmp_path / "home")),
                 "generator": GeneratorResource(slots=1)}
    with dg.instance_for_test() as instance:
        result = awm1k_scenarios_sensor(dg.build_sensor_context(instance=instance))
        assert [r.partition_keys for r in result.dynamic_partitions_requests] == [["e_commerce_33"]]
        instance.add_dynamic_partitions(AWM1K_PARTITIONS_NAME, ["e_commerce_33"])
        done = dg.materialize([awm1k_environments], partition_key="e_commerce_33", instance=instance,
                              resources=resources)
        assert done.success
        meta = done.asset_materializations_for_node("awm1k_environments")[0].metadata
        assert meta["checked_environments"].value == 1
        assert dg.materialize([environment_catalog], instance=instance, resources=resources).success
    store = ArtifactStore(tmp_path / "home")
    lines = [json.loads(line) for line in store.catalog_path.read_text().splitlines()]
    assert [(e["env_id"], e["tier"]) for e in lines] == [("e_commerce_33__00", "checked")]
