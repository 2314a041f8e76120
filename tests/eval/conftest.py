"""A small built corpus and `awm llm-serve --agent` serving it, shared by the evaluation tests."""

from __future__ import annotations

import pytest

from awm.stages.catalog import build_catalog
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore
from tests.conftest import built_once_per_run
from tests.llm.conftest import API_KEY, LLMServe, start_llm_serve

DOMAIN = "dental_clinic"


def build_eval_corpus(store: ArtifactStore) -> None:
    env_ids = []
    for slot in (0, 1):
        outcomes = build_environment(store, DOMAIN, slot)
        assert all(o.ok for o in outcomes), [(o.stage, o.error) for o in outcomes if not o.ok]
        env_ids.append(outcomes[0].env_id)
    assert len(build_catalog(store, env_ids).entries) == 20


@pytest.fixture(scope="session")
def eval_corpus(tmp_path_factory) -> ArtifactStore:
    """Two environments of one domain (20 tasks), built and published."""
    return built_once_per_run(tmp_path_factory, "eval-corpus", build_eval_corpus)


@pytest.fixture(scope="session")
def agent_serve(eval_corpus: ArtifactStore):
    server = start_llm_serve("--agent", "--api-key", API_KEY, home=eval_corpus.home)
    yield server
    server.stop()


@pytest.fixture
def agent(agent_serve: LLMServe, monkeypatch) -> LLMServe:
    """The agent server with no faults, no latency and an empty request log; OPENAI_API_KEY set."""
    return agent_serve.ready(monkeypatch)
