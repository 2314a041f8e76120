"""The real Dagster assets with the LLM backend against `awm llm-serve` through the real openai client:
a clean run, zero calls on re-materialization, faults corrected by retries that carry the error into the
prompt, a persistent fault failing the partition with its reason, and preflight errors before any stage."""

from __future__ import annotations

import json
import shutil

import dagster as dg
import pytest

from awm.stages.base import ATTEMPT_LOG
from awm.store import ArtifactStore
from awm_assets.databases import databases
from awm_assets.scenarios import scenarios
from awm_assets.schemas import schemas
from awm_assets.tasks import tasks
from awm_assets.tools import tools
from awm_assets.verification_reports import verification_reports
from checks.databases import database_checks
from checks.scenarios import scenario_checks
from checks.schemas import schema_checks
from checks.tasks import task_checks
from checks.tools import tool_checks
from checks.verification_reports import verification_checks
from resources import ArtifactStoreResource, GeneratorResource, LLMResource

STAGES = [scenarios, tasks, schemas, databases, tools, verification_reports]
CHECKS = [*scenario_checks, *task_checks, *schema_checks, *database_checks, *tool_checks, *verification_checks]
PRICES = json.dumps({"awm-offline": {"input_per_mtok": 0.5, "output_per_mtok": 1.5}})


def llm_resources(home, serve, slots=1, **llm):
    settings = {"base_url": serve.url, "model": "awm-offline", "backoff_s": 0.01, "concurrency": 4,
                "prices_json": PRICES, **llm}
    return {"store": ArtifactStoreResource(home=str(home)),
            "generator": GeneratorResource(backend="openai", slots=slots, retry_delay_s=0.01,
                                           llm=LLMResource(**settings))}


def materialize(assets, domain, home, serve, raise_on_error=True, slots=1, **llm):
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", [domain])
        return dg.materialize(assets, partition_key=domain, instance=instance, raise_on_error=raise_on_error,
                              resources=llm_resources(home, serve, slots, **llm))


def metadata(result, asset: str) -> dict:
    mats = result.asset_materializations_for_node(asset)
    assert mats, f"no materialization of {asset}"
    return {k: v.value for k, v in mats[-1].metadata.items()}


def failure_text(result) -> str:
    """Every error the run's failure events carry, causes included."""
    texts = []
    for event in result.all_events:
        error = getattr(event.event_specific_data, "error", None)
        while error is not None:
            texts.append(error.message)
            error = error.cause
    return "\n".join(texts)


def prompt(entry: dict) -> str:
    return next(m["content"] for m in entry["messages"] if m["role"] == "user")


@pytest.mark.slow
def test_clean_run_then_rematerializing_makes_zero_calls(serve, home):
    result = materialize(STAGES + CHECKS, "dental_clinic", home, serve, slots=2)
    assert result.success
    evaluations = result.get_asset_check_evaluations()
    assert len(evaluations) == sum(len(c.check_specs_by_output_name) for c in CHECKS)
    failing = [(e.check_name, e.metadata) for e in evaluations if not e.passed]
    assert not failing, failing  # the same checks the offline builder's environments pass
    report = metadata(result, "verification_reports")
    assert report["built"] == 2 and report["failed"] == 0
    assert report["total_publishable"] == 20  # every task proven: reference passes, null trajectory fails
    assert report["llm_calls"] == 20 and report["llm_api_calls"] == 20 and report["llm_cache_hits"] == 0
    tasks_meta = metadata(result, "tasks")
    assert tasks_meta["llm_calls"] == 2 and tasks_meta["llm_prompt_tokens"] > 0
    expected = (tasks_meta["llm_prompt_tokens"] * 0.5 + tasks_meta["llm_completion_tokens"] * 1.5) / 1e6
    assert tasks_meta["llm_cost_usd"] == pytest.approx(expected, abs=1e-6)
    served = len(serve.requests())  # 17 or 18 calls an environment: the tools in two parts or three
    assert 34 <= served <= 36 and f"| dental_clinic | {served} | 0 |" in report["llm_cost_by_domain"]
    assert tasks_meta["llm_structured_output"] == "json_schema"

    again = materialize(STAGES, "dental_clinic", home, serve, slots=2)
    assert again.success and len(serve.requests()) == served  # valid environments are reused: no calls
    assert metadata(again, "tools")["reused"] == 2 and metadata(again, "tools")["llm_calls"] == 0

    shutil.rmtree(ArtifactStore(home).corpus_dir)  # lose every artifact, keep the response cache
    rebuilt = materialize(STAGES, "dental_clinic", home, serve, slots=2)
    assert rebuilt.success and len(serve.requests()) == served  # every answer came from the cache
    assert metadata(rebuilt, "verification_reports")["llm_cache_hits"] == 20
    assert metadata(rebuilt, "verification_reports")["total_publishable"] == 20


