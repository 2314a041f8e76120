"""The LLM and generator resources: settings from the environment, validation, the offline default."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from awm.backends.offline import OfflineBackend
from awm.llm.errors import LLMConfigError
from resources import ArtifactStoreResource, GeneratorResource, LLMResource, resources_from_env


def test_llm_settings_come_from_the_environment(monkeypatch, tmp_path):
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"m1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0}}))
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:8000/v1")
    monkeypatch.setenv("AWM_LLM_MODEL", "m1")
    monkeypatch.setenv("AWM_LLM_CONCURRENCY", "16")
    monkeypatch.setenv("AWM_LLM_CACHE", "0")
    monkeypatch.setenv("AWM_LLM_PRICES", str(prices))
    monkeypatch.setenv("OPENAI_API_KEY", "secret")
    resource = LLMResource.from_env()
    assert (resource.base_url, resource.model, resource.concurrency, resource.cache) == (
        "http://127.0.0.1:8000/v1", "m1", 16, False)
    settings = resource.settings()
    assert settings.api_key.get_secret_value() == "secret" and settings.price().output_per_mtok == 2.0
    assert "secret" not in json.dumps(resource.describe())  # the key never enters config or metadata


def test_bad_settings_are_clear_errors(monkeypatch):
    monkeypatch.setenv("AWM_LLM_TEMPERATURE", "hot")
    with pytest.raises(LLMConfigError, match="AWM_LLM_TEMPERATURE='hot' is not a valid float"):
        LLMResource.from_env()
    monkeypatch.setenv("AWM_LLM_TEMPERATURE", "5")
    with pytest.raises(LLMConfigError, match=r"temperature \(AWM_LLM_TEMPERATURE\) is invalid"):
        LLMResource.from_env()
    monkeypatch.delenv("AWM_LLM_TEMPERATURE")
    monkeypatch.setenv("AWM_LLM_PRICES", '{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}')
    with pytest.raises(LLMConfigError, match="AWM_LLM_PRICES: price of m.input_per_mtok is invalid"):
        LLMResource.from_env()
    with pytest.raises(ValidationError, match="structured_output 'xml' is not one of"):
        LLMResource(structured_output="xml")
    with pytest.raises(ValidationError, match="backend 'gpt' is not one of offline, openai"):
        GeneratorResource(backend="gpt")


def test_the_offline_builder_stays_the_default(monkeypatch):
    monkeypatch.delenv("AWM_LLM_BACKEND", raising=False)
    generator = GeneratorResource.from_env()
    assert generator.backend == "offline" and generator.deterministic and generator.concurrency == 1
    assert isinstance(generator.get(), OfflineBackend)
    resources = resources_from_env()
    assert set(resources) == {"store", "llm", "generator", "agent"}
    monkeypatch.setenv("AWM_LLM_BACKEND", "openai")
    monkeypatch.setenv("AWM_RETRY_DELAY", "0.25")
    generator = GeneratorResource.from_env()
    assert generator.backend == "openai" and not generator.deterministic
    assert [generator.retry_delay(n) for n in (1, 2, 3)] == [0.25, 0.5, 1.0]


def test_a_run_that_sets_one_generator_field_keeps_the_environments_values_of_the_others(monkeypatch):
    import dagster as dg

    for var, value in (("AWM_SLOTS", "1"), ("AWM_SEED", "7"), ("AWM_TASKS_PER_ENV", "6"), ("AWM_LLM_MODEL", "m1")):
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("AWM_LLM_BACKEND", raising=False)
    seen: dict = {}

    @dg.asset
    def probe(generator: GeneratorResource):
        seen.update(slots=generator.slots, seed=generator.base_seed, tasks=generator.tasks_per_env,
                    model=generator.llm.model)

    resources = resources_from_env()
    dg.materialize([probe], resources=resources)
    assert seen == {"slots": 1, "seed": 7, "tasks": 6, "model": "m1"}
    dg.materialize([probe], resources=resources,
                   run_config={"resources": {"generator": {"config": {"tasks_per_env": 2}}}})
    assert seen == {"slots": 1, "seed": 7, "tasks": 2, "model": "m1"}


def test_the_store_reads_awm_home_when_a_run_starts(tmp_path, monkeypatch):
    """AWM_HOME is a dg.EnvVar in the definitions' store resource: a run reads it when it starts."""
    import dagster as dg

    monkeypatch.delenv("AWM_HOME", raising=False)
    monkeypatch.delenv("AWM_PROGRESS_FILE", raising=False)
    assert ArtifactStoreResource.from_env().home == ".awm" and ArtifactStoreResource.from_env().progress_file is None
    monkeypatch.setenv("AWM_HOME", str(tmp_path / "at-load"))
    monkeypatch.setenv("AWM_PROGRESS_FILE", str(tmp_path / "progress"))
    resource = ArtifactStoreResource.from_env()
    assert isinstance(resource.home, dg.EnvVar) and resource.home.env_var_name == "AWM_HOME"
    seen = {}

    @dg.asset
    def probe(store: ArtifactStoreResource) -> None:
        seen["home"] = store.store().home
        store.report_progress("scenarios", "airline__00", "built")

    monkeypatch.setenv("AWM_HOME", str(tmp_path / "at-run"))
    assert dg.materialize([probe], resources={"store": resource}).success
    assert seen["home"] == (tmp_path / "at-run").resolve()
    assert (tmp_path / "progress").read_text() == "scenarios airline__00 built\n"
