"""Dagster resources wrapping the core services: the artifact store, the generator backend, the LLM."""

from resources.agent import AgentResource
from resources.generator import GeneratorResource
from resources.llm import LLMResource
from resources.store import ArtifactStoreResource


def resources_from_env() -> dict:
    """The code location's resources, with defaults from the environment. The LLM settings are one
    resource (`llm`) that the generator uses, so every knob can be changed per run in the launchpad."""
    llm = LLMResource.configurable_from_env()
    return {"store": ArtifactStoreResource.from_env(), "llm": llm, "generator": GeneratorResource.configurable_from_env(llm),
            "agent": AgentResource.configurable_from_env()}


__all__ = ["AgentResource", "ArtifactStoreResource", "GeneratorResource", "LLMResource", "resources_from_env"]
