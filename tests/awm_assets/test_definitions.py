"""The Dagster definitions load, and the asset graph has the lineage the pipeline promises."""

import dagster as dg

from awm_assets.constants import CATALOG_JOB, CORPUS_JOB, STAGE_ASSETS
from awm_assets.definitions import defs


def test_definitions_load():
    graph = defs.resolve_asset_graph()
    keys = {k.to_user_string() for k in graph.get_all_asset_keys()}
    assert set(STAGE_ASSETS) | {"environment_catalog"} <= keys
    assert defs.resolve_job_def(CORPUS_JOB) is not None
    assert defs.resolve_job_def(CATALOG_JOB) is not None
    assert defs.resolve_sensor_def("domain_seeds_sensor") is not None
    assert defs.resolve_schedule_def("nightly_domain_regeneration") is not None


def test_lineage_is_a_chain_from_scenarios_to_the_catalog():
    graph = defs.resolve_asset_graph()
    chain = list(STAGE_ASSETS) + ["environment_catalog"]
    for upstream, downstream in zip(chain, chain[1:]):
        parents = {k.to_user_string() for k in graph.get(dg.AssetKey(downstream)).parent_keys}
        assert upstream in parents, (downstream, parents)


def test_stage_assets_are_partitioned_by_domain_and_described():
    graph = defs.resolve_asset_graph()
    for name in STAGE_ASSETS:
        node = graph.get(dg.AssetKey(name))
        assert node.partitions_def is not None and node.partitions_def.name == "domains"
        assert node.description and node.code_version
        assert node.group_name == "awm_pipeline"


def test_an_asset_added_beside_the_stages_is_built_by_the_corpus_job():
    """A contributor's new domain-partitioned asset (here downstream of the verification reports) is in the job
    `make run` launches without a change to the job."""
    from awm_assets.jobs import corpus_job
    from awm_assets.partitions import STAGE_ASSET_OPTIONS

    @dg.asset(name="task_summaries", deps=["verification_reports"], **STAGE_ASSET_OPTIONS)
    def task_summaries() -> None:
        return None

    assets = list(defs.assets) + [task_summaries]
    extended = dg.Definitions(assets=assets, asset_checks=list(defs.asset_checks), jobs=[corpus_job],
                              resources=defs.resources)
    selected = {k.to_user_string() for k in extended.resolve_job_def(CORPUS_JOB).asset_layer.selected_asset_keys}
    assert selected == set(STAGE_ASSETS) | {"task_summaries"}