def part_number(entry: dict) -> int | None:
    """Which part of a stage asked in parts a request is (awm/llm/fit.py), from its <part> block."""
    text = prompt(entry)
    return json.loads(text.split("<part>\n")[1].split("\n</part>")[0]).get("part") if "<part>" in text else None


FAULTS = {  # fault -> (prompt stage, what the retry's prompt must say about the rejected answer)
    "schema_violation": ("scenarios", "name: Field required"),
    "malformed_json": ("tasks", "is not valid JSON: Expecting ':' delimiter"),
    "truncated": ("schemas", "finish_reason length"),
    "bad_sql": ("databases", "FOREIGN KEY constraint failed"),
    "unsafe_code": ("tools", "import of 'os' is not allowed"),
    "lying_verifier": ("verifier", "on the untouched database with no answer the verifier said complete"),
}


def test_each_injected_fault_is_corrected_by_a_retry_whose_prompt_has_the_error(serve, home):
    serve.faults(*[{"fault": fault, "stage": stage, "times": 1} for fault, (stage, _) in FAULTS.items()],
                 {"fault": "http_429", "stage": "tasks", "times": 1},
                 {"fault": "missing_usage", "stage": "schemas", "times": 1})
    result = materialize(STAGES, "pet_grooming", home, serve)
    assert result.success
    received = serve.requests(messages=True)
    for fault, (stage, error) in FAULTS.items():
        calls = [r for r in received if r["stage"] == stage]
        bad = next(n for n, r in enumerate(calls) if fault in r["faults"])
        retry = next(r for r in calls[bad + 1:] if r["task_id"] == calls[bad]["task_id"] and r["status"] == 200
                     and part_number(r) == part_number(calls[bad]))  # databases and tools are asked in parts
        assert "<previous_attempt_errors>" in prompt(retry), fault
        assert error in prompt(retry), (fault, prompt(retry)[-1500:])
        assert "<previous_attempt_errors>" not in prompt(calls[bad])
    retried = {e.step_key for e in result.all_events if e.event_type_value == "STEP_UP_FOR_RETRY"}
    assert retried == {a.key.path[-1] for a in STAGES}  # each stage once, through Dagster
    store = ArtifactStore(home)
    provenance = store.provenance("pet_grooming__00")
    assert {stage: p.attempts for stage, p in provenance.items()} == dict.fromkeys(provenance, 2)
    assert "FOREIGN KEY constraint failed" in provenance["databases"].errors[0]
    meta = metadata(result, "databases")
    assert meta["attempt"] == 2 and "built at attempt 2" in meta["self_corrected"]
    assert metadata(result, "tasks")["llm_transport_retries"] == 1  # the 429, retried inside the client
    assert metadata(result, "schemas")["llm_calls_without_usage"] == 1
    assert metadata(result, "verification_reports")["total_publishable"] == 10
    assert not store.exists("pet_grooming__00", ATTEMPT_LOG)


