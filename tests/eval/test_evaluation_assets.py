"""agent_rollouts and evaluation_report as real Dagster materializations, and `awm eval` killed and resumed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import dagster as dg
import pytest

from awm.eval.report import pass_at_k
from awm.eval.rollouts import agent_dir, read_trajectory
from awm.export import export_lines
from awm.stages.catalog import build_catalog
from awm_assets.constants import AGENT_PARTITIONS_NAME, DOMAIN_PARTITIONS_NAME, EVALUATION_JOB
from awm_assets.definitions import defs
from awm_assets.evaluation import agent_rollouts, evaluation_report
from resources import ArtifactStoreResource
from resources.agent import AgentResource
from tests.conftest import copied_store
from tests.eval.conftest import DOMAIN
from tests.llm.conftest import API_KEY


def materialize(instance, store, agent, model, k=1, seed=0, write_catalog=False):
    instance.add_dynamic_partitions(AGENT_PARTITIONS_NAME, [model])
    key = dg.MultiPartitionKey({"domain": DOMAIN, "agent": model})
    result = dg.materialize(
        [agent_rollouts, evaluation_report], partition_key=key, instance=instance,
        resources={"store": ArtifactStoreResource(home=str(store.home)),
                   "agent": AgentResource(base_url=agent.url, transport_retries=0)},
        run_config={"ops": {"agent_rollouts": {"config": {"k": k, "seed": seed}},
                            "evaluation_report": {"config": {"write_catalog": write_catalog}}}})
    assert result.success
    return ({k: v.value for k, v in result.asset_materializations_for_node(node)[0].metadata.items()}
            for node in ("agent_rollouts", "evaluation_report"))


@pytest.fixture
def instance():
    with dg.instance_for_test() as instance:
        instance.add_dynamic_partitions(DOMAIN_PARTITIONS_NAME, [DOMAIN])
        yield instance


def test_the_evaluation_job_covers_both_assets_on_the_domain_by_agent_grid():
    job = defs.resolve_job_def(EVALUATION_JOB)
    assert set(job.asset_layer.executable_asset_keys) == {dg.AssetKey("agent_rollouts"),
                                                          dg.AssetKey("evaluation_report")}
    partitions = defs.resolve_assets_def("agent_rollouts").partitions_def
    assert isinstance(partitions, dg.MultiPartitionsDefinition)
    assert {d.name for d in partitions.partitions_defs} == {"domain", "agent"}
    # each cell reads its own domain's verification reports, so a rebuilt domain makes its evaluations stale
    mapping = defs.resolve_asset_graph().get_partition_mapping(dg.AssetKey("agent_rollouts"),
                                                               dg.AssetKey("verification_reports"))
    assert isinstance(mapping, dg.MultiToSingleDimensionPartitionMapping)


@pytest.mark.slow
def test_policies_through_dagster_and_a_second_materialization_makes_no_model_call(eval_corpus, agent, instance):
    catalog_before = eval_corpus.catalog_path.read_text()
    rollouts, report = materialize(instance, eval_corpus, agent, "awm-agent-reference")
    assert rollouts["rollouts"] == 20 and rollouts["passed"] == 20 and rollouts["model_calls"] > 20
    assert report["pass@1"] == 1.0 and report["hacking_flags"] == 0 and report["difficulty_written"] == 0
    assert "Every rollout passed." in report["failed_rollout_table"]
    assert "![evaluation](data:image/png;base64," in report["charts"]
    served = agent.stats()["served"]

    rollouts, report = materialize(instance, eval_corpus, agent, "awm-agent-reference")
    assert rollouts["model_calls"] == 0 and rollouts["reused_rollouts"] == 20 and report["pass@1"] == 1.0
    assert agent.stats()["served"] == served

    _, null = materialize(instance, eval_corpus, agent, "awm-agent-null")
    assert null["pass@1"] == 0.0 and null["mean_reward"] == 0.0
    _, hacker = materialize(instance, eval_corpus, agent, "awm-agent-hacker")
    assert hacker["pass@1"] == 0.0 and hacker["hacking_flags"] > 0
    assert "unexpected database changes" in hacker["failed_rollout_table"]
    assert eval_corpus.catalog_path.read_text() == catalog_before  # the evaluation writes its own output only
    exported = list(export_lines(eval_corpus, fractions=(0.5, 0.5, 0.0)))  # which the export reads
    assert len(exported) == 20 and all(r["difficulty"]["awm-agent-reference"]["pass_rate"] == 1.0 for r in exported)
    assert all(r["difficulty"]["awm-agent-null"]["level"] == "unsolved" for r in exported)

    _, onto = materialize(instance, eval_corpus, agent, "awm-agent-reference", write_catalog=True)  # when asked
    assert onto["difficulty_written"] == 20
    catalog = [json.loads(line) for line in eval_corpus.catalog_path.read_text().splitlines()]
    assert all(set(e["difficulty"]) == {"awm-agent-reference"} for e in catalog)
    assert all(e["difficulty"]["awm-agent-reference"]["level"] == "trivial" for e in catalog)

    # the catalog rebuilt from unchanged environments keeps the estimates
    build_catalog(eval_corpus, eval_corpus.env_ids(DOMAIN))
    assert [json.loads(line) for line in eval_corpus.catalog_path.read_text().splitlines()] == catalog


@pytest.mark.slow
def test_noisy_policy_pass_at_k_matches_the_estimator_on_the_trajectories_counts(eval_corpus, agent, instance, tmp_path):
    """On a copy of the corpus without this policy's earlier rollouts: another module's test on the same worker may
    have run it on the session's corpus with another k (tests/eval/test_rollouts.py, k=4), and the materialization
    would then resume from those and count them."""
    k = 3
    store = copied_store(eval_corpus, tmp_path)
    shutil.rmtree(agent_dir(store.home, "awm-agent-noisy-0.3"), ignore_errors=True)
    _, report = materialize(instance, store, agent, "awm-agent-noisy-0.3", k=k)
    counts: dict[tuple[str, str], list[int]] = {}
    folder = agent_dir(store.home, "awm-agent-noisy-0.3") / DOMAIN
    for path in folder.rglob("s*.jsonl"):
        last = read_trajectory(path)[-1]
        entry = counts.setdefault((last["env_id"], last["task_id"]), [0, 0])
        entry[0] += 1
        entry[1] += last["passed"]
    assert len(counts) == 20 and all(n == k for n, _ in counts.values())
    expected = {j: sum(pass_at_k(n, c, j) for n, c in counts.values()) / 20 for j in (1, k)}
    assert 0 < report["pass@1"] < 1
    assert report["pass@1"] == pytest.approx(expected[1], abs=1e-4)
    assert report[f"pass@{k}"] == pytest.approx(expected[k], abs=1e-4)
    saved = json.loads((folder / "report.json").read_text())
    assert {(t["env_id"], t["task_id"]): [t["n"], t["c"]] for t in saved["tasks"]} == {
        key: value for key, value in counts.items()}


@pytest.mark.slow
def test_awm_eval_killed_mid_run_resumes_without_repeating_finished_rollouts(eval_corpus, agent):
    agent.latency(60)
    env = {**os.environ, "AWM_HOME": str(eval_corpus.home), "OPENAI_API_KEY": API_KEY}
    env.pop("DAGSTER_HOME", None)
    command = [sys.executable, "-m", "awm.cli", "eval", "--model", "awm-agent-reference", "--domains", DOMAIN,
               "--k", "2", "--seed", "500", "--base-url", agent.url, "--concurrency", "2"]
    folder = agent_dir(eval_corpus.home, "awm-agent-reference") / DOMAIN
    before = set(folder.rglob("s*.jsonl"))
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while len(set(folder.rglob("s*.jsonl")) - before) < 6 and time.monotonic() < deadline:
        time.sleep(0.1)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=10)
    finished = {(t["env_id"], t["task_id"], t["seed"]) for t in
                (read_trajectory(p)[-1] for p in set(folder.rglob("s*.jsonl")) - before)}
    assert 6 <= len(finished) < 40
    agent.reset()

    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "marked 1 run(s) of a killed earlier evaluation as failed" in done.stdout
    asked = {(r["env_id"], r["task_id"], r["seed"]) for r in agent.requests()}
    assert asked and not asked & finished  # no finished rollout asked the model again
    new = set(folder.rglob("s*.jsonl")) - before
    assert len(new) == 40 and all(read_trajectory(p)[-1]["passed"] for p in new)
    line = next(line for line in done.stdout.splitlines() if line.strip().startswith(DOMAIN))
    assert line.split()[1:4] == ["20", "40", "1.000"]


@pytest.mark.parametrize(("args", "message"), [
    (["--model", "bad|model", "--domains", DOMAIN], "agent name 'bad|model' is not valid"),
    (["--model", "m", "--domains", "llama_farm"], "domain 'llama_farm' has no environments"),
    (["--model", "m", "--domains", "Bad Domain"], "Bad Domain"),
])
def test_awm_eval_refuses_bad_input_with_a_clear_error(eval_corpus, args, message):
    env = {**os.environ, "AWM_HOME": str(eval_corpus.home)}
    out = subprocess.run([sys.executable, "-m", "awm.cli", "eval", *args], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and message in out.stderr, out.stdout + out.stderr
