"""Dagster resources wrapping the core services: the artifact store and the generator backend."""

from resources.generator import GeneratorResource
from resources.store import ArtifactStoreResource

__all__ = ["ArtifactStoreResource", "GeneratorResource"]
