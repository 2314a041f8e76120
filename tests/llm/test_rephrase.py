"""Model phrasing of the offline builder's tasks: a rewrite must keep every stated value, or it is asked for again;
the goals stay the builder's, so the tasks stay proven."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from awm.backends import get_backend
from awm.contracts import TaskSet, VerificationReport
from awm.llm.rephrase import PHRASING, Rephraser, rewrite_problems, stated_values
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore

ORIGINAL = ("Hi, this is Ann Lee (ann.lee@example.com). Please cancel my order ORD-1042 and refund its payment with "
            "the reason 'billing error'; then add 2 x 'Desk Lamp' to ORD-1043 and tell me the new total.")


class ScriptedModel:
    """An OpenAI-compatible model that answers from a script: each call gets the next rewrite function."""

    def __init__(self, *rewrites):
        self.rewrites = list(rewrites)
        self.settings = SimpleNamespace(model="scripted-1")
        self.calls: list[dict] = []

    def complete(self, stage, messages, output, schema_name, tags, on_record=None, check=None, answer_tokens=None):
        instruction = json.loads(re.search(r"<task>\n(.*?)\n</task>", messages[1]["content"], re.S).group(1))[
            "instruction"]
        self.calls.append({"stage": stage, "schema": schema_name, "prompt": messages[1]["content"], "tags": tags})
        rewrite = self.rewrites.pop(0) if len(self.rewrites) > 1 else self.rewrites[0]
        return output.model_validate({"instruction": rewrite(instruction)})


def test_the_values_an_instruction_states_are_found():
    values = stated_values(ORIGINAL)
    assert {"ann.lee@example.com", "ORD-1042", "ORD-1043", "'billing error'", "'Desk Lamp'", "2"} <= values


@pytest.mark.parametrize("rewrite,problem", [
    (ORIGINAL.replace("ORD-1042", "ORD-1024"), "drops or changes ORD-1042"),
    (ORIGINAL.replace("'billing error'", "'a billing error'"), "drops or changes 'billing error'"),
    (ORIGINAL.replace("2 x", "3 x"), "drops or changes 2"),
    (ORIGINAL + " Also add 5 more.", "states values the original does not: 5"),
    (ORIGINAL.replace("Ann Lee", "Anne"), "drops the names Ann Lee"),
    (ORIGINAL * 3, "much longer"),
])
def test_a_rewrite_that_drops_changes_or_adds_a_value_is_rejected(rewrite, problem):
    assert any(problem in p for p in rewrite_problems(ORIGINAL, rewrite))


def test_a_rewrite_that_keeps_one_of_two_mentions_of_a_value_is_rejected():
    """A value stated twice is two references: a rewrite that keeps one has lost what the other said."""
    original = "Add one 'Kettle' to my order ORD-1042, or if it is too late, order one 'Kettle' on a new order."
    rewrite = "Add one it to my order ORD-1042, or if it is too late, order one 'Kettle' on a new order."
    assert "it states values fewer times than the original: 'Kettle' 2 -> 1" in rewrite_problems(original, rewrite)


def test_a_faithful_rewrite_is_accepted():
    rewrite = ("Ann Lee here (ann.lee@example.com). Could you call off order ORD-1042 and refund what I paid, reason "
               "'billing error'? Then please put 2 x 'Desk Lamp' on ORD-1043 and let me know the new total.")
    assert rewrite_problems(ORIGINAL, rewrite) == []


def test_a_rejected_rewrite_is_asked_for_again_with_the_reason():
    model = ScriptedModel(lambda text: text.replace("ORD-1042", "ORD-9999"), lambda text: "So: " + text)
    rephraser = Rephraser(model)
    task = SimpleNamespace(task_id="t01", instruction=ORIGINAL, kind="action")
    assert rephraser.instruction("shop__00", task) == "So: " + ORIGINAL
    assert [c["stage"] for c in model.calls] == ["phrasing", "phrasing"]
    assert "ORD-1042" in model.calls[1]["prompt"] and "rejected" in model.calls[1]["prompt"]
    assert model.calls[1]["tags"].attempt == 2 and rephraser.rejected[0][0] == "shop__00/t01"


def test_after_the_last_rejected_rewrite_the_builders_wording_stands():
    model = ScriptedModel(lambda text: "Cancel everything.")
    rephraser = Rephraser(model, attempts=2)
    task = SimpleNamespace(task_id="t01", instruction=ORIGINAL, kind="action")
    assert rephraser.instruction("shop__00", task) == ORIGINAL and len(model.calls) == 2


def test_rephrased_tasks_keep_their_goals_and_pass_every_proof(tmp_path):
    model = ScriptedModel(lambda text: "Hello there! " + text)
    plain, phrased = ArtifactStore(tmp_path / "plain"), ArtifactStore(tmp_path / "phrased")
    build_environment(plain, "dental_clinic", 0)
    outcomes = build_environment(phrased, "dental_clinic", 0, backend=get_backend("offline", rephraser=Rephraser(model)))
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    before = plain.read_model("dental_clinic__00", "tasks.json", TaskSet).tasks
    after = phrased.read_model("dental_clinic__00", "tasks.json", TaskSet).tasks
    assert [t.instruction for t in after] == ["Hello there! " + t.instruction for t in before]
    assert [t.goals for t in after] == [t.goals for t in before]
    report = phrased.read_model("dental_clinic__00", "report.json", VerificationReport)
    assert all(t.publishable for t in report.tasks)
    assert len(model.calls) == len(after) and PHRASING.stage == "phrasing"


def test_with_the_switch_on_llm_serve_rephrases_every_task_once_and_a_dropped_value_is_asked_for_again(
        serve, tmp_path, monkeypatch):
    """AWM_TASK_PHRASING=model through the real client and a real OpenAI-compatible endpoint (`awm llm-serve`):
    every instruction is rewritten, the goals stay the builder's and are proven; a rewrite that loses a value is
    rejected and asked for again; a second build of the same environment is answered from the cache."""
    from awm.backends.offline import OfflineBackend
    from awm.builder.world import make_scenario
    from awm.llm_serve.simulator import OPENINGS

    monkeypatch.setenv("AWM_TASK_PHRASING", "model")
    monkeypatch.setenv("OPENAI_BASE_URL", serve.url)
    monkeypatch.setenv("AWM_LLM_MODEL", "awm-offline")
    monkeypatch.setenv("AWM_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("AWM_HOME", str(tmp_path / "home"))  # the model-call cache lives here
    serve.faults({"fault": "dropped_value", "stage": "phrasing", "times": 1})
    store = ArtifactStore(tmp_path / "home")
    outcomes = build_environment(store, "dental_clinic", 0, backend=get_backend("offline"))
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]

    plain = OfflineBackend().tasks(make_scenario("dental_clinic", 0)).tasks
    phrased = store.read_model("dental_clinic__00", "tasks.json", TaskSet).tasks
    for before, after in zip(plain, phrased, strict=True):
        opening, _, rest = after.instruction.partition(" ")
        assert opening in {o.split()[0] for o in OPENINGS}, after.instruction
        assert before.instruction in after.instruction, (before.instruction, after.instruction)
        assert after.goals == before.goals and after.reference_solution == before.reference_solution
    report = store.read_model("dental_clinic__00", "report.json", VerificationReport)
    assert len(report.tasks) == len(phrased) and all(t.publishable for t in report.tasks)

    calls = [r for r in serve.requests() if r["stage"] == "phrasing"]
    spoiled = [r for r in calls if r["faults"] == ["dropped_value"]]
    assert len(spoiled) == 1 and len(calls) == len(phrased) + 1  # the spoiled rewrite, asked for once more
    assert sum(r["task_id"] == spoiled[0]["task_id"] for r in calls) == 2
    from awm.llm.ledger import Ledger

    outcomes = [r.outcome for r in Ledger(tmp_path / "home" / "llm" / "ledger.sqlite").records(stage="phrasing")]
    assert outcomes.count("rejected") == 1 and outcomes.count("ok") == len(phrased)  # the lost value, recorded
    ledger = Ledger(tmp_path / "home" / "llm" / "ledger.sqlite")

    again = ArtifactStore(tmp_path / "again")  # another corpus, the same model-call cache (AWM_HOME)
    outcomes = build_environment(again, "dental_clinic", 0, backend=get_backend("offline"))
    assert all(o.ok for o in outcomes)
    assert [t.instruction for t in again.read_model("dental_clinic__00", "tasks.json", TaskSet).tasks] == \
        [t.instruction for t in phrased]
    assert len([r for r in serve.requests() if r["stage"] == "phrasing"]) == len(calls)  # all from the cache
    replayed = [r for r in ledger.records(stage="phrasing") if r.cache_hit]
    assert [r.outcome for r in replayed].count("rejected") == 1 and len(replayed) == len(calls)


class FailingModel(ScriptedModel):
    """Raises the given errors, one per call, then rewrites as its script says."""

    def __init__(self, errors, *rewrites):
        super().__init__(*rewrites)
        self.errors = list(errors)

    def complete(self, stage, messages, output, schema_name, tags, on_record=None, check=None, answer_tokens=None):
        if self.errors:
            self.calls.append({"stage": stage, "prompt": messages[1]["content"], "tags": tags})
            raise self.errors.pop(0)
        return super().complete(stage, messages, output, schema_name, tags, on_record, check)


def test_an_endpoint_error_keeps_the_builders_wording_of_every_task_and_says_why():
    from awm.llm.errors import LLMTransportError

    model = FailingModel([LLMTransportError("http://h/v1 failed: 5 request(s), last error 500")], lambda t: t)
    rephraser = Rephraser(model)
    tasks = [SimpleNamespace(task_id=f"t0{n}", instruction=ORIGINAL, kind="action") for n in (1, 2)]
    assert [rephraser.instruction("shop__00", t) for t in tasks] == [ORIGINAL, ORIGINAL]
    assert len(model.calls) == 1  # the endpoint is not asked again in this run
    report = rephraser.report("shop__00")
    assert report["phrasing_kept_original"] == 2 and "t01: LLMTransportError" in report["phrasing_kept_why"]
    assert "t02: the endpoint failed earlier in this run" in report["phrasing_kept_why"]


def test_an_unusable_answer_is_asked_for_again_with_the_reason():
    from awm.llm.errors import MalformedOutputError

    model = FailingModel([MalformedOutputError("the response is not valid JSON: Expecting ':' delimiter")],
                         lambda text: "So: " + text)
    rephraser = Rephraser(model)
    task = SimpleNamespace(task_id="t01", instruction=ORIGINAL, kind="action")
    assert rephraser.instruction("shop__00", task) == "So: " + ORIGINAL
    assert "Expecting ':' delimiter" in model.calls[1]["prompt"] and rephraser.report("shop__00") == {
        "phrasing_kept_original": 0}


def test_with_the_endpoint_failing_every_task_is_built_in_the_builders_wording(serve, tmp_path, monkeypatch):
    """AWM_TASK_PHRASING=model and an endpoint answering 500: the corpus is built, not lost; the tasks stage's
    metrics say how many instructions kept the builder's wording and why."""
    from awm.backends.offline import OfflineBackend
    from awm.builder.world import make_scenario

    for var, value in (("AWM_TASK_PHRASING", "model"), ("OPENAI_BASE_URL", serve.url), ("AWM_LLM_MODEL", "awm-offline"),
                       ("AWM_LLM_TRANSPORT_RETRIES", "0"), ("AWM_HOME", str(tmp_path / "home"))):
        monkeypatch.setenv(var, value)
    serve.faults({"fault": "http_500", "stage": "phrasing", "times": None})
    store = ArtifactStore(tmp_path / "home")
    outcomes = build_environment(store, "dental_clinic", 0, backend=get_backend("offline"))
    assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
    plain = OfflineBackend().tasks(make_scenario("dental_clinic", 0)).tasks
    built = store.read_model("dental_clinic__00", "tasks.json", TaskSet).tasks
    assert [t.instruction for t in built] == [t.instruction for t in plain]
    metrics = store.provenance("dental_clinic__00")["tasks"].metrics
    assert metrics["phrasing_kept_original"] == len(plain) and "500" in metrics["phrasing_kept_why"]
    assert len([r for r in serve.requests() if r["stage"] == "phrasing"]) == 1


def test_phrasing_with_an_unreachable_endpoint_fails_before_building(monkeypatch, tmp_path):
    from awm.llm.errors import LLMConfigError

    for var, value in (("AWM_TASK_PHRASING", "model"), ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1"),
                       ("OPENAI_API_KEY", "k"), ("AWM_HOME", str(tmp_path))):
        monkeypatch.setenv(var, value)
    with pytest.raises(LLMConfigError, match="cannot reach the LLM endpoint http://127.0.0.1:9/v1"):
        get_backend("offline")
