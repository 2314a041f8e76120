"""Generation backends: one interface, an offline world builder and an LLM.

A backend turns upstream artifacts into the next stage's artifact. Stages
validate whatever a backend returns against the stage contract, so a backend
is trusted for nothing.
"""

from __future__ import annotations

from typing import Protocol

from awm.contracts import Scenario, SchemaSpec, TaskSet, ToolSet, VerifierSet


class Backend(Protocol):
    name: str
    model: str | None

    def scenario(self, domain: str, slot: int) -> Scenario: ...

    def tasks(self, scenario: Scenario) -> TaskSet: ...

    def schema(self, scenario: Scenario, tasks: TaskSet) -> SchemaSpec: ...

    def database_rows(self, scenario: Scenario, schema: SchemaSpec) -> dict[str, list[dict]]: ...

    def tools(self, scenario: Scenario, schema: SchemaSpec, tasks: TaskSet) -> tuple[str, ToolSet]: ...

    def verifiers(self, scenario: Scenario, tasks: TaskSet, tools: ToolSet) -> VerifierSet: ...


BACKENDS = ("offline", "openai")
PHRASING_ENV = "AWM_TASK_PHRASING"  # "model": the offline builder's instructions rewritten by the configured model


def get_backend(name: str = "offline", **options) -> Backend:
    """offline: the world builder (options base_seed, tasks_per_env, rephraser; with AWM_TASK_PHRASING=model and
    no rephraser given, the configured model rewrites each instruction, see awm/llm/rephrase.py).
    openai: a model behind an OpenAI-compatible endpoint (options client or settings, store, tasks_per_env,
    run_id; without a client, one is made from `settings`, default LLMSettings.from_env())."""
    if name == "offline":
        import os

        from awm.backends.offline import OfflineBackend

        run_id = options.pop("run_id", None)  # the ledger's run of the phrasing calls
        if "rephraser" not in options and os.environ.get(PHRASING_ENV) == "model":
            from awm.llm.client import LLMClient
            from awm.llm.rephrase import Rephraser
            from awm.llm.settings import LLMSettings
            from awm.store import ArtifactStore

            cache_home = options.pop("cache_home", None) or ArtifactStore().home  # cached like every model call
            rephraser = Rephraser(LLMClient(LLMSettings.from_env(), cache_home), run_id=run_id)
            rephraser.preflight()  # an unreachable endpoint or refused key fails here, with the reason
            options["rephraser"] = rephraser
        return OfflineBackend(**options)
    if name == "openai":
        from awm.backends.llm import LLMBackend
        from awm.llm.client import LLMClient
        from awm.llm.settings import LLMSettings

        client = options.pop("client", None)
        settings = options.pop("settings", None)
        store = options.get("store")
        if client is None:
            client = LLMClient(settings or LLMSettings.from_env(), store.home if store is not None else None)
        return LLMBackend(client, **options)
    raise ValueError(f"unknown backend {name!r}; available: {', '.join(BACKENDS)}")
