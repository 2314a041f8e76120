"""The Dagster asset of a core stage, made from its declaration in the stage registry.

Its key, upstream dependency and stage number come from awm/registry.py, its code version is the one the
offline builder's outputs record (`default_code_version`: the declared version, the generator and the digest
of the files that shape the stage's output, so a change to them marks the asset unsynced); what it
does is awm_assets/stage_runner.py (every environment of the run's domains through the stage's build
function); each stage's module (awm_assets/<stage>.py) adds only what a person sees: kinds, a
description and a preview of what was built.
"""

# No `from __future__ import annotations`: Dagster reads the asset function's parameter annotations at runtime.
import dagster as dg

from awm.backends.offline import OfflineBackend
from awm.registry import stage
from awm.stages.base import code_version
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import PreviewFn, run_stage
from resources import ArtifactStoreResource, GeneratorResource


def default_code_version(name: str) -> str:
    """The stage's code version as the default generator (the offline builder) records it in provenance: the
    UI marks the asset unsynced exactly when a run of the offline builder would rebuild its outputs."""
    backend = OfflineBackend()
    return code_version(name, backend.params, backend)


def stage_asset(name: str, kinds: set[str], description: str, preview: PreviewFn) -> dg.AssetsDefinition:
    spec = stage(name)

    @dg.asset(
        name=spec.name,
        deps=[spec.upstream.name] if spec.upstream else [],
        kinds=kinds,
        code_version=default_code_version(spec.name),
        tags={"stage": str(spec.number)},
        description=description,
        **STAGE_ASSET_OPTIONS,
    )
    def stage_step(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
                   generator: GeneratorResource) -> dg.MaterializeResult:
        return run_stage(context, store, generator, spec, preview)

    return stage_step