def test_a_fault_that_persists_fails_the_partition_with_the_reason(serve, home):
    """Every environment of the domain fails every attempt: the partition is still materialized with the reason,
    its yield check is an ERROR, and the next stage skips it; nothing is published."""
    serve.faults({"fault": "schema_violation", "stage": "tasks", "times": None})
    result = materialize([scenarios, tasks, schemas, *task_checks], "bakery", home, serve, raise_on_error=False)
    assert not [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    meta = metadata(result, "tasks")
    assert (meta["built"], meta["failed"], meta["attempt"]) == (0, 1, 5)
    assert "acting_user: Field required" in meta["attempt_errors"]
    calls = [r for r in serve.requests(messages=True) if r["stage"] == "tasks"]
    assert len(calls) == 5
    assert prompt(calls[-1]).count("- attempt ") == 4  # every earlier error, bounded
    store = ArtifactStore(home)
    assert not store.exists("bakery__00", "tasks.json")
    assert store.failure("bakery__00").stage == "tasks"
    assert len(json.loads(store.path("bakery__00", ATTEMPT_LOG).read_text())["tasks"]) == 5
    checks = {e.asset_check_evaluation_data.check_name: e.asset_check_evaluation_data
              for e in result.all_events if e.event_type_value == "ASSET_CHECK_EVALUATION"}
    assert not checks["tasks_yield"].passed and checks["tasks_yield"].severity == dg.AssetCheckSeverity.ERROR
    assert metadata(result, "schemas")["skipped (upstream failed)"] == 1


@pytest.mark.slow
def test_an_environment_failing_every_attempt_is_shown_on_its_domain_while_its_sibling_publishes(serve, home):
    serve.faults({"fault": "unsafe_code", "stage": "tools", "times": None, "env_id": "dental_clinic__01"})
    result = materialize(STAGES + CHECKS, "dental_clinic", home, serve, slots=2)
    assert result.success  # the sibling went through; the failed environment went no further
    tools_meta = metadata(result, "tools")
    assert tools_meta["attempt"] == 5 and tools_meta["failed"] == 1
    # the sibling was built by the step's first attempt and reused by the retries: built, not "reused"
    assert tools_meta["built"] == 1 and tools_meta["reused"] == 0
    assert "| dental_clinic__00 | built | 1 |" in tools_meta["environments_table"]
    assert tools_meta["failed_environment_ids"] == "dental_clinic__01"
    errors = tools_meta["attempt_errors"]
    assert [f"- attempt {n}, fed back to attempt {n + 1}: " in errors for n in range(1, 5)] == [True] * 4
    assert "- attempt 5, the last: " in errors
    assert errors.count("import of 'os' is not allowed") == 5
    verification = metadata(result, "verification_reports")
    assert verification["built"] == 1 and verification["skipped (upstream failed)"] == 1
    found = {e.check_name: e for e in result.get_asset_check_evaluations()}
    warn = found["tools_yield"]
    assert not warn.passed and warn.severity == dg.AssetCheckSeverity.WARN and warn.partition == "dental_clinic"
    assert warn.metadata["failed_environment_ids"].value == "dental_clinic__01"
    assert "tool_code_policy" in warn.metadata["failed_environments"].value
    assert found["tools_valid"].passed and found["verification_reports_yield"].passed
    assert ArtifactStore(home).failure("dental_clinic__01").stage == "tools"


def test_missing_key_or_unreachable_endpoint_fails_before_any_stage(serve, home, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    result = materialize([scenarios], "airline", home, serve, raise_on_error=False)
    assert not result.success
    assert "no API key: set OPENAI_API_KEY" in failure_text(result)
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    result = materialize([scenarios], "airline", home, serve, raise_on_error=False, base_url="http://127.0.0.1:9/v1")
    assert not result.success
    assert "cannot reach the LLM endpoint http://127.0.0.1:9/v1" in failure_text(result)
    assert serve.requests() == [] and not ArtifactStore(home).env_ids()


def test_llm_settings_are_run_config_of_the_llm_resource(serve, home):
    llm = LLMResource.configure_at_launch()
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions("domains", ["airline"])
        result = dg.materialize(
            [scenarios], partition_key="airline", instance=instance,
            resources={"store": ArtifactStoreResource(home=str(home)), "llm": llm,
                       "generator": GeneratorResource(backend="openai", slots=1, llm=llm)},
            run_config={"resources": {"llm": {"config": {"base_url": serve.url, "model": "awm-offline"}}}})
    assert result.success and metadata(result, "scenarios")["llm_model"] == "awm-offline"
    assert [r["env_id"] for r in serve.requests()] == ["airline__00"]


def test_an_endpoint_that_keeps_failing_is_not_retried_by_dagster_and_the_failure_says_so(serve, home):
    """A 5xx on every request: the client's 5 requests, not 5 x 5 through Dagster retries, and no prompt ever
    carries the transport error."""
    serve.faults({"fault": "http_500", "stage": "tasks", "times": None})
    result = materialize([scenarios, tasks], "bakery", home, serve, raise_on_error=False)
    calls = [r for r in serve.requests(messages=True) if r["stage"] == "tasks"]
    assert len(calls) == 5 and all("<previous_attempt_errors>" not in prompt(c) for c in calls)
    assert not [e for e in result.all_events if e.event_type_value == "STEP_UP_FOR_RETRY"]
    meta = metadata(result, "tasks")
    assert (meta["failed"], meta["attempt"], meta["llm_requests"]) == (1, 1, 5)
    assert "5 request(s) for this tasks call, last error 500" in meta["attempt_errors"]
    assert "not shown to the model" in meta["attempt_errors"]


def test_a_server_refusing_json_schema_with_500_builds_with_the_mode_it_accepts(llama_serve, home, monkeypatch):
    """llama-cpp-python's answer to json_schema (HTTP 500, literal_error) under a profile that starts at json_schema:
    one refused request in the whole run, every other request in json_object, the mode in the metadata."""
    serve = llama_serve.ready(monkeypatch)
    result = materialize([scenarios, tasks], "bakery", home, serve, profile="openai")
    assert result.success
    sent = [(r["stage"], r["mode"], r["status"]) for r in serve.requests()]
    assert sent == [("scenarios", "json_schema", 500), ("scenarios", "json_object", 200),
                    ("tasks", "json_object", 200)]
    meta = metadata(result, "tasks")
    assert meta["llm_structured_output"] == "json_object" and meta["llm_structured_output_modes"] == "json_object 1"
    assert "literal_error" in meta["llm_endpoint"]["refusals"][0]
    provenance = ArtifactStore(home).provenance("bakery__00")
    assert provenance["scenarios"].metrics["llm_usage"]["llm_requests"] == 2
    assert provenance["tasks"].metrics["llm_usage"]["llm_structured_output_modes"] == "json_object 1"
