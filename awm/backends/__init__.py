"""Generation backends: one interface, an offline world builder and (later) an LLM.

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


def get_backend(name: str = "offline", **options) -> Backend:
    if name == "offline":
        from awm.backends.offline import OfflineBackend

        return OfflineBackend(**options)
    raise ValueError(f"unknown backend {name!r}; available: offline")
