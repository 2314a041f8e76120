"""The offline world builder as a backend: deterministic, seeded, no network."""

from __future__ import annotations

from functools import lru_cache

from awm.builder.data import generate_rows
from awm.builder.taskgen import TASKS_PER_ENV, generate_tasks
from awm.builder.toolgen import generate_tools
from awm.builder.verifiergen import verifier_source
from awm.builder.world import WorldPlan, make_scenario, plan_world
from awm.contracts import Column, Scenario, SchemaSpec, Table, TaskSet, ToolSet, Verifier, VerifierSet
from awm.registry import stage as stage_spec
from awm.sources import closure, source_digest

BUILDER_VERSION = "offline-2"

# The builder modules each stage's method below calls. What they import is followed (awm/sources.py), and
# the stage's own module (its harness and gate) and this file are added: the digest of those files, with the
# catalogue's data files the catalogue package holds, is the code half of the stage's code version.
SOURCES: dict[str, tuple[str, ...]] = {
    "scenarios": ("awm.builder.world",),
    "tasks": ("awm.builder.world", "awm.builder.data", "awm.builder.taskgen"),
    "schemas": ("awm.builder.world",),
    "databases": ("awm.builder.world", "awm.builder.data"),
    "tools": ("awm.builder.world", "awm.builder.toolgen"),
    "verification_reports": ("awm.builder.world", "awm.builder.verifiergen"),
}
DISTRIBUTIONS = ("python", "faker")  # the interpreter (ast.unparse, inspect) and the package that fakes rows
# Imported by the stage harness for a model's usage only: the offline builder calls no model (a rephraser adds
# awm.llm.rephrase to the tasks stage's sources, and its model to the fingerprint).
NOT_CALLED = ("awm.llm",)


def _sources(stage: str, phrased: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    entries = (stage_spec(stage).module, "shallow:awm.backends.offline", *SOURCES[stage])
    if phrased and stage == "tasks":
        return (*entries, "awm.llm.rephrase"), ()
    return entries, NOT_CALLED


def source_files(stage: str, phrased: bool = False, root=None) -> tuple[str, ...]:
    """The source and data files that shape `stage`'s output when the offline builder makes it."""
    entries, exclude = _sources(stage, phrased)
    return closure(entries, exclude, root)


def sources_digest(stage: str, phrased: bool = False, root=None) -> str:
    """The digest of `source_files(stage)` and of the versions in DISTRIBUTIONS."""
    entries, exclude = _sources(stage, phrased)
    return source_digest(entries, DISTRIBUTIONS, exclude, root=root)


@lru_cache(maxsize=64)
def _plan(scenario_json: str) -> WorldPlan:
    return plan_world(Scenario.model_validate_json(scenario_json))


def _rows_by_table(plan: WorldPlan) -> dict[str, list[dict]]:
    rows = generate_rows(plan)
    return {plan[role].table: rows[role] for role in plan.entities}


class OfflineBackend:
    name = "offline"
    model = None

    def __init__(self, base_seed: int = 0, tasks_per_env: int = TASKS_PER_ENV, rephraser=None):
        self.base_seed = base_seed
        self.tasks_per_env = tasks_per_env
        self.rephraser = rephraser  # awm.llm.rephrase.Rephraser: a model rewrites the instructions (off by default)

    def fingerprint(self, stage: str) -> str:
        """The code and data the stage's output is made from: a built stage is reused only while the builder
        modules, templates, intents, phrasing, gates and catalogue files it was built from are unchanged."""
        phrased = self.rephraser is not None and stage == "tasks"
        code = f"code-{sources_digest(stage, phrased)}"
        return f"{code}:phrased-{self.rephraser.model}" if phrased else code

    def plan(self, scenario: Scenario) -> WorldPlan:
        return _plan(scenario.model_dump_json())

    @property
    def params(self) -> dict:
        params = {"base_seed": self.base_seed, "tasks_per_env": self.tasks_per_env, "builder": BUILDER_VERSION}
        if self.rephraser is not None:
            from awm.llm.rephrase import PHRASING

            params["phrasing"] = {"model": self.rephraser.model, "prompt": PHRASING.hash[:12]}
        return params

    def scenario(self, domain: str, slot: int) -> Scenario:
        return make_scenario(domain, slot, self.base_seed)

    def tasks(self, scenario: Scenario) -> TaskSet:
        plan = self.plan(scenario)
        tasks = generate_tasks(plan, generate_rows(plan), self.tasks_per_env)
        return self.rephraser.rephrase(tasks) if self.rephraser is not None else tasks

    def stage_notes(self, stage: str, env_id: str) -> dict:
        """Metrics of a stage's output that only this backend knows (what phrasing kept, and why)."""
        if stage == "tasks" and self.rephraser is not None:
            return self.rephraser.report(env_id)
        return {}

    def schema(self, scenario: Scenario, tasks: TaskSet) -> SchemaSpec:
        plan = self.plan(scenario)
        tables = []
        for entity in plan.entities.values():
            cols = []
            for c in entity.columns:
                cols.append(Column(
                    name=c.name, type=c.type, primary_key=c.name == "id", nullable=c.nullable,
                    unique=c.unique, references=f"{plan[c.ref].table}.id" if c.ref else None,
                    enum=list(c.enum) if c.enum else None, minimum=c.minimum, maximum=c.maximum,
                    description=c.description,
                ))
            tables.append(Table(name=entity.table, description=entity.description, columns=cols,
                                indexes=[list(ix) for ix in entity.indexes]))
        return SchemaSpec(env_id=scenario.env_id, tables=tables)

    def database_rows(self, scenario: Scenario, schema: SchemaSpec) -> dict[str, list[dict]]:
        return _rows_by_table(self.plan(scenario))

    def tools(self, scenario: Scenario, schema: SchemaSpec, tasks: TaskSet) -> tuple[str, ToolSet]:
        return generate_tools(self.plan(scenario))

    def verifiers(self, scenario: Scenario, tasks: TaskSet, tools: ToolSet) -> VerifierSet:
        return VerifierSet(env_id=scenario.env_id, verifiers=[
            Verifier(task_id=t.task_id, code=verifier_source(scenario.env_id, t)) for t in tasks.tasks
        ])
