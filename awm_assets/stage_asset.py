"""The Dagster asset of a core stage, made from its declaration in the stage registry.

Its key, upstream dependency, code version and stage number come from awm/registry.py; what it
does is awm_assets/stage_runner.py (every environment of the run's domains through the stage's build
function); each stage's module (awm_assets/<stage>.py) adds only what a person sees: kinds, a
description and a preview of what was built.
"""

# No `from __future__ import annotations`: Dagster reads the asset function's parameter annotations at runtime.
import dagster as dg

from awm.registry import stage
from awm_assets.partitions import STAGE_ASSET_OPTIONS
from awm_assets.stage_runner import PreviewFn, run_stage
from resources import ArtifactStoreResource, GeneratorResource


def stage_asset(name: str, kinds: set[str], description: str, preview: PreviewFn) -> dg.AssetsDefinition:
    spec = stage(name)

    @dg.asset(
        name=spec.name,
        deps=[spec.upstream.name] if spec.upstream else [],
        kinds=kinds,
        code_version=spec.code_version,
        tags={"stage": str(spec.number)},
        description=description,
        **STAGE_ASSET_OPTIONS,
    )
    def stage_step(context: dg.AssetExecutionContext, store: ArtifactStoreResource,
                   generator: GeneratorResource) -> dg.MaterializeResult:
        return run_stage(context, store, generator, spec, preview)

    return stage_step
