"""The golden corpus: the sha256 of every artifact of a tiny build (one domain, one slot, the offline builder).

golden_corpus.json beside this file records, per stage, its code version and the sha256 of each file it
writes. A change that changes what the builder writes fails here until golden_corpus.json is regenerated
in the same commit:

    AWM_UPDATE_GOLDEN=1 pytest tests/awm/test_golden_corpus.py

so every change to the corpus shows in review as a change to this file. The failure also says whether the
stage's code version moved with its output: an output that changed while its code version did not means a
file that shapes the stage is missing from its sources (awm/sources.py, `SOURCES` in awm/backends/offline.py),
and a store built before would wrongly reuse it.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from awm.backends.offline import OfflineBackend
from awm.registry import STAGES
from awm.stages.base import code_version
from awm.stages.pipeline import build_environment
from awm.store import ArtifactStore

GOLDEN = Path(__file__).with_name("golden_corpus.json")
DOMAIN, SLOT = "retail_banking", 0
UPDATE = "AWM_UPDATE_GOLDEN=1 pytest tests/awm/test_golden_corpus.py"


def corpus_of(store: ArtifactStore, env_id: str, backend: OfflineBackend) -> dict:
    return {"environment": env_id, "stages": {spec.name: {
        "code_version": code_version(spec.name, backend.params, backend),
        "sha256": {a.name: hashlib.sha256(store.path(env_id, a.name).read_bytes()).hexdigest() for a in spec.outputs},
    } for spec in STAGES}}


def differences(golden: dict, current: dict) -> list[str]:
    found = []
    if golden.get("environment") != current["environment"]:
        return [f"the golden build is of {golden.get('environment')}, this one of {current['environment']}"]
    for name, now in current["stages"].items():
        then = golden["stages"].get(name)
        if then is None:
            found.append(f"{name}: a stage the golden corpus does not hold")
            continue
        changed = sorted(f for f in set(now["sha256"]) | set(then["sha256"]) if now["sha256"].get(f) != then["sha256"].get(f))
        if not changed:
            continue
        if now["code_version"] == then["code_version"]:
            why = (f"its code version did not change ({now['code_version']}): something that shapes it is missing "
                   "from its sources (awm/sources.py, SOURCES in awm/backends/offline.py)")
        else:
            why = f"its code version changed ({then['code_version']} -> {now['code_version']})"
        found.append(f"{name}: {', '.join(changed)} changed; {why}")
    return found


@pytest.fixture(scope="module")
def current(tmp_path_factory) -> dict:
    store = ArtifactStore(tmp_path_factory.mktemp("golden"))
    backend = OfflineBackend()
    outcomes = build_environment(store, DOMAIN, SLOT, backend)
    assert [o.status for o in outcomes] == ["built"] * len(STAGES), [(o.stage, o.error) for o in outcomes]
    return corpus_of(store, outcomes[0].env_id, backend)


def test_the_tiny_build_writes_the_golden_corpus(current):
    if os.environ.get("AWM_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(current, indent=1, sort_keys=True) + "\n")
    found = differences(json.loads(GOLDEN.read_text()), current)
    assert not found, (
        "the corpus the builder writes changed:\n  " + "\n  ".join(found) + "\nIf that is meant, regenerate the "
        f"golden corpus ({UPDATE}) and commit tests/awm/golden_corpus.json in the same commit as the change.")


def test_an_output_change_without_a_code_version_change_is_named(current):
    """The comparison itself: a changed file is found, and whether the code version moved with it is said."""
    golden = json.loads(json.dumps(current))
    golden["stages"]["tools"]["sha256"]["tools.py"] = "0" * 64
    assert differences(golden, current) == [
        f"tools: tools.py changed; its code version did not change ({current['stages']['tools']['code_version']}): "
        "something that shapes it is missing from its sources (awm/sources.py, SOURCES in awm/backends/offline.py)"]
    golden["stages"]["tools"]["code_version"] = "tools:0.1.0+1:offline-2:code-0000000000000000"
    assert differences(golden, current)[0].endswith(
        f"its code version changed (tools:0.1.0+1:offline-2:code-0000000000000000 -> "
        f"{current['stages']['tools']['code_version']})")
    assert differences(current, current) == []
